//! Compile-time phases of the JIT (`xcs-run --time-phases`, the frontend's `compile_phases`):
//! wall time and the process's CPU time of each phase (all threads: a phase that compiles on
//! several counts them all). On a shared machine the CPU time is the figure to compare (the
//! wall time also counts the waits for a core).

use std::time::{Duration, Instant};

/// The process's CPU time so far, all threads (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn process_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer; this clock exists on every Linux.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// One timed phase: its name, wall time and CPU time.
#[derive(Clone, Debug)]
pub struct Phase {
    pub name: &'static str,
    pub wall: Duration,
    pub cpu: Duration,
}

/// The phases of one compilation, in order, plus sizes that explain them.
#[derive(Clone, Debug, Default)]
pub struct Phases {
    pub phases: Vec<Phase>,
    /// Bytes of LLVM IR text the lowering wrote, and its function definitions.
    pub ir_bytes: usize,
    pub ir_functions: usize,
    /// The optimization pipeline (`llvm::Pipeline::name`; empty when not optimized).
    pub pipeline: &'static str,
    started: Option<(Instant, Duration)>,
}

impl Phases {
    /// Starts timing the first phase.
    pub fn start(&mut self) {
        self.started = Some((Instant::now(), process_cpu_time()));
    }

    /// Ends the phase begun by [`Phases::start`] (or the previous `end`) and starts the next.
    pub fn end(&mut self, name: &'static str) {
        let (t0, c0) = self.started.unwrap_or((Instant::now(), process_cpu_time()));
        let (t1, c1) = (Instant::now(), process_cpu_time());
        self.phases.push(Phase { name, wall: t1 - t0, cpu: c1.saturating_sub(c0) });
        self.started = Some((t1, c1));
    }

    /// The total wall and CPU time.
    pub fn total(&self) -> (Duration, Duration) {
        self.phases.iter().fold((Duration::ZERO, Duration::ZERO), |(w, c), p| (w + p.wall, c + p.cpu))
    }

    /// One line per phase and a total (a stable format, space-separated `key=value`, times in
    /// milliseconds): `phase: name=optimize wall_ms=12.345 cpu_ms=11.000`.
    pub fn render(&self) -> String {
        let ms = |d: Duration| format!("{:.3}", d.as_secs_f64() * 1e3);
        let mut s = String::new();
        for p in &self.phases {
            s.push_str(&format!("phase: name={} wall_ms={} cpu_ms={}\n", p.name, ms(p.wall), ms(p.cpu)));
        }
        let (w, c) = self.total();
        s.push_str(&format!(
            "phase: name=total wall_ms={} cpu_ms={} ir_bytes={} ir_functions={}{}\n",
            ms(w),
            ms(c),
            self.ir_bytes,
            self.ir_functions,
            if self.pipeline.is_empty() { String::new() } else { format!(" pipeline={}", self.pipeline) }
        ));
        s
    }
}
