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
    shards: [Mutex<HashTable<Entry>>; SHARDS],
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

/// A table entry: the value's index and 32 bits of its hash. Growing a table rehashes its
/// entries from the stored bits alone (reading the values back would touch the whole interner,
/// in random order), and a lookup compares a value only when the stored bits match.
#[derive(Copy, Clone)]
struct Entry {
    index: u32,
    key: u32,
}

/// The table's hash of an entry: the stored bits spread over 64 (hashbrown takes the bucket
/// from the low bits and a 7-bit tag from the top ones).
#[inline]
fn table_hash(key: u32) -> u64 {
    (key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl<T: ?Sized + Hash + Eq> Interner<T> {
    /// The shard (from the high half of the hash) and the stored bits (the low half): the
    /// table's bucket and tag bits do not repeat the shard's.
    #[inline]
    fn split(h: u64) -> (usize, u32) {
        ((h >> 32) as usize % SHARDS, h as u32)
    }

    /// Returns the index of `value`, inserting it (converted by `make`) if new. `make` is only
    /// called when the value is not yet present, so lookups of existing values do not allocate.
    pub fn intern_with<Q>(&self, value: &Q, make: impl FnOnce(&Q) -> Box<T>) -> u32
    where
        Q: ?Sized + Hash,
        T: PartialEq<Q>,
    {
        let h = hash_of(value);
        self.intern_hashed(h, value, |t, v| *t == **v, |v| {
            let stored = make(v);
            debug_assert!(hash_of(&*stored) == h, "interned type must hash like its lookup key");
            stored
        })
    }

    /// The lookup, and the insertion of `make(value)` when `eq` matches no value of hash `h`.
    #[inline]
    fn intern_hashed<V>(&self, h: u64, value: V, eq: impl Fn(&T, &V) -> bool, make: impl FnOnce(V) -> Box<T>) -> u32 {
        let (shard, key) = Self::split(h);
        let mut table = self.shards[shard].lock();
        let th = table_hash(key);
        if let Some(e) = table.find(th, |e| e.key == key && eq(&self.items[e.index as usize], &value)) {
            return e.index;
        }
        let index = self.items.push(make(value)) as u32;
        table.insert_unique(th, Entry { index, key }, |e| table_hash(e.key));
        index
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

impl<T: Hash + Eq> Interner<T> {
    /// Like [`Interner::intern_with`] for a value owned by the caller: moved in if new,
    /// dropped otherwise (no clone).
    pub fn intern_owned(&self, value: T) -> u32 {
        self.intern_hashed(hash_of(&value), value, |t, v| t == v, Box::new)
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

    #[test]
    fn lookups_survive_table_growth_and_owned_values_intern_alike() {
        // enough values for every shard's table to grow (rehash from the stored bits) many times
        let i: Interner<Vec<u32>> = Interner::default();
        let ids: Vec<u32> = (0..50_000u32).map(|k| i.intern_owned(vec![k, k / 7])).collect();
        assert_eq!(i.len(), 50_000);
        for (k, &id) in (0..50_000u32).zip(&ids) {
            assert_eq!(i.intern(&vec![k, k / 7]), id);
            assert_eq!(i.intern_with(&vec![k, k / 7], |v| Box::new(v.clone())), id);
            assert_eq!(i.get(id), &vec![k, k / 7]);
        }
        assert_eq!(i.len(), 50_000);
        assert_eq!(i.intern_owned(vec![7, 1]), ids[7]);
    }
}
