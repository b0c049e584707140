//! Builtin types (MLIR's LangRef set) and dialect types. A [`Type`] is an interned handle:
//! equality is an integer compare; [`TypeKind`] is the structure behind it.

use crate::context::{Attr, Context, Ident};

crate::entity_id!(
    /// An interned type.
    pub struct Type; "type"
);

/// The dimension size MLIR calls `ShapedType::kDynamic`, printed `?`.
pub const DYNAMIC: i64 = i64::MIN;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Signedness {
    Signless,
    Signed,
    Unsigned,
}

/// The builtin floating-point types.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    F16,
    BF16,
    F32,
    F64,
    F80,
    F128,
    TF32,
    F8E5M2,
    F8E4M3,
    F8E4M3FN,
    F8E5M2FNUZ,
    F8E4M3FNUZ,
    F8E4M3B11FNUZ,
    F8E3M4,
    F8E8M0FNU,
    F4E2M1FN,
    F6E2M3FN,
    F6E3M2FN,
}

impl FloatKind {
    pub const ALL: [FloatKind; 18] = [
        FloatKind::F16,
        FloatKind::BF16,
        FloatKind::F32,
        FloatKind::F64,
        FloatKind::F80,
        FloatKind::F128,
        FloatKind::TF32,
        FloatKind::F8E5M2,
        FloatKind::F8E4M3,
        FloatKind::F8E4M3FN,
        FloatKind::F8E5M2FNUZ,
        FloatKind::F8E4M3FNUZ,
        FloatKind::F8E4M3B11FNUZ,
        FloatKind::F8E3M4,
        FloatKind::F8E8M0FNU,
        FloatKind::F4E2M1FN,
        FloatKind::F6E2M3FN,
        FloatKind::F6E3M2FN,
    ];
    pub fn keyword(self) -> &'static str {
        match self {
            FloatKind::F16 => "f16",
            FloatKind::BF16 => "bf16",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
            FloatKind::F80 => "f80",
            FloatKind::F128 => "f128",
            FloatKind::TF32 => "tf32",
            FloatKind::F8E5M2 => "f8E5M2",
            FloatKind::F8E4M3 => "f8E4M3",
            FloatKind::F8E4M3FN => "f8E4M3FN",
            FloatKind::F8E5M2FNUZ => "f8E5M2FNUZ",
            FloatKind::F8E4M3FNUZ => "f8E4M3FNUZ",
            FloatKind::F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            FloatKind::F8E3M4 => "f8E3M4",
            FloatKind::F8E8M0FNU => "f8E8M0FNU",
            FloatKind::F4E2M1FN => "f4E2M1FN",
            FloatKind::F6E2M3FN => "f6E2M3FN",
            FloatKind::F6E3M2FN => "f6E3M2FN",
        }
    }
    pub fn from_keyword(s: &str) -> Option<FloatKind> {
        FloatKind::ALL.into_iter().find(|k| k.keyword() == s)
    }
    /// Storage width in bits.
    pub fn width(self) -> u32 {
        match self {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 | FloatKind::TF32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F80 => 80,
            FloatKind::F128 => 128,
            FloatKind::F4E2M1FN => 4,
            FloatKind::F6E2M3FN | FloatKind::F6E3M2FN => 6,
            _ => 8,
        }
    }
    /// True for the formats whose values are stored exactly as their own bit pattern
    /// (IEEE half, bfloat, single, double). Others keep an `f64` approximation.
    pub fn is_exact(self) -> bool {
        matches!(self, FloatKind::F16 | FloatKind::BF16 | FloatKind::F32 | FloatKind::F64)
    }
}

/// The structure of a type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Integer { width: u32, signedness: Signedness },
    Index,
    Float(FloatKind),
    None,
    Function { inputs: Box<[Type]>, results: Box<[Type]> },
    /// `tensor<4x?xf32>`; dynamic dims are [`DYNAMIC`].
    RankedTensor { shape: Box<[i64]>, elem: Type, encoding: Option<Attr> },
    UnrankedTensor { elem: Type },
    /// `vector<[4]x8xf32>`: `scalable[i]` marks `[4]`.
    Vector { shape: Box<[i64]>, scalable: Box<[bool]>, elem: Type },
    MemRef { shape: Box<[i64]>, elem: Type, layout: Option<Attr>, memory_space: Option<Attr> },
    UnrankedMemRef { elem: Type, memory_space: Option<Attr> },
    Complex(Type),
    Tuple(Box<[Type]>),
    /// A dialect type, kept as the text after `!` (`xcs.str`, `foo.bar<1>`, `foo<"x">`).
    /// Registered dialects interpret the text; unregistered ones keep it verbatim.
    Dialect { dialect: Ident, text: Box<str> },
}

impl TypeKind {
    pub fn is_shaped(&self) -> bool {
        matches!(
            self,
            TypeKind::RankedTensor { .. }
                | TypeKind::UnrankedTensor { .. }
                | TypeKind::Vector { .. }
                | TypeKind::MemRef { .. }
                | TypeKind::UnrankedMemRef { .. }
        )
    }
}

/// Read-only helpers over types; all need the context to look behind the handle.
impl Context {
    pub fn is_integer(&self, t: Type) -> bool {
        matches!(self.type_kind(t), TypeKind::Integer { .. })
    }
    pub fn is_signless_integer(&self, t: Type) -> bool {
        matches!(self.type_kind(t), TypeKind::Integer { signedness: Signedness::Signless, .. })
    }
    pub fn is_int_or_index(&self, t: Type) -> bool {
        matches!(self.type_kind(t), TypeKind::Integer { .. } | TypeKind::Index)
    }
    pub fn is_float(&self, t: Type) -> bool {
        matches!(self.type_kind(t), TypeKind::Float(_))
    }
    pub fn int_width(&self, t: Type) -> Option<u32> {
        match self.type_kind(t) {
            TypeKind::Integer { width, .. } => Some(*width),
            TypeKind::Index => Some(64),
            _ => None,
        }
    }
    pub fn float_kind(&self, t: Type) -> Option<FloatKind> {
        match self.type_kind(t) {
            TypeKind::Float(k) => Some(*k),
            _ => None,
        }
    }
    pub fn is_tensor(&self, t: Type) -> bool {
        matches!(self.type_kind(t), TypeKind::RankedTensor { .. } | TypeKind::UnrankedTensor { .. })
    }
    pub fn is_ranked_tensor(&self, t: Type) -> bool {
        matches!(self.type_kind(t), TypeKind::RankedTensor { .. })
    }
    /// The shape of a ranked shaped type (tensor, vector, memref).
    pub fn shape(&self, t: Type) -> Option<&[i64]> {
        match self.type_kind(t) {
            TypeKind::RankedTensor { shape, .. }
            | TypeKind::Vector { shape, .. }
            | TypeKind::MemRef { shape, .. } => Some(shape),
            _ => None,
        }
    }
    /// The element type of a shaped or complex type; other types are their own element type.
    pub fn element_type(&self, t: Type) -> Type {
        match self.type_kind(t) {
            TypeKind::RankedTensor { elem, .. }
            | TypeKind::UnrankedTensor { elem }
            | TypeKind::Vector { elem, .. }
            | TypeKind::MemRef { elem, .. }
            | TypeKind::UnrankedMemRef { elem, .. } => *elem,
            _ => t,
        }
    }
    pub fn function_signature(&self, t: Type) -> Option<(&[Type], &[Type])> {
        match self.type_kind(t) {
            TypeKind::Function { inputs, results } => Some((inputs, results)),
            _ => None,
        }
    }
    /// The dialect namespace of a dialect type, if it is one.
    pub fn type_dialect(&self, t: Type) -> Option<&str> {
        match self.type_kind(t) {
            TypeKind::Dialect { dialect, .. } => Some(self.str(*dialect)),
            _ => None,
        }
    }
    /// Bits of storage per element for integer, index and float types.
    pub fn bit_width(&self, t: Type) -> Option<u32> {
        match self.type_kind(t) {
            TypeKind::Integer { width, .. } => Some(*width),
            TypeKind::Index => Some(64),
            TypeKind::Float(k) => Some(k.width()),
            _ => None,
        }
    }
}
