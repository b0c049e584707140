//! The op-definition mechanism (what MLIR's ODS does with TableGen). One [`OpDef`] per op,
//! written with the [`op!`](crate::op) macro, declares name, operands, results, attributes and
//! their kinds, regions, successors, traits, verifier, folder, patterns, syntax and docs. From it
//! come: typed accessors (the macro), arity/type/attribute/region checks (`verify_op_def`),
//! parsing and printing (the uniform pretty form or the op's custom hooks), and reference docs
//! (`dialect_markdown`).

use std::fmt::Write as _;

use smallvec::SmallVec;

use crate::body::{Body, Op, Value};
use crate::context::{Attr, Context};
use crate::diag::Diagnostic;
use crate::types::Type;

bitflags::bitflags! {
    /// Op traits (MLIR's `OpTrait`s and the interfaces XCS needs as flags).
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub struct Traits: u32 {
        /// No side effects: removable when unused, CSE-able, hoistable.
        const Pure = 1 << 0;
        /// Must end its block.
        const Terminator = 1 << 1;
        /// A terminator that returns control to the parent op with its operands.
        const ReturnLike = 1 << 2;
        /// Its regions cannot use values defined outside; its contents live in a nested `Body`.
        const IsolatedFromAbove = 1 << 3;
        /// Its region is a symbol table: symbol names in it are unique.
        const SymbolTable = 1 << 4;
        /// Defines a symbol (`sym_name`).
        const Symbol = 1 << 5;
        /// Its blocks need no terminator.
        const NoTerminator = 1 << 6;
        /// Each region has at most one block.
        const SingleBlock = 1 << 7;
        const Commutative = 1 << 8;
        const Elementwise = 1 << 9;
        const SameOperandsAndResultType = 1 << 10;
        const SameOperandsAndResultElementType = 1 << 11;
        const SameTypeOperands = 1 << 12;
        /// Materializes a constant from its `value` attribute; folds to it.
        const ConstantLike = 1 << 13;
        /// A function: `function_type`, `arg_attrs`, `res_attrs`, one region whose entry block
        /// arguments are the function's arguments.
        const FunctionLike = 1 << 14;
        /// Calls the symbol in its `callee` attribute with its operands.
        const CallLike = 1 << 15;
        /// Its regions are graph regions (no dominance requirement, like `builtin.module`).
        const GraphRegion = 1 << 16;
        /// Its side effects are those of the ops in its regions.
        const RecursiveMemoryEffects = 1 << 17;
        /// A terminator whose operands are forwarded to its successors' arguments.
        const BranchLike = 1 << 18;
        /// `f(f(x)) == f(x)`.
        const Idempotent = 1 << 19;
        /// `f(f(x)) == x`.
        const Involution = 1 << 20;
    }
}

/// How many values an operand or result group holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arity {
    Single,
    Optional,
    Variadic,
}

/// A named predicate on types, with the phrase used in errors and docs.
#[derive(Copy, Clone)]
pub struct TypeConstraint {
    pub desc: &'static str,
    pub check: fn(&Context, Type) -> bool,
}

/// A named predicate on attributes, with the phrase used in errors and docs.
#[derive(Copy, Clone)]
pub struct AttrConstraint {
    pub desc: &'static str,
    pub check: fn(&Context, Attr) -> bool,
}

/// An operand or result group.
#[derive(Copy, Clone)]
pub struct ValueSpec {
    pub name: &'static str,
    pub arity: Arity,
    pub constraint: TypeConstraint,
}

/// An inherent attribute.
#[derive(Copy, Clone)]
pub struct AttrSpec {
    pub name: &'static str,
    pub optional: bool,
    pub constraint: AttrConstraint,
}

/// A region: `min_blocks..=max_blocks` blocks (`max_blocks == u32::MAX` for any). A
/// `variadic` spec (the last one, `#[variadic] branches: 1` in `op!`) stands for any number of
/// regions, as ODS's `VariadicRegion` (`stablehlo.case`'s branches).
#[derive(Copy, Clone)]
pub struct RegionSpec {
    pub name: &'static str,
    pub max_blocks: u32,
    pub variadic: bool,
}

/// How many successors an op has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SuccessorCount {
    Exactly(u32),
    Variadic,
}

/// Which operands a branch forwards to each successor.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SuccessorOperands {
    /// Not a branch (or unknown).
    None,
    /// All operands go to the single successor (`cf.br`).
    All,
    /// `operandSegmentSizes` splits the operands: `leading` segments that are not forwarded,
    /// then one segment per successor (`cf.cond_br`: `[1, n, m]` with `leading = 1`).
    Segments { leading: u32 },
    /// `operandSegmentSizes` gives `leading` segments that are not forwarded, the segment of
    /// the first successor, then one segment that the `i32` dense array attribute `nested`
    /// splits among the other successors (`cf.switch`: `[1, default, cases]` and
    /// `case_operand_segments`; MLIR's `VariadicOfVariadic` operand group).
    FirstThenNested { leading: u32, nested: &'static str },
}

impl SuccessorOperands {
    /// The operands `op` forwards to its successor `i`, as a range of its operand list; `None`
    /// if the op forwards nothing or its segment attributes are malformed (which its own
    /// verifier reports).
    pub fn range(self, ctx: &Context, body: &Body, op: Op, i: usize) -> Option<std::ops::Range<usize>> {
        let n_succ = body.successors(op).len();
        let n_ops = body.num_operands(op);
        if i >= n_succ {
            return None;
        }
        let segments = |name: &str| body.attr(ctx, op, name).and_then(|a| ctx.as_dense_ints(a));
        let valid = |seg: &[i128], len: usize, total: usize| {
            seg.len() == len && seg.iter().all(|&s| s >= 0) && seg.iter().sum::<i128>() == total as i128
        };
        let at = |seg: &[i128], k: usize| {
            let start = seg[..k].iter().sum::<i128>() as usize;
            start..start + seg[k] as usize
        };
        match self {
            SuccessorOperands::None => None,
            SuccessorOperands::All => (i == 0).then_some(0..n_ops),
            SuccessorOperands::Segments { leading } => {
                let seg = segments("operandSegmentSizes")?;
                valid(&seg, leading as usize + n_succ, n_ops).then(|| at(&seg, leading as usize + i))
            }
            SuccessorOperands::FirstThenNested { leading, nested } => {
                let leading = leading as usize;
                let seg = segments("operandSegmentSizes")?;
                if !valid(&seg, leading + 2, n_ops) {
                    return None;
                }
                if i == 0 {
                    return Some(at(&seg, leading));
                }
                let inner = segments(nested)?;
                if !valid(&inner, n_succ - 1, seg[leading + 1] as usize) {
                    return None;
                }
                let base = at(&seg, leading + 1).start;
                let r = at(&inner, i - 1);
                Some(base + r.start..base + r.end)
            }
        }
    }
}

/// A read-only view of one op, handed to verifiers and folders.
#[derive(Copy, Clone)]
pub struct OpView<'a> {
    pub ctx: &'a Context,
    pub body: &'a Body,
    pub op: Op,
}

impl<'a> OpView<'a> {
    pub fn new(ctx: &'a Context, body: &'a Body, op: Op) -> Self {
        OpView { ctx, body, op }
    }
    pub fn name(&self) -> &'a str {
        self.ctx.op_name_str(self.body.op_name(self.op))
    }
    pub fn def(&self) -> Option<&'static OpDef> {
        self.ctx.op_def(self.body.op_name(self.op))
    }
    pub fn num_operands(&self) -> usize {
        self.body.num_operands(self.op)
    }
    pub fn operand(&self, i: usize) -> Value {
        self.body.operand(self.op, i)
    }
    pub fn operand_type(&self, i: usize) -> Type {
        self.body.value_type(self.body.operand(self.op, i))
    }
    pub fn operand_types(&self) -> SmallVec<[Type; 4]> {
        self.body.operand_types(self.op)
    }
    pub fn num_results(&self) -> usize {
        self.body.num_results(self.op)
    }
    pub fn result_type(&self, i: usize) -> Type {
        self.body.value_type(self.body.result(self.op, i))
    }
    pub fn result_types(&self) -> SmallVec<[Type; 2]> {
        self.body.result_types(self.op)
    }
    pub fn attrs(&self) -> Attr {
        self.body.attrs(self.op)
    }
    pub fn attr(&self, name: &str) -> Option<Attr> {
        self.body.attr(self.ctx, self.op, name)
    }
    /// An error located at this op, prefixed `'name' op `.
    pub fn error(&self, message: impl AsRef<str>) -> Diagnostic {
        Diagnostic::op_error(self.ctx, self.body, self.op, message)
    }
    /// The op's implementation of interface `I`, if it has one.
    #[inline]
    pub fn interface<I: crate::op_interface::OpInterface + ?Sized>(&self) -> Option<&'static I> {
        self.ctx.interface::<I>(self.body.op_name(self.op))
    }
    /// The printed form of a type (for messages).
    pub fn ty(&self, t: Type) -> String {
        crate::printer::type_to_string(self.ctx, t)
    }
}

/// What a symbol reference resolves to, for symbol-use verification.
#[derive(Copy, Clone, Debug)]
pub struct SymbolInfo {
    /// The op name of the symbol's defining op (e.g. `func.func`).
    pub op_name: crate::context::OpName,
    /// Its attribute dictionary (e.g. with `function_type`).
    pub attrs: Attr,
    pub loc: crate::location::Location,
}

/// Symbol lookup from the point of view of an op (nearest enclosing symbol tables first).
pub trait SymbolLookup {
    fn lookup(&self, name: &str) -> Option<SymbolInfo>;
}

/// The result of folding one result of an op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FoldResult {
    /// The result is this constant.
    Attr(Attr),
    /// The result is this existing value.
    Value(Value),
}

pub type VerifyFn = fn(&OpView) -> Result<(), Diagnostic>;
pub type VerifySymbolUsesFn = fn(&OpView, &dyn SymbolLookup) -> Result<(), Diagnostic>;
/// Folds an op given the constant values of its operands (`None` = not constant). Returns
/// one result per op result, or `None` if it does not fold. Must not mutate anything.
pub type FoldFn = fn(&OpView, &[Option<Attr>]) -> Option<SmallVec<[FoldResult; 1]>>;
/// Infers result types from operand types and the attribute dictionary.
pub type InferFn = fn(&Context, &[Type], Attr) -> Result<SmallVec<[Type; 1]>, String>;
/// Creates a constant op of `ty` holding `value` (a dialect's constant materializer); the op
/// is created detached in the body. Returns `None` if the dialect cannot.
pub type MaterializeFn = fn(&Context, &mut Body, Attr, Type, crate::location::Location) -> Option<Op>;

/// How an op is written in the custom (non-generic) form.
#[derive(Copy, Clone)]
pub enum Syntax {
    /// Only the generic form.
    Generic,
    /// The uniform XCS pretty form: `%r = dialect.op %a, %b {attrs} : type-sig {regions}`.
    Pretty,
    /// Hand-written parse and print hooks (e.g. `func.func`, `builtin.module`).
    Custom {
        parse: crate::parser::CustomParseFn,
        print: crate::printer::CustomPrintFn,
    },
}

/// One operation's declaration. See the module docs.
pub struct OpDef {
    pub name: &'static str,
    pub summary: &'static str,
    pub description: &'static str,
    pub operands: &'static [ValueSpec],
    pub results: &'static [ValueSpec],
    pub attributes: &'static [AttrSpec],
    pub regions: &'static [RegionSpec],
    pub successors: SuccessorCount,
    pub successor_operands: SuccessorOperands,
    pub traits: Traits,
    pub verify: Option<VerifyFn>,
    /// Runs after the op's regions verified (MLIR's `verifyRegions`): checks that look at
    /// nested ops, such as the terminator a region must end with.
    pub verify_regions: Option<VerifyFn>,
    pub verify_symbol_uses: Option<VerifySymbolUsesFn>,
    pub fold: Option<FoldFn>,
    pub patterns: &'static [&'static dyn crate::rewrite::RewritePattern],
    pub infer: Option<InferFn>,
    /// The interfaces the op implements in its declaration (see [`crate::interfaces`]); a
    /// context may attach more.
    pub interfaces: &'static [crate::op_interface::InterfaceImpl],
    pub syntax: Syntax,
    /// The type id of the op's typed handle (e.g. `AddOp`): what [`OpDef::is`] and the typed
    /// views' `cast` compare (two integers), so that no op is recognised by comparing names.
    pub handle: std::any::TypeId,
}

impl OpDef {
    /// True if this is the declaration of the typed handle `T` (e.g. `def.is::<AddOp>()`).
    #[inline]
    pub fn is<T: 'static>(&self) -> bool {
        self.handle == std::any::TypeId::of::<T>()
    }
    pub fn has(&self, t: Traits) -> bool {
        self.traits.contains(t)
    }
    pub fn dialect(&self) -> &'static str {
        self.name.split('.').next().unwrap_or("")
    }
    pub fn mnemonic(&self) -> &'static str {
        self.name.split_once('.').map(|(_, m)| m).unwrap_or(self.name)
    }
    pub fn attr_spec(&self, name: &str) -> Option<&AttrSpec> {
        self.attributes.iter().find(|a| a.name == name)
    }
    pub fn is_inherent_attr(&self, name: &str) -> bool {
        self.attr_spec(name).is_some()
            || (name == "operandSegmentSizes" && self.successor_operands != SuccessorOperands::None)
    }
}

/// The error of a dialect type's or attribute's parameter hook: a message and, when known, the
/// byte offset in the parameter text (the text after the mnemonic, from its `<`) that it is
/// about, so the parser can point at it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamsError {
    pub message: String,
    pub offset: Option<usize>,
}

impl From<String> for ParamsError {
    fn from(message: String) -> Self {
        ParamsError { message, offset: None }
    }
}

/// Validates and canonicalises the parameter text of a dialect type or attribute.
pub type ParamsFn = fn(&Context, &str) -> Result<String, ParamsError>;

/// A dialect type the registry knows (e.g. `!xcs.str`).
pub struct TypeDef {
    pub mnemonic: &'static str,
    pub summary: &'static str,
    pub description: &'static str,
    /// Validates and canonicalises the text after `!dialect.mnemonic` (empty when there are no
    /// parameters); `None` means the type takes no parameters.
    pub params: Option<ParamsFn>,
}

/// A dialect attribute the registry knows (e.g. `#cost.cost<...>`).
pub struct AttrDef {
    pub mnemonic: &'static str,
    pub summary: &'static str,
    pub description: &'static str,
    /// Validates and canonicalises the text after `#dialect.mnemonic` (as for types); the
    /// parser calls it on every occurrence, so equal attributes are one interned value.
    pub params: Option<ParamsFn>,
}

/// A dialect: a namespace with ops, types and attributes.
pub struct DialectDef {
    pub name: &'static str,
    pub summary: &'static str,
    pub description: &'static str,
    /// The dialect's ops: the list that the `op!` declarations with `in LIST` fill (see
    /// [`OpList`]), or a hand-written slice.
    pub ops: OpList,
    pub types: &'static [TypeDef],
    pub attrs: &'static [AttrDef],
    pub materialize_constant: Option<MaterializeFn>,
}

/// The ops of a dialect. `op!` declarations written `pub struct AddOp = "tensor.add" in
/// TENSOR_OPS { ... }` add themselves to the distributed slice `TENSOR_OPS` (declared with
/// [`op_list!`](crate::op_list)), so a dialect's op list is generated from its declarations
/// and never kept by hand. A fixed slice serves tests.
#[derive(Copy, Clone)]
pub enum OpList {
    Collected(&'static linkme::DistributedSlice<[&'static OpDef]>),
    Fixed(&'static [&'static OpDef]),
}

impl OpList {
    /// The ops, sorted by name (the order of the reference docs, as MLIR's).
    pub fn sorted(&self) -> Vec<&'static OpDef> {
        let mut v: Vec<&'static OpDef> = self.iter().collect();
        v.sort_by_key(|d| d.name);
        v
    }
    pub fn iter(&self) -> impl Iterator<Item = &'static OpDef> {
        let s: &'static [&'static OpDef] = match *self {
            OpList::Collected(c) => c,
            OpList::Fixed(f) => f,
        };
        s.iter().copied()
    }
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }
}

/// Declares a dialect's op list, filled by the `op!` declarations that name it:
/// `xcs_ir::op_list!(pub TENSOR_OPS);`
#[macro_export]
macro_rules! op_list {
    ($vis:vis $name:ident) => {
        #[$crate::linkme::distributed_slice]
        #[linkme(crate = $crate::linkme)]
        $vis static $name: [&'static $crate::opdef::OpDef];
    };
}

// ---------------------------------------------------------------------------- constraints

macro_rules! type_constraints {
    ($($name:ident = $desc:literal, |$c:ident, $t:ident| $body:expr;)*) => {
        $(pub const $name: TypeConstraint = TypeConstraint { desc: $desc, check: |$c, $t| $body };)*
    };
}
macro_rules! attr_constraints {
    ($($name:ident = $desc:literal, |$c:ident, $a:ident| $body:expr;)*) => {
        $(pub const $name: AttrConstraint = AttrConstraint { desc: $desc, check: |$c, $a| $body };)*
    };
}

#[allow(unused_variables)]
pub mod constraints {
    use super::*;
    use crate::attrs::AttrKind;
    use crate::types::TypeKind;

    type_constraints! {
        ANY_TYPE = "any type", |c, t| true;
        ANY_TENSOR = "tensor of any type values", |c, t| c.is_tensor(t);
        RANKED_TENSOR = "ranked tensor of any type values", |c, t| c.is_ranked_tensor(t);
        ANY_INTEGER = "integer", |c, t| c.is_integer(t);
        SIGNLESS_INTEGER = "signless integer", |c, t| c.is_signless_integer(t);
        I1 = "1-bit signless integer", |c, t| t == c.i1_type();
        INDEX = "index", |c, t| t == c.index_type();
        INT_OR_INDEX = "signless integer or index", |c, t| c.is_signless_integer(t) || t == c.index_type();
        ANY_FLOAT = "floating-point", |c, t| c.is_float(t);
    }

    attr_constraints! {
        ANY_ATTR = "any attribute", |c, a| true;
        UNIT_ATTR = "unit attribute", |c, a| matches!(c.attr_kind(a), AttrKind::Unit);
        BOOL_ATTR = "bool attribute", |c, a| c.as_bool(a).is_some();
        I64_ATTR = "64-bit signless integer attribute", |c, a|
            matches!(c.attr_kind(a), AttrKind::Integer { ty, .. } if *ty == c.i64_type());
        INDEX_ATTR = "index attribute", |c, a|
            matches!(c.attr_kind(a), AttrKind::Integer { ty, .. } if *ty == c.index_type());
        INT_ATTR = "integer attribute", |c, a| matches!(c.attr_kind(a), AttrKind::Integer { .. });
        FLOAT_ATTR = "floating-point attribute", |c, a| matches!(c.attr_kind(a), AttrKind::Float { .. });
        STR_ATTR = "string attribute", |c, a| c.as_str(a).is_some();
        SYMBOL_NAME_ATTR = "string attribute", |c, a| c.as_str(a).is_some();
        FLAT_SYMBOL_REF_ATTR = "flat symbol reference attribute", |c, a| c.as_symbol(a).is_some();
        SYMBOL_REF_ATTR = "symbol reference attribute", |c, a| matches!(c.attr_kind(a), AttrKind::SymbolRef { .. });
        TYPE_ATTR = "any type attribute", |c, a| c.as_type(a).is_some();
        FUNCTION_TYPE_ATTR = "type attribute of function type", |c, a|
            c.as_type(a).is_some_and(|t| matches!(c.type_kind(t), TypeKind::Function { .. }));
        ARRAY_ATTR = "array attribute", |c, a| c.as_array(a).is_some();
        DICT_ATTR = "dictionary of named attribute values", |c, a| matches!(c.attr_kind(a), AttrKind::Dictionary(_));
        DICT_ARRAY_ATTR = "Array of dictionary attributes", |c, a|
            c.as_array(a).is_some_and(|v| v.iter().all(|&e| matches!(c.attr_kind(e), AttrKind::Dictionary(_))));
        DENSE_I64_ARRAY_ATTR = "i64 dense array attribute", |c, a| c.as_i64_array(a).is_some();
        DENSE_I32_ARRAY_ATTR = "i32 dense array attribute", |c, a|
            matches!(c.attr_kind(a), AttrKind::DenseArray { elem, .. } if *elem == c.i32_type());
        ELEMENTS_ATTR = "constant vector/tensor attribute", |c, a| matches!(c.attr_kind(a), AttrKind::DenseElements { .. } | AttrKind::DenseResource { .. });
    }
}

// ---------------------------------------------------------------------------- derived checks

/// The operand (or result) index range of group `name`, given the total count. At most one
/// group may be optional or variadic; it takes what the single groups leave.
pub fn group_range(specs: &[ValueSpec], total: usize, name: &str) -> std::ops::Range<usize> {
    let singles = specs.iter().filter(|s| s.arity == Arity::Single).count();
    let extra = total.saturating_sub(singles);
    let mut start = 0;
    for s in specs {
        let n = match s.arity {
            Arity::Single => 1,
            _ => extra,
        };
        if s.name == name {
            return start..(start + n).min(total);
        }
        start += n;
    }
    panic!("no operand or result group named {name}")
}

fn check_group_counts(v: &OpView, specs: &[ValueSpec], total: usize, what: &str) -> Result<(), Diagnostic> {
    match crate::builder::group_count_error(specs, total, what) {
        Some(m) => Err(v.error(m)),
        None => Ok(()),
    }
}

/// Checks each operand (or result) against its group's type constraint, walking the groups
/// in order (the ranges [`group_range`] computes, without a lookup per group).
fn check_group_types(
    v: &OpView,
    specs: &[ValueSpec],
    total: usize,
    what: &str,
    ty: impl Fn(usize) -> Type,
) -> Result<(), Diagnostic> {
    let singles = specs.iter().filter(|s| s.arity == Arity::Single).count();
    let extra = total.saturating_sub(singles);
    let mut start = 0;
    for spec in specs {
        let n = if spec.arity == Arity::Single { 1 } else { extra };
        for i in start..(start + n).min(total) {
            let t = ty(i);
            if !(spec.constraint.check)(v.ctx, t) {
                // MLIR's wording: "variadic of <constraint>" for a variadic group's members
                let variadic = if spec.arity == Arity::Variadic { "variadic of " } else { "" };
                return Err(v.error(format!("{what} #{i} must be {variadic}{}, but got '{}'", spec.constraint.desc, v.ty(t))));
            }
        }
        start += n;
    }
    Ok(())
}

/// The inherent attributes' presence and constraints. The first failure is reported in name
/// order, as MLIR's generated verifiers check them; the common case, where all hold, is checked
/// in declaration order without sorting (this runs for every op built or verified).
fn check_attributes(v: &OpView, specs: &'static [AttrSpec]) -> Result<(), Diagnostic> {
    let holds = |spec: &AttrSpec| match v.attr(spec.name) {
        None => spec.optional,
        Some(a) => (spec.constraint.check)(v.ctx, a),
    };
    if specs.iter().all(holds) {
        return Ok(());
    }
    let mut sorted: SmallVec<[&AttrSpec; 8]> = specs.iter().collect();
    sorted.sort_by_key(|s| s.name);
    let Some(spec) = sorted.into_iter().find(|s| !holds(*s)) else {
        return Ok(());
    };
    Err(match v.attr(spec.name) {
        None => v.error(format!("requires attribute '{}'", spec.name)),
        Some(_) => v.error(format!(
            "attribute '{}' failed to satisfy constraint: {}",
            spec.name, spec.constraint.desc
        )),
    })
}

/// Checks what an [`OpDef`] declares: operand/result counts and types, inherent attributes
/// (presence and kind), region and successor counts, and the type traits.
pub fn verify_op_def(v: &OpView, def: &OpDef) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    check_group_counts(v, def.operands, v.num_operands(), "operand")?;
    check_group_counts(v, def.results, v.num_results(), "result")?;
    check_group_types(v, def.operands, v.num_operands(), "operand", |i| v.operand_type(i))?;
    check_group_types(v, def.results, v.num_results(), "result", |i| v.result_type(i))?;
    check_attributes(v, def.attributes)?;
    let nregions = v.body.num_regions(v.op);
    // only the last region spec can be variadic
    if def.regions.last().is_some_and(|r| r.variadic) {
        let fixed = def.regions.len() - 1;
        if nregions < fixed {
            return Err(v.error(format!("requires at least {fixed} regions, but found {nregions}")));
        }
    } else if nregions != def.regions.len() {
        return Err(v.error(format!("requires {} regions, but found {nregions}", def.regions.len())));
    }
    let nsucc = v.body.successors(v.op).len();
    if let SuccessorCount::Exactly(n) = def.successors {
        if nsucc != n as usize {
            // MLIR's OneSuccessor / NSuccessors<N> wording
            let noun = if n == 1 { "successor" } else { "successors" };
            return Err(v.error(format!("requires {n} {noun} but found {nsucc}")));
        }
    }
    let operand_types = v.operand_types();
    let result_types = v.result_types();
    if let Some(infer) = def.infer {
        let inferred = infer(ctx, &operand_types, v.attrs()).map_err(|msg| v.error(msg))?;
        let compatible = inferred.len() == result_types.len()
            && inferred
                .iter()
                .zip(result_types.iter())
                .all(|(&a, &b)| types_compatible(ctx, a, b));
        if !compatible {
            let list = |ts: &[Type]| ts.iter().map(|&t| v.ty(t)).collect::<Vec<_>>().join(", ");
            return Err(v.error(format!(
                "inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
                list(&inferred),
                list(&result_types)
            )));
        }
    }
    if def.has(Traits::SameOperandsAndResultType) {
        let mut all = operand_types.iter().chain(result_types.iter());
        let first = all.next();
        if all.any(|t| Some(t) != first) {
            return Err(v.error("requires the same type for all operands and results"));
        }
    }
    if def.has(Traits::SameTypeOperands) && operand_types.windows(2).any(|w| w[0] != w[1]) {
        return Err(v.error("requires all operands to have the same type"));
    }
    if def.has(Traits::SameOperandsAndResultElementType) {
        let mut elems = operand_types.iter().chain(result_types.iter()).map(|&t| ctx.element_type(t));
        let first = elems.next();
        if elems.any(|e| Some(e) != first) {
            return Err(v.error("requires the same element type for all operands and results"));
        }
    }
    Ok(())
}

/// Two types are compatible when equal, or ranked tensors with the same element type and
/// encoding, the same rank, and dims that are equal or dynamic (`?`) on either side.
pub fn types_compatible(ctx: &Context, a: Type, b: Type) -> bool {
    use crate::types::{TypeKind, DYNAMIC};
    if a == b {
        return true;
    }
    match (ctx.type_kind(a), ctx.type_kind(b)) {
        (
            TypeKind::RankedTensor {
                shape: sa,
                elem: ea,
                encoding: na,
            },
            TypeKind::RankedTensor {
                shape: sb,
                elem: eb,
                encoding: nb,
            },
        ) => {
            ea == eb
                && na == nb
                && sa.len() == sb.len()
                && sa
                    .iter()
                    .zip(sb.iter())
                    .all(|(&x, &y)| x == y || x == DYNAMIC || y == DYNAMIC)
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------- docs

/// The reference page of a dialect, in Markdown, generated from its declarations.
pub fn dialect_markdown(d: &DialectDef) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!-- Generated from the op declarations by `xcs-opt --gen-dialect-docs=docs/dialects`; do not edit. -->\n"
    );
    let _ = writeln!(s, "# '{}' dialect\n\n{}\n", d.name, d.summary);
    if !d.description.trim().is_empty() {
        let _ = writeln!(s, "{}\n", d.description.trim());
    }
    if !d.types.is_empty() {
        let _ = writeln!(s, "## Types\n");
        for t in d.types {
            let _ = writeln!(s, "### `!{}.{}`\n\n{}\n", d.name, t.mnemonic, t.summary);
            if !t.description.trim().is_empty() {
                let _ = writeln!(s, "{}\n", unindent(t.description));
            }
        }
    }
    if !d.attrs.is_empty() {
        let _ = writeln!(s, "## Attributes\n");
        for a in d.attrs {
            let _ = writeln!(s, "### `#{}.{}`\n\n{}\n", d.name, a.mnemonic, a.summary);
            if !a.description.trim().is_empty() {
                let _ = writeln!(s, "{}\n", unindent(a.description));
            }
        }
    }
    if !d.ops.is_empty() {
        let _ = writeln!(s, "## Operations\n");
        for op in d.ops.sorted() {
            s.push_str(&op_markdown(op));
        }
    }
    s
}

fn unindent(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| if l.len() >= indent { &l[indent..] } else { l.trim() })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

fn arity_suffix(a: Arity) -> &'static str {
    match a {
        Arity::Single => "",
        Arity::Optional => " (optional)",
        Arity::Variadic => " (variadic)",
    }
}

/// The shape of an op's uniform pretty form, from its declaration
/// (`%result = tensor.add %lhs, %rhs : type-sig`); `None` for ops with custom or generic syntax.
fn pretty_syntax(op: &OpDef) -> Option<String> {
    if !matches!(op.syntax, Syntax::Pretty) {
        return None;
    }
    let group = |v: &ValueSpec| match v.arity {
        Arity::Single => format!("%{}", v.name),
        Arity::Optional => format!("[%{}]", v.name),
        Arity::Variadic => format!("%{}...", v.name),
    };
    let results: Vec<String> = op.results.iter().map(group).collect();
    let operands: Vec<String> = op.operands.iter().map(group).collect();
    let mut s = String::new();
    if !results.is_empty() {
        let _ = write!(s, "{} = ", results.join(", "));
    }
    s.push_str(op.name);
    if !operands.is_empty() {
        let _ = write!(s, " {}", operands.join(", "));
    }
    if !op.attributes.is_empty() {
        let attrs: Vec<String> = op
            .attributes
            .iter()
            .map(|a| {
                if a.optional {
                    format!("[{} = ...]", a.name)
                } else {
                    format!("{} = ...", a.name)
                }
            })
            .collect();
        let _ = write!(s, " {{{}}}", attrs.join(", "));
    }
    if !op.results.is_empty() || !op.operands.is_empty() || !op.regions.is_empty() {
        s.push_str(" : type-sig");
    }
    for r in op.regions {
        let _ = write!(s, " {{ {} }}", r.name);
    }
    Some(s)
}

/// The reference section of one op.
pub fn op_markdown(op: &OpDef) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "### `{}`\n\n_{}_\n", op.name, op.summary);
    let desc = unindent(op.description);
    if !desc.is_empty() {
        let _ = writeln!(s, "{desc}\n");
    }
    if let Some(syntax) = pretty_syntax(op) {
        let _ = writeln!(s, "```mlir\n{syntax}\n```\n");
    }
    let traits: Vec<String> = op.traits.iter_names().map(|(n, _)| n.to_string()).collect();
    if !traits.is_empty() {
        let _ = writeln!(s, "Traits: {}\n", traits.join(", "));
    }
    let interfaces: Vec<&str> = op.interfaces.iter().map(|i| (i.slot)().name()).collect();
    if !interfaces.is_empty() {
        let _ = writeln!(s, "Interfaces: {}\n", interfaces.join(", "));
    }
    if !op.operands.is_empty() {
        let _ = writeln!(s, "| Operand | Description |\n| :-----: | ----------- |");
        for o in op.operands {
            let _ = writeln!(s, "| `{}` | {}{} |", o.name, o.constraint.desc, arity_suffix(o.arity));
        }
        s.push('\n');
    }
    if !op.attributes.is_empty() {
        let _ = writeln!(
            s,
            "| Attribute | Kind | Description |\n| :-------: | ---- | ----------- |"
        );
        for a in op.attributes {
            let _ = writeln!(
                s,
                "| `{}` | {} | {} |",
                a.name,
                if a.optional { "optional" } else { "required" },
                a.constraint.desc
            );
        }
        s.push('\n');
    }
    if !op.results.is_empty() {
        let _ = writeln!(s, "| Result | Description |\n| :----: | ----------- |");
        for r in op.results {
            let _ = writeln!(s, "| `{}` | {}{} |", r.name, r.constraint.desc, arity_suffix(r.arity));
        }
        s.push('\n');
    }
    if !op.regions.is_empty() {
        let _ = writeln!(s, "| Region | Blocks |\n| :----: | ------ |");
        for r in op.regions {
            let blocks = if r.variadic {
                format!("any number of regions of at most {} block(s)", r.max_blocks)
            } else if r.max_blocks == u32::MAX {
                "any number".to_string()
            } else {
                format!("at most {}", r.max_blocks)
            };
            let _ = writeln!(s, "| `{}` | {} |", r.name, blocks);
        }
        s.push('\n');
    }
    match op.successors {
        SuccessorCount::Exactly(0) => {}
        SuccessorCount::Exactly(n) => {
            let _ = writeln!(s, "Successors: {n}\n");
        }
        SuccessorCount::Variadic => {
            let _ = writeln!(s, "Successors: any number\n");
        }
    }
    s
}

// ---------------------------------------------------------------------------- the macro

/// Declares an op: a typed handle struct with accessors and `DEF`, its [`OpDef`].
///
/// ```ignore
/// op! {
///     /// Long description (becomes the docs).
///     pub struct ReturnOp = "func.return" {
///         summary: "Function return operation",
///         operands: { #[variadic] operands: ANY_TYPE },
///         traits: [Pure, Terminator, ReturnLike],
///         verify: verify_return,
///         syntax: Syntax::Custom { parse: parse_return, print: print_return },
///     }
/// }
/// ```
/// Sections after `summary` are optional but must come in this order: `operands`, `results`,
/// `attributes`, `regions`, `successors`, `successor_operands`, `traits`, `verify`,
/// `verify_regions`, `verify_symbol_uses`, `fold`, `patterns`, `infer`, `interfaces`, `syntax`
/// (default `Syntax::Pretty`). Groups may be marked `#[optional]` or `#[variadic]`; attributes
/// may be `#[optional]`. `in LIST` adds the op to a dialect's op list (see [`OpList`]);
/// `interfaces: [dyn Semantics => &ADD, FusionRole => &FusionRole::CHEAP]` lists the op
/// interfaces it implements (see [`crate::interfaces`]).
#[macro_export]
macro_rules! op {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $Name:ident = $opname:literal $(in $list:path)? {
            summary: $summary:literal,
            $(operands: { $( $(#[$oa:ident])? $oname:ident : $ocons:expr ),* $(,)? },)?
            $(results: { $( $(#[$ra:ident])? $rname:ident : $rcons:expr ),* $(,)? },)?
            $(attributes: { $( $(#[$aa:ident])? $aname:ident : $acons:expr ),* $(,)? },)?
            $(regions: { $( $(#[$rga:ident])? $regname:ident : $regmax:expr ),* $(,)? },)?
            $(successors: $succ:expr,)?
            $(successor_operands: $so:expr,)?
            $(traits: [ $($trait:ident),* $(,)? ],)?
            $(verify: $verify:expr,)?
            $(verify_regions: $verify_regions:expr,)?
            $(verify_symbol_uses: $vsu:expr,)?
            $(fold: $fold:expr,)?
            $(patterns: $patterns:expr,)?
            $(infer: $infer:expr,)?
            $(interfaces: [ $($iface:ty => $imp:expr),* $(,)? ],)?
            $(syntax: $syntax:expr,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        $vis struct $Name(pub $crate::body::Op);

        #[allow(dead_code, non_snake_case)]
        impl $Name {
            /// The op's declaration.
            pub const DEF: &'static $crate::opdef::OpDef = &$crate::opdef::OpDef {
                name: $opname,
                summary: $summary,
                description: concat!($($doc, "\n"),*),
                operands: &[$($( $crate::opdef::ValueSpec {
                    name: stringify!($oname), arity: $crate::op!(@arity $($oa)?), constraint: $ocons,
                } ),*)?],
                results: &[$($( $crate::opdef::ValueSpec {
                    name: stringify!($rname), arity: $crate::op!(@arity $($ra)?), constraint: $rcons,
                } ),*)?],
                attributes: &[$($( $crate::opdef::AttrSpec {
                    name: stringify!($aname), optional: $crate::op!(@is_optional $($aa)?), constraint: $acons,
                } ),*)?],
                regions: &[$($( $crate::opdef::RegionSpec {
                    name: stringify!($regname), max_blocks: $regmax, variadic: $crate::op!(@is_variadic $($rga)?),
                } ),*)?],
                successors: $crate::op!(@or $($succ)? ; $crate::opdef::SuccessorCount::Exactly(0)),
                successor_operands: $crate::op!(@or $($so)? ; $crate::opdef::SuccessorOperands::None),
                traits: $crate::opdef::Traits::empty() $($(.union($crate::opdef::Traits::$trait))*)?,
                verify: $crate::op!(@opt $($verify)?),
                verify_regions: $crate::op!(@opt $($verify_regions)?),
                verify_symbol_uses: $crate::op!(@opt $($vsu)?),
                fold: $crate::op!(@opt $($fold)?),
                patterns: $crate::op!(@or $($patterns)? ; &[]),
                infer: $crate::op!(@opt $($infer)?),
                interfaces: &[$($( $crate::op_interface::InterfaceImpl::of::<$iface>({
                    static IMP: &'static $iface = $imp;
                    &IMP
                }) ),*)?],
                syntax: $crate::op!(@or $($syntax)? ; $crate::opdef::Syntax::Pretty),
                handle: ::std::any::TypeId::of::<$Name>(),
            };

            /// The typed view of `op` if it is this op (compares declarations, not names).
            #[inline]
            pub fn cast(ctx: &$crate::Context, body: &$crate::body::Body, op: $crate::body::Op) -> Option<Self> {
                ctx.op_def(body.op_name(op)).is_some_and(|d| d.is::<$Name>()).then_some($Name(op))
            }

            /// True if `name` is this op.
            #[inline]
            pub fn matches(ctx: &$crate::Context, name: $crate::context::OpName) -> bool {
                ctx.op_def(name).is_some_and(|d| d.is::<$Name>())
            }

            $($( $crate::op!(@value_accessor operands, operand, $($oa)? ; $oname); )*)?
            $($( $crate::op!(@value_accessor results, result, $($ra)? ; $rname); )*)?
            $($( $crate::op!(@attr_accessor $($aa)? ; $aname); )*)?
        }

        $( const _: () = {
            #[$crate::linkme::distributed_slice($list)]
            #[linkme(crate = $crate::linkme)]
            static ENTRY: &'static $crate::opdef::OpDef = $Name::DEF;
        }; )?
    };

    (@arity) => { $crate::opdef::Arity::Single };
    (@arity optional) => { $crate::opdef::Arity::Optional };
    (@arity variadic) => { $crate::opdef::Arity::Variadic };
    (@is_optional) => { false };
    (@is_optional optional) => { true };
    (@is_variadic) => { false };
    (@is_variadic variadic) => { true };
    (@opt) => { None };
    (@opt $e:expr) => { Some($e) };
    (@or ; $default:expr) => { $default };
    (@or $e:expr ; $default:expr) => { $e };

    (@value_accessor $specs:ident, $getter:ident, ; $name:ident) => {
        pub fn $name(self, body: &$crate::body::Body) -> $crate::body::Value {
            let n = $crate::op!(@count $specs body self.0);
            let r = $crate::opdef::group_range(Self::DEF.$specs, n, stringify!($name));
            body.$getter(self.0, r.start)
        }
    };
    (@value_accessor $specs:ident, $getter:ident, optional ; $name:ident) => {
        pub fn $name(self, body: &$crate::body::Body) -> Option<$crate::body::Value> {
            let n = $crate::op!(@count $specs body self.0);
            let r = $crate::opdef::group_range(Self::DEF.$specs, n, stringify!($name));
            (!r.is_empty()).then(|| body.$getter(self.0, r.start))
        }
    };
    (@value_accessor $specs:ident, $getter:ident, variadic ; $name:ident) => {
        pub fn $name(self, body: &$crate::body::Body) -> Vec<$crate::body::Value> {
            let n = $crate::op!(@count $specs body self.0);
            $crate::opdef::group_range(Self::DEF.$specs, n, stringify!($name)).map(|i| body.$getter(self.0, i)).collect()
        }
    };
    (@count operands $body:ident $op:expr) => { $body.num_operands($op) };
    (@count results $body:ident $op:expr) => { $body.num_results($op) };

    (@attr_accessor ; $name:ident) => {
        /// The attribute (present on verified IR).
        pub fn $name(self, ctx: &$crate::Context, body: &$crate::body::Body) -> $crate::context::Attr {
            body.attr(ctx, self.0, stringify!($name))
                .unwrap_or_else(|| panic!(concat!("verified op lacks attribute '", stringify!($name), "'")))
        }
    };
    (@attr_accessor optional ; $name:ident) => {
        pub fn $name(self, ctx: &$crate::Context, body: &$crate::body::Body) -> Option<$crate::context::Attr> {
            body.attr(ctx, self.0, stringify!($name))
        }
    };
}
