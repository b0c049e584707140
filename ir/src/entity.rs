//! Typed indices and the arenas they index: `Slab` (a vector with a free list, for ops,
//! blocks, regions and values) and `ListPool` (small lists packed into one vector, for operand,
//! successor, region and block-argument lists). Ids are `NonZeroU32` so `Option<Id>` is 4 bytes.

use std::fmt;
use std::marker::PhantomData;

/// A typed index into an arena.
pub trait EntityRef: Copy + Eq {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

/// Declares a `NonZeroU32` newtype id implementing [`EntityRef`].
#[macro_export]
macro_rules! entity_id {
    ($(#[$m:meta])* $vis:vis struct $name:ident; $prefix:literal) => {
        $(#[$m])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis struct $name(::std::num::NonZeroU32);
        impl $crate::entity::EntityRef for $name {
            #[inline]
            fn new(index: usize) -> Self {
                debug_assert!(index < u32::MAX as usize);
                $name(unsafe { ::std::num::NonZeroU32::new_unchecked(index as u32 + 1) })
            }
            #[inline]
            fn index(self) -> usize {
                self.0.get() as usize - 1
            }
        }
        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), $crate::entity::EntityRef::index(*self))
            }
        }
    };
}

/// A vector of `Option<V>` with a free list: O(1) insert and remove, stable ids.
#[derive(Clone)]
pub struct Slab<K, V> {
    items: Vec<Option<V>>,
    free: Vec<u32>,
    _k: PhantomData<K>,
}

impl<K: EntityRef, V> Default for Slab<K, V> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new(), _k: PhantomData }
    }
}

impl<K: EntityRef, V> Slab<K, V> {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn with_capacity(n: usize) -> Self {
        Slab { items: Vec::with_capacity(n), free: Vec::new(), _k: PhantomData }
    }
    /// Inserts a value, reusing a free slot if there is one.
    #[inline]
    pub fn insert(&mut self, v: V) -> K {
        if let Some(i) = self.free.pop() {
            self.items[i as usize] = Some(v);
            K::new(i as usize)
        } else {
            self.items.push(Some(v));
            K::new(self.items.len() - 1)
        }
    }
    /// Appends `n` values in consecutive fresh slots and returns the first id.
    pub fn push_run(&mut self, vals: impl IntoIterator<Item = V>) -> K {
        let first = self.items.len();
        self.items.extend(vals.into_iter().map(Some));
        K::new(first)
    }
    /// Removes and returns a value; the slot goes on the free list.
    #[inline]
    pub fn remove(&mut self, k: K) -> Option<V> {
        let v = self.items.get_mut(k.index())?.take();
        if v.is_some() {
            self.free.push(k.index() as u32);
        }
        v
    }
    #[inline]
    pub fn get(&self, k: K) -> Option<&V> {
        self.items.get(k.index()).and_then(|v| v.as_ref())
    }
    #[inline]
    pub fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.items.get_mut(k.index()).and_then(|v| v.as_mut())
    }
    pub fn contains(&self, k: K) -> bool {
        self.get(k).is_some()
    }
    /// Number of live entries.
    pub fn len(&self) -> usize {
        self.items.len() - self.free.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Upper bound of ids ever handed out (for dense side tables).
    pub fn capacity_bound(&self) -> usize {
        self.items.len()
    }
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.items.iter().enumerate().filter_map(|(i, v)| v.as_ref().map(|v| (K::new(i), v)))
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        self.items.iter_mut().enumerate().filter_map(|(i, v)| v.as_mut().map(|v| (K::new(i), v)))
    }
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.items.iter_mut().filter_map(|v| v.as_mut())
    }
    pub fn memory_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<Option<V>>() + self.free.capacity() * 4
    }
    /// Gives back spare capacity (after a bulk build such as parsing).
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
        self.free.shrink_to_fit();
    }
}

impl<K: EntityRef + fmt::Debug, V> std::ops::Index<K> for Slab<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, k: K) -> &V {
        match self.items.get(k.index()) {
            Some(Some(v)) => v,
            _ => panic!("use of erased or foreign id {k:?}"),
        }
    }
}

impl<K: EntityRef + fmt::Debug, V> std::ops::IndexMut<K> for Slab<K, V> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut V {
        match self.items.get_mut(k.index()) {
            Some(Some(v)) => v,
            _ => panic!("use of erased or foreign id {k:?}"),
        }
    }
}

/// A dense side table keyed by an entity id, defaulting missing entries.
#[derive(Clone)]
pub struct SecondaryMap<K, V: Clone> {
    items: Vec<V>,
    default: V,
    _k: PhantomData<K>,
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    pub fn new(default: V) -> Self {
        SecondaryMap { items: Vec::new(), default, _k: PhantomData }
    }
    pub fn with_capacity(n: usize, default: V) -> Self {
        SecondaryMap { items: vec![default.clone(); n], default, _k: PhantomData }
    }
    #[inline]
    pub fn get(&self, k: K) -> &V {
        self.items.get(k.index()).unwrap_or(&self.default)
    }
    #[inline]
    pub fn set(&mut self, k: K, v: V) {
        let i = k.index();
        if i >= self.items.len() {
            self.items.resize(i + 1, self.default.clone());
        }
        self.items[i] = v;
    }
    #[inline]
    pub fn get_mut(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.items.len() {
            self.items.resize(i + 1, self.default.clone());
        }
        &mut self.items[i]
    }
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

/// A handle to a list stored in a [`ListPool`]: start offset and length. The empty list is
/// `ListRef::EMPTY` and owns no storage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ListRef {
    start: u32,
    len: u32,
}

impl ListRef {
    pub const EMPTY: ListRef = ListRef { start: 0, len: 0 };
    #[inline]
    pub fn len(self) -> usize {
        self.len as usize
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
    /// Offset of element `i` inside the pool (stable until the list is reallocated).
    #[inline]
    pub fn slot(self, i: usize) -> u32 {
        debug_assert!(i < self.len as usize);
        self.start + i as u32
    }
}

/// Small lists packed into one vector with power-of-two size classes and a free list per class
/// (the cranelift `ListPool` idea). A list of length n occupies a block of `class_size(n)`.
#[derive(Clone)]
pub struct ListPool<T: Copy> {
    data: Vec<T>,
    free: Vec<Vec<u32>>,
}

impl<T: Copy> Default for ListPool<T> {
    fn default() -> Self {
        ListPool { data: Vec::new(), free: Vec::new() }
    }
}

#[inline]
fn size_class(n: usize) -> usize {
    // class c holds up to 2^c elements
    (usize::BITS - (n.max(1) - 1).leading_zeros()) as usize
}

impl<T: Copy> ListPool<T> {
    pub fn new() -> Self {
        Self::default()
    }
    /// Allocates a list holding `items`. Inlined, as [`ListPool::free`]: creating an op allocates
    /// its operand list, and out of line the call cost `vmap-batch` ~0.3% more.
    #[inline]
    pub fn alloc(&mut self, items: &[T]) -> ListRef {
        if items.is_empty() {
            return ListRef::EMPTY;
        }
        let class = size_class(items.len());
        let cap = 1usize << class;
        let start = match self.free.get_mut(class).and_then(|f| f.pop()) {
            Some(s) => {
                self.data[s as usize..s as usize + items.len()].copy_from_slice(items);
                s
            }
            None => {
                let s = self.data.len();
                self.data.extend_from_slice(items);
                // pad to the class size with copies of the first element
                let pad = cap - items.len();
                let first = items[0];
                self.data.extend(std::iter::repeat_n(first, pad));
                s as u32
            }
        };
        ListRef { start, len: items.len() as u32 }
    }
    /// Returns a list's storage to the pool. Inlined: erasing an op frees three lists, and
    /// out of line (as the redesign's larger crate made it) the calls cost `cse` ~1% more.
    #[inline]
    pub fn free(&mut self, list: ListRef) {
        if list.is_empty() {
            return;
        }
        let class = size_class(list.len());
        if self.free.len() <= class {
            self.free.resize_with(class + 1, Vec::new);
        }
        self.free[class].push(list.start);
    }
    #[inline]
    pub fn get(&self, list: ListRef) -> &[T] {
        &self.data[list.start as usize..(list.start + list.len) as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, list: ListRef) -> &mut [T] {
        &mut self.data[list.start as usize..(list.start + list.len) as usize]
    }
    #[inline]
    pub fn at(&self, slot: u32) -> &T {
        &self.data[slot as usize]
    }
    #[inline]
    pub fn at_mut(&mut self, slot: u32) -> &mut T {
        &mut self.data[slot as usize]
    }
    /// Appends one element, moving the list to a bigger block when its class is full.
    /// Returns the (possibly moved) list; callers must fix up anything that refers to slots.
    pub fn push(&mut self, list: ListRef, item: T) -> ListRef {
        if list.is_empty() {
            return self.alloc(&[item]);
        }
        let n = list.len();
        if size_class(n + 1) == size_class(n) {
            self.data[list.start as usize + n] = item;
            return ListRef { start: list.start, len: list.len + 1 };
        }
        let mut tmp: Vec<T> = self.get(list).to_vec();
        tmp.push(item);
        self.free(list);
        self.alloc(&tmp)
    }
    pub fn memory_bytes(&self) -> usize {
        self.data.capacity() * std::mem::size_of::<T>()
    }
    /// Gives back spare capacity (after a bulk build such as parsing).
    pub fn shrink_to_fit(&mut self) {
        self.data.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    entity_id!(struct T; "t");

    #[test]
    fn slab_reuses_slots() {
        let mut s: Slab<T, u32> = Slab::new();
        let a = s.insert(1);
        let b = s.insert(2);
        assert_eq!(s.remove(a), Some(1));
        assert_eq!(s.len(), 1);
        let c = s.insert(3);
        assert_eq!(c, a);
        assert_eq!(s[b], 2);
        assert_eq!(s[c], 3);
    }

    #[test]
    fn pool_classes_and_push() {
        let mut p: ListPool<u32> = ListPool::new();
        let mut l = p.alloc(&[1]);
        for i in 2..=9 {
            l = p.push(l, i);
        }
        assert_eq!(p.get(l), &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let m = p.alloc(&[7, 7, 7]);
        p.free(m);
        let k = p.alloc(&[5, 6, 7, 8]);
        assert_eq!(k.slot(0), m.slot(0), "a freed block of the same class is reused");
        assert_eq!(size_class(1), 0);
        assert_eq!(size_class(2), 1);
        assert_eq!(size_class(3), 2);
        assert_eq!(size_class(4), 2);
        assert_eq!(size_class(5), 3);
    }
}
