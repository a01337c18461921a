//! The Hessian of the signed dual as a decomposition solver sees it: rows over the solver's
//! current ordering of its variables (active ones first), served from the shared kernel cache.
//!
//! In the signed dual of `spec/bordes.md` section 0 the Hessian is the kernel matrix itself
//! (no label signs), so classification reads kernel rows directly; epsilon-regression has two
//! variables per example (alpha+ in [0, C], alpha- in [-C, 0]) whose rows are the example's row.

use crate::cache::KernelCache;
use crate::kernel::KernelEngine;

pub trait QMatrix {
    /// Number of variables.
    fn size(&self) -> usize;
    /// Q[i][i] at position i.
    fn diag(&self, i: usize) -> f64;
    /// Q[i][0..len] in the current ordering.
    fn row(&mut self, i: usize, len: usize) -> &[f32];
    /// Rows i and j at once (i != j), each of length len.
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]);
    /// Exchanges positions i and j.
    fn swap(&mut self, i: usize, j: usize);
}

/// One variable per example: positions map to examples of the engine's matrix.
pub struct ExampleQ<'e, 'a> {
    engine: &'e KernelEngine<'a>,
    cache: KernelCache,
    examples: Vec<usize>,
    diag: Vec<f64>,
}

impl<'e, 'a> ExampleQ<'e, 'a> {
    /// Variables are the examples `examples` of the engine's matrix, in that order.
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let diag = engine.diagonal(&examples);
        let cache = KernelCache::new(examples.len(), cache_bytes);
        ExampleQ { engine, cache, examples, diag }
    }

    /// The same over a cache of short rows (see `KernelCache::with_short_rows`).
    pub fn with_short_rows(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let diag = engine.diagonal(&examples);
        let cache = KernelCache::with_short_rows(examples.len(), cache_bytes);
        ExampleQ { engine, cache, examples, diag }
    }
    /// Marks the row at position i as the first to evict (a row computed once, for a rejected
    /// candidate, say).
    pub fn discard(&mut self, i: usize) {
        self.cache.discard(i);
    }
    fn ensure(&mut self, i: usize, len: usize) {
        // Where each request is dear whatever its length, the whole row is kept: the active set
        // growing back then finds it in the cache.
        let len = if self.engine.prefers_whole_rows() { self.examples.len() } else { len };
        let have = self.cache.len_of(i);
        if have < len && len - have <= SYMMETRIC_FILL_MAX {
            return self.extend_from_symmetric(i, have, len);
        }
        let (buf, start) = self.cache.request(i, len);
        if start < len {
            self.engine.row(self.examples[i], &self.examples[start..len], &mut buf[start..len]);
        }
    }

    /// A short extension of row i (as an online solver's expansion set grows by one): entries
    /// whose symmetric entry is cached are copied, only the others are computed.
    fn extend_from_symmetric(&mut self, i: usize, have: usize, len: usize) {
        // (on the stack: this runs on every short extension of an online solver's rows)
        let mut known = [0.0f32; SYMMETRIC_FILL_MAX];
        let (mut missing, mut cols) = ([0usize; SYMMETRIC_FILL_MAX], [0usize; SYMMETRIC_FILL_MAX]);
        let mut m = 0;
        for (k, p) in (have..len).enumerate() {
            let r = self.cache.row(p);
            if p != i && r.len() > i {
                known[k] = r[i];
            } else {
                (missing[m], cols[m]) = (p, self.examples[p]);
                m += 1;
            }
        }
        let mut computed = [0.0f32; SYMMETRIC_FILL_MAX];
        if m > 0 {
            self.engine.row(self.examples[i], &cols[..m], &mut computed[..m]);
        }
        let (buf, _) = self.cache.request(i, len);
        buf[have..len].copy_from_slice(&known[..len - have]);
        for (&p, &v) in missing[..m].iter().zip(&computed[..m]) {
            buf[p] = v;
        }
    }
}

/// Row extensions up to this long look for symmetric entries first.
const SYMMETRIC_FILL_MAX: usize = 64;

impl QMatrix for ExampleQ<'_, '_> {
    fn size(&self) -> usize {
        self.examples.len()
    }
    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }
    fn row(&mut self, i: usize, len: usize) -> &[f32] {
        self.ensure(i, len);
        &self.cache.row(i)[..len]
    }
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.ensure(i, len);
        // i is now the most recently used row and the budget holds two full rows: j cannot evict it.
        self.ensure(j, len);
        (&self.cache.row(i)[..len], &self.cache.row(j)[..len])
    }
    fn swap(&mut self, i: usize, j: usize) {
        self.cache.swap_index(i, j);
        self.examples.swap(i, j);
        self.diag.swap(i, j);
    }
}

/// The first `len` variables of another matrix, as a problem of their own (the positions beyond
/// are left alone: swaps stay within the prefix). `origin[t]` is the position, before any swap,
/// of what is now at position t.
pub struct Prefix<'q, Q: QMatrix> {
    inner: &'q mut Q,
    len: usize,
    pub origin: Vec<usize>,
}

impl<'q, Q: QMatrix> Prefix<'q, Q> {
    pub fn new(inner: &'q mut Q, len: usize) -> Self {
        assert!(len <= inner.size());
        Prefix { inner, len, origin: (0..len).collect() }
    }
}

impl<Q: QMatrix> QMatrix for Prefix<'_, Q> {
    fn size(&self) -> usize {
        self.len
    }
    fn diag(&self, i: usize) -> f64 {
        self.inner.diag(i)
    }
    fn row(&mut self, i: usize, len: usize) -> &[f32] {
        self.inner.row(i, len)
    }
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.inner.two_rows(i, j, len)
    }
    fn swap(&mut self, i: usize, j: usize) {
        self.inner.swap(i, j);
        self.origin.swap(i, j);
    }
}

/// Two variables per example (epsilon-SVR): variable v < L is alpha+ of example v, v >= L is
/// alpha- of example v - L. Full example rows are cached once and gathered into the ordering.
pub struct PairedQ<'e, 'a> {
    engine: &'e KernelEngine<'a>,
    cache: KernelCache,
    examples: Vec<usize>,
    /// Position -> example slot (0..L) in `examples`.
    slot: Vec<usize>,
    diag: Vec<f64>,
    buf: [Vec<f32>; 2],
}

impl<'e, 'a> PairedQ<'e, 'a> {
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let l = examples.len();
        let d = engine.diagonal(&examples);
        let slot: Vec<usize> = (0..2 * l).map(|v| v % l).collect();
        let diag = slot.iter().map(|&s| d[s]).collect();
        PairedQ {
            engine,
            cache: KernelCache::new(l, cache_bytes),
            examples,
            slot,
            diag,
            buf: [vec![0.0; 2 * l], vec![0.0; 2 * l]],
        }
    }
    fn ensure_example(&mut self, s: usize) {
        let l = self.examples.len();
        let (buf, start) = self.cache.request(s, l);
        if start < l {
            self.engine.row(self.examples[s], &self.examples[start..l], &mut buf[start..l]);
        }
    }
    fn gather(&mut self, which: usize, i: usize, len: usize) {
        let row = self.cache.row(self.slot[i]);
        for (o, &s) in self.buf[which][..len].iter_mut().zip(&self.slot[..len]) {
            *o = row[s];
        }
    }
}

impl QMatrix for PairedQ<'_, '_> {
    fn size(&self) -> usize {
        self.slot.len()
    }
    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }
    fn row(&mut self, i: usize, len: usize) -> &[f32] {
        self.ensure_example(self.slot[i]);
        self.gather(0, i, len);
        &self.buf[0][..len]
    }
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.ensure_example(self.slot[i]);
        self.ensure_example(self.slot[j]);
        self.gather(0, i, len);
        self.gather(1, j, len);
        (&self.buf[0][..len], &self.buf[1][..len])
    }
    fn swap(&mut self, i: usize, j: usize) {
        self.slot.swap(i, j);
        self.diag.swap(i, j);
    }
}
