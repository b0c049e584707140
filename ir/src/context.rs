//! The [`Context`]: interned identifiers, types, attributes and locations, and the registry of
//! dialects and operations. It is `Sync`: passes on different functions share one `&Context`
//! and may intern new types and attributes concurrently.

use std::hash::{Hash, Hasher};

use parking_lot::Mutex;
use rustc_hash::FxHashMap;

use crate::attrs::AttrKind;
use crate::intern::Interner;
use crate::location::LocKind;
use crate::opdef::{DialectDef, OpDef};
use crate::types::{FloatKind, Signedness, Type, TypeKind};

crate::entity_id!(
    /// An interned string: op names, attribute keys, symbol names, file names.
    pub struct Ident; "id"
);
crate::entity_id!(
    /// An interned attribute.
    pub struct Attr; "attr"
);
crate::entity_id!(
    /// An operation name, registered (with an [`OpDef`]) or not.
    pub struct OpName; "opname"
);

use crate::entity::EntityRef;

/// What the context knows about one operation name.
pub struct OpNameInfo {
    pub name: Box<str>,
    /// The namespace before the first `.` (empty if there is none).
    pub dialect: Box<str>,
    pub def: Option<&'static OpDef>,
}

impl PartialEq<str> for OpNameInfo {
    fn eq(&self, other: &str) -> bool {
        &*self.name == other
    }
}
impl PartialEq for OpNameInfo {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for OpNameInfo {}
impl Hash for OpNameInfo {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (*self.name).hash(h)
    }
}

/// Fixed indices of types every context interns first, so the getters below are free.
const PREINTERNED: [TypeKind; 13] = [
    TypeKind::Integer { width: 1, signedness: Signedness::Signless },
    TypeKind::Integer { width: 8, signedness: Signedness::Signless },
    TypeKind::Integer { width: 16, signedness: Signedness::Signless },
    TypeKind::Integer { width: 32, signedness: Signedness::Signless },
    TypeKind::Integer { width: 64, signedness: Signedness::Signless },
    TypeKind::Index,
    TypeKind::Float(FloatKind::F16),
    TypeKind::Float(FloatKind::BF16),
    TypeKind::Float(FloatKind::F32),
    TypeKind::Float(FloatKind::F64),
    TypeKind::None,
    TypeKind::Integer { width: 128, signedness: Signedness::Signless },
    TypeKind::Float(FloatKind::TF32),
];

pub struct Context {
    idents: Interner<str>,
    types: Interner<TypeKind>,
    attrs: Interner<AttrKind>,
    pub(crate) locs: Interner<LocKind>,
    op_names: Interner<OpNameInfo>,
    files: Mutex<FxHashMap<Ident, u32>>,
    file_list: boxcar::Vec<Ident>,
    dialects: Vec<&'static DialectDef>,
    /// The op interfaces of registered ops: declared ones, and those attached to this context.
    interfaces: crate::op_interface::InterfaceTables,
    /// Set once an attribute the printer would alias (locations as attributes, affine maps and
    /// sets, distinct attributes) is interned.
    aliasable_attrs: std::sync::atomic::AtomicBool,
    /// The blobs of `dense_resource` attributes (MLIR keeps them in the builtin dialect).
    pub(crate) resources: crate::resources::ResourceTable,
    pub(crate) empty_dict: Attr,
    unit_fn_type: Type,
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

impl Context {
    /// A context with the builtin dialect registered.
    pub fn new() -> Context {
        let mut ctx = Context {
            idents: Interner::default(),
            types: Interner::default(),
            attrs: Interner::default(),
            locs: Interner::default(),
            op_names: Interner::default(),
            files: Mutex::new(FxHashMap::default()),
            file_list: boxcar::Vec::new(),
            dialects: Vec::new(),
            interfaces: Default::default(),
            aliasable_attrs: std::sync::atomic::AtomicBool::new(false),
            resources: Default::default(),
            empty_dict: Attr::new(0),
            unit_fn_type: Type::new(0),
        };
        for (i, t) in PREINTERNED.iter().enumerate() {
            let got = ctx.types.intern(t);
            debug_assert_eq!(got as usize, i);
        }
        let unknown = ctx.locs.intern(&LocKind::Unknown);
        assert_eq!(unknown, 0);
        ctx.empty_dict = ctx.attr(AttrKind::Dictionary(Box::new([])));
        ctx.unit_fn_type = ctx.function_type(&[], &[]);
        ctx.register_dialect(&crate::builtin::BUILTIN_DIALECT);
        ctx
    }

    // ---- identifiers
    #[inline]
    pub fn ident(&self, s: &str) -> Ident {
        Ident::new(self.idents.intern_str(s) as usize)
    }
    #[inline]
    pub fn str(&self, id: Ident) -> &str {
        self.idents.get(id.index() as u32)
    }

    // ---- types
    #[inline]
    pub fn intern_type(&self, kind: TypeKind) -> Type {
        Type::new(self.types.intern_owned(kind) as usize)
    }
    /// Interns a type by reference (no clone unless the type is new).
    #[inline]
    pub fn intern_type_ref(&self, kind: &TypeKind) -> Type {
        Type::new(self.types.intern(kind) as usize)
    }
    #[inline]
    pub fn type_kind(&self, t: Type) -> &TypeKind {
        self.types.get(t.index() as u32)
    }
    pub fn i1_type(&self) -> Type {
        Type::new(0)
    }
    pub fn i8_type(&self) -> Type {
        Type::new(1)
    }
    pub fn i16_type(&self) -> Type {
        Type::new(2)
    }
    pub fn i32_type(&self) -> Type {
        Type::new(3)
    }
    pub fn i64_type(&self) -> Type {
        Type::new(4)
    }
    pub fn index_type(&self) -> Type {
        Type::new(5)
    }
    pub fn f16_type(&self) -> Type {
        Type::new(6)
    }
    pub fn bf16_type(&self) -> Type {
        Type::new(7)
    }
    pub fn f32_type(&self) -> Type {
        Type::new(8)
    }
    pub fn f64_type(&self) -> Type {
        Type::new(9)
    }
    pub fn none_type(&self) -> Type {
        Type::new(10)
    }
    pub fn integer_type(&self, width: u32, signedness: Signedness) -> Type {
        self.intern_type(TypeKind::Integer { width, signedness })
    }
    pub fn float_type(&self, kind: FloatKind) -> Type {
        self.intern_type(TypeKind::Float(kind))
    }
    pub fn function_type(&self, inputs: &[Type], results: &[Type]) -> Type {
        self.intern_type(TypeKind::Function { inputs: inputs.into(), results: results.into() })
    }
    /// `() -> ()`.
    pub fn unit_function_type(&self) -> Type {
        self.unit_fn_type
    }
    pub fn tensor_type(&self, shape: &[i64], elem: Type) -> Type {
        self.intern_type(TypeKind::RankedTensor { shape: shape.into(), elem, encoding: None })
    }
    /// A dialect type from its text after `!` (e.g. `xcs.str`).
    pub fn dialect_type(&self, text: &str) -> Type {
        let ns = text.split(['.', '<']).next().unwrap_or("");
        self.intern_type(TypeKind::Dialect { dialect: self.ident(ns), text: text.into() })
    }

    // ---- attributes
    #[inline]
    pub fn attr(&self, kind: AttrKind) -> Attr {
        self.note_aliasable(&kind);
        Attr::new(self.attrs.intern_owned(kind) as usize)
    }
    #[inline]
    pub fn attr_ref(&self, kind: &AttrKind) -> Attr {
        Attr::new(self.attrs.intern_with(kind, |k| {
            self.note_aliasable(k);
            Box::new(k.clone())
        }) as usize)
    }
    #[inline]
    fn note_aliasable(&self, k: &AttrKind) {
        if matches!(k, AttrKind::Location(_) | AttrKind::Keyword { .. } | AttrKind::Distinct { .. }) {
            self.aliasable_attrs.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
    /// True if some interned attribute may be printed through an alias (`#map`, `#loc`,
    /// `#distinct`); when false, a module can be printed in one streaming pass.
    pub fn may_need_aliases(&self) -> bool {
        self.aliasable_attrs.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[inline]
    pub fn attr_kind(&self, a: Attr) -> &AttrKind {
        self.attrs.get(a.index() as u32)
    }

    // ---- files for packed locations
    /// The small index of a file name, used by packed `file:line:col` locations.
    pub fn file_index(&self, file: Ident) -> u32 {
        let mut files = self.files.lock();
        if let Some(&i) = files.get(&file) {
            return i;
        }
        let i = self.file_list.push(file) as u32;
        files.insert(file, i);
        i
    }
    pub(crate) fn file_at(&self, i: u32) -> Ident {
        self.file_list[i as usize]
    }
    /// `file:line:col` with a file index from [`Context::file_index`]: the parser's fast path.
    #[inline]
    pub fn file_loc_indexed(&self, file_index: u32, line: u32, col: u32) -> crate::location::Location {
        match crate::location::Location::pack(file_index, line, col) {
            Some(l) => l,
            None => {
                let file = self.file_at(file_index);
                crate::location::Location::interned(
                    self.locs.intern(&LocKind::FileLineCol { file, line, col, end: None }),
                )
            }
        }
    }

    // ---- dialects and operations
    /// Registers a dialect and its operations. Registration happens before parsing.
    pub fn register_dialect(&mut self, d: &'static DialectDef) {
        if self.dialects.iter().any(|x| x.name == d.name) {
            return;
        }
        for op in d.ops.iter() {
            let name = op.name;
            let idx = self.op_names.intern_with(name, |n: &str| {
                Box::new(OpNameInfo { name: n.into(), dialect: dialect_of(n).into(), def: Some(op) })
            });
            assert!(self.op_names.get(idx).def.is_some(), "op {name} was interned before its dialect was registered");
            for imp in op.interfaces {
                self.interfaces.declare(idx as usize, imp);
            }
        }
        self.dialects.push(d);
    }

    /// Attaches `imp` as op `def`'s implementation of interface `I` in this context (MLIR's
    /// `attachInterface`): how a crate above the op's dialect (the LLVM lowering) gives ops it
    /// does not own an interface. Replaces a declared or earlier attached implementation. The
    /// op's dialect must be registered first.
    pub fn attach_interface<I: crate::op_interface::OpInterface + ?Sized>(&mut self, def: &'static OpDef, imp: &'static I) {
        let name = self.op_name(def.name);
        assert!(
            self.op_def(name).is_some_and(|d| std::ptr::eq(d, def) || d.handle == def.handle),
            "attach_interface: op {} is not registered in this context",
            def.name
        );
        self.interfaces.attach::<I>(name.index() as usize, imp);
    }

    /// The implementation of interface `I` by op `name` (declared or attached), if any: an
    /// array index, never a name comparison.
    #[inline]
    pub fn interface<I: crate::op_interface::OpInterface + ?Sized>(&self, name: OpName) -> Option<&'static I> {
        self.interfaces.get::<I>(name.index() as usize)
    }
    pub fn dialects(&self) -> &[&'static DialectDef] {
        &self.dialects
    }
    pub fn dialect(&self, name: &str) -> Option<&'static DialectDef> {
        self.dialects.iter().copied().find(|d| d.name == name)
    }
    pub fn is_registered_dialect(&self, name: &str) -> bool {
        self.dialect(name).is_some()
    }
    /// The handle of an operation name, interning an unregistered name if needed.
    #[inline]
    pub fn op_name(&self, name: &str) -> OpName {
        OpName::new(self.op_names.intern_with(name, |n: &str| {
            Box::new(OpNameInfo { name: n.into(), dialect: dialect_of(n).into(), def: None })
        }) as usize)
    }
    #[inline]
    pub fn op_info(&self, n: OpName) -> &OpNameInfo {
        self.op_names.get(n.index() as u32)
    }
    #[inline]
    pub fn op_name_str(&self, n: OpName) -> &str {
        &self.op_info(n).name
    }
    #[inline]
    pub fn op_def(&self, n: OpName) -> Option<&'static OpDef> {
        self.op_info(n).def
    }
    /// All registered operation definitions, dialect by dialect.
    pub fn registered_ops(&self) -> impl Iterator<Item = &'static OpDef> + '_ {
        self.dialects.iter().flat_map(|d| d.ops.iter())
    }
}

/// The namespace of an op or attribute name: the text before the first `.`.
pub fn dialect_of(name: &str) -> &str {
    name.split('.').next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn context_is_sync_and_types_intern() {
        fn assert_sync<T: Sync + Send>() {}
        assert_sync::<Context>();
        let ctx = Context::new();
        let a = ctx.tensor_type(&[4, crate::types::DYNAMIC], ctx.f32_type());
        let b = ctx.tensor_type(&[4, crate::types::DYNAMIC], ctx.f32_type());
        assert_eq!(a, b);
        assert_eq!(ctx.integer_type(32, Signedness::Signless), ctx.i32_type());
        assert_eq!(ctx.float_type(FloatKind::F32), ctx.f32_type());
        let k = ctx.ident("k");
        let d1 = ctx.dict(&[(ctx.ident("z"), ctx.unit_attr()), (k, ctx.i64_attr(1))]);
        let d2 = ctx.dict(&[(k, ctx.i64_attr(1)), (ctx.ident("z"), ctx.unit_attr())]);
        assert_eq!(d1, d2);
        assert_eq!(ctx.dict_get(d1, "k"), Some(ctx.i64_attr(1)));
    }
}
