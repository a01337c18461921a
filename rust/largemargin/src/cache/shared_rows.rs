//! Kernel rows shared by solvers that run at once on several threads: in a cross-validated search,
//! every fold and every C of one kernel read the same kernel values, so a row is computed once
//! over a whole domain (a fixed list of examples, e.g. the full training set) and each solver
//! gathers the entries of its own variables from it.
//!
//! Rows are keyed by (domain, position in the domain) and kept under one LRU list and one byte
//! budget. They are handed out as `Arc`s: a row evicted while a solver still reads it lives until
//! that solver lets it go (at most a few rows per thread beyond the budget).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

const NIL: usize = usize::MAX;
const ROUND: usize = 64;

struct Node {
    key: u64,
    row: Arc<[f32]>,
    prev: usize,
    next: usize,
}

#[derive(Default)]
struct Inner {
    slots: HashMap<u64, usize>,
    nodes: Vec<Node>,
    free: Vec<usize>,
    head: usize,
    tail: usize,
    /// Entries held by the cached rows.
    used: usize,
    hits: u64,
    misses: u64,
}

/// Whole kernel rows over several domains, safe to share between threads.
pub struct SharedRows {
    inner: Mutex<Inner>,
    /// Budget in f32 entries.
    budget: usize,
    domains: usize,
    /// Every row's length, if fixed (`with_row_len`).
    row_len: Option<usize>,
}

/// What the rows served: requests answered from the cache, and rows computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowStats {
    /// Requests answered with a cached row (by `row` or `get`).
    pub hits: u64,
    /// Rows `row` had to compute.
    pub misses: u64,
}

impl SharedRows {
    /// Rows of `domains` domains within `bytes`.
    pub fn new(domains: usize, bytes: usize) -> Self {
        assert!(domains < 1 << 24, "at most 2^24 domains");
        let inner = Inner { head: NIL, tail: NIL, ..Default::default() };
        SharedRows { inner: Mutex::new(inner), budget: bytes / std::mem::size_of::<f32>(), domains, row_len: None }
    }

    /// Every row stored `len` entries long, whatever its domain's length (at most that): any evicted
    /// row's storage then serves the next row, so that domains of many lengths (the class pairs of
    /// a one-vs-one problem) do not fragment the heap. The budget counts the stored length.
    pub fn with_row_len(mut self, len: usize) -> Self {
        self.row_len = Some(len);
        self
    }

    fn key(&self, domain: usize, position: usize) -> u64 {
        assert!(domain < self.domains, "domain {domain} of {}", self.domains);
        ((position as u64) << 24) | domain as u64
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The row at `position` of `domain` if cached (made most recently used), else None.
    pub fn get(&self, domain: usize, position: usize) -> Option<Arc<[f32]>> {
        let key = self.key(domain, position);
        self.lock().hit(key)
    }

    /// The row at `position` of `domain` (at least `len` entries), computed by `fill` (outside
    /// the lock, so other threads go on meanwhile) if not cached. Two threads missing the same row both compute it; the
    /// first to finish is kept.
    pub fn row(&self, domain: usize, position: usize, len: usize, fill: impl FnOnce(&mut [f32])) -> Arc<[f32]> {
        let key = self.key(domain, position);
        // stored a little longer than asked (a multiple of 64 entries): rows of near lengths (a
        // one-vs-one pair's) then recycle each other's storage
        let len = match self.row_len {
            Some(fixed) => {
                assert!(len <= fixed, "a row of {len} entries where rows hold {fixed}");
                fixed
            }
            None => len.div_ceil(ROUND) * ROUND,
        };
        let recycled = {
            let mut inner = self.lock();
            if let Some(row) = inner.hit(key) {
                return row;
            }
            inner.misses += 1;
            // room for the new row, in the storage of an evicted row of its length if one is free
            // (rows come and go by the thousand: reusing their memory keeps the heap from
            // fragmenting over the threads' arenas)
            self.make_room(&mut inner, len)
        };
        let mut row = recycled.unwrap_or_else(|| std::iter::repeat_n(0.0f32, len).collect());
        fill(Arc::get_mut(&mut row).expect("a new or recycled row has no other owner"));
        let mut inner = self.lock();
        if let Some(&at) = inner.slots.get(&key) {
            return inner.nodes[at].row.clone();
        }
        if len > self.budget {
            return row; // not even one row fits: served, not kept
        }
        // (other rows may have come in meanwhile)
        drop(self.make_room(&mut inner, len));
        let node = Node { key, row: row.clone(), prev: NIL, next: NIL };
        let at = match inner.free.pop() {
            Some(at) => {
                inner.nodes[at] = node;
                at
            }
            None => {
                inner.nodes.push(node);
                inner.nodes.len() - 1
            }
        };
        inner.slots.insert(key, at);
        inner.used += len;
        inner.push_front(at);
        row
    }

    /// Evicts rows from the LRU tail until a row of `len` entries fits; returns the storage of
    /// an evicted row of that length nobody else holds, if any.
    fn make_room(&self, inner: &mut Inner, len: usize) -> Option<Arc<[f32]>> {
        let mut kept = None;
        while inner.used + len > self.budget && inner.tail != NIL {
            let victim = inner.tail;
            let mut row = inner.evict(victim);
            if kept.is_none() && row.len() == len && Arc::get_mut(&mut row).is_some() {
                kept = Some(row);
            }
        }
        kept
    }

    /// The hit and miss counts since the cache was made.
    pub fn stats(&self) -> RowStats {
        let inner = self.lock();
        RowStats { hits: inner.hits, misses: inner.misses }
    }

    /// Bytes held by the cached rows.
    pub fn used_bytes(&self) -> usize {
        self.lock().used * std::mem::size_of::<f32>()
    }
}

impl Inner {
    /// The cached row of `key`, made most recently used.
    fn hit(&mut self, key: u64) -> Option<Arc<[f32]>> {
        let at = *self.slots.get(&key)?;
        self.unlink(at);
        self.push_front(at);
        self.hits += 1;
        Some(self.nodes[at].row.clone())
    }
    fn unlink(&mut self, at: usize) {
        let (p, n) = (self.nodes[at].prev, self.nodes[at].next);
        if p != NIL {
            self.nodes[p].next = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.nodes[n].prev = p;
        } else {
            self.tail = p;
        }
    }
    fn push_front(&mut self, at: usize) {
        self.nodes[at].prev = NIL;
        self.nodes[at].next = self.head;
        if self.head != NIL {
            let h = self.head;
            self.nodes[h].prev = at;
        } else {
            self.tail = at;
        }
        self.head = at;
    }
    /// Removes the row at node `at`, returning it.
    fn evict(&mut self, at: usize) -> Arc<[f32]> {
        self.unlink(at);
        let key = self.nodes[at].key;
        self.slots.remove(&key);
        self.used -= self.nodes[at].row.len();
        self.free.push(at);
        std::mem::replace(&mut self.nodes[at].row, Arc::from(Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_computed_once_and_evicted_least_recent_first() {
        // room for three rows of 64 entries
        let rows = SharedRows::new(2, 3 * 64 * 4);
        let mut computed = 0;
        let mut get = |d: usize, p: usize| {
            rows.row(d, p, 64, |out| {
                computed += 1;
                out.fill((d * 100 + p) as f32)
            })[0]
        };
        assert_eq!(get(0, 1), 1.0);
        assert_eq!(get(1, 1), 101.0);
        assert_eq!(get(0, 2), 2.0);
        assert_eq!(get(0, 1), 1.0); // hit: (1, 1) is now the least recent
        assert_eq!(get(0, 3), 3.0); // evicts (1, 1)
        assert_eq!(get(0, 2), 2.0);
        assert_eq!(get(1, 1), 101.0); // computed again
        assert_eq!(computed, 5);
        assert_eq!(rows.stats(), RowStats { hits: 2, misses: 5 });
        assert_eq!(rows.used_bytes(), 3 * 64 * 4);
    }

    #[test]
    fn rows_of_a_fixed_length_recycle_each_other() {
        let rows = SharedRows::new(3, 2 * 100 * 4).with_row_len(100);
        for p in 0..10 {
            let r = rows.row(p % 3, p, 30 + 20 * (p % 3), |out| out[..30].fill(p as f32));
            assert_eq!((r.len(), r[0]), (100, p as f32));
        }
        assert_eq!(rows.used_bytes(), 2 * 100 * 4);
    }

    #[test]
    fn a_row_larger_than_the_budget_is_served_but_not_kept() {
        let rows = SharedRows::new(1, 16);
        assert_eq!(rows.row(0, 0, 10, |out| out.fill(7.0)).len(), 64);
        assert!(rows.get(0, 0).is_none());
        assert_eq!(rows.used_bytes(), 0);
    }

    #[test]
    fn threads_share_rows() {
        let rows = SharedRows::new(1, 1 << 20);
        std::thread::scope(|s| {
            for t in 0..4 {
                let rows = &rows;
                s.spawn(move || {
                    for p in 0..100 {
                        let r = rows.row(0, (p * 7 + t) % 50, 32, |out| out.fill(((p * 7 + t) % 50) as f32));
                        assert_eq!(r[31], ((p * 7 + t) % 50) as f32);
                    }
                });
            }
        });
        assert!(rows.stats().misses >= 50);
        assert!(rows.used_bytes() <= 50 * 64 * 4);
    }
}
