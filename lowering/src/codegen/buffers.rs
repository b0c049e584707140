//! The buffer plan and run-time error exits of the function being lowered: buffers are
//! allocated per op result, freed into a pool after their last use and reused by an allocation
//! of an equal size ([`FunctionLowering::alloc`]); in functions with several blocks a frame
//! owns them until the function returns. A failed run-time check branches to an exit that
//! records the error, frees what the function owns and returns 1 ([`RunTimeCheck::fail_if`],
//! which outlined kernels implement too).

use xcs_dialects::interp::ElemType;

use super::function::FunctionLowering;
use super::llvm_ir::{ModuleBuilder, Val};
use super::loops::copy_into;
use super::types::elem_size;
use super::values::{row_major, TensorVal};
use super::R;

/// A run-time error to record: the message, or a format with two `%lld` and their values.
#[derive(Clone, Copy)]
pub enum RunTimeError<'a> {
    Message(&'a str),
    Format2 { fmt: &'a str, a: &'a Val, b: &'a Val },
}

impl RunTimeError<'_> {
    /// The call of the runtime function that records the error at `site` (`xcs_rt_fail` or
    /// `xcs_rt_fail2`); the text becomes a constant string of `m`.
    pub(super) fn record_call(self, m: &mut ModuleBuilder, site: i32) -> String {
        match self {
            RunTimeError::Message(msg) => {
                let s = m.cstr(msg);
                format!("call i32 @xcs_rt_fail(i32 {site}, ptr {s})")
            }
            RunTimeError::Format2 { fmt, a, b } => {
                let s = m.cstr(fmt);
                format!("call i32 @xcs_rt_fail2(i32 {site}, ptr {s}, i64 {a}, i64 {b})")
            }
        }
    }
}

/// Code a failed run-time check can leave from: the function being lowered (which frees what it
/// owns and returns 1) or an outlined kernel (which returns 1 to its launcher).
pub trait RunTimeCheck {
    /// Branches to a new block that records `error` at `site` and leaves, when `bad` holds.
    fn branch_to_failure(&mut self, bad: &Val, site: i32, error: RunTimeError<'_>);
    /// Records `error` and leaves when `bad` holds (emits nothing when `bad` is constant false).
    fn fail_with_if(&mut self, bad: &Val, site: i32, error: RunTimeError<'_>) {
        if bad.as_bool() != Some(false) {
            self.branch_to_failure(bad, site, error);
        }
    }
    /// Fails with `msg` (a full message, see [`ModuleLowering::msg`](super::ModuleLowering::msg))
    /// when `bad` holds.
    fn fail_if(&mut self, bad: &Val, site: i32, msg: &str) {
        self.fail_with_if(bad, site, RunTimeError::Message(msg));
    }
    /// Fails with `fmt` (two `%lld`) formatted with `a` and `b` when `bad` holds.
    fn fail2_if(&mut self, bad: &Val, site: i32, fmt: &str, a: &Val, b: &Val) {
        self.fail_with_if(bad, site, RunTimeError::Format2 { fmt, a, b });
    }
}

/// The life of a buffer of the function being lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BufState {
    /// Referenced by live values.
    Live,
    /// Dead, kept for reuse by an allocation of the same size.
    Pooled,
    /// Handed to the caller as a result.
    Handed,
}

/// A buffer the function owns: its pointer and size in bytes (a constant or a register).
#[derive(Clone, Debug)]
pub(super) struct Buf {
    pub(super) ptr: Val,
    pub(super) bytes: Val,
    pub(super) state: BufState,
    /// Live values referring to it (views included).
    pub(super) refs: u32,
    /// Owned by the frame of a function with several blocks (freed when it returns).
    pub(super) in_frame: bool,
}

/// Statistics of the buffer plan of one lowering (for tests and `docs/lowering.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanStats {
    /// `xcs_rt_alloc` call sites emitted for intermediates and results.
    pub allocations: usize,
    /// Allocations served from a dead buffer of the same size instead.
    pub reuses: usize,
}

impl FunctionLowering<'_, '_> {
    /// A buffer of `bytes` bytes: a dead buffer of the same (static or same-register) size if
    /// there is one, else a new allocation (failing with "out of memory" at the current op).
    pub fn alloc(&mut self, bytes: &Val) -> R<(Val, usize)> {
        if self.frame.is_none() {
            if let Some(i) = self
                .bufs
                .iter()
                .position(|b| b.state == BufState::Pooled && b.bytes == *bytes)
            {
                self.bufs[i].state = BufState::Live;
                self.stats.reuses += 1;
                return Ok((self.bufs[i].ptr.clone(), i));
            }
        }
        self.stats.allocations += 1;
        let p = self.f.emit("ptr", format!("call ptr @xcs_rt_alloc(i64 {bytes})"));
        let null = self.f.emit("i1", format!("icmp eq ptr {p}, null"));
        let site = self.cur_site;
        let msg = self.module.msg(site, "out of memory");
        self.fail_if(&null, site, &msg);
        if let Some(fr) = self.frame.clone() {
            let st = self
                .f
                .emit("i32", format!("call i32 @xcs_rt_frame_push(ptr {fr}, ptr {p})"));
            let bad = self.f.emit("i1", format!("icmp ne i32 {st}, 0"));
            let e = self.f.label("pushfail");
            let ok = self.f.label("pushok");
            self.f.condbr(&bad, &e, &ok);
            self.f.start(&e);
            self.f.raw(format!("call void @xcs_rt_free(ptr {p})"));
            let record = RunTimeError::Message(&msg).record_call(&mut self.module.m, site);
            self.f.raw(record);
            self.cleanup_and_ret(&Val::i32(1));
            self.f.start(&ok);
        }
        let in_frame = self.frame.is_some();
        self.bufs.push(Buf {
            ptr: p.clone(),
            bytes: bytes.clone(),
            state: BufState::Live,
            refs: 0,
            in_frame,
        });
        Ok((p, self.bufs.len() - 1))
    }

    /// A new contiguous tensor of `elem` with sizes `dims`.
    pub fn new_tensor(&mut self, elem: ElemType, dims: &[Val]) -> R<TensorVal> {
        let n = self.f.product(dims);
        let bytes = self.f.mul(&n, &Val::i64(elem_size(elem)));
        let (ptr, b) = self.alloc(&bytes)?;
        let strides = row_major(&mut self.f, dims);
        Ok(TensorVal {
            ptr,
            dims: dims.to_vec(),
            strides,
            elem,
            contiguous: true,
            buf: Some(b),
        })
    }

    /// Frees what this function owns (not results) and returns `status`.
    pub(super) fn cleanup_and_ret(&mut self, status: &Val) {
        for b in &self.bufs {
            if matches!(b.state, BufState::Live | BufState::Pooled) && !b.in_frame {
                self.f.raw(format!("call void @xcs_rt_free(ptr {})", b.ptr));
            }
        }
        if let Some(fr) = &self.frame {
            self.f.raw(format!("call void @xcs_rt_frame_release(ptr {fr})"));
        }
        self.f.ret(status);
    }

    /// Returns `st` when it is not 0 (the error is already recorded), freeing what is live.
    pub fn check_status(&mut self, st: &Val) {
        let bad = self.f.emit("i1", format!("icmp ne i32 {st}, 0"));
        let (e, ok) = (self.f.label("err"), self.f.label("ok"));
        self.f.condbr(&bad, &e, &ok);
        self.f.start(&e);
        self.cleanup_and_ret(st);
        self.f.start(&ok);
    }

    /// A contiguous copy of `t` (or `t` itself when it is contiguous).
    pub fn contiguous(&mut self, t: &TensorVal) -> R<TensorVal> {
        if t.contiguous {
            return Ok(t.clone());
        }
        let out = self.new_tensor(t.elem, &t.dims)?;
        copy_into(self, t, &out)?;
        Ok(out)
    }

    /// A buffer allocated elsewhere (a callee's result, `bytes` long) becomes this function's
    /// tensor of `elem` with sizes `dims`; in a function with a frame the frame takes it
    /// (failing with "out of memory" at `site` when it cannot).
    pub fn adopt_tensor(&mut self, ptr: Val, dims: Vec<Val>, bytes: Val, elem: ElemType, site: i32) -> R<TensorVal> {
        let in_frame = self.frame.is_some();
        if let Some(fr) = self.frame.clone() {
            let st = self
                .f
                .emit("i32", format!("call i32 @xcs_rt_frame_push(ptr {fr}, ptr {ptr})"));
            let bad = self.f.emit("i1", format!("icmp ne i32 {st}, 0"));
            let msg = self.module.msg(site, "out of memory");
            self.f.if_then(&bad, |f| {
                f.raw(format!("call void @xcs_rt_free(ptr {ptr})"));
                Ok(())
            })?;
            self.fail_if(&bad, site, &msg);
        }
        self.bufs.push(Buf {
            ptr: ptr.clone(),
            bytes,
            state: BufState::Live,
            refs: 0,
            in_frame,
        });
        let strides = row_major(&mut self.f, &dims);
        Ok(TensorVal {
            ptr,
            dims,
            strides,
            elem,
            contiguous: true,
            buf: Some(self.bufs.len() - 1),
        })
    }

    /// The buffer of an owning block argument, whose data pointer is the phi `ptr`: the buffers
    /// flowing into it are the frame's (see `inplace`), so it frees nothing and is never pooled.
    pub(super) fn phi_buffer(&mut self, ptr: &Val) -> usize {
        self.bufs.push(Buf {
            ptr: ptr.clone(),
            bytes: Val::i64(-1),
            state: BufState::Live,
            refs: 0,
            in_frame: true,
        });
        self.bufs.len() - 1
    }

    /// Buffer `b` is live and referred to by one live value only (which may write into it).
    pub(super) fn buffer_is_exclusive(&self, b: usize) -> bool {
        self.bufs[b].state == BufState::Live && self.bufs[b].refs == 1
    }

    /// Buffer `b` (a temporary no value refers to) is dead: it goes back to the pool.
    pub fn pool_buffer(&mut self, b: usize) {
        self.bufs[b].state = BufState::Pooled;
    }
}

impl RunTimeCheck for FunctionLowering<'_, '_> {
    /// Records the error, frees what is live and returns 1.
    fn branch_to_failure(&mut self, bad: &Val, site: i32, error: RunTimeError<'_>) {
        let (e, ok) = (self.f.label("fail"), self.f.label("ok"));
        self.f.condbr(bad, &e, &ok);
        self.f.start(&e);
        let record = error.record_call(&mut self.module.m, site);
        self.f.raw(record);
        self.cleanup_and_ret(&Val::i32(1));
        self.f.start(&ok);
    }
}
