//! The kernel-row cache shared by every kernel solver: LRU over rows, a byte budget, float32
//! storage, rows that may be partial (filled up to a length) and index swaps, so that solvers
//! which reorder their variables (active sets, LaSVM's expansion set) keep their cached values.
//!
//! The cache never computes anything itself: `request` says how much of a row is already valid and
//! the caller fills the rest. That keeps it free of any kernel or solver type.
//!
//! A row's storage is allocated at full length on first use and the budget is charged by that
//! capacity, while its entries are still computed lazily up to the length asked for. All rows
//! having one size, a freed row is always reused by the allocator: with rows of many sizes the
//! heap fragments and the process holds 25-30% more than the budget (measured on Adult).

use crate::runtime::team::{Team, SOLO};
use crate::runtime::vecops::prefetch;

const NIL: usize = usize::MAX;

/// Kernel rows of a solver's `n` variables (by current position), stored as f32 and evicted least
/// recently used first once their allocated capacity would exceed the byte budget.
pub struct KernelCache {
    rows: Vec<Vec<f32>>,
    /// LRU list: `prev`/`next` link cached rows, `head` is the most recently used.
    prev: Vec<usize>,
    next: Vec<usize>,
    head: usize,
    tail: usize,
    /// Budget and allocated capacity of all rows, in f32 entries.
    budget: usize,
    used: usize,
    /// Rows allocated at full length (false: at the length asked for, plus a quarter).
    full_rows: bool,
    /// No row has ever been asked for longer than this.
    longest: usize,
    /// The rows of a walk over a team (kept between swaps).
    walk: Vec<usize>,
    /// The linked rows in no particular order (`slot[i]`: where row i is in it), so that a walk
    /// over a team reads them from one array instead of chasing the list's links, and when each
    /// was last put at the front (`stamp`, rising): the list runs from the highest stamp down.
    members: Vec<usize>,
    slot: Vec<usize>,
    stamp: Vec<u64>,
    /// The last stamp given at the front, and the last given at the back (`discard`).
    clock: u64,
    floor: u64,
    /// Full-row caches swap entries lazily: the swaps (i < j) since the last flush, and how many
    /// of them each row (by position, moving with it) has had applied. A row catches up when it
    /// is asked for; all rows do when the log is full.
    pending: Vec<(u32, u32)>,
    applied: Vec<usize>,
}

impl KernelCache {
    /// A cache for `n` rows within `bytes`. The budget is raised to two full rows if smaller, since
    /// a solver step needs two rows at once.
    pub fn new(n: usize, bytes: usize) -> Self {
        let budget = (bytes / std::mem::size_of::<f32>()).max(2 * n);
        KernelCache {
            rows: vec![Vec::new(); n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: NIL,
            tail: NIL,
            budget,
            used: 0,
            full_rows: true,
            longest: 0,
            walk: Vec::new(),
            members: Vec::new(),
            slot: vec![NIL; n],
            stamp: vec![0; n],
            clock: 1 << 62,
            floor: 1 << 62,
            pending: Vec::new(),
            applied: vec![0; n],
        }
    }

    /// A cache whose rows are allocated as long as they are asked for (plus a quarter, to grow):
    /// for solvers whose rows stay much shorter than n, as LaSVM's rows over its expansion set.
    pub fn with_short_rows(n: usize, bytes: usize) -> Self {
        KernelCache { full_rows: false, ..Self::new(n, bytes) }
    }

    /// Whether rows are allocated at the length asked for (built by `with_short_rows`) rather
    /// than at full length.
    pub fn has_short_rows(&self) -> bool {
        !self.full_rows
    }
    /// A bound on the length of every cached row: entry i of any row exists only if i is below it.
    pub fn longest_row(&self) -> usize {
        self.longest
    }

    /// Lowers the budget to `bytes` (never below two full rows; never raises it), evicting rows
    /// from the LRU tail as needed.
    pub fn limit(&mut self, bytes: usize) {
        let budget = (bytes / std::mem::size_of::<f32>()).max(2 * self.rows.len());
        self.budget = self.budget.min(budget);
        while self.used > self.budget && self.tail != NIL {
            self.forget(self.tail);
        }
    }

    /// The budget in bytes, after the raise to two full rows made by `new`.
    pub fn budget_bytes(&self) -> usize {
        self.budget * std::mem::size_of::<f32>()
    }
    /// Bytes allocated to the cached rows, counted by capacity rather than by valid entries.
    pub fn used_bytes(&self) -> usize {
        self.used * std::mem::size_of::<f32>()
    }
    /// Number of valid entries cached for row i (once it has caught up with the swaps).
    pub fn len_of(&self, i: usize) -> usize {
        let mut len = self.rows[i].len();
        for &(a, b) in &self.pending[self.applied[i]..] {
            if len <= b as usize && len > a as usize {
                len = a as usize;
            }
        }
        len
    }

    /// Applies to row i the swaps it has not had yet.
    pub fn sync(&mut self, i: usize) {
        let from = std::mem::replace(&mut self.applied[i], self.pending.len());
        if from == self.pending.len() {
            return; // (the common case: every request passes here)
        }
        let row = &mut self.rows[i];
        for &(a, b) in &self.pending[from..] {
            apply_swap(row, a as usize, b as usize);
        }
        if row.is_empty() && self.linked(i) {
            self.forget(i);
        }
    }

    /// Entry `k` of row i, if cached.
    pub fn entry(&mut self, i: usize, k: usize) -> Option<f32> {
        self.sync(i);
        self.rows[i].get(k).copied()
    }

    fn linked(&self, i: usize) -> bool {
        self.slot[i] != NIL
    }
    fn unlink(&mut self, i: usize) {
        let (p, n) = (self.prev[i], self.next[i]);
        if p != NIL {
            self.next[p] = n
        } else {
            self.head = n
        }
        if n != NIL {
            self.prev[n] = p
        } else {
            self.tail = p
        }
        self.prev[i] = NIL;
        self.next[i] = NIL;
        let at = std::mem::replace(&mut self.slot[i], NIL);
        self.members.swap_remove(at);
        if let Some(&moved) = self.members.get(at) {
            self.slot[moved] = at;
        }
    }
    fn push_front(&mut self, i: usize) {
        self.prev[i] = NIL;
        self.next[i] = self.head;
        if self.head != NIL {
            self.prev[self.head] = i
        } else {
            self.tail = i
        }
        self.head = i;
        self.join(i);
        self.clock += 1;
        self.stamp[i] = self.clock;
    }
    /// Row i, just linked, among the members.
    fn join(&mut self, i: usize) {
        self.slot[i] = self.members.len();
        self.members.push(i);
    }
    /// Frees row i (also for a row its solver will not ask for again, or only much later:
    /// keeping it would make every index swap patch it).
    pub fn forget(&mut self, i: usize) {
        self.used -= self.rows[i].capacity();
        self.rows[i] = Vec::new();
        self.applied[i] = self.pending.len();
        if self.linked(i) {
            self.unlink(i);
        }
    }

    /// Makes row i at least `len` long and most recently used. Returns the row and the number of
    /// leading entries that were already valid; the caller must fill `row[start..len]`.
    /// Other rows are evicted from the LRU tail as the budget requires.
    pub fn request(&mut self, i: usize, len: usize) -> (&mut [f32], usize) {
        self.sync(i);
        if self.linked(i) {
            self.unlink(i);
        }
        let have = self.rows[i].len();
        self.longest = self.longest.max(len);
        if have < len {
            let cap = self.rows[i].capacity();
            if len > cap {
                let target = if self.full_rows {
                    self.rows.len().max(len)
                } else {
                    (len + len / 4).min(self.rows.len()).max(len)
                };
                while self.used + (target - cap) > self.budget && self.tail != NIL {
                    let victim = self.tail;
                    if have == 0 && self.rows[victim].capacity() == target {
                        // Row i takes over the victim's storage as it is: no allocation, no page
                        // faults, no zeroing (the caller writes every entry it is given).
                        let storage = std::mem::take(&mut self.rows[victim]);
                        self.used -= storage.capacity();
                        self.forget(victim);
                        self.used += storage.capacity() - cap;
                        self.rows[i] = storage;
                        break;
                    }
                    self.forget(victim);
                }
                let row = &mut self.rows[i];
                if row.capacity() < len {
                    if row.is_empty() {
                        // zeroed by the allocator: fresh pages from the system are zero already,
                        // and are touched first by the caller's fill (split over its team)
                        // instead of by a memset here, on one thread
                        *row = vec![0.0; target];
                        row.truncate(len);
                    } else {
                        row.reserve_exact(target - row.len());
                    }
                    self.used += row.capacity() - cap;
                }
            }
            let row = &mut self.rows[i];
            if row.len() > len {
                row.truncate(len);
            } else {
                row.resize(len, 0.0);
            }
        }
        self.push_front(i);
        (&mut self.rows[i][..len], have.min(len))
    }

    /// `request` for several rows at once (distinct, none held yet at `len`, together within the
    /// budget): their storage, each `len` long, in the order of `rows`, for the caller to fill whole.
    /// Panics if a row is asked for twice.
    pub fn request_many(&mut self, rows: &[usize], len: usize) -> Vec<&mut [f32]> {
        for &i in rows {
            self.request(i, len);
        }
        let mut wanted = vec![usize::MAX; self.rows.len()];
        for (k, &i) in rows.iter().enumerate() {
            assert!(wanted[i] == usize::MAX, "row {i} asked for twice");
            wanted[i] = k;
        }
        let mut out: Vec<Option<&mut [f32]>> = (0..rows.len()).map(|_| None).collect();
        for (i, row) in self.rows.iter_mut().enumerate() {
            if wanted[i] != usize::MAX {
                out[wanted[i]] = Some(&mut row[..len]);
            }
        }
        out.into_iter().map(|r| r.expect("every row requested")).collect()
    }

    /// The cached entries of row i (possibly empty); does not touch the LRU order. The row must
    /// have caught up with the swaps (`request` or `sync` since the last swap).
    pub fn row(&self, i: usize) -> &[f32] {
        debug_assert!(self.applied[i] == self.pending.len() || self.rows[i].is_empty(), "row {i} behind the swaps");
        &self.rows[i]
    }

    /// Moves row i to the LRU tail so it is evicted first (rows used once).
    pub fn discard(&mut self, i: usize) {
        if !self.linked(i) || self.tail == i {
            return;
        }
        self.unlink(i);
        self.prev[i] = self.tail;
        self.next[i] = NIL;
        self.next[self.tail] = i;
        self.tail = i;
        self.join(i);
        // (below every stamp given so far: the list still runs from the highest stamp down)
        self.floor -= 1;
        self.stamp[i] = self.floor;
    }

    /// Exchanges the positions i and j: the rows trade places and, inside every cached row, the
    /// entries i and j trade places. The matrix is symmetric, so a short row long enough to hold
    /// entry i but not entry j gets its new entry i from the row now at i, when that one holds
    /// it; otherwise it is cut short. Full rows do this lazily (see `sync`) and are cut.
    pub fn swap_index(&mut self, i: usize, j: usize) {
        self.swap_index_on(i, j, &SOLO)
    }

    /// `swap_index` with the walk over the cached rows split over `team` (the same result: the
    /// rows the walk visits before the row now at i read that row as it was, those after it as
    /// it became, as in the walk of one thread).
    pub fn swap_index_on(&mut self, i: usize, j: usize, team: &Team) {
        if i == j {
            return;
        }
        let (i, j) = if i < j { (i, j) } else { (j, i) };
        let (li, lj) = (self.linked(i), self.linked(j));
        if li {
            self.unlink(i)
        }
        if lj {
            self.unlink(j)
        }
        self.rows.swap(i, j);
        self.applied.swap(i, j);
        if li {
            self.push_front(j)
        }
        if lj {
            self.push_front(i)
        }
        if i >= self.longest {
            return; // no row holds entry i or j (an expansion set growing by one at its end)
        }
        if self.full_rows {
            // Lazily: with a large budget the walk visits thousands of rows a swap (SVC at 50,000
            // Forest rows spent half its time there), most of them never asked for again before
            // being evicted. A row long enough for i but not j is then cut at i, not patched.
            self.pending.push((i as u32, j as u32));
            if self.pending.len() > PENDING_SWAPS_PER_ROW * self.rows.len() + PENDING_SWAPS_MIN {
                self.flush(team);
            }
            return;
        }
        if team.size() > 1 {
            return self.walk_on(i, j, team);
        }
        // The walk is bound by memory latency (two entries of every cached row, at random places):
        // a second cursor runs ahead and prefetches them.
        let mut r = self.head;
        let mut ahead = r;
        for _ in 0..PREFETCH_AHEAD {
            if ahead != NIL {
                ahead = self.next[ahead];
            }
        }
        while r != NIL {
            if ahead != NIL {
                let row = &self.rows[ahead];
                if row.len() > i {
                    prefetch(row.as_ptr().wrapping_add(i));
                    prefetch(row.as_ptr().wrapping_add(j.min(row.len() - 1)));
                }
                ahead = self.next[ahead];
            }
            let next = self.next[r];
            let len = self.rows[r].len();
            if len > j {
                self.rows[r].swap(i, j);
            } else if len > i {
                // The new entry i is K(r, what is now at i) = entry r of the row now at i.
                let patch = if r != i && r != j && self.rows[i].len() > r { Some(self.rows[i][r]) } else { None };
                match patch {
                    Some(v) => self.rows[r][i] = v,
                    None => {
                        // keep the prefix before i (and the capacity, so the row can grow back)
                        self.rows[r].truncate(i);
                        if i == 0 {
                            self.forget(r);
                        }
                    }
                }
            }
            r = next;
        }
    }
    /// The walk of `swap_index_on` over a team: the cached rows cut at the row now at i into the
    /// rows a walk in LRU order meets before it (used more recently: a higher stamp), that row,
    /// and the rows after it; each group in parallel. (Within a group the order does not matter:
    /// only the row at i is read by other rows' visits, and it is a group of its own.)
    fn walk_on(&mut self, i: usize, j: usize, team: &Team) {
        let mut list = std::mem::take(&mut self.walk);
        list.clear();
        let at = self.linked(i).then(|| self.stamp[i]);
        let sooner = |r: usize| at.is_some_and(|s| self.stamp[r] > s);
        list.extend(self.members.iter().copied().filter(|&r| sooner(r)));
        let cut = list.len();
        if at.is_some() {
            list.push(i);
        }
        let after = list.len();
        list.extend(self.members.iter().copied().filter(|&r| r != i && !sooner(r)));
        let mut emptied = Vec::new();
        for group in [&list[..cut], &list[cut..after], &list[after..]] {
            let rows = SharedRows(self.rows.as_mut_ptr());
            let weight = group.len() * WALK_SPLIT_WEIGHT;
            let gone = team.map(weight, &|part| {
                let mine = &group[part.start / WALK_SPLIT_WEIGHT..part.end / WALK_SPLIT_WEIGHT];
                let rows = &rows;
                let mut gone = Vec::new();
                for &r in mine {
                    // SAFETY: each row of the group is visited by one part; the row at i is read
                    // by the others only when it is not in the group (it is a group of its own).
                    let row = unsafe { &mut *rows.0.add(r) };
                    let len = row.len();
                    if len > j {
                        row.swap(i, j);
                    } else if len > i {
                        // SAFETY: as above (r != i here, or the patch is not looked for).
                        let at_i = (r != i && r != j).then(|| unsafe { &*rows.0.add(i) });
                        match at_i.and_then(|row_i| row_i.get(r).copied()) {
                            Some(v) => row[i] = v,
                            None => {
                                row.truncate(i);
                                if i == 0 {
                                    gone.push(r);
                                }
                            }
                        }
                    }
                }
                gone
            });
            emptied.extend(gone.into_iter().flatten());
        }
        for r in emptied {
            self.forget(r);
        }
        self.walk = list;
    }
}

impl KernelCache {
    /// Every cached row catches up with the pending swaps, which are then dropped.
    fn flush(&mut self, team: &Team) {
        let members = std::mem::take(&mut self.members);
        let rows = SharedRows(self.rows.as_mut_ptr());
        let (pending, applied) = (&self.pending, &self.applied);
        let emptied = team.map(members.len() * WALK_SPLIT_WEIGHT, &|part| {
            let rows = &rows;
            let mut gone = Vec::new();
            for &r in &members[part.start / WALK_SPLIT_WEIGHT..part.end / WALK_SPLIT_WEIGHT] {
                // SAFETY: each member row is visited by one part only.
                let row = unsafe { &mut *rows.0.add(r) };
                for &(a, b) in &pending[applied[r]..] {
                    apply_swap(row, a as usize, b as usize);
                }
                if row.is_empty() {
                    gone.push(r);
                }
            }
            gone
        });
        self.members = members;
        self.pending.clear();
        self.applied.iter_mut().for_each(|a| *a = 0);
        for r in emptied.into_iter().flatten() {
            self.forget(r);
        }
    }
}

/// One swap of positions a < b inside a row: the entries trade places, or a row holding a but
/// not b is cut at a.
fn apply_swap(row: &mut Vec<f32>, a: usize, b: usize) {
    let len = row.len();
    if len > b {
        row.swap(a, b);
    } else if len > a {
        row.truncate(a);
    }
}

/// A full-row cache flushes its swaps when it holds this many per position, plus the second.
const PENDING_SWAPS_PER_ROW: usize = 4;
const PENDING_SWAPS_MIN: usize = 1 << 16;

/// The rows of a cache, handed to the members of a team walking disjoint sets of them.
struct SharedRows(*mut Vec<f32>);
// SAFETY: used by `walk_on` and `flush`, whose parts touch disjoint rows (walk_on reads one row no part writes).
unsafe impl Sync for SharedRows {}

/// A row of a walk counts as this many elements of a pass when the team decides to split it (a
/// row costs a few cache misses, an element of a pass a few nanoseconds).
const WALK_SPLIT_WEIGHT: usize = 8;

/// Rows the index-swap walk prefetches ahead.
const PREFETCH_AHEAD: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(c: &mut KernelCache, i: usize, len: usize) -> usize {
        let (row, start) = c.request(i, len);
        for (k, v) in row.iter_mut().enumerate().skip(start) {
            *v = (i * 100 + k) as f32;
        }
        start
    }

    #[test]
    fn a_swap_walked_by_a_team_is_the_walk_of_one_thread() {
        // enough cached rows for the walk to be split, rows of every length (whole, holding i but
        // not j, shorter than i), discarded rows at the tail, full and short-row caches
        let n = 2000;
        for short in [false, true] {
            crate::runtime::team::with_team(2, |team| {
                let make = || {
                    if short {
                        KernelCache::with_short_rows(n, 6 << 20)
                    } else {
                        KernelCache::new(n, 6 << 20)
                    }
                };
                let (mut one, mut two) = (make(), make());
                let mut rng = crate::runtime::rng::Rng::new(17);
                for step in 0..4000 {
                    let (i, j) = (rng.below(n), rng.below(n));
                    match step % 7 {
                        0 | 1 => {
                            one.swap_index(i, j);
                            two.swap_index_on(i, j, team);
                        }
                        2 => {
                            one.discard(i);
                            two.discard(i);
                        }
                        _ => {
                            let len = 1 + rng.below(n);
                            fill(&mut one, i, len);
                            fill(&mut two, i, len);
                        }
                    }
                }
                assert!(one.members.len() > 300, "too few rows cached for the walk to be split");
                for r in 0..n {
                    one.sync(r);
                    two.sync(r);
                    assert_eq!(one.row(r), two.row(r), "row {r} (short rows: {short})");
                }
                assert_eq!(one.used_bytes(), two.used_bytes());
            });
        }
        // the row that lands at i holds i but not j, so its own visit cuts it; the rows that hold
        // i but not j take their new entry i from it where it still holds their index
        let (i, j, len) = (100, 1900, 1000);
        crate::runtime::team::with_team(2, |team| {
            let (mut one, mut two) =
                (KernelCache::with_short_rows(n, 16 << 20), KernelCache::with_short_rows(n, 16 << 20));
            for c in [&mut one, &mut two] {
                for r in (0..700).chain([j]).chain(700..1400) {
                    fill(c, r, len);
                }
            }
            one.swap_index(i, j);
            two.swap_index_on(i, j, team);
            let patched = (0..n).filter(|&r| one.len_of(r) > i).count();
            assert_eq!(patched, i, "the rows below i keep their entry i, the others are cut");
            for r in 0..n {
                assert_eq!(one.row(r), two.row(r), "row {r}");
            }
        });
    }

    #[test]
    fn lru_and_budget() {
        // 4 rows of 4 floats; budget 8 floats (two rows).
        let mut c = KernelCache::new(4, 32);
        assert_eq!(fill(&mut c, 0, 4), 0);
        assert_eq!(fill(&mut c, 1, 4), 0);
        assert_eq!(fill(&mut c, 0, 4), 4); // hit, 0 becomes most recent
        fill(&mut c, 2, 4); // evicts 1
        assert_eq!(c.len_of(1), 0);
        assert_eq!(c.len_of(0), 4);
        assert!(c.used_bytes() <= c.budget_bytes());
        // partial extension
        let mut c = KernelCache::new(4, 1 << 20);
        fill(&mut c, 3, 2);
        assert_eq!(fill(&mut c, 3, 4), 2);
        assert_eq!(c.row(3), &[300.0, 301.0, 302.0, 303.0]);
    }

    #[test]
    fn never_exceeds_the_budget_under_random_use() {
        let n = 10_000;
        let mut c = KernelCache::new(n, 300_000);
        let mut rng = crate::runtime::rng::Rng::new(9);
        for step in 0..5000 {
            let i = rng.below(n);
            match step % 5 {
                0 => c.swap_index(i, rng.below(n)),
                1 => c.discard(i),
                2 => c.forget(i),
                _ => {
                    let len = 1 + rng.below(n);
                    assert!(fill(&mut c, i, len) <= len);
                    assert!(c.len_of(i) >= len);
                }
            }
            let allocated: usize = c.rows.iter().map(|r| r.capacity()).sum();
            assert_eq!(allocated * 4, c.used_bytes());
            assert!(c.used_bytes() <= c.budget_bytes());
        }
    }

    #[test]
    fn swap_keeps_values_consistent() {
        let mut c = KernelCache::new(4, 1 << 20);
        fill(&mut c, 0, 4);
        fill(&mut c, 1, 2);
        c.swap_index(0, 3);
        // old row 0 is now row 3, with its entries 0 and 3 exchanged
        c.sync(3);
        assert_eq!(c.row(3), &[3.0, 1.0, 2.0, 0.0]);
        // row 1 held only position 0: cut before it
        assert_eq!(c.len_of(1), 0);
        assert_eq!(c.len_of(0), 0);
        c.sync(1); // (a full row cut to nothing keeps its storage until it catches up)
        c.discard(3);
        assert_eq!(c.used_bytes(), 16); // one row of four entries
        c.forget(3);
        assert_eq!((c.used_bytes(), c.len_of(3)), (0, 0));
        assert_eq!(fill(&mut c, 3, 4), 0, "a forgotten row is computed again");
    }

    /// Full rows swap lazily: under random swaps, fills, evictions and flushes of the pending
    /// swaps, every entry a row holds once it caught up is the value of its pair of examples.
    #[test]
    fn lazy_swaps_keep_every_entry_right() {
        let k = |a: usize, b: usize| (a.min(b) * 1000 + a.max(b)) as f32; // symmetric
        let n = 60;
        let mut c = KernelCache::new(n, 40 * n * 4); // 40 of 60 rows
        let mut example: Vec<usize> = (0..n).collect();
        let mut rng = crate::runtime::rng::Rng::new(3);
        let limit = PENDING_SWAPS_PER_ROW * n + PENDING_SWAPS_MIN;
        let (mut flushes, mut checked) = (0, 0);
        for step in 0..2 * limit {
            let i = rng.below(n);
            match rng.below(100) {
                0..=89 => {
                    let j = rng.below(n);
                    let before = c.pending.len();
                    c.swap_index(i, j);
                    example.swap(i, j);
                    flushes += usize::from(c.pending.len() < before);
                }
                90 => c.forget(i),
                91 => c.discard(i),
                _ => {
                    let len = 1 + rng.below(n);
                    let (row, start) = c.request(i, len);
                    for (p, v) in row.iter_mut().enumerate() {
                        if p < start {
                            assert_eq!(*v, k(example[i], example[p]), "step {step}: row {i} entry {p}");
                            checked += 1;
                        }
                        *v = k(example[i], example[p]);
                    }
                }
            }
        }
        assert!(flushes >= 1 && checked > 10_000, "{flushes} flushes, {checked} entries checked");
        for r in 0..n {
            c.sync(r);
            for (p, &v) in c.row(r).iter().enumerate() {
                assert_eq!(v, k(example[r], example[p]), "row {r} entry {p}");
            }
        }
    }

    /// Entries of a short row missing only position j are taken from the symmetric entry of the
    /// row that moved into position i.
    #[test]
    fn swap_patches_from_the_symmetric_row() {
        let k = |a: usize, b: usize| ((a + 1) * (b + 1)) as f32; // a symmetric "kernel" on examples
        let mut c = KernelCache::with_short_rows(4, 1 << 20);
        let mut example = [0usize, 1, 2, 3];
        for (r, len) in [(3, 4), (1, 2)] {
            let (row, _) = c.request(r, len);
            for (p, v) in row.iter_mut().enumerate() {
                *v = k(example[r], example[p]);
            }
        }
        c.swap_index(0, 3);
        example.swap(0, 3);
        assert_eq!(c.len_of(1), 2, "row 1 kept its length");
        for (r, len) in [(0, 4), (1, 2)] {
            for p in 0..len {
                assert_eq!(c.row(r)[p], k(example[r], example[p]), "row {r} position {p}");
            }
        }
    }
}
