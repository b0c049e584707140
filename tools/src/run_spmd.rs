//! `xcs-run --devices=2x4` and `xcs-run --mpi`: running a partitioned (SPMD) function on every
//! device of a grid. The function records its grid and the split axes of its arguments and
//! results as `shard-partition` writes them (`shard.spmd_grid`, `shard.split_axes`:
//! [`Signature`]); the inputs are the full tensors
//! (the same `--input` names as for the unpartitioned function), sliced per device, and each
//! result is reassembled from the devices' blocks and written or printed as for one device.
//!
//! - `--devices`: one process, one thread per device, collectives over shared memory; on the
//!   JIT (`xcs_lowering::spmd::run_on_devices`) or the interpreter (`interp::spmd::Spmd`).
//! - `--mpi`: one process per device under `mpirun` (rank r is device r, row-major): each rank
//!   reads the full inputs and keeps its slice, compiles (or interprets) the function and runs
//!   it with the MPI communicator; rank 0 gathers the results. Errors found before the run
//!   (parse, inputs, compile) are agreed on by all ranks, printed once by the lowest failing
//!   rank, and every rank exits 1; a rank failing during the run prints its error and aborts
//!   the job (MPI_Abort), since the others may wait for it in a collective. See
//!   docs/xcs-run.md.

use clap::ArgMatches;
use xcs_dialects::interp::spmd::{Spmd, Split};
use xcs_dialects::interp::{read_npy_bytes, write_npy_bytes, GridShape, Interpreter, RtValue, Scalar};
use xcs_dialects::shard::Signature;
use xcs_ir::{Context, Module, TypeKind, DYNAMIC};
use xcs_lowering::mpi::{Mpi, MpiComm};
use xcs_lowering::spmd::{call_on_devices, coords_text, device_inputs, join_results, run_on_devices, SpmdError};

use crate::run::{emit_results, prepare, render_diagnostic, render_jit_error, time_calls, EntrySignature, Prepared, Timing};
use crate::Compiler;

/// The grid an SPMD run uses and the split axes of each argument and result.
pub struct SpmdPlan {
    pub grid: GridShape,
    pub args: Vec<Split>,
    pub results: Vec<Split>,
}

/// A grid shape as `--devices` gives it: `2x4`, `8`.
pub fn parse_shape(text: &str) -> Result<Vec<usize>, String> {
    let dims: Option<Vec<usize>> = text.split('x').map(|d| d.trim().parse::<usize>().ok().filter(|&n| n > 0)).collect();
    match dims {
        Some(d) if !d.is_empty() && d.len() <= 8 => Ok(d),
        _ => Err(format!("--devices '{text}': expected a grid shape such as 2x4 (positive sizes, at most 8 axes)")),
    }
}

/// The plan of running function `entry` (of signature `sig`) of `module`: its recorded
/// signature ([`Signature`]), on the grid `--devices` gives (which must agree with the
/// function's grid) or the function's own. A function without a signature runs replicated on
/// every device of the `--devices` grid.
pub fn plan(ctx: &Context, module: &Module, entry: &str, sig: &EntrySignature, devices: Option<&str>) -> Result<SpmdPlan, String> {
    let recorded = Signature::find(ctx, module, entry).transpose()?;
    let given = devices.map(parse_shape).transpose()?;
    let grid = match (&recorded, given) {
        (Some((_, g)), Some(d)) => {
            let agree = g.shape.len() == d.len() && g.shape.iter().zip(&d).all(|(&s, &n)| s == DYNAMIC || s as usize == n);
            if !agree {
                return Err(format!("--devices {} does not fit @{entry}, which runs on @{} of shape {}", shape_text(&d), g.name, grid_text(&g.shape)));
            }
            d
        }
        (Some((_, g)), None) => g.devices().map(|g| g.0).ok_or_else(|| format!("@{} has dynamic sizes: give the grid's shape with --devices", g.name))?,
        (None, Some(d)) => d,
        (None, None) => {
            return Err(format!("@{entry} is not partitioned (it has no 'shard.spmd_grid' attribute): give the grid's shape with --devices"))
        }
    };
    let grid = GridShape(grid);
    let (args, results) = match &recorded {
        Some((s, _)) => (s.arg_splits(sig.args.len())?, s.result_splits(sig.results.len())?),
        None => (vec![Vec::new(); sig.args.len()], vec![Vec::new(); sig.results.len()]),
    };
    let check = |list: &[Split], what: &str| -> Result<(), String> {
        for (i, split) in list.iter().enumerate() {
            if let Some(&a) = split.iter().flatten().find(|&&a| a >= grid.rank()) {
                return Err(format!("@{entry}: the split axes of {what} #{i} name grid axis {a}, which the grid {grid} does not have"));
            }
        }
        Ok(())
    };
    check(&args, "argument")?;
    check(&results, "result")?;
    Ok(SpmdPlan { args, results, grid })
}

/// Gives the arguments and results of `sig` their full types: each split dim of a local type
/// times the number of its blocks (`?` stays `?`).
pub fn full_types(ctx: &Context, plan: &SpmdPlan, sig: &mut EntrySignature) {
    let widen = |ty: xcs_ir::Type, split: &Split| -> xcs_ir::Type {
        let TypeKind::RankedTensor { shape, elem, .. } = ctx.type_kind(ty) else { return ty };
        let mut shape = shape.to_vec();
        for (d, axes) in split.iter().enumerate() {
            if let Some(s) = shape.get_mut(d).filter(|s| **s != DYNAMIC) {
                *s *= plan.grid.group_size(axes) as i64;
            }
        }
        ctx.tensor_type(&shape, *elem)
    };
    for (port, split) in sig.args.iter_mut().zip(&plan.args) {
        port.ty = widen(port.ty, split);
    }
    for (port, split) in sig.results.iter_mut().zip(&plan.results) {
        port.ty = widen(port.ty, split);
    }
}

fn shape_text(d: &[usize]) -> String {
    d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x")
}

fn grid_text(d: &[i64]) -> String {
    d.iter().map(|&x| if x == DYNAMIC { "?".into() } else { x.to_string() }).collect::<Vec<_>>().join("x")
}

/// `--devices`: runs the function on every device of the grid as threads of this process.
pub fn run_devices(p: &Prepared) -> Result<(Vec<RtValue>, Option<Timing>), String> {
    let plan = p.spmd.as_ref().ok_or("error: no device grid")?;
    if p.backend == "interp" {
        let providers = p.providers.clone();
        let configure = each_device(move |i| i.with_providers(providers.clone()));
        let spmd = Spmd::new(&p.xcs.ctx, &p.module, plan.grid.clone()).configure(&configure);
        let call = || spmd.run(&p.entry, &p.args, &plan.args, &plan.results).map_err(|e| render_diagnostic(&p.xcs, e.to_diagnostic()));
        let timing = p.bench.map(|n| time_calls(n, || call().map(|_| ()))).transpose()?;
        return Ok((call()?, timing));
    }
    let mut opts = xcs_lowering::Options::host();
    opts.threads = p.threads;
    opts.matmul = p.matmul;
    xcs_lowering::runtime::set_num_threads(p.threads);
    let jit = xcs_lowering::Jit::new(&p.xcs.ctx, &p.module, opts);
    let render = |e: SpmdError| render_jit_error(&p.xcs, &e.error, e.to_diagnostic());
    let Some(n) = p.bench else {
        return Ok((run_on_devices(&jit, &p.entry, &plan.grid, &p.args, &plan.args, &plan.results).map_err(render)?, None));
    };
    // timed: the compilation, then the devices' calls alone (inputs sliced once, results not
    // reassembled)
    let args: Vec<Vec<RtValue>> = (0..plan.grid.num_devices())
        .map(|d| device_inputs(&plan.grid, d, &p.args, &plan.args))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("error: {e}"))?;
    let jit_error = |e: xcs_lowering::JitError| render_jit_error(&p.xcs, &e, e.to_diagnostic());
    let t0 = std::time::Instant::now();
    let code = jit.compile_for(&p.entry, &args[0]).map_err(jit_error)?;
    let compile = t0.elapsed();
    let inputs: Vec<_> = args.iter().map(|a| code.inputs(a)).collect::<Result<_, _>>().map_err(jit_error)?;
    let callable = code.callable();
    let mut t = time_calls(n, || call_on_devices(&plan.grid, &inputs, &|i| callable.run_discard(i)).map(|_| ()).map_err(render))?;
    t.compile = Some(compile);
    let results = run_on_devices(&jit, &p.entry, &plan.grid, &p.args, &plan.args, &plan.results).map_err(render)?;
    Ok((results, Some(t)))
}

/// `f` as the set-up of every device's interpreter (a closure for every lifetime).
fn each_device<F: for<'a> Fn(Interpreter<'a>) -> Interpreter<'a> + Sync>(f: F) -> F {
    f
}

/// What one rank runs: its communicator, its slice of the inputs, and the plan.
struct Rank {
    comm: MpiComm,
    local: Vec<RtValue>,
}

/// `--mpi`: runs the function as this process's device of an MPI job (see the module docs).
pub fn run_mpi(m: &ArgMatches, register: impl FnOnce(&mut Compiler)) -> Result<(), String> {
    let mpi = Mpi::load().map_err(|e| format!("error: {e}"))?;
    let prepared = prepare(m, register).and_then(|p| {
        let rank = setup_rank(&mpi, &p).map_err(|e| format!("error: {e}"))?;
        Ok((p, rank))
    });
    let (p, rank) = agree(&mpi, prepared)?;
    let plan = p.spmd.as_ref().ok_or("error: no device grid")?;
    let mut opts = xcs_lowering::Options::host();
    opts.threads = p.threads;
    opts.matmul = p.matmul;
    xcs_lowering::runtime::set_num_threads(p.threads);
    let jit = xcs_lowering::Jit::new(&p.xcs.ctx, &p.module, opts);
    let compiled = match p.backend {
        "interp" => Ok(None),
        _ => jit
            .compile_for(&p.entry, &rank.local)
            .and_then(|c| c.inputs(&rank.local).map(|i| Some((c, i))))
            .map_err(|e| render_jit_error(&p.xcs, &e, e.to_diagnostic())),
    };
    let compiled = agree(&mpi, compiled)?;
    let interp = Interpreter::new(&p.xcs.ctx, &p.module).with_device(&rank.comm).with_providers(p.providers.clone());
    // one call; its results when `keep` (a timed call drops them, as xcs-run --bench does)
    let call = |keep: bool| -> Result<Vec<RtValue>, String> {
        match &compiled {
            Some((c, inputs)) => {
                // SAFETY: the communicator lives until the end of this function.
                let _comm = unsafe { xcs_lowering::runtime::CommGuard::set(rank.comm.raw()) };
                let out = if keep { c.run(inputs) } else { c.run_discard(inputs).map(|_| Vec::new()) };
                out.map_err(|e| render_jit_error(&p.xcs, &e, located_on(&mpi, plan, e.to_diagnostic())))
            }
            None => interp.call(&p.entry, rank.local.clone()).map_err(|e| render_diagnostic(&p.xcs, located_on(&mpi, plan, e.to_diagnostic()))),
        }
    };
    let or_abort = |r: Result<Vec<RtValue>, String>| {
        r.unwrap_or_else(|e| {
            eprintln!("{}", e.trim_end());
            mpi.abort(1)
        })
    };
    let results = or_abort(call(true));
    if let Some(n) = p.bench {
        let t = time_mpi(&mpi, n, || drop(or_abort(call(false))));
        if mpi.rank() == 0 {
            println!("{}", t.line(&p.entry, p.backend, p.threads).replacen("bench:", &format!("bench: ranks={}", mpi.size()), 1));
        }
    }
    let gathered = encode(&results).and_then(|b| mpi.gather(&b));
    let out = match gathered {
        Ok(Some(parts)) => parts
            .iter()
            .map(|b| decode(b))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|per_rank| join_results(&plan.grid, &p.entry, &per_rank, &plan.results))
            .map_err(|e| format!("error: {e}"))
            .and_then(|full| emit_results(m, &p, &full)),
        Ok(None) => Ok(()),
        Err(e) => Err(format!("error: {e}")),
    };
    drop(interp);
    drop(rank);
    mpi.finalize();
    out
}

/// This rank's plan, communicator and slice of the inputs.
fn setup_rank(mpi: &Mpi, p: &Prepared) -> Result<Rank, String> {
    let plan = p.spmd.as_ref().ok_or("no device grid")?;
    let n = plan.grid.num_devices();
    if n != mpi.size() {
        return Err(format!("the grid {} has {n} devices but the MPI job has {} processes (run it with mpirun -np {n})", plan.grid, mpi.size()));
    }
    let comm = mpi.world_comm(&plan.grid)?;
    let local = device_inputs(&plan.grid, mpi.rank(), &p.args, &plan.args)?;
    Ok(Rank { comm, local })
}

/// Every rank learns whether all got `r` without an error; if one did not, the lowest such
/// rank prints its error, every rank finalizes MPI, and the run fails (exit 1).
fn agree<T>(mpi: &Mpi, r: Result<T, String>) -> Result<T, String> {
    match (mpi.first_failure(r.is_err()), r) {
        (None, Ok(v)) => Ok(v),
        (first, r) => {
            if let (Some(f), Err(e)) = (first, &r) {
                if f == mpi.rank() {
                    eprintln!("{}", e.trim_end());
                }
            }
            mpi.finalize();
            Err(String::new())
        }
    }
}

/// A run-time error with a note naming the rank and its device.
fn located_on(mpi: &Mpi, plan: &SpmdPlan, d: xcs_ir::Diagnostic) -> xcs_ir::Diagnostic {
    let grid = &plan.grid;
    let coords = grid.coords(mpi.rank());
    d.with_note(xcs_ir::Location::UNKNOWN, format!("on rank {} (device ({}) of grid {grid})", mpi.rank(), coords_text(&coords)))
}

/// One warm-up call, then `n` calls, each started together on every rank (a barrier) and
/// timed as the slowest rank's.
fn time_mpi(mpi: &Mpi, n: u64, mut call: impl FnMut()) -> Timing {
    let t = std::time::Instant::now();
    call();
    let first = t.elapsed();
    let mut calls = Vec::with_capacity(n as usize);
    for _ in 0..n {
        mpi.barrier();
        let t = std::time::Instant::now();
        call();
        calls.push(std::time::Duration::from_secs_f64(mpi.max(t.elapsed().as_secs_f64())));
    }
    calls.sort();
    Timing { calls, compile: None, first, cpu: Vec::new() }
}

/// The results of one rank as bytes: per result a kind byte (0: tensor, N: an iN scalar), the
/// length of its `.npy` bytes (u64) and the bytes.
fn encode(results: &[RtValue]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for v in results {
        let kind = match v {
            RtValue::Scalar(s) => s.width as u8,
            _ => 0,
        };
        let npy = write_npy_bytes(&v.to_tensor()?)?;
        out.push(kind);
        out.extend((npy.len() as u64).to_le_bytes());
        out.extend(npy);
    }
    Ok(out)
}

fn decode(mut bytes: &[u8]) -> Result<Vec<RtValue>, String> {
    let mut out = Vec::new();
    while let Some((&kind, rest)) = bytes.split_first() {
        let (len, rest) = rest.split_at_checked(8).ok_or("a truncated result")?;
        let len = u64::from_le_bytes(len.try_into().map_err(|_| "a truncated result")?) as usize;
        let (npy, rest) = rest.split_at_checked(len).ok_or("a truncated result")?;
        let t = read_npy_bytes(npy)?;
        out.push(match kind {
            0 => RtValue::Tensor(t),
            w => {
                let v = t.data.to_i64s().and_then(|v| v.first().copied()).ok_or("a scalar result without a value")?;
                RtValue::Scalar(Scalar::new(v as i128, w as u32))
            }
        });
        bytes = rest;
    }
    Ok(out)
}
