//! One example's row as the SGD steps read it and move the float32 weights by it.

use crate::kernel::{dense_dot, gather_dot, Query};

/// w[j] for a sparse row's column j, unchecked: this runs on each nonzero of each pass.
///
/// # Safety
/// `j as usize < w.len()`. The `Example` methods know it from one comparison per row: a
/// `Query`'s sparse indices are non-negative and increasing, so the last is the largest.
#[inline(always)]
unsafe fn weight(w: &[f32], j: i32) -> f32 {
    debug_assert!((j as usize) < w.len());
    // SAFETY: the function's contract.
    unsafe { *w.get_unchecked(j as usize) }
}

/// # Safety
/// As for `weight`.
#[inline(always)]
unsafe fn weight_mut(w: &mut [f32], j: i32) -> &mut f32 {
    debug_assert!((j as usize) < w.len());
    // SAFETY: the function's contract.
    unsafe { w.get_unchecked_mut(j as usize) }
}

/// Whether every index of a `Query`'s sparse row is below `len` (they increase: the last decides).
#[inline(always)]
fn indices_below(j: &[i32], len: usize) -> bool {
    j.last().is_none_or(|&l| (l as usize) < len)
}

/// What the steps do with one example, a row as the kernel engine reads it (`Query`). A row
/// wider than `w` (or `s`) is a caller's bug: `LinearModel` checks widths before its passes, and
/// these methods assert it once per row before reading without bounds checks.
pub(crate) trait Example {
    /// <w, x>.
    fn dot(&self, w: &[f32]) -> f64;
    /// w += a x.
    fn add_to(&self, w: &mut [f32], a: f64);
    /// w += a (s . x), s a diagonal.
    fn add_scaled_to(&self, w: &mut [f32], a: f64, s: &[f32]);
}

impl Example for Query<'_> {
    #[inline(always)]
    fn dot(&self, w: &[f32]) -> f64 {
        /// Single precision throughout (as the thesis computed), eight running sums.
        #[inline(always)]
        fn sparse32(j: &[i32], v: &[f32], w: &[f32]) -> f64 {
            assert!(indices_below(j, w.len()), "a row wider than the weights");
            let mut acc = [0.0f32; 8];
            let (cj, cv) = (j.chunks_exact(8), v.chunks_exact(8));
            let (rj, rv) = (cj.remainder(), cv.remainder());
            for (jj, vv) in cj.zip(cv) {
                for k in 0..8 {
                    // SAFETY: a Query's indices are non-negative and at most the last, below w.len() (asserted).
                    acc[k] += unsafe { weight(w, jj[k]) } * vv[k];
                }
            }
            // SAFETY: as above.
            let tail: f32 = rj.iter().zip(rv).map(|(&j, x)| unsafe { weight(w, j) } * x).sum();
            (((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail) as f64
        }
        match *self {
            Query::D32(x) => dense_dot(x, &w[..x.len()]),
            Query::D64(x) => dense_dot(x, &w[..x.len()]),
            Query::S32(j, v) => sparse32(j, v, w),
            Query::S64(j, v) => {
                assert!(indices_below(j, w.len()), "a row wider than the weights");
                // SAFETY: a Query's indices are non-negative and at most the last, below w.len() (asserted).
                unsafe { gather_dot(w, j, v) }
            }
        }
    }

    #[inline(always)]
    fn add_to(&self, w: &mut [f32], a: f64) {
        match *self {
            Query::D32(x) => x.iter().zip(w.iter_mut()).for_each(|(x, w)| *w += (a * *x as f64) as f32),
            Query::D64(x) => x.iter().zip(w.iter_mut()).for_each(|(x, w)| *w += (a * x) as f32),
            Query::S32(j, v) => {
                assert!(indices_below(j, w.len()), "a row wider than the weights");
                let a = a as f32;
                // SAFETY: a Query's indices are non-negative and at most the last, below w.len() (asserted).
                j.iter().zip(v).for_each(|(&j, &x)| *unsafe { weight_mut(w, j) } += a * x);
            }
            Query::S64(j, v) => {
                assert!(indices_below(j, w.len()), "a row wider than the weights");
                // SAFETY: as above.
                j.iter().zip(v).for_each(|(&j, x)| *unsafe { weight_mut(w, j) } += (a * x) as f32)
            }
        }
    }

    #[inline(always)]
    fn add_scaled_to(&self, w: &mut [f32], a: f64, s: &[f32]) {
        match *self {
            Query::D32(x) => {
                x.iter().zip(w.iter_mut()).zip(s).for_each(|((x, w), s)| *w += (a * *s as f64 * *x as f64) as f32)
            }
            Query::D64(x) => x.iter().zip(w.iter_mut()).zip(s).for_each(|((x, w), s)| *w += (a * *s as f64 * x) as f32),
            Query::S32(j, v) => {
                assert!(indices_below(j, w.len().min(s.len())), "a row wider than the weights");
                let a = a as f32;
                // SAFETY: a Query's indices are non-negative and at most the last, below both
                // w.len() and s.len() (asserted).
                j.iter().zip(v).for_each(|(&j, &x)| unsafe { *weight_mut(w, j) += a * weight(s, j) * x })
            }
            Query::S64(j, v) => {
                assert!(indices_below(j, w.len().min(s.len())), "a row wider than the weights");
                // SAFETY: as above.
                j.iter().zip(v).for_each(|(&j, x)| unsafe { *weight_mut(w, j) += (a * weight(s, j) as f64 * x) as f32 })
            }
        }
    }
}
