//! The arithmetic every kernel loop is built of: dense reductions, sparse gathers and merges, a
//! vectorisable exp, prefetching, and where kernel values may be stored.

use crate::data::Real;

#[inline(always)]
pub(super) fn powi(x: f64, d: u32) -> f64 {
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
pub(super) fn exp_poly<const FMA: bool>(x: f64) -> f64 {
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const LN2_HI: f64 = 6.931_471_803_691_238e-1;
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
    /// A kernel value computed in f64, rounded to this type.
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
pub(super) fn dense_sqdist<T: Real, U: Real>(a: &[T], b: &[U]) -> f64 {
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
                acc[u] +=
                    q.get_unchecked(*idx.get_unchecked(k + u) as usize).to_f64() * val.get_unchecked(k + u).to_f64();
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
pub(super) fn merge_dot<Q: Real, T: Real>(qi: &[i32], qv: &[Q], ti: &[i32], tv: &[T]) -> f64 {
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
pub(super) fn per_feature_table_fits(cols: usize, nnz: usize) -> bool {
    cols <= nnz.saturating_mul(3) / 2 + (1 << 17)
}

/// Rows are visited in the solver's order, not memory order: ask for the row a few steps
/// ahead so its first cache lines arrive while the current one is computed.
pub(super) const PREFETCH_DISTANCE: usize = 6;

pub(super) use crate::runtime::vecops::prefetch;
