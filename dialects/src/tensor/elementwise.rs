//! The elementwise functions of the tensor dialect, written once: what each elementwise op
//! computes on its operands' elements ([`ElementwiseFn`], which an op gives through the
//! [`Elementwise`] interface of its declaration) and their reference scalar definitions, which
//! the interpreter runs and the LLVM lowering reproduces (numpy's NaN and ±0 rules).
//!
//! Floats compute in `f32` for f16, bf16 and f32 elements and in `f64` for f64 (the [`Real`]
//! trait); integers compute in `i64` and wrap to their width.

use std::ops::{Add, Div, Mul, Neg, Sub};

use xcs_ir::opdef::OpView;

/// An elementwise binary function (numpy broadcasting of the two operands).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinaryFn {
    Add,
    Sub,
    Mul,
    /// Floats: IEEE. Integers: truncates toward zero; division by zero is an error.
    Div,
    /// IEEE 754-2019 `maximum`: NaN propagates, -0.0 < +0.0.
    Max,
    /// IEEE 754-2019 `minimum`.
    Min,
    /// Integers: a negative exponent is an error.
    Pow,
    /// numpy's `remainder`: `x - floor(x / y) y`, with the divisor's sign (a zero result is
    /// `+0.0` or `-0.0` as `y`); `y = 0`, `x = ±inf` or a NaN give NaN; `x` finite and
    /// `y = ±inf` give `x` when the signs agree, else `y`. Integers: division by zero is an error.
    Rem,
}

/// An elementwise unary function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnaryFn {
    Neg,
    Abs,
    Relu,
    Exp,
    Log,
    Tanh,
    Sigmoid,
    Silu,
    Sqrt,
    Rsqrt,
    /// GELU, exact form `0.5 x (1 + erf(x / sqrt 2))`.
    GeluErf,
    /// GELU, tanh form `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    GeluTanh,
    Sin,
    Cos,
    /// The error function.
    Erf,
    /// Integers: the identity (as numpy's).
    Floor,
    /// Integers: the identity.
    Ceil,
    /// To the nearest integer, halves to even (`np.round`); integers: the identity.
    Round,
    /// `-1`, `0` or `1`; NaN stays NaN and both zeros give `+0.0` (as `np.sign`).
    Sign,
}

/// An elementwise function of three operands (numpy broadcasting of all three).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TernaryFn {
    /// `np.clip(x, lo, hi)`: `minimum(maximum(x, lo), hi)` with numpy's `maximum`/`minimum`
    /// (a NaN operand gives NaN; of equal operands the second, the bound, is kept); `lo > hi`
    /// gives `hi`.
    Clamp,
}

/// A comparison predicate (`tensor.cmp`'s `predicate`); IEEE: NaN is unordered, so only `ne`
/// holds for it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Predicate {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Predicate {
    pub fn parse(s: &str) -> Option<Predicate> {
        Some(match s {
            "eq" => Predicate::Eq,
            "ne" => Predicate::Ne,
            "lt" => Predicate::Lt,
            "le" => Predicate::Le,
            "gt" => Predicate::Gt,
            "ge" => Predicate::Ge,
            _ => return None,
        })
    }
    /// The predicate's attribute spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Predicate::Eq => "eq",
            Predicate::Ne => "ne",
            Predicate::Lt => "lt",
            Predicate::Le => "le",
            Predicate::Gt => "gt",
            Predicate::Ge => "ge",
        }
    }
    /// The predicate on an ordering (`None` = unordered: a NaN operand).
    pub fn holds(self, o: Option<std::cmp::Ordering>) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Predicate::Eq => o == Some(Equal),
            Predicate::Ne => o != Some(Equal),
            Predicate::Lt => o == Some(Less),
            Predicate::Le => matches!(o, Some(Less | Equal)),
            Predicate::Gt => o == Some(Greater),
            Predicate::Ge => matches!(o, Some(Greater | Equal)),
        }
    }
}

/// What one elementwise op computes on its operands' elements.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ElementwiseFn {
    Binary(BinaryFn),
    Unary(UnaryFn),
    /// Three operands of one element type.
    Ternary(TernaryFn),
    /// `i1` result.
    Compare(Predicate),
    /// `cond ? a : b`.
    Select,
    /// Conversion to the result's element type (see `tensor.cast`).
    Cast,
}

impl ElementwiseFn {
    /// The number of operands.
    pub fn arity(self) -> usize {
        match self {
            ElementwiseFn::Binary(_) | ElementwiseFn::Compare(_) => 2,
            ElementwiseFn::Select | ElementwiseFn::Ternary(_) => 3,
            ElementwiseFn::Unary(_) | ElementwiseFn::Cast => 1,
        }
    }
}

/// The elementwise-function interface: the [`ElementwiseFn`] an op computes (some ops choose it
/// by an attribute, as `tensor.gelu` and `tensor.cmp` do).
pub trait Elementwise: Sync {
    fn function(&self, op: &OpView) -> Result<ElementwiseFn, String>;
}
xcs_ir::op_interface!(dyn Elementwise, "elementwise");

impl Elementwise for ElementwiseFn {
    fn function(&self, _: &OpView) -> Result<ElementwiseFn, String> {
        Ok(*self)
    }
}

/// `tensor.gelu`: the form its `approximate` attribute names.
pub struct GeluFn;
impl Elementwise for GeluFn {
    fn function(&self, op: &OpView) -> Result<ElementwiseFn, String> {
        match op.attr("approximate").and_then(|a| op.ctx.as_str(a)) {
            Some("none") => Ok(ElementwiseFn::Unary(UnaryFn::GeluErf)),
            Some("tanh") => Ok(ElementwiseFn::Unary(UnaryFn::GeluTanh)),
            Some(other) => Err(format!("unknown approximate mode \"{other}\"")),
            None => Err("requires attribute 'approximate'".into()),
        }
    }
}

/// `tensor.cmp`: the comparison its `predicate` attribute names.
pub struct CompareFn;
impl Elementwise for CompareFn {
    fn function(&self, op: &OpView) -> Result<ElementwiseFn, String> {
        match op.attr("predicate").and_then(|a| op.ctx.as_str(a)) {
            Some(p) => Predicate::parse(p).map(ElementwiseFn::Compare).ok_or_else(|| format!("unknown predicate \"{p}\"")),
            None => Err("requires attribute 'predicate'".into()),
        }
    }
}

/// The op's elementwise function, if it is an elementwise op.
pub fn elementwise_fn(op: &OpView) -> Option<Result<ElementwiseFn, String>> {
    op.interface::<dyn Elementwise>().map(|e| e.function(op))
}

// ---------------------------------------------------------------------------- scalar math

/// The float types elementwise math computes in (`f32` and `f64`).
pub trait Real:
    Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    fn c(x: f64) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn tanh(self) -> Self;
    fn sqrt(self) -> Self;
    fn erfc(self) -> Self;
    fn erf(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round_ties_even(self) -> Self;
    /// C's `fmod`: `x - trunc(x / y) y`, exact.
    fn fmod(self, y: Self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    fn powf(self, y: Self) -> Self;
    fn abs(self) -> Self;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
}

macro_rules! impl_real {
    ($t:ty, $erfc:path, $erf:path) => {
        impl Real for $t {
            fn c(x: f64) -> Self {
                x as $t
            }
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn erfc(self) -> Self {
                $erfc(self)
            }
            fn erf(self) -> Self {
                $erf(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            fn round_ties_even(self) -> Self {
                <$t>::round_ties_even(self)
            }
            fn fmod(self, y: Self) -> Self {
                self % y
            }
            fn copysign(self, sign: Self) -> Self {
                <$t>::copysign(self, sign)
            }
            fn powf(self, y: Self) -> Self {
                <$t>::powf(self, y)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
        }
    };
}
impl_real!(f32, libm::erfcf, libm::erff);
impl_real!(f64, libm::erfc, libm::erf);

/// IEEE 754-2019 `maximum` (LLVM's `llvm.maximum`): a NaN operand gives NaN, and -0.0 is below
/// +0.0. Unlike numpy's `maximum`, which returns the first operand of `-0.0` and `+0.0`, this is
/// commutative, as the op's `Commutative` trait (and `canonicalize`, which moves constants to
/// the right) requires.
pub fn fmax<T: Real>(x: T, y: T) -> T {
    if x.is_nan() || y.is_nan() {
        T::c(f64::NAN)
    } else if x > y || (x == y && !x.is_sign_negative()) {
        x
    } else {
        y
    }
}

/// IEEE 754-2019 `minimum` (LLVM's `llvm.minimum`): NaN propagates, -0.0 is below +0.0.
pub fn fmin<T: Real>(x: T, y: T) -> T {
    if x.is_nan() || y.is_nan() {
        T::c(f64::NAN)
    } else if x < y || (x == y && x.is_sign_negative()) {
        x
    } else {
        y
    }
}

/// numpy's `maximum`: a NaN operand gives NaN, otherwise the larger, the second on ties (numpy's
/// `a > b ? a : b`: `maximum(0.0, -0.0)` is `-0.0`, unlike IEEE's [`fmax`]).
pub fn numpy_max<T: Real>(x: T, y: T) -> T {
    if x.is_nan() || x > y {
        x
    } else {
        y
    }
}

/// numpy's `minimum`: NaN propagates, the second on ties.
pub fn numpy_min<T: Real>(x: T, y: T) -> T {
    if x.is_nan() || x < y {
        x
    } else {
        y
    }
}

/// numpy's float `remainder` (`npy_divmod`): `fmod`, moved to the divisor's sign.
fn remainder<T: Real>(x: T, y: T) -> T {
    let m = x.fmod(y);
    if m.is_nan() {
        return m;
    }
    if m == T::c(0.0) {
        return T::c(0.0).copysign(y);
    }
    if (y < T::c(0.0)) != (m < T::c(0.0)) {
        m + y
    } else {
        m
    }
}

/// `x^y` for `y >= 0`, wrapping (square and multiply).
fn ipow(mut x: i64, mut y: u64) -> i64 {
    let mut r: i64 = 1;
    while y > 0 {
        if y & 1 == 1 {
            r = r.wrapping_mul(x);
        }
        x = x.wrapping_mul(x);
        y >>= 1;
    }
    r
}

impl BinaryFn {
    /// The function on floats.
    pub fn eval_float<T: Real>(self, x: T, y: T) -> T {
        match self {
            BinaryFn::Add => x + y,
            BinaryFn::Sub => x - y,
            BinaryFn::Mul => x * y,
            BinaryFn::Div => x / y,
            BinaryFn::Max => fmax(x, y),
            BinaryFn::Min => fmin(x, y),
            BinaryFn::Pow => x.powf(y),
            BinaryFn::Rem => remainder(x, y),
        }
    }
    /// The function on integers (computed in `i64`, wrapping; the caller wraps to the width).
    pub fn eval_int(self, x: i64, y: i64) -> Result<i64, String> {
        Ok(match self {
            BinaryFn::Add => x.wrapping_add(y),
            BinaryFn::Sub => x.wrapping_sub(y),
            BinaryFn::Mul => x.wrapping_mul(y),
            BinaryFn::Div => {
                if y == 0 {
                    return Err("integer division by zero".into());
                }
                x.wrapping_div(y)
            }
            BinaryFn::Max => x.max(y),
            BinaryFn::Min => x.min(y),
            BinaryFn::Pow => {
                if y < 0 {
                    return Err(format!("integer power with a negative exponent ({x} ** {y})"));
                }
                ipow(x, y as u64)
            }
            BinaryFn::Rem => {
                if y == 0 {
                    return Err("integer division by zero".into());
                }
                let r = x.wrapping_rem(y);
                if r != 0 && (r < 0) != (y < 0) {
                    r + y
                } else {
                    r
                }
            }
        })
    }
}

fn sigmoid<T: Real>(x: T) -> T {
    T::c(1.0) / (T::c(1.0) + (-x).exp())
}

impl UnaryFn {
    /// The function on floats.
    pub fn eval_float<T: Real>(self, x: T) -> T {
        match self {
            UnaryFn::Neg => -x,
            UnaryFn::Abs => x.abs(),
            UnaryFn::Relu => {
                if x.is_nan() || x > T::c(0.0) {
                    x
                } else {
                    T::c(0.0)
                }
            }
            UnaryFn::Exp => x.exp(),
            UnaryFn::Log => x.ln(),
            UnaryFn::Tanh => x.tanh(),
            UnaryFn::Sigmoid => sigmoid(x),
            UnaryFn::Silu => x * sigmoid(x),
            UnaryFn::Sqrt => x.sqrt(),
            UnaryFn::Rsqrt => T::c(1.0) / x.sqrt(),
            // 0.5 x (1 + erf(x / sqrt 2)) written with erfc, which keeps the digits of the
            // negative tail (1 + erf cancels there).
            UnaryFn::GeluErf => T::c(0.5) * x * (x / T::c(-std::f64::consts::SQRT_2)).erfc(),
            UnaryFn::GeluTanh => {
                let k = T::c((2.0 / std::f64::consts::PI).sqrt());
                T::c(0.5) * x * (T::c(1.0) + (k * (x + T::c(0.044715) * x * x * x)).tanh())
            }
            UnaryFn::Sin => x.sin(),
            UnaryFn::Cos => x.cos(),
            UnaryFn::Erf => x.erf(),
            UnaryFn::Floor => x.floor(),
            UnaryFn::Ceil => x.ceil(),
            UnaryFn::Round => x.round_ties_even(),
            UnaryFn::Sign => {
                if x.is_nan() {
                    x
                } else if x > T::c(0.0) {
                    T::c(1.0)
                } else if x < T::c(0.0) {
                    T::c(-1.0)
                } else {
                    T::c(0.0)
                }
            }
        }
    }
    /// The function on integers; an error for float-only functions.
    pub fn eval_int(self, x: i64) -> Result<i64, String> {
        Ok(match self {
            UnaryFn::Neg => x.wrapping_neg(),
            UnaryFn::Abs => x.wrapping_abs(),
            UnaryFn::Relu => x.max(0),
            UnaryFn::Floor | UnaryFn::Ceil | UnaryFn::Round => x,
            UnaryFn::Sign => x.signum(),
            _ => return Err(format!("{self:?} is not defined on integers").to_lowercase()),
        })
    }
}

impl TernaryFn {
    /// The function on floats.
    pub fn eval_float<T: Real>(self, x: T, y: T, z: T) -> T {
        match self {
            TernaryFn::Clamp => numpy_min(numpy_max(x, y), z),
        }
    }
    /// The function on integers.
    pub fn eval_int(self, x: i64, y: i64, z: i64) -> Result<i64, String> {
        Ok(match self {
            TernaryFn::Clamp => x.max(y).min(z),
        })
    }
}
