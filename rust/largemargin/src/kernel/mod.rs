//! The kernel engine: built-in kernels over dense and sparse rows, computed a row segment at a
//! time (in parallel with rayon when the segment is long) and counted.
//!
//! Every kernel is a transform of one "base" quantity between two rows — a dot product or a
//! squared distance — so the per-format loops are written once and the kernels once. Composed
//! kernels (`composite`) are several transforms of the same base; external kernels (`external`)
//! are computed elsewhere, a row segment per call.

pub mod composite;
pub mod external;

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use crate::data::{CsrMatrix, CsrView, Matrix, Real};
use crate::error::{Error, Result};
pub use composite::{Composite, Term};
pub use external::ExternalKernel;

/// Which kernel, with its parameters (LIBSVM's conventions).
#[derive(Clone, Debug)]
pub enum KernelSpec {
    /// <x, x'>
    Linear,
    /// (gamma <x, x'> + coef0)^degree
    Poly { degree: u32, gamma: f64, coef0: f64 },
    /// exp(-gamma ||x - x'||^2)
    Rbf { gamma: f64 },
    /// tanh(gamma <x, x'> + coef0)
    Sigmoid { gamma: f64, coef0: f64 },
    /// The data is the kernel matrix itself: K(i, j) = X[i, j].
    Precomputed,
    /// A weighted sum of products of the kernels above.
    Composite(Arc<Composite>),
    /// Computed outside the engine on the training examples, which it knows by index; the data
    /// matrix given to the engine only fixes their number.
    External(Arc<dyn ExternalKernel>),
}

impl PartialEq for KernelSpec {
    fn eq(&self, other: &Self) -> bool {
        use KernelSpec::*;
        match (self, other) {
            (Linear, Linear) | (Precomputed, Precomputed) => true,
            (Poly { degree: a, gamma: b, coef0: c }, Poly { degree: x, gamma: y, coef0: z }) => (a, b, c) == (x, y, z),
            (Rbf { gamma: a }, Rbf { gamma: b }) => a == b,
            (Sigmoid { gamma: a, coef0: b }, Sigmoid { gamma: x, coef0: y }) => (a, b) == (x, y),
            (Composite(a), Composite(b)) => a == b,
            (External(a), External(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl KernelSpec {
    pub fn validate(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::InvalidParameter(m.to_string()));
        match *self {
            KernelSpec::Rbf { gamma } if !(gamma > 0.0 && gamma.is_finite()) => bad("gamma must be positive"),
            KernelSpec::Poly { gamma, coef0, .. } | KernelSpec::Sigmoid { gamma, coef0 }
                if !(gamma > 0.0 && gamma.is_finite() && coef0.is_finite()) =>
            {
                bad("gamma must be positive and coef0 finite")
            }
            KernelSpec::Composite(ref c) => c.validate(),
            _ => Ok(()),
        }
    }
    /// Whether the kernel is a transform of the squared distance (rather than the dot product).
    fn uses_distance(&self) -> bool {
        matches!(self, KernelSpec::Rbf { .. })
    }
    /// Whether computing the kernel needs the squared norms of the rows.
    pub fn needs_norms(&self) -> bool {
        match self {
            KernelSpec::Composite(c) => c.uses_distance(),
            k => k.uses_distance(),
        }
    }
    /// Whether the engine computes from the features (not from a given matrix or an outside party).
    fn reads_features(&self) -> bool {
        !matches!(self, KernelSpec::Precomputed | KernelSpec::External(_))
    }
    pub fn is_precomputed(&self) -> bool {
        matches!(self, KernelSpec::Precomputed)
    }
    /// A short name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            KernelSpec::Linear => "linear",
            KernelSpec::Poly { .. } => "poly",
            KernelSpec::Rbf { .. } => "rbf",
            KernelSpec::Sigmoid { .. } => "sigmoid",
            KernelSpec::Precomputed => "precomputed",
            KernelSpec::Composite(_) => "composite",
            KernelSpec::External(_) => "external",
        }
    }
    /// LIBSVM's name for the kernel_type field of a model file; composed and external kernels have none.
    pub fn libsvm_name(&self) -> Option<&'static str> {
        match self {
            KernelSpec::Linear => Some("linear"),
            KernelSpec::Poly { .. } => Some("polynomial"),
            KernelSpec::Rbf { .. } => Some("rbf"),
            KernelSpec::Sigmoid { .. } => Some("sigmoid"),
            KernelSpec::Precomputed => Some("precomputed"),
            KernelSpec::Composite(_) | KernelSpec::External(_) => None,
        }
    }
}

#[inline(always)]
fn powi(x: f64, d: u32) -> f64 {
    x.powi(d as i32)
}

/// exp(x) for x <= 0, branch-free so that loops over it vectorise. Relative error below 1e-14.
#[inline(always)]
pub fn exp_nonpositive(x: f64) -> f64 {
    exp_poly::<false>(x)
}

/// The exp kernel: x = n ln2 + r with |r| <= ln2/2, exp(r) by its Taylor polynomial of degree 11,
/// 2^n by building the exponent bits. `FMA` selects fused multiply-adds (only where the processor
/// has them: elsewhere `mul_add` would be a slow library call).
#[inline(always)]
fn exp_poly<const FMA: bool>(x: f64) -> f64 {
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const LN2_HI: f64 = 6.931_471_803_691_238_2e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding it rounds to an integer
    const C: [f64; 12] = [
        1.0,
        1.0,
        0.5,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362880.0,
        1.0 / 3628800.0,
        1.0 / 39916800.0,
    ];
    let madd = |a: f64, b: f64, c: f64| if FMA { a.mul_add(b, c) } else { a * b + c };
    let x = x.max(-708.0);
    let t = madd(x, LOG2E, SHIFT);
    let n = t - SHIFT;
    let ni = (t.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
    let r = madd(-n, LN2_LO, madd(-n, LN2_HI, x));
    let mut p = C[11];
    for k in (0..11).rev() {
        p = madd(p, r, C[k]);
    }
    p * f64::from_bits(((ni + 1023) as u64) << 52)
}

/// Where kernel values may be stored: f32 in the cache, f64 for prediction.
pub trait Store: Copy + Send + Sync + Default {
    fn from_f64(v: f64) -> Self;
}
impl Store for f32 {
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}
impl Store for f64 {
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v
    }
}

pub(crate) const BLOCK: usize = 256;

/// Partial sums kept in flight by the dense loops: four vector registers' worth, so that the
/// additions of one step do not wait on those of the previous one.
const LANES: usize = 16;

#[inline(always)]
fn dense_reduce<T: Real, U: Real>(a: &[T], b: &[U], term: impl Fn(f64, f64) -> f64) -> f64 {
    let mut acc = [0.0f64; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..LANES {
            acc[k] += term(x[k].to_f64(), y[k].to_f64());
        }
    }
    // Short rows (a few dozen features) live mostly in the remainder: take it 4 at a time.
    let (ca4, cb4) = (ra.chunks_exact(4), rb.chunks_exact(4));
    let (ra1, rb1) = (ca4.remainder(), cb4.remainder());
    for (x, y) in ca4.zip(cb4) {
        for k in 0..4 {
            acc[k] += term(x[k].to_f64(), y[k].to_f64());
        }
    }
    let mut s = 0.0;
    for (x, y) in ra1.iter().zip(rb1) {
        s += term(x.to_f64(), y.to_f64());
    }
    let mut width = LANES / 2;
    while width > 0 {
        for k in 0..width {
            acc[k] += acc[k + width];
        }
        width /= 2;
    }
    acc[0] + s
}

#[inline(always)]
pub(crate) fn dense_dot<T: Real, U: Real>(a: &[T], b: &[U]) -> f64 {
    dense_reduce(a, b, |x, y| x * y)
}

#[inline(always)]
fn dense_sqdist<T: Real, U: Real>(a: &[T], b: &[U]) -> f64 {
    dense_reduce(a, b, |x, y| (x - y) * (x - y))
}

/// sum_k q[idx[k]] * val[k] with four independent partial sums (one running sum would be bound
/// by the add latency). It runs on every nonzero of every kernel row: no bounds checks.
///
/// # Safety
/// Every entry of `idx`, read as `usize`, is below `q.len()` (so none is negative). Callers
/// know it from a type's invariant (`CsrView`, `Query`) and one width comparison per call.
#[inline(always)]
pub(crate) unsafe fn gather_dot<Q: Real, T: Real>(q: &[Q], idx: &[i32], val: &[T]) -> f64 {
    assert!(idx.len() == val.len());
    debug_assert!(idx.iter().all(|&j| (j as usize) < q.len()));
    let n = idx.len();
    let mut acc = [0.0f64; 4];
    let mut k = 0;
    // SAFETY: k < n = idx.len() = val.len() (asserted), and every idx entry is below q.len()
    // (the function's contract).
    unsafe {
        while k + 4 <= n {
            for u in 0..4 {
                acc[u] += q.get_unchecked(*idx.get_unchecked(k + u) as usize).to_f64() * val.get_unchecked(k + u).to_f64();
            }
            k += 4;
        }
        let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        while k < n {
            s += q.get_unchecked(*idx.get_unchecked(k) as usize).to_f64() * val.get_unchecked(k).to_f64();
            k += 1;
        }
        s
    }
}

/// sum over the features two sparse rows share, by merging their sorted indices: what a sparse
/// query costs against sparse targets too wide to scatter the query into a dense buffer.
#[inline(always)]
fn merge_dot<Q: Real, T: Real>(qi: &[i32], qv: &[Q], ti: &[i32], tv: &[T]) -> f64 {
    let (mut a, mut b, mut s) = (0, 0, 0.0);
    while a < qi.len() && b < ti.len() {
        match qi[a].cmp(&ti[b]) {
            std::cmp::Ordering::Less => a += 1,
            std::cmp::Ordering::Greater => b += 1,
            std::cmp::Ordering::Equal => {
                s += qv[a].to_f64() * tv[b].to_f64();
                a += 1;
                b += 1;
            }
        }
    }
    s
}

/// Whether a table with an entry per feature is small beside the sparse data itself (its
/// nonzeros): then a dense scatter buffer or a column index costs O(data), not O(features),
/// and a file naming feature 2^31 - 2 cannot make the engine allocate gigabytes.
fn per_feature_table_fits(cols: usize, nnz: usize) -> bool {
    cols <= nnz.saturating_mul(3) / 2 + (1 << 17)
}

/// Rows are visited in the solver's order, not memory order: ask for the row a few steps
/// ahead so its first cache lines arrive while the current one is computed.
const PREFETCH_DISTANCE: usize = 6;

#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// One row on the query side of a kernel evaluation, in either layout.
///
/// A sparse row's indices are non-negative and strictly increasing, as many as its values, so
/// its last index is its largest: the kernel loops compare that one with a width, then read
/// without bounds checks. The variants cannot be built outside this crate; build a `Query` with
/// `row` (a row of a checked matrix), `dense`, `dense32`, `sparse` or `sparse32`.
#[derive(Clone, Copy, Debug)]
pub enum Query<'q> {
    #[non_exhaustive]
    D64(&'q [f64]),
    #[non_exhaustive]
    D32(&'q [f32]),
    #[non_exhaustive]
    S64(&'q [i32], &'q [f64]),
    #[non_exhaustive]
    S32(&'q [i32], &'q [f32]),
}

/// Checks a sparse row from outside: the invariant `Query` keeps.
fn check_sparse(idx: &[i32], values: usize) -> Result<()> {
    if idx.len() != values {
        return Err(Error::InvalidData(format!("a sparse row with {} indices and {values} values", idx.len())));
    }
    let mut prev = -1i64;
    for &j in idx {
        if i64::from(j) <= prev {
            return Err(Error::InvalidData(format!(
                "a sparse row's indices must be non-negative and increase (found {j} after {prev})"
            )));
        }
        prev = i64::from(j);
    }
    Ok(())
}

impl<'q> Query<'q> {
    /// A dense row.
    pub fn dense(v: &'q [f64]) -> Self {
        Query::D64(v)
    }
    /// A dense float32 row.
    pub fn dense32(v: &'q [f32]) -> Self {
        Query::D32(v)
    }
    /// A sparse row: indices non-negative and strictly increasing, one per value.
    pub fn sparse(idx: &'q [i32], val: &'q [f64]) -> Result<Self> {
        check_sparse(idx, val.len())?;
        Ok(Query::S64(idx, val))
    }
    /// A sparse float32 row, checked as `sparse`.
    pub fn sparse32(idx: &'q [i32], val: &'q [f32]) -> Result<Self> {
        check_sparse(idx, val.len())?;
        Ok(Query::S32(idx, val))
    }
    /// The width a table must have for every feature of this row to index it: a dense row's
    /// length, a sparse row's largest index plus one.
    pub fn span(&self) -> usize {
        match *self {
            Query::D64(v) => v.len(),
            Query::D32(v) => v.len(),
            Query::S64(i, _) | Query::S32(i, _) => i.last().map_or(0, |&j| j as usize + 1),
        }
    }
    pub fn is_sparse(&self) -> bool {
        matches!(self, Query::S64(..) | Query::S32(..))
    }
    /// Row i of a matrix.
    pub fn row(m: &Matrix<'q>, i: usize) -> Self {
        match m {
            Matrix::Dense64(d) => Query::D64(d.row(i)),
            Matrix::Dense32(d) => Query::D32(d.row(i)),
            Matrix::Csr64(c) => {
                let (i, v) = c.row(i);
                Query::S64(i, v)
            }
            Matrix::Csr32(c) => {
                let (i, v) = c.row(i);
                Query::S32(i, v)
            }
        }
    }
    /// Entry j (the precomputed kernel reads its value from the query row).
    fn get(&self, j: usize) -> f64 {
        fn sparse<T: Real>(idx: &[i32], val: &[T], j: usize) -> f64 {
            idx.binary_search(&(j as i32)).map_or(0.0, |p| val[p].to_f64())
        }
        match *self {
            Query::D64(v) => v.get(j).copied().unwrap_or(0.0),
            Query::D32(v) => v.get(j).map_or(0.0, |x| *x as f64),
            Query::S64(i, v) => sparse(i, v, j),
            Query::S32(i, v) => sparse(i, v, j),
        }
    }
    /// Calls f(feature, value) for every nonzero entry.
    #[inline(always)]
    pub(crate) fn for_each_nonzero(&self, mut f: impl FnMut(usize, f64)) {
        fn dense<T: Real>(v: &[T], f: &mut impl FnMut(usize, f64)) {
            for (j, x) in v.iter().enumerate() {
                let x = x.to_f64();
                if x != 0.0 {
                    f(j, x);
                }
            }
        }
        fn sparse<T: Real>(idx: &[i32], val: &[T], f: &mut impl FnMut(usize, f64)) {
            for (&j, x) in idx.iter().zip(val) {
                f(j as usize, x.to_f64());
            }
        }
        match *self {
            Query::D64(v) => dense(v, &mut f),
            Query::D32(v) => dense(v, &mut f),
            Query::S64(i, v) => sparse(i, v, &mut f),
            Query::S32(i, v) => sparse(i, v, &mut f),
        }
    }
    pub fn squared_norm(&self) -> f64 {
        let mut s = 0.0;
        self.for_each_nonzero(|_, v| s += v * v);
        s
    }
}

thread_local! {
    /// A sparse query scattered into a dense buffer; only touched entries are cleared after use.
    static SCATTER: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    /// Dot products of one query with every target row, reused between rows.
    static FULL_PASS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Runs f with a zeroed thread-local scratch vector of at least `len` entries (a fresh one if this
/// thread's is in use, as happens when work stealing re-enters on the same thread).
fn with_scratch<R>(key: &'static std::thread::LocalKey<RefCell<Vec<f64>>>, len: usize, f: impl FnOnce(&mut Vec<f64>) -> R) -> R {
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < len {
                buf.resize(len, 0.0);
            }
            f(&mut buf)
        }
        Err(_) => f(&mut vec![0.0; len]),
    })
}

/// Dot products (or, dense against dense for RBF, squared distances) of `q` with target rows
/// `cols`, visiting the targets directly.
#[inline(always)]
fn direct_bases(q: &Query, targets: &Matrix, cols: &[usize], dist: bool, tmp: &mut [f64]) {
    #[inline(always)]
    fn dense_targets<Q: Real, T: Real>(q: &[Q], t: &crate::data::DenseView<T>, cols: &[usize], dist: bool, tmp: &mut [f64]) {
        for (k, (o, &c)) in tmp.iter_mut().zip(cols).enumerate() {
            if let Some(&ahead) = cols.get(k + PREFETCH_DISTANCE) {
                let r = t.row(ahead);
                prefetch(r.as_ptr());
                prefetch(r[r.len().saturating_sub(1)..].as_ptr());
            }
            let y = t.row(c);
            *o = if dist { dense_sqdist(q, y) } else { dense_dot(q, y) };
        }
    }
    #[inline(always)]
    fn sparse_targets<Q: Real, T: Real>(q: &[Q], t: &CsrView<T>, cols: &[usize], tmp: &mut [f64]) {
        // once per block: the rows' indices are below t.cols() (CsrView's invariant)
        assert!(q.len() >= t.cols(), "a query of {} features against data of {}", q.len(), t.cols());
        for (k, (o, &c)) in tmp.iter_mut().zip(cols).enumerate() {
            if let Some(&ahead) = cols.get(k + PREFETCH_DISTANCE) {
                let (ai, av) = t.row(ahead);
                prefetch(ai.as_ptr());
                prefetch(av.as_ptr());
            }
            let (ti, tv) = t.row(c);
            // SAFETY: every index of a CsrView row is below t.cols() <= q.len() (asserted above).
            *o = unsafe { gather_dot(q, ti, tv) };
        }
    }
    #[inline(always)]
    fn on_dense_query<Q: Real>(q: &[Q], targets: &Matrix, cols: &[usize], dist: bool, tmp: &mut [f64]) {
        match targets {
            Matrix::Dense64(t) => dense_targets(q, t, cols, dist, tmp),
            Matrix::Dense32(t) => dense_targets(q, t, cols, dist, tmp),
            Matrix::Csr64(t) => sparse_targets(q, t, cols, tmp),
            Matrix::Csr32(t) => sparse_targets(q, t, cols, tmp),
        }
    }
    #[inline(always)]
    fn sparse_query<Q: Real>(idx: &[i32], val: &[Q], targets: &Matrix, cols: &[usize], tmp: &mut [f64]) {
        #[inline(always)]
        fn rows<Q: Real, T: Real>(idx: &[i32], val: &[Q], t: &crate::data::DenseView<T>, cols: &[usize], tmp: &mut [f64]) {
            // once per block: a Query's sparse indices increase, so the last is the largest
            assert!(idx.last().is_none_or(|&j| (j as usize) < t.cols()), "a sparse query beyond the data's width");
            for (k, (o, &c)) in tmp.iter_mut().zip(cols).enumerate() {
                if let Some(&ahead) = cols.get(k + PREFETCH_DISTANCE) {
                    prefetch(t.row(ahead).as_ptr());
                }
                // SAFETY: every index is non-negative and at most the last, below t.cols() (asserted
                // above), and a DenseView row is t.cols() long.
                *o = unsafe { gather_dot(t.row(c), idx, val) };
            }
        }
        match targets {
            Matrix::Dense64(t) => rows(idx, val, t, cols, tmp),
            Matrix::Dense32(t) => rows(idx, val, t, cols, tmp),
            _ => unreachable!("dense targets only"),
        }
    }
    /// A sparse query against sparse targets by merging indices (see `per_feature_table_fits`).
    #[inline(always)]
    fn merge_rows<Q: Real>(idx: &[i32], val: &[Q], targets: &Matrix, cols: &[usize], tmp: &mut [f64]) {
        #[inline(always)]
        fn rows<Q: Real, T: Real>(idx: &[i32], val: &[Q], t: &CsrView<T>, cols: &[usize], tmp: &mut [f64]) {
            for (o, &c) in tmp.iter_mut().zip(cols) {
                let (ti, tv) = t.row(c);
                *o = merge_dot(idx, val, ti, tv);
            }
        }
        match targets {
            Matrix::Csr64(t) => rows(idx, val, t, cols, tmp),
            Matrix::Csr32(t) => rows(idx, val, t, cols, tmp),
            _ => unreachable!("sparse targets only"),
        }
    }
    let width = targets.cols();
    let fits = |idx: &[i32]| idx.last().is_none_or(|&j| (j as usize) < width);
    let too_wide_to_scatter = || match targets {
        Matrix::Csr64(t) => !per_feature_table_fits(t.cols(), t.indices().len()),
        Matrix::Csr32(t) => !per_feature_table_fits(t.cols(), t.indices().len()),
        _ => false,
    };
    match *q {
        Query::D64(v) => on_dense_query(v, targets, cols, dist && !targets.is_sparse(), tmp),
        Query::D32(v) => on_dense_query(v, targets, cols, dist && !targets.is_sparse(), tmp),
        // a sparse query against dense rows reads only the entries of its own features
        Query::S64(i, v) if !targets.is_sparse() && fits(i) => sparse_query(i, v, targets, cols, tmp),
        Query::S32(i, v) if !targets.is_sparse() && fits(i) => sparse_query(i, v, targets, cols, tmp),
        Query::S64(i, v) if too_wide_to_scatter() => merge_rows(i, v, targets, cols, tmp),
        Query::S32(i, v) if too_wide_to_scatter() => merge_rows(i, v, targets, cols, tmp),
        // (a sparse query's features past the targets' width meet zeros there: left out)
        _ => with_scratch(&SCATTER, width, |buf| {
            let buf = &mut buf[..width];
            q.for_each_nonzero(|j, v| {
                if j < width {
                    buf[j] = v
                }
            });
            on_dense_query(buf, targets, cols, false, tmp);
            q.for_each_nonzero(|j, _| {
                if j < width {
                    buf[j] = 0.0
                }
            });
        }),
    }
}

/// `direct_bases` and `Columns::accumulate`, built for AVX2+FMA when the processor has them.
fn direct_bases_fast(q: &Query, targets: &Matrix, cols: &[usize], dist: bool, tmp: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2(q: &Query, targets: &Matrix, cols: &[usize], dist: bool, tmp: &mut [f64]) {
            direct_bases(q, targets, cols, dist, tmp)
        }
        if has_avx2_fma() {
            // SAFETY: the features were detected.
            return unsafe { avx2(q, targets, cols, dist, tmp) };
        }
    }
    direct_bases(q, targets, cols, dist, tmp)
}

fn accumulate_fast(c: &Columns, q: &Query, lo: usize, hi: usize, whole: bool, acc: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2(c: &Columns, q: &Query, lo: usize, hi: usize, whole: bool, acc: &mut [f64]) {
            c.accumulate(q, lo, hi, whole, acc)
        }
        if has_avx2_fma() {
            // SAFETY: the features were detected.
            return unsafe { avx2(c, q, lo, hi, whole, acc) };
        }
    }
    c.accumulate(q, lo, hi, whole, acc)
}

#[cfg(target_arch = "x86_64")]
use crate::vecops::has_avx2_fma;

/// Whether `direct_bases` produced squared distances (else dot products) for an RBF kernel.
fn direct_gives_distance(q: &Query, targets: &Matrix) -> bool {
    matches!(q, Query::D64(_) | Query::D32(_)) && !targets.is_sparse()
}

/// Column-major copy of sparse target rows: for each feature, the rows that have it and their
/// values. With it, the dot products of one query with all targets are a sparse matrix-vector
/// product that streams memory in order and touches only shared features.
struct Columns {
    start: Vec<usize>,
    row: Vec<u32>,
    value: Vec<f64>,
}

impl Columns {
    fn build<T: Real>(m: &CsrView<T>) -> Self {
        let mut start = vec![0usize; m.cols() + 1];
        for &j in m.indices() {
            start[j as usize + 1] += 1;
        }
        for f in 0..m.cols() {
            start[f + 1] += start[f];
        }
        let mut next = start.clone();
        let mut row = vec![0u32; m.indices().len()];
        let mut value = vec![0.0; m.indices().len()];
        for r in 0..m.rows() {
            let (idx, val) = m.row(r);
            for (&j, &v) in idx.iter().zip(val) {
                let p = &mut next[j as usize];
                row[*p] = r as u32;
                value[*p] = v.to_f64();
                *p += 1;
            }
        }
        Columns { start, row, value }
    }
    fn bytes(&self) -> usize {
        self.start.len() * 8 + self.row.len() * 12
    }
    fn column_len(&self, f: usize) -> usize {
        if f + 1 < self.start.len() { self.start[f + 1] - self.start[f] } else { 0 }
    }
    fn entries(&self) -> usize {
        self.row.len()
    }
    /// acc[r - lo] += <q, x_r> for target rows r in lo..hi (acc zeroed by the caller);
    /// `whole` says lo..hi covers every row.
    #[inline(always)]
    fn accumulate(&self, q: &Query, lo: usize, hi: usize, whole: bool, acc: &mut [f64]) {
        let features = self.start.len() - 1;
        q.for_each_nonzero(|f, v| {
            if f >= features {
                return; // no target has this feature
            }
            let (s, e) = (self.start[f], self.start[f + 1]);
            let rows = &self.row[s..e];
            let (a, b) = if whole {
                (0, rows.len())
            } else {
                (rows.partition_point(|&r| (r as usize) < lo), rows.partition_point(|&r| (r as usize) < hi))
            };
            for (&r, &w) in rows[a..b].iter().zip(&self.value[s + a..s + b]) {
                acc[r as usize - lo] += v * w;
            }
        });
    }
}

/// Feature-major copy of narrow dense target rows: one contiguous array per feature. The dot
/// products of a query with all targets are then `dim` vectorised axpy's over memory in order.
struct DenseColumns {
    rows: usize,
    cols: usize,
    value: Vec<f64>,
}

/// Dense targets at most this wide get a feature-major copy for full passes.
const DENSE_COLUMNS_MAX_WIDTH: usize = 64;

impl DenseColumns {
    fn build(m: &Matrix) -> Option<Self> {
        fn fill<T: Real>(d: &crate::data::DenseView<T>) -> DenseColumns {
            let mut value = vec![0.0; d.rows() * d.cols()];
            for r in 0..d.rows() {
                for (f, x) in d.row(r).iter().enumerate() {
                    value[f * d.rows() + r] = x.to_f64();
                }
            }
            DenseColumns { rows: d.rows(), cols: d.cols(), value }
        }
        match m {
            Matrix::Dense64(d) if d.cols() <= DENSE_COLUMNS_MAX_WIDTH => Some(fill(d)),
            Matrix::Dense32(d) if d.cols() <= DENSE_COLUMNS_MAX_WIDTH => Some(fill(d)),
            _ => None,
        }
    }
    /// acc[r - lo] = <q, x_r> for r in lo..hi.
    #[inline(always)]
    fn dots(&self, q: &Query, lo: usize, hi: usize, acc: &mut [f64]) {
        acc.fill(0.0);
        q.for_each_nonzero(|f, v| {
            if f >= self.cols {
                return; // no target has this feature
            }
            let col = &self.value[f * self.rows + lo..f * self.rows + hi];
            for (a, &x) in acc.iter_mut().zip(col) {
                *a += v * x;
            }
        });
    }
}

fn dense_dots_fast(c: &DenseColumns, q: &Query, lo: usize, hi: usize, acc: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2(c: &DenseColumns, q: &Query, lo: usize, hi: usize, acc: &mut [f64]) {
            c.dots(q, lo, hi, acc)
        }
        if has_avx2_fma() {
            // SAFETY: the features were detected.
            return unsafe { avx2(c, q, lo, hi, acc) };
        }
    }
    c.dots(q, lo, hi, acc)
}

/// A request for at least 1/FULL_PASS_FRACTION of the targets is computed by one pass over all
/// of them in memory order, then gathered; smaller requests visit their targets directly (a pass
/// over all targets to use a few of them, as in a one-vs-one class pair, costs more than it saves).
const FULL_PASS_FRACTION: usize = 2;
/// Cost of a sparse row entry read at a random place, relative to one read in memory order by a
/// pass: when the requested rows come from main memory, and when they fit in the processor's
/// cache (measured on adult and MNIST-like data, 5-7 MB, against adult repeated eight times).
const DIRECT_VISIT_COST: f64 = 4.0;
const DIRECT_VISIT_COST_CACHED: f64 = 0.8;
/// Bytes of a sparse entry (f64 value, i32 index).
const SPARSE_ENTRY_BYTES: f64 = 12.0;

/// How many bytes of requested rows a direct visit may expect to find in cache: a quarter of the
/// last-level cache (the solver's rows, gradients and the rest of the process share it).
fn cache_resident_bytes() -> f64 {
    static BYTES: OnceLock<f64> = OnceLock::new();
    *BYTES.get_or_init(|| last_level_cache_bytes().unwrap_or(8 << 20) as f64 / 4.0)
}

/// The size of the first processor's largest cache, as Linux reports it.
fn last_level_cache_bytes() -> Option<usize> {
    (0..8)
        .filter_map(|k| std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu0/cache/index{k}/size")).ok())
        .filter_map(|s| {
            let s = s.trim();
            let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
            let scale = match unit {
                "K" => 1 << 10,
                "M" => 1 << 20,
                "" => 1,
                _ => return None,
            };
            digits.parse::<usize>().ok().map(|v| v * scale)
        })
        .max()
}
/// The same for external kernels, for which gathering the requested rows is the dearer part.
const EXTERNAL_WHOLE_FRACTION: usize = 4;

/// Dense data at most this dense (and at least this wide) is held internally in sparse form.
const SPARSE_DENSITY: f64 = 0.3;
const SPARSE_MIN_WIDTH: usize = 32;

/// Segments shorter than this are computed on the calling thread.
const PARALLEL_MIN: usize = 4096;

fn chunk_for(len: usize, parallel: bool) -> usize {
    let threads = rayon::current_num_threads();
    if parallel && threads > 1 && len >= PARALLEL_MIN { len.div_ceil(2 * threads) } else { len.max(1) }
}

/// A kernel over a set of target rows (training examples, or a model's support vectors): kernel
/// values of any query row against any targets, counted. The engine chooses how it holds the
/// targets: mostly-zero dense data gets a sparse copy, sparse data a column-major copy; what it
/// holds besides the borrowed data is reported by `extra_bytes` so callers can budget for it.
pub struct KernelEngine<'a> {
    x: Matrix<'a>,
    spec: KernelSpec,
    sparse_copy: Option<CsrMatrix>,
    columns: Option<Columns>,
    dense_columns: Option<DenseColumns>,
    sqnorms: Vec<f64>,
    evals: AtomicU64,
    /// The first failure of an external kernel; later requests are answered with zeros.
    failure: Mutex<Option<String>>,
    /// An external kernel's diagonal, asked for once (every solver over the engine needs it).
    external_diagonal: OnceLock<Vec<f64>>,
}

impl<'a> KernelEngine<'a> {
    /// An engine over training data: a precomputed kernel must be square.
    pub fn new(x: Matrix<'a>, spec: KernelSpec) -> Result<Self> {
        check_square(&x, &spec)?;
        Self::over(x, spec)
    }

    /// An engine over training data whose internal copies take at most half of `budget` bytes
    /// (the kernel-cache budget they are charged to): a copy that would not fit is not made, and
    /// the engine works on the data as given while the cache keeps the memory.
    pub fn within(x: Matrix<'a>, spec: KernelSpec, budget: usize) -> Result<Self> {
        check_square(&x, &spec)?;
        Self::build(x, spec, budget / 2)
    }

    /// An engine over any target rows (for a precomputed or external kernel the targets are only
    /// indices).
    pub fn over(x: Matrix<'a>, spec: KernelSpec) -> Result<Self> {
        Self::build(x, spec, usize::MAX)
    }

    /// Builds the engine, making each internal copy only if its size fits in what is left of
    /// `room` bytes.
    fn build(x: Matrix<'a>, spec: KernelSpec, mut room: usize) -> Result<Self> {
        spec.validate()?;
        if let KernelSpec::External(k) = &spec {
            if k.len() != x.rows() {
                return Err(Error::InvalidData(format!(
                    "the external kernel {} is defined on {} examples, the data has {}",
                    k.name(),
                    k.len(),
                    x.rows()
                )));
            }
        }
        let mut fits = |bytes: usize| {
            let ok = bytes <= room;
            if ok {
                room -= bytes;
            }
            ok
        };
        let copies = spec.reads_features();
        let mut sparse_copy = None;
        if copies && !x.is_sparse() && x.cols() >= SPARSE_MIN_WIDTH && x.rows() > 0 {
            let nnz: usize = (0..x.rows()).map(|i| Query::row(&x, i)).map(|q| {
                let mut c = 0;
                q.for_each_nonzero(|_, _| c += 1);
                c
            }).sum();
            if (nnz as f64) <= SPARSE_DENSITY * (x.rows() * x.cols()) as f64 && fits(nnz * 12 + (x.rows() + 1) * 8) {
                let all: Vec<usize> = (0..x.rows()).collect();
                sparse_copy = Some(CsrMatrix::gather(&x, &all));
            }
        }
        let targets = sparse_copy.as_ref().map_or(x, |c| c.view());
        let columns = match (copies, &targets) {
            (true, Matrix::Csr64(m)) if per_feature_table_fits(m.cols(), m.indices().len()) && fits(m.indices().len() * 12 + (m.cols() + 1) * 8) => Some(Columns::build(m)),
            (true, Matrix::Csr32(m)) if per_feature_table_fits(m.cols(), m.indices().len()) && fits(m.indices().len() * 12 + (m.cols() + 1) * 8) => Some(Columns::build(m)),
            _ => None,
        };
        let narrow_dense = !targets.is_sparse() && targets.cols() <= DENSE_COLUMNS_MAX_WIDTH;
        let dense_columns = if copies && narrow_dense && fits(targets.rows() * targets.cols() * 8) {
            DenseColumns::build(&targets)
        } else {
            None
        };
        let sqnorms = if spec.needs_norms() { targets.squared_norms() } else { Vec::new() };
        if let Some(i) = sqnorms.iter().position(|v| !v.is_finite()) {
            return Err(overflowing_norm(i));
        }
        Ok(KernelEngine {
            x,
            spec,
            sparse_copy,
            columns,
            dense_columns,
            sqnorms,
            evals: AtomicU64::new(0),
            failure: Mutex::new(None),
            external_diagonal: OnceLock::new(),
        })
    }

    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }
    pub fn rows(&self) -> usize {
        self.x.rows()
    }
    /// The targets as the engine computes with them.
    fn targets(&self) -> Matrix<'_> {
        self.sparse_copy.as_ref().map_or(self.x, |c| c.view())
    }
    /// Bytes held besides the borrowed data (internal copies and norms).
    pub fn extra_bytes(&self) -> usize {
        self.sparse_copy.as_ref().map_or(0, |c| c.data().len() * 12 + c.indptr().len() * 8)
            + self.columns.as_ref().map_or(0, Columns::bytes)
            + self.dense_columns.as_ref().map_or(0, |c| c.value.len() * 8)
            + self.sqnorms.len() * 8
    }
    /// Whether each request costs about the same whatever its length (an external kernel's
    /// foreign call), so that callers had better ask for whole rows.
    pub fn prefers_whole_rows(&self) -> bool {
        matches!(self.spec, KernelSpec::External(_))
    }
    /// Kernel evaluations performed so far.
    pub fn evals(&self) -> u64 {
        self.evals.load(Ordering::Relaxed)
    }

    /// The first failure of an external kernel, if any: the values computed since are not
    /// meaningful, and callers return this error instead of a result.
    pub fn failure(&self) -> Option<Error> {
        let f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        f.as_ref().map(|m| Error::Kernel(m.clone()))
    }

    fn fail(&self, message: String) {
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(message);
        }
    }

    /// K(x_e, x_e) for the given target rows.
    pub fn diagonal(&self, rows: &[usize]) -> Vec<f64> {
        if let KernelSpec::External(k) = &self.spec {
            let d = self.external_diagonal.get_or_init(|| {
                self.evals.fetch_add(k.len() as u64, Ordering::Relaxed);
                let d = match k.diagonal() {
                    Ok(d) if d.len() == k.len() => d,
                    Ok(d) => {
                        self.fail(format!("{}: diagonal of length {}, expected {}", k.name(), d.len(), k.len()));
                        vec![0.0; k.len()]
                    }
                    Err(m) => {
                        self.fail(m);
                        vec![0.0; k.len()]
                    }
                };
                if let Some(p) = d.iter().position(|v| !v.is_finite()) {
                    self.fail(format!("{}: K({p}, {p}) is {}", k.name(), d[p]));
                }
                d
            });
            return rows.iter().map(|&e| d[e]).collect();
        }
        rows.iter().map(|&e| self.eval(e, e)).collect()
    }

    /// out[k] = K(x_i, x_cols[k]) for a target row i (as many as `out` has room for). Panics if
    /// i or a column is not a target row: solvers call it in their inner loops with indices of
    /// their own, and a slice's bounds check is what guards them.
    pub fn row<S: Store>(&self, i: usize, cols: &[usize], out: &mut [S]) {
        if let KernelSpec::External(k) = &self.spec {
            return self.external_row(k.as_ref(), i, cols, out);
        }
        let t = self.targets();
        let q = if self.spec.is_precomputed() { Query::row(&self.x, i) } else { Query::row(&t, i) };
        let sq = self.sqnorms.get(i).copied().unwrap_or(0.0);
        self.compute(&q, sq, cols, out, true);
    }

    /// out[k] = K(q, x_cols[k]) for an outside query (its squared norm given for RBF), on the
    /// calling thread.
    ///
    /// Errors, before anything is computed: `out` and `cols` differ in length; the kernel is
    /// external (it knows no outside rows); a dense query is not exactly as wide as the data; a
    /// column is not a target row. For a precomputed kernel the query is a row of the kernel
    /// matrix and `cols` name its entries: a dense row must have every one of them, a sparse row
    /// holds zeros where it has none. A sparse query may name features past the data's width:
    /// the data is zero there, so they add nothing to a dot product (they count in `q_sqnorm`).
    pub fn query<S: Store>(&self, q: &Query, q_sqnorm: f64, cols: &[usize], out: &mut [S]) -> Result<()> {
        // (a max without early exit vectorises)
        let largest = cols.iter().fold(0usize, |m, &c| m.max(c));
        if !cols.is_empty() {
            if self.spec.is_precomputed() {
                if !q.is_sparse() && largest >= q.span() {
                    return Err(Error::InvalidData(format!(
                        "a precomputed kernel row of {} entries has no column {largest}",
                        q.span()
                    )));
                }
            } else if largest >= self.rows() {
                return Err(Error::InvalidData(format!("column {largest} asked of {} target rows", self.rows())));
            }
        }
        self.query_checked_columns(q, q_sqnorm, cols, out)
    }

    /// `query` for a caller that checked `cols` once for many queries (a prediction asks for the
    /// same support vectors with every test row): the other checks, O(1), are made. A column
    /// out of range would only panic, in a bounds-checked read.
    pub(crate) fn query_checked_columns<S: Store>(&self, q: &Query, q_sqnorm: f64, cols: &[usize], out: &mut [S]) -> Result<()> {
        if out.len() != cols.len() {
            return Err(Error::InvalidData(format!("{} outputs for {} columns", out.len(), cols.len())));
        }
        if let KernelSpec::External(k) = &self.spec {
            return Err(Error::Kernel(format!("{}: an external kernel is evaluated on its own examples only", k.name())));
        }
        if !self.spec.is_precomputed() && !q.is_sparse() && q.span() != self.x.cols() {
            return Err(Error::InvalidData(format!(
                "the query has {} features, the data {}",
                q.span(),
                self.x.cols()
            )));
        }
        self.compute(q, q_sqnorm, cols, out, false);
        Ok(())
    }

    /// The kernel matrix of outside rows against all targets, row-major (q.rows() x rows()), rows
    /// in parallel. Errors as `query` does (dense rows of another width than the data's).
    pub fn cross(&self, q: &Matrix) -> Result<Vec<f64>> {
        let n = self.rows();
        let all: Vec<usize> = (0..n).collect();
        let mut out = vec![0.0f64; q.rows() * n];
        if n == 0 {
            return Ok(out);
        }
        out.par_chunks_mut(n).enumerate().try_for_each(|(i, row)| {
            let qi = Query::row(q, i);
            let sq = if self.spec.needs_norms() { qi.squared_norm() } else { 0.0 };
            self.query(&qi, sq, &all, row)
        })?;
        Ok(out)
    }

    pub fn eval(&self, i: usize, j: usize) -> f64 {
        let mut v = [0.0f64];
        self.row(i, &[j], &mut v);
        v[0]
    }

    /// One foreign call per request: the whole row when a good part of it is wanted (the callee
    /// then sees the same full target set every time, and gathering rows on its side costs more
    /// than computing them), else the requested columns.
    fn external_row<S: Store>(&self, k: &dyn ExternalKernel, i: usize, cols: &[usize], out: &mut [S]) {
        self.evals.fetch_add(cols.len() as u64, Ordering::Relaxed);
        if self.failure.lock().map_or(true, |f| f.is_some()) {
            out.fill(S::default());
            return;
        }
        let n = self.x.rows();
        let whole = cols.len() * EXTERNAL_WHOLE_FRACTION >= n;
        let len = if whole { n } else { cols.len() };
        let outcome = with_scratch(&FULL_PASS, len, |buf| {
            let buf = &mut buf[..len];
            k.row(i, if whole { None } else { Some(cols) }, buf)?;
            if let Some(p) = buf.iter().position(|v| !v.is_finite()) {
                return Err(format!("{}: K({i}, {}) is {}", k.name(), if whole { p } else { cols[p] }, buf[p]));
            }
            if whole {
                for (o, &c) in out.iter_mut().zip(cols) {
                    *o = S::from_f64(buf[c]);
                }
            } else {
                for (o, &v) in out.iter_mut().zip(buf.iter()) {
                    *o = S::from_f64(v);
                }
            }
            Ok(())
        });
        if let Err(m) = outcome {
            self.fail(m);
            out.fill(S::default());
        }
    }

    /// Whether one pass over all targets beats visiting the requested ones. Over sparse data the
    /// pass reads only the columns of the query's features, in memory order, while a direct visit
    /// reads each requested row at a random place: from main memory that is dear, and the pass pays
    /// well below half the rows; from cache (a solver's active rows, visited again and again) it
    /// is not, and the pass pays near half the rows only.
    fn full_pass_pays(&self, q: &Query, requested: usize) -> bool {
        let n = self.x.rows();
        if !self.spec.reads_features() {
            return false;
        }
        if requested * FULL_PASS_FRACTION >= n {
            return true;
        }
        match &self.columns {
            Some(c) => {
                let mut touched = 0usize;
                q.for_each_nonzero(|f, _| touched += c.column_len(f));
                let per_row = (c.entries() as f64 / n.max(1) as f64).max(1.0);
                let visited = requested as f64 * per_row;
                let cost = if visited * SPARSE_ENTRY_BYTES <= cache_resident_bytes() {
                    DIRECT_VISIT_COST_CACHED
                } else {
                    DIRECT_VISIT_COST
                };
                ((touched + n / 2) as f64) < cost * visited
            }
            None => false,
        }
    }

    fn compute<S: Store>(&self, q: &Query, q_sqnorm: f64, cols: &[usize], out: &mut [S], parallel: bool) {
        debug_assert_eq!(cols.len(), out.len());
        self.evals.fetch_add(cols.len() as u64, Ordering::Relaxed);
        if self.spec.is_precomputed() {
            for (o, &c) in out.iter_mut().zip(cols) {
                *o = S::from_f64(q.get(c));
            }
            return;
        }
        if self.full_pass_pays(q, cols.len()) {
            return self.full_pass(q, q_sqnorm, cols, out, parallel);
        }
        // A direct visit of dense rows (held as given, as when the budget leaves no room for a
        // sparse copy) with a mostly-zero query: its nonzero entries alone, gathered from each
        // row. (A pass over all rows streams them faster whole.)
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        let q = &match *q {
            Query::D64(v) if !self.targets().is_sparse() && self.targets().cols() >= SPARSE_MIN_WIDTH => {
                q.for_each_nonzero(|j, x| {
                    idx.push(j as i32);
                    val.push(x);
                });
                if (idx.len() as f64) <= SPARSE_DENSITY * v.len() as f64 { Query::S64(&idx, &val) } else { *q }
            }
            _ => *q,
        };
        let targets = self.targets();
        let with_norms = self.spec.uses_distance() && !direct_gives_distance(q, &targets);
        let dist = self.spec.uses_distance();
        self.fill_blocks(cols, out, parallel, q_sqnorm, with_norms, |cb, t| direct_bases_fast(q, &targets, cb, dist, t));
    }

    /// out[k] = K(q, x_cols[k]) block by block: `bases` writes a block's dot products (or
    /// squared distances), which become distances through the norms where `with_norms`, then
    /// kernel values. Long requests are split over the rayon pool.
    fn fill_blocks<S: Store>(
        &self,
        cols: &[usize],
        out: &mut [S],
        parallel: bool,
        q_sqnorm: f64,
        with_norms: bool,
        bases: impl Fn(&[usize], &mut [f64]) + Sync,
    ) {
        let run = |o: &mut [S], c: &[usize]| {
            let mut tmp = [0.0f64; BLOCK];
            let mut dist = [0.0f64; BLOCK];
            let mut value = [0.0f64; BLOCK];
            for (ob, cb) in o.chunks_mut(BLOCK).zip(c.chunks(BLOCK)) {
                let t = &mut tmp[..cb.len()];
                bases(cb, t);
                if let KernelSpec::Composite(comp) = &self.spec {
                    // the bases are dot products; distances come from them and the norms
                    let d = if self.sqnorms.is_empty() { &mut dist[..0] } else { &mut dist[..cb.len()] };
                    for ((v, &e), &dot) in d.iter_mut().zip(cb).zip(t.iter()) {
                        *v = (q_sqnorm + self.sqnorms[e] - 2.0 * dot).max(0.0);
                    }
                    let v = &mut value[..cb.len()];
                    comp.block(t, d, v);
                    for (o, &x) in ob.iter_mut().zip(v.iter()) {
                        *o = S::from_f64(x);
                    }
                    continue;
                }
                if with_norms {
                    for (v, &e) in t.iter_mut().zip(cb) {
                        *v = q_sqnorm + self.sqnorms[e] - 2.0 * *v;
                    }
                }
                transform_block(&self.spec, t, ob);
            }
        };
        let chunk = chunk_for(cols.len(), parallel);
        if chunk < cols.len() {
            out.par_chunks_mut(chunk).zip(cols.par_chunks(chunk)).for_each(|(o, c)| run(o, c));
        } else {
            run(out, cols);
        }
    }

    /// Dot products (or dense squared distances) of q with every target, in memory order.
    fn all_bases(&self, q: &Query, base: &mut [f64], parallel: bool) {
        let n = base.len();
        let chunk = chunk_for(n, parallel);
        let targets = self.targets();
        let dist = self.spec.uses_distance();
        let fill = |c: usize, part: &mut [f64]| {
            let lo = c * chunk;
            let hi = lo + part.len();
            match (&self.columns, &self.dense_columns) {
                (Some(cols), _) => {
                    part.fill(0.0);
                    accumulate_fast(cols, q, lo, hi, lo == 0 && hi == n, part);
                }
                (None, Some(cols)) => dense_dots_fast(cols, q, lo, hi, part),
                (None, None) => {
                    let mut idx = [0usize; BLOCK];
                    for (b, block) in part.chunks_mut(BLOCK).enumerate() {
                        let first = lo + b * BLOCK;
                        for (k, v) in idx[..block.len()].iter_mut().enumerate() {
                            *v = first + k;
                        }
                        direct_bases_fast(q, &targets, &idx[..block.len()], dist, block);
                    }
                }
            }
        };
        if chunk < n {
            base.par_chunks_mut(chunk).enumerate().for_each(|(c, part)| fill(c, part));
        } else {
            fill(0, base);
        }
    }

    /// out[k] = K(q, x_cols[k]) through one pass over all targets.
    fn full_pass<S: Store>(&self, q: &Query, q_sqnorm: f64, cols: &[usize], out: &mut [S], parallel: bool) {
        let n = self.x.rows();
        let gives_dots = self.columns.is_some() || self.dense_columns.is_some() || !direct_gives_distance(q, &self.targets());
        let with_norms = self.spec.uses_distance() && gives_dots;
        with_scratch(&FULL_PASS, n, |base| {
            let base = &mut base[..n];
            self.all_bases(q, base, parallel);
            let base = &base[..];
            self.fill_blocks(cols, out, parallel, q_sqnorm, with_norms, |cb, t| {
                for (v, &e) in t.iter_mut().zip(cb) {
                    *v = base[e];
                }
            });
        });
    }
}

/// Training data for a precomputed kernel is the kernel matrix: square.
fn check_square(x: &Matrix, spec: &KernelSpec) -> Result<()> {
    if spec.is_precomputed() && x.rows() != x.cols() {
        return Err(Error::InvalidData(format!(
            "a precomputed kernel must be a square matrix, got {} x {}",
            x.rows(),
            x.cols()
        )));
    }
    Ok(())
}

/// out = kernel(base) with the kernel chosen once per block, so each loop is a plain map that
/// the compiler vectorises.
#[inline(always)]
fn apply_transform<S: Store, const FMA: bool>(spec: &KernelSpec, base: &[f64], out: &mut [S]) {
    match *spec {
        KernelSpec::Linear | KernelSpec::Precomputed => {
            for (o, &v) in out.iter_mut().zip(base) {
                *o = S::from_f64(v);
            }
        }
        KernelSpec::Rbf { gamma } => {
            for (o, &v) in out.iter_mut().zip(base) {
                *o = S::from_f64(exp_poly::<FMA>(-gamma * v.max(0.0)));
            }
        }
        KernelSpec::Poly { degree, gamma, coef0 } => {
            for (o, &v) in out.iter_mut().zip(base) {
                *o = S::from_f64(powi(gamma * v + coef0, degree));
            }
        }
        KernelSpec::Sigmoid { gamma, coef0 } => {
            for (o, &v) in out.iter_mut().zip(base) {
                *o = S::from_f64((gamma * v + coef0).tanh());
            }
        }
        KernelSpec::Composite(_) | KernelSpec::External(_) => unreachable!("not a transform of one base"),
    }
}

/// `apply_transform` with the AVX2+FMA build when the processor has it.
pub(crate) fn transform_block<S: Store>(spec: &KernelSpec, base: &[f64], out: &mut [S]) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<S: Store>(spec: &KernelSpec, base: &[f64], out: &mut [S]) {
            apply_transform::<S, true>(spec, base, out)
        }
        if has_avx2_fma() {
            // SAFETY: the features were just detected.
            return unsafe { avx2(spec, base, out) };
        }
    }
    apply_transform::<S, false>(spec, base, out)
}

/// A row whose squared norm overflows: its distance to every other row is infinite, and an RBF
/// kernel would silently become the identity (values of 1e154 and more, squared).
pub(crate) fn overflowing_norm(row: usize) -> Error {
    Error::InvalidData(format!(
        "the squared norm of row {row} overflows to infinity (values of about 1e154 or more): its kernel values \
         with every other row would be 0, whatever gamma; scale the data"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;

    #[test]
    fn fast_exp_matches_std() {
        let mut x = 0.0;
        while x > -700.0 {
            let (a, b, c) = (exp_nonpositive(x), x.exp(), exp_poly::<true>(x));
            assert!(((a - b) / b).abs() < 1e-14, "x={x} {a} {b}");
            assert!(((c - b) / b).abs() < 1e-14, "x={x} {c} {b}");
            x -= 0.0137;
        }
        assert_eq!(exp_nonpositive(-1e6), exp_nonpositive(-708.0));
    }

    fn reference(spec: &KernelSpec, a: &[f64], b: &[f64]) -> f64 {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let d2: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
        match *spec {
            KernelSpec::Linear | KernelSpec::Precomputed => dot,
            KernelSpec::Rbf { gamma } => (-gamma * d2).exp(),
            KernelSpec::Poly { degree, gamma, coef0 } => (gamma * dot + coef0).powi(degree as i32),
            KernelSpec::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
            KernelSpec::Composite(ref c) => {
                c.terms().iter().map(|t| t.weight * t.factors.iter().map(|f| reference(f, a, b)).product::<f64>()).sum()
            }
            KernelSpec::External(_) => unreachable!(),
        }
    }

    fn rbf_plus_half_linear_times_poly() -> KernelSpec {
        KernelSpec::Composite(Arc::new(
            Composite::new(vec![
                Term { weight: 1.0, factors: vec![KernelSpec::Rbf { gamma: 0.1 }] },
                Term {
                    weight: 0.5,
                    factors: vec![KernelSpec::Linear, KernelSpec::Poly { degree: 2, gamma: 0.3, coef0: 1.0 }],
                },
                Term { weight: 0.25, factors: vec![] },
            ])
            .unwrap(),
        ))
    }

    /// Every layout (dense, sparse, dense held sparse), every path (direct, full pass, threads)
    /// and every query form give the kernel's textbook value.
    #[test]
    fn all_layouts_and_paths_agree_with_the_definition() {
        let mut rng = crate::rng::Rng::new(3);
        let n = 5000;
        // narrow and wide, sparse-ish and dense: every way the engine may hold the data
        for (d, keep_in_8) in [(40, 1usize), (40, 6), (80, 6)] {
            let mut dense = vec![0.0f64; n * d];
            let mut csr = CsrMatrix::new();
            for r in 0..n {
                let mut row = Vec::new();
                for j in 0..d {
                    if rng.below(8) < keep_in_8 {
                        let v = rng.below(1000) as f64 / 250.0 - 2.0;
                        dense[r * d + j] = v;
                        row.push((j, v));
                    }
                }
                csr.push_row(row).unwrap();
            }
            csr.set_cols(d).unwrap();
            let dm = Matrix::Dense64(DenseView::new(&dense, n, d).unwrap());
            let mut cols: Vec<usize> = (0..n).collect();
            rng.shuffle(&mut cols);
            let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            for m in [dm, csr.view()] {
                for spec in [
                    KernelSpec::Rbf { gamma: 0.1 },
                    KernelSpec::Linear,
                    KernelSpec::Poly { degree: 2, gamma: 0.3, coef0: 1.0 },
                    KernelSpec::Sigmoid { gamma: 0.01, coef0: -0.2 },
                    rbf_plus_half_linear_times_poly(),
                ] {
                    // with its copies, and without (no budget for them: the data as given)
                    let engines = [KernelEngine::new(m, spec.clone()).unwrap(), KernelEngine::within(m, spec.clone(), 0).unwrap()];
                    for e in engines {
                        for i in [0, 17, 4999] {
                            let xi = &dense[i * d..(i + 1) * d];
                            for take in [n, 40] {
                                let c = &cols[..take];
                                let mut par = vec![0.0f64; take];
                                pool.install(|| e.row(i, c, &mut par));
                                let mut single = vec![0.0f64; take];
                                e.row(i, c, &mut single);
                                let mut outside = vec![0.0f64; take];
                                e.query(&Query::dense(xi), xi.iter().map(|v| v * v).sum(), c, &mut outside).unwrap();
                                for k in 0..take {
                                    let want = reference(&spec, xi, &dense[c[k] * d..(c[k] + 1) * d]);
                                    for got in [par[k], single[k], outside[k]] {
                                        assert!((got - want).abs() <= 1e-11 * (1.0 + want.abs()), "{spec:?} {i} {k} {got} {want}");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn composed_kernels_take_only_builtin_factors() {
        let bad = Composite::new(vec![Term { weight: 1.0, factors: vec![KernelSpec::Precomputed] }]);
        assert!(matches!(bad, Err(Error::InvalidParameter(_))));
        let nan = Composite::new(vec![Term { weight: f64::NAN, factors: vec![KernelSpec::Linear] }]);
        assert!(nan.is_err());
        let bad_gamma = Composite::new(vec![Term { weight: 1.0, factors: vec![KernelSpec::Rbf { gamma: -1.0 }] }]);
        assert!(bad_gamma.is_err());
        assert!(Composite::new(vec![]).is_err());
    }

    /// An external RBF over dense rows, failing (or returning NaN) on demand.
    struct OutsideRbf {
        x: Vec<f64>,
        d: usize,
        nan_at: Option<usize>,
        calls: AtomicU64,
    }

    impl ExternalKernel for OutsideRbf {
        fn name(&self) -> String {
            "outside-rbf".into()
        }
        fn len(&self) -> usize {
            self.x.len() / self.d
        }
        fn row(&self, i: usize, cols: Option<&[usize]>, out: &mut [f64]) -> std::result::Result<(), String> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            let all: Vec<usize> = (0..self.len()).collect();
            let cols = cols.unwrap_or(&all);
            let xi = &self.x[i * self.d..(i + 1) * self.d];
            for (o, &c) in out.iter_mut().zip(cols) {
                *o = if Some(c) == self.nan_at {
                    f64::NAN
                } else {
                    reference(&KernelSpec::Rbf { gamma: 0.5 }, xi, &self.x[c * self.d..(c + 1) * self.d])
                };
            }
            Ok(())
        }
        fn diagonal(&self) -> std::result::Result<Vec<f64>, String> {
            Ok(vec![1.0; self.len()])
        }
    }

    #[test]
    fn external_kernels_are_asked_for_segments_and_their_failures_kept() {
        let (n, d) = (300, 3);
        let mut rng = crate::rng::Rng::new(5);
        let x: Vec<f64> = (0..n * d).map(|_| rng.below(100) as f64 / 50.0).collect();
        let placeholder: Vec<f64> = Vec::new();
        let m = Matrix::Dense64(DenseView::new(&placeholder, n, 0).unwrap());
        let ext = Arc::new(OutsideRbf { x: x.clone(), d, nan_at: None, calls: AtomicU64::new(0) });
        let e = KernelEngine::new(m, KernelSpec::External(ext.clone())).unwrap();
        let cols: Vec<usize> = (0..n).rev().step_by(3).collect();
        for take in [cols.len(), 10] {
            let mut out = vec![0.0f32; take];
            e.row(7, &cols[..take], &mut out);
            for (k, &c) in cols[..take].iter().enumerate() {
                let want = reference(&KernelSpec::Rbf { gamma: 0.5 }, &x[21..24], &x[c * d..(c + 1) * d]);
                assert!((out[k] as f64 - want).abs() < 1e-6);
            }
        }
        assert_eq!(ext.calls.load(Ordering::Relaxed), 2, "one call per row segment");
        assert_eq!(e.diagonal(&[0, 5]), vec![1.0, 1.0]);
        assert!(e.failure().is_none());

        let bad = Arc::new(OutsideRbf { x, d, nan_at: Some(4), calls: AtomicU64::new(0) });
        let e = KernelEngine::new(m, KernelSpec::External(bad.clone())).unwrap();
        let mut out = vec![0.0f64; n];
        let all: Vec<usize> = (0..n).collect();
        e.row(0, &all, &mut out);
        assert!(out.iter().all(|&v| v == 0.0));
        match e.failure() {
            Some(Error::Kernel(m)) => assert!(m.contains("outside-rbf") && m.contains("NaN"), "{m}"),
            other => panic!("{other:?}"),
        }
        e.row(1, &all, &mut out);
        assert_eq!(bad.calls.load(Ordering::Relaxed), 1, "a failed kernel is not called again");
        let wrong = Matrix::Dense64(DenseView::new(&placeholder, n + 1, 0).unwrap());
        assert!(KernelEngine::new(wrong, KernelSpec::External(bad)).is_err());
    }

    #[test]
    fn mostly_zero_dense_data_is_held_sparse_and_budgeted() {
        let mut data = vec![0.0f64; 100 * 64];
        for r in 0..100 {
            data[r * 64 + r % 64] = 1.0;
        }
        let m = Matrix::Dense64(DenseView::new(&data, 100, 64).unwrap());
        let e = KernelEngine::new(m, KernelSpec::Rbf { gamma: 1.0 }).unwrap();
        assert!(e.sparse_copy.is_some() && e.columns.is_some() && e.dense_columns.is_none());
        assert!(e.extra_bytes() > 0);
        assert!((e.eval(0, 64) - 1.0).abs() < 1e-15);
        assert!((e.eval(0, 1) - (-2.0f64).exp()).abs() < 1e-15);
        assert_eq!(e.evals(), 2);
    }
}
