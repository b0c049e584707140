//! The values of one region execution ([`Frame`]): what the interpreter computed for each SSA
//! value so far, falling back to the enclosing region's frame for the values a region sees from
//! around its op (an `xcs.vmap` body uses values defined before the `xcs.vmap`).

use rustc_hash::FxHashMap;
use xcs_ir::Value;

use super::value::RtValue;

/// The values of one region execution, falling back to the enclosing region's values.
pub struct Frame<'p> {
    vals: FxHashMap<Value, RtValue>,
    parent: Option<&'p Frame<'p>>,
}

impl<'p> Frame<'p> {
    /// An empty frame inside `parent` (`None` for a function body or an isolated region).
    pub fn new(parent: Option<&'p Frame<'p>>) -> Self {
        Frame {
            vals: FxHashMap::default(),
            parent,
        }
    }
    /// The value of `v` here or in an enclosing frame.
    pub fn get(&self, v: Value) -> Option<&RtValue> {
        match self.vals.get(&v) {
            Some(x) => Some(x),
            None => self.parent.and_then(|p| p.get(v)),
        }
    }
    /// Sets the value of `v` in this frame.
    pub fn set(&mut self, v: Value, x: RtValue) {
        self.vals.insert(v, x);
    }
}
