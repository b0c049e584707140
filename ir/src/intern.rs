//! A thread-safe interner: values live in an append-only `boxcar::Vec` (lock-free reads,
//! stable addresses) and are found through sharded hash tables of indices. Interning the same
//! value twice gives the same index, so equality of interned things is an integer compare.

use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use parking_lot::Mutex;
use rustc_hash::FxBuildHasher;

const SHARDS: usize = 16;

pub struct Interner<T: ?Sized + Hash + Eq> {
    items: boxcar::Vec<Box<T>>,
    shards: [Mutex<HashTable<u32>>; SHARDS],
}

impl<T: ?Sized + Hash + Eq> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            items: boxcar::Vec::new(),
            shards: std::array::from_fn(|_| Mutex::new(HashTable::new())),
        }
    }
}

#[inline]
fn hash_of<Q: ?Sized + Hash>(v: &Q) -> u64 {
    FxBuildHasher.hash_one(v)
}

impl<T: ?Sized + Hash + Eq> Interner<T> {
    /// Returns the index of `value`, inserting it (converted by `make`) if new. `make` is only
    /// called when the value is not yet present, so lookups of existing values do not allocate.
    pub fn intern_with<Q>(&self, value: &Q, make: impl FnOnce(&Q) -> Box<T>) -> u32
    where
        Q: ?Sized + Hash,
        T: PartialEq<Q>,
    {
        let h = hash_of(value);
        // The shard comes from the middle bits: hashbrown takes the bucket from the low bits
        // and its 7-bit tag from the top ones, so top bits here would leave every entry of a
        // shard with nearly the same tag and make lookups compare values again and again.
        let shard = &self.shards[(h >> 32) as usize % SHARDS];
        let mut table = shard.lock();
        if let Some(&i) = table.find(h, |&i| *self.items[i as usize] == *value) {
            return i;
        }
        let boxed = make(value);
        debug_assert!(hash_of(&*boxed) == h, "interned type must hash like its lookup key");
        let i = self.items.push(boxed) as u32;
        table.insert_unique(h, i, |&j| hash_of(&*self.items[j as usize]));
        i
    }

    #[inline]
    pub fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
    }

    pub fn len(&self) -> usize {
        self.items.count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Hash + Eq + Clone> Interner<T> {
    pub fn intern(&self, value: &T) -> u32 {
        self.intern_with(value, |v| Box::new(v.clone()))
    }
}

impl Interner<str> {
    pub fn intern_str(&self, s: &str) -> u32 {
        self.intern_with(s, |s: &str| s.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_value_same_index_across_threads() {
        let i: Interner<str> = Interner::default();
        let a = i.intern_str("hello");
        let ids: Vec<u32> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4).map(|_| s.spawn(|| i.intern_str("hello"))).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(ids.iter().all(|&x| x == a));
        assert_ne!(i.intern_str("world"), a);
        assert_eq!(i.get(a), "hello");
    }
}
