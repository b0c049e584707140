//! The core of the lowering, which knows no op: the LLVM IR text builder ([`llvm_ir`]), element
//! types in memory and registers ([`types`]), module and function lowering state ([`module`],
//! [`function`]: functions, blocks, the op loop), the buffer plan and run-time error exits
//! ([`buffers`]), liveness and in-place updates ([`inplace`]), outlined loop kernels ([`kernel`]), the loop nests shared by elementwise
//! kernels ([`loops`]), and the [`LowerOp`] interface through which the op loop finds each op's
//! lowering ([`interface`]). The ops' lowerings (`crate::ops`) use this core; it never uses them.

pub mod buffers;
pub mod function;
pub mod inplace;
pub mod interface;
pub mod kernel;
pub mod llvm_ir;
pub mod loops;
pub mod module;
pub mod types;
pub mod values;

use std::fmt;

use xcs_ir::{Diagnostic, Location};

pub use buffers::{PlanStats, RunTimeCheck, RunTimeError};
pub use function::{lower_function, FunctionLowering};
pub use interface::{check_result_dims, LowerFn, LowerOp, OpSite, UpdateFn};
pub use kernel::Kernel;
pub use module::{ModuleLowering, Port, Site};
pub use values::{row_major, Slot, TensorVal};

/// Result of the lowering functions.
pub type R<T> = Result<T, LowerError>;

/// A compile-time error of the lowering, located at the op (or function) it is about.
#[derive(Clone, Debug)]
pub struct LowerError {
    pub loc: Location,
    pub message: String,
}

impl LowerError {
    pub fn new(loc: Location, message: impl Into<String>) -> LowerError {
        LowerError {
            loc,
            message: message.into(),
        }
    }
    /// An error that valid input should never cause (a bug of the lowering).
    pub fn internal(message: &str) -> LowerError {
        LowerError::new(
            Location::UNKNOWN,
            format!("internal error of the LLVM backend: {message}"),
        )
    }
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.loc, self.message.clone())
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LowerError {}

/// How f32 matmuls are computed (`Options::matmul`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatmulKernel {
    /// `xcs_rt_matmul_f32` of the runtime (`runtime/xcs_matmul.c`): compiled once with the
    /// runtime, shape-generic; a fused epilogue is a callback generated per call site.
    Library,
    /// The packed kernel generated as LLVM IR per call site (`ops/matmul_f32.rs`).
    Generated,
}

impl MatmulKernel {
    pub fn parse(s: &str) -> Option<MatmulKernel> {
        match s {
            "library" => Some(MatmulKernel::Library),
            "generated" => Some(MatmulKernel::Generated),
            _ => None,
        }
    }
}

/// Code generation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// 1: single-threaded code (no calls into the thread pool); more: large loops are split over
    /// the runtime's pool (whose size is set at run time, see `xcs_set_num_threads`).
    pub threads: usize,
    /// LLVM CPU name and feature string (`"+avx2,+fma,..."`) the code is compiled for.
    pub cpu: String,
    pub features: String,
    /// Prefix of exported C symbols (`xcs_` + function name).
    pub prefix: String,
    /// Run-time error messages start with `file:line:col: ` (shared libraries; the JIT maps
    /// error sites to locations itself).
    pub locations_in_messages: bool,
    /// Loops touching fewer elements run serially.
    pub parallel_threshold: i64,
    /// Optimize (LLVM's `default<O2>` without loop unrolling, `llvm::PIPELINE`).
    pub optimize: bool,
    /// How an f32 matmul is computed: a call of the runtime's precompiled library (the default) or
    /// a kernel generated per call site (`xcs-run --matmul=generated`, for A/B comparisons).
    pub matmul: MatmulKernel,
    /// Shared libraries also contain the MPI transport of SPMD programs (`xcs_comm_mpi`, built
    /// with `mpicc`; `xcs-translate --mpi`).
    pub mpi: bool,
}

impl Options {
    /// Options for the host CPU (its name and features as LLVM detects them).
    pub fn host() -> Options {
        let (cpu, features) = crate::llvm::host_cpu();
        Options {
            threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            cpu,
            features,
            prefix: "xcs_".into(),
            locations_in_messages: false,
            parallel_threshold: 1 << 15,
            optimize: true,
            matmul: MatmulKernel::Library,
            mpi: false,
        }
    }
}
