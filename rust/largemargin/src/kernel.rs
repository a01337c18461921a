//! The kernel engine: built-in kernels over dense and sparse rows, computed a row segment at a
//! time (in parallel with rayon when the segment is long) and counted.
//!
//! Every kernel is a transform of one "base" quantity between two rows — a dot product or a
//! squared distance — so the per-format loops are written once and the kernels once.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::data::{CsrView, DenseView, Matrix, Real};
use crate::error::{Error, Result};

/// Which kernel, with its parameters (LIBSVM's conventions).
#[derive(Clone, Copy, Debug, PartialEq)]
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
            _ => Ok(()),
        }
    }
    fn uses_distance(&self) -> bool {
        matches!(self, KernelSpec::Rbf { .. })
    }
    /// LIBSVM's name for the kernel_type field of a model file.
    pub fn libsvm_name(&self) -> &'static str {
        match self {
            KernelSpec::Linear => "linear",
            KernelSpec::Poly { .. } => "polynomial",
            KernelSpec::Rbf { .. } => "rbf",
            KernelSpec::Sigmoid { .. } => "sigmoid",
            KernelSpec::Precomputed => "precomputed",
        }
    }
    #[inline(always)]
    fn transform(&self, base: f64) -> f64 {
        match *self {
            KernelSpec::Linear | KernelSpec::Precomputed => base,
            KernelSpec::Poly { degree, gamma, coef0 } => powi(gamma * base + coef0, degree),
            KernelSpec::Rbf { gamma } => exp_nonpositive(-gamma * base.max(0.0)),
            KernelSpec::Sigmoid { gamma, coef0 } => (gamma * base + coef0).tanh(),
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
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const LN2_HI: f64 = 6.931_471_803_691_238_2e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding it rounds to an integer
    let x = x.max(-708.0);
    let t = x * LOG2E + SHIFT;
    let n = t - SHIFT;
    let ni = (t.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0
                            + r * (1.0 / 720.0
                                + r * (1.0 / 5040.0
                                    + r * (1.0 / 40320.0
                                        + r * (1.0 / 362880.0
                                            + r * (1.0 / 3628800.0 + r * (1.0 / 39916800.0)))))))))));
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

const BLOCK: usize = 256;

#[inline(always)]
fn dense_dot<T: Real>(a: &[T], b: &[T]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            acc[k] += x[k].to_f64() * y[k].to_f64();
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x.to_f64() * y.to_f64();
    }
    s
}

#[inline(always)]
fn dense_sqdist<T: Real>(a: &[T], b: &[T]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            let d = x[k].to_f64() - y[k].to_f64();
            acc[k] += d * d;
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        let d = x.to_f64() - y.to_f64();
        s += d * d;
    }
    s
}

fn dense_base<T: Real>(a: &DenseView<T>, i: usize, b: &DenseView<T>, cols: &[usize], dist: bool, tmp: &mut [f64]) {
    let x = a.row(i);
    if dist {
        for (t, &c) in tmp.iter_mut().zip(cols) {
            *t = dense_sqdist(x, b.row(c));
        }
    } else {
        for (t, &c) in tmp.iter_mut().zip(cols) {
            *t = dense_dot(x, b.row(c));
        }
    }
}

thread_local! {
    /// Dense scatter of one sparse row; only the touched entries are cleared after use.
    static SCATTER: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Dot products of sparse row i of `a` with rows `cols` of `b`: row i is scattered once into a
/// dense buffer, then each partner row gathers from it (cost nnz(partner)).
fn csr_dots<T: Real>(a: &CsrView<T>, i: usize, b: &CsrView<T>, cols: &[usize], tmp: &mut [f64]) {
    SCATTER.with(|buf| {
        let mut buf = buf.borrow_mut();
        let need = a.cols.max(b.cols);
        if buf.len() < need {
            buf.resize(need, 0.0);
        }
        let (idx, val) = a.row(i);
        for (&j, &v) in idx.iter().zip(val) {
            buf[j as usize] = v.to_f64();
        }
        for (t, &c) in tmp.iter_mut().zip(cols) {
            let (bi, bv) = b.row(c);
            let mut s = 0.0;
            for (&j, &v) in bi.iter().zip(bv) {
                s += buf[j as usize] * v.to_f64();
            }
            *t = s;
        }
        for &j in idx {
            buf[j as usize] = 0.0;
        }
    })
}

/// Kernel values between row `i` of `a` and rows `cols` of `b` (both in the same layout) into
/// `out`. For a precomputed kernel `a` is the kernel matrix and `cols` index its columns.
#[allow(clippy::too_many_arguments)]
pub fn fill_segment<S: Store>(
    spec: &KernelSpec,
    a: &Matrix,
    i: usize,
    a_sqnorm: f64,
    b: &Matrix,
    b_sqnorms: &[f64],
    cols: &[usize],
    out: &mut [S],
) {
    debug_assert_eq!(cols.len(), out.len());
    let dist = spec.uses_distance();
    let mut tmp = [0.0f64; BLOCK];
    for (cb, ob) in cols.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
        let t = &mut tmp[..cb.len()];
        match (spec, a, b) {
            (KernelSpec::Precomputed, a, _) => {
                for (v, &c) in t.iter_mut().zip(cb) {
                    *v = a.get(i, c);
                }
            }
            (_, Matrix::Dense64(a), Matrix::Dense64(b)) => dense_base(a, i, b, cb, dist, t),
            (_, Matrix::Dense32(a), Matrix::Dense32(b)) => dense_base(a, i, b, cb, dist, t),
            (_, Matrix::Csr64(a), Matrix::Csr64(b)) => csr_dots(a, i, b, cb, t),
            (_, Matrix::Csr32(a), Matrix::Csr32(b)) => csr_dots(a, i, b, cb, t),
            _ => unreachable!("kernel operands in different layouts are rejected before this point"),
        }
        if dist && a.is_sparse() {
            for (v, &c) in t.iter_mut().zip(cb) {
                *v = a_sqnorm + b_sqnorms[c] - 2.0 * *v;
            }
        }
        for (o, &v) in ob.iter_mut().zip(t.iter()) {
            *o = S::from_f64(spec.transform(v));
        }
    }
}

/// True when two matrices can be kernel operands of each other.
pub fn same_layout(a: &Matrix, b: &Matrix) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b) && a.cols() == b.cols()
}

/// Segments shorter than this are computed on the calling thread.
const PARALLEL_MIN: usize = 4096;

/// Splits a segment over the rayon pool when it is long enough to pay for it.
pub fn fill_segment_par<S: Store>(
    spec: &KernelSpec,
    a: &Matrix,
    i: usize,
    a_sqnorm: f64,
    b: &Matrix,
    b_sqnorms: &[f64],
    cols: &[usize],
    out: &mut [S],
) {
    let threads = rayon::current_num_threads();
    if threads > 1 && cols.len() >= PARALLEL_MIN {
        let chunk = (cols.len() / (2 * threads)).max(1024);
        out.par_chunks_mut(chunk).zip(cols.par_chunks(chunk)).for_each(|(o, c)| {
            fill_segment(spec, a, i, a_sqnorm, b, b_sqnorms, c, o);
        });
    } else {
        fill_segment(spec, a, i, a_sqnorm, b, b_sqnorms, cols, out);
    }
}

/// The kernel over one training matrix: rows on demand, counted.
pub struct KernelEngine<'a> {
    x: Matrix<'a>,
    spec: KernelSpec,
    sqnorms: Vec<f64>,
    evals: AtomicU64,
}

impl<'a> KernelEngine<'a> {
    pub fn new(x: Matrix<'a>, spec: KernelSpec) -> Result<Self> {
        spec.validate()?;
        if spec == KernelSpec::Precomputed && x.rows() != x.cols() {
            return Err(Error::InvalidData(format!(
                "a precomputed kernel must be a square matrix, got {} x {}",
                x.rows(),
                x.cols()
            )));
        }
        let sqnorms = if spec.uses_distance() { x.squared_norms() } else { Vec::new() };
        Ok(KernelEngine { x, spec, sqnorms, evals: AtomicU64::new(0) })
    }
    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }
    pub fn data(&self) -> &Matrix<'a> {
        &self.x
    }
    pub fn rows(&self) -> usize {
        self.x.rows()
    }
    #[inline]
    fn sqn(&self, i: usize) -> f64 {
        if self.sqnorms.is_empty() { 0.0 } else { self.sqnorms[i] }
    }
    /// out[k] = K(i, cols[k]).
    pub fn row<S: Store>(&self, i: usize, cols: &[usize], out: &mut [S]) {
        self.evals.fetch_add(cols.len() as u64, Ordering::Relaxed);
        fill_segment_par(&self.spec, &self.x, i, self.sqn(i), &self.x, &self.sqnorms, cols, out);
    }
    pub fn eval(&self, i: usize, j: usize) -> f64 {
        let mut v = [0.0f64];
        self.evals.fetch_add(1, Ordering::Relaxed);
        fill_segment(&self.spec, &self.x, i, self.sqn(i), &self.x, &self.sqnorms, &[j], &mut v);
        v[0]
    }
    /// Kernel evaluations performed so far.
    pub fn evals(&self) -> u64 {
        self.evals.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_exp_matches_std() {
        let mut x = 0.0;
        while x > -700.0 {
            let (a, b) = (exp_nonpositive(x), x.exp());
            assert!(((a - b) / b).abs() < 1e-14, "x={x} {a} {b}");
            x -= 0.0137;
        }
        assert_eq!(exp_nonpositive(-1e6), exp_nonpositive(-708.0));
    }

    #[test]
    fn dense_and_sparse_agree() {
        let dense = [1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 0.5, 0.0, 0.0];
        let d = Matrix::Dense64(DenseView::new(&dense, 3, 3).unwrap());
        let indptr = [0i64, 2, 3, 4];
        let indices = [0i32, 2, 1, 0];
        let vals = [1.0, 2.0, 3.0, 0.5];
        let s = Matrix::Csr64(CsrView::new(&indptr, &indices, &vals, 3).unwrap());
        for spec in [
            KernelSpec::Linear,
            KernelSpec::Rbf { gamma: 0.3 },
            KernelSpec::Poly { degree: 3, gamma: 0.5, coef0: 1.0 },
            KernelSpec::Sigmoid { gamma: 0.1, coef0: -0.2 },
        ] {
            let (ed, es) = (KernelEngine::new(d, spec).unwrap(), KernelEngine::new(s, spec).unwrap());
            for i in 0..3 {
                let mut a = [0.0f64; 3];
                let mut b = [0.0f64; 3];
                ed.row(i, &[0, 1, 2], &mut a);
                es.row(i, &[0, 1, 2], &mut b);
                for k in 0..3 {
                    assert!((a[k] - b[k]).abs() < 1e-12, "{spec:?} {i} {k}");
                }
            }
            assert_eq!(ed.evals(), 9);
        }
        let e = KernelEngine::new(d, KernelSpec::Rbf { gamma: 0.3 }).unwrap();
        assert!((e.eval(0, 1) - (-0.3f64 * (1.0 + 9.0 + 4.0)).exp()).abs() < 1e-14);
    }
}
