//! The buffer plan and run-time error exits of the function being lowered: buffers are
//! allocated per op result, freed into a pool after their last use and reused by an allocation
//! of an equal size ([`FunctionLowering::alloc`]); in functions with several blocks a buffer is
//! freed on the edges leaving the block that allocated it when no live value refers to it, else
//! a frame owns it until the function returns ([`FunctionLowering::close_block_buffers`]). A failed run-time check branches to an exit that
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
    /// Freed at the end of the block that allocated it (functions with several blocks).
    Freed,
}

/// A buffer the function owns: its pointer and size in bytes (a constant or a register).
#[derive(Clone, Debug)]
pub(super) struct Buf {
    pub(super) ptr: Val,
    pub(super) bytes: Val,
    pub(super) state: BufState,
    /// Live values referring to it (views included).
    pub(super) refs: u32,
    /// Owned by the frame of a function with several blocks (freed when it returns); until the
    /// end of the block that allocates it a buffer is the block's.
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
    /// In a function with several blocks the buffer belongs to the block being lowered until
    /// its terminator ([`FunctionLowering::close_block_buffers`]).
    pub fn alloc(&mut self, bytes: &Val) -> R<(Val, usize)> {
        if let Some(i) = self
            .bufs
            .iter()
            .position(|b| b.state == BufState::Pooled && !b.in_frame && b.bytes == *bytes)
        {
            self.bufs[i].state = BufState::Live;
            self.stats.reuses += 1;
            return Ok((self.bufs[i].ptr.clone(), i));
        }
        self.stats.allocations += 1;
        let p = self.f.emit("ptr", format!("call ptr @xcs_rt_alloc(i64 {bytes})"));
        let null = self.f.emit("i1", format!("icmp eq ptr {p}, null"));
        let site = self.cur_site;
        let msg = self.module.msg(site, "out of memory");
        self.fail_if(&null, site, &msg);
        self.bufs.push(Buf {
            ptr: p.clone(),
            bytes: bytes.clone(),
            state: BufState::Live,
            refs: 0,
            in_frame: false,
        });
        Ok((p, self.bufs.len() - 1))
    }

    /// Hands buffer `b` (allocated by the block being lowered, `free_too` the ones to free with
    /// it if that fails) to the frame; when the frame cannot take it, frees them, records "out
    /// of memory" at the current op and returns 1.
    fn push_to_frame(&mut self, b: usize, free_too: &[usize]) {
        let Some(fr) = self.frame.clone() else { return };
        let p = self.bufs[b].ptr.clone();
        let st = self.f.emit("i32", format!("call i32 @xcs_rt_frame_push(ptr {fr}, ptr {p})"));
        let bad = self.f.emit("i1", format!("icmp ne i32 {st}, 0"));
        let e = self.f.label("pushfail");
        let ok = self.f.label("pushok");
        self.f.condbr(&bad, &e, &ok);
        self.f.start(&e);
        for &k in std::iter::once(&b).chain(free_too) {
            self.f.raw(format!("call void @xcs_rt_free(ptr {})", self.bufs[k].ptr));
        }
        let site = self.cur_site;
        let msg = self.module.msg(site, "out of memory");
        let record = RunTimeError::Message(&msg).record_call(&mut self.module.m, site);
        self.f.raw(record);
        self.f.raw(format!("call void @xcs_rt_frame_release(ptr {fr})"));
        self.f.ret(&Val::i32(1));
        self.f.start(&ok);
    }

    /// A buffer `b` made on a branch's edge for a block argument: the frame owns it at once.
    pub(super) fn give_to_frame(&mut self, b: usize) {
        if self.frame.is_some() && !self.bufs[b].in_frame {
            let others: Vec<usize> = self.open_buffers().into_iter().filter(|&k| k != b).collect();
            self.push_to_frame(b, &others);
            self.bufs[b].in_frame = true;
        }
    }

    /// The buffers the block being lowered allocated and still has (not freed, not the frame's).
    fn open_buffers(&self) -> Vec<usize> {
        (0..self.bufs.len())
            .filter(|&b| !self.bufs[b].in_frame && matches!(self.bufs[b].state, BufState::Live | BufState::Pooled))
            .collect()
    }

    /// Emits, on an edge leaving the block being lowered (a function with several blocks), what
    /// becomes of the buffers the block allocated: those no live value refers to are freed,
    /// the others (values used in other blocks, values passed to block arguments) go to the
    /// frame. Their states change when the terminator is done ([`Self::block_buffers_closed`]),
    /// since every edge of the terminator emits the same.
    pub(super) fn close_block_buffers(&mut self) {
        let (dead, live): (Vec<usize>, Vec<usize>) = self.open_buffers().into_iter().partition(|&b| self.bufs[b].refs == 0);
        for &b in &dead {
            self.f.raw(format!("call void @xcs_rt_free(ptr {})", self.bufs[b].ptr));
        }
        for (k, &b) in live.iter().enumerate() {
            self.push_to_frame(b, &live[k + 1..]);
        }
    }

    /// The terminator of the block being lowered is done: its buffers are freed or the frame's
    /// (`returned`: the function returned, freeing them all but its results).
    pub(super) fn block_buffers_closed(&mut self, returned: bool) {
        for b in &mut self.bufs {
            if b.in_frame || !matches!(b.state, BufState::Live | BufState::Pooled) {
                continue;
            }
            if b.refs == 0 || returned {
                b.state = BufState::Freed;
            } else {
                b.in_frame = true;
            }
        }
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
