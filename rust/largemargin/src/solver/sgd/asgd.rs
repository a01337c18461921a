//! Averaged SGD (Polyak-Ruppert averaging started late, Xu 2011; Bottou's ASGD) with the
//! average kept implicitly, so that a step costs O(nnz(x)) whatever the dimension.
//!
//! The plain step is w <- (1 - eta lambda) w - eta d x, and once averaging has started the
//! average follows w_bar <- (1 - mu) w_bar + mu w with mu = 1/k at the k-th averaged iterate.
//! Both are kept through two vectors and three scalars:
//!
//!   w = u / D,          w_bar = (a + F u) / A.
//!
//! The decay only divides: D <- D / (1 - eta lambda). The pattern step changes u on the
//! nonzeros of x, u' = u + du with du = -eta d D x (D after the decay). Substituting
//! u = u' - du into (1 - mu) w_bar + mu u' / D gives, with A' = A / (1 - mu),
//!
//!   A' w_bar' = (a - F du) + (F + mu A' / D) u',
//!
//! so a' = a - F du (the same nonzeros), F' = F + mu A' / D. The first averaged iterate (mu = 1)
//! sets a = 0, F = 1/D, A = 1 (O(d), once). D and A grow without bound, and F u cancels against a
//! by as much as D grew: when either passes `RENORMALISE` the average is folded into a and the
//! divisors back to 1 (O(d); D grows by 1e4 only every ~100 t0 examples early on, rarer later). A decay so large
//! that D would jump (1 - eta lambda below 1/2: the first steps of a small t0) is applied to u
//! itself after folding F u into a. The vectors are float64: a - F du adds terms of the size
//! k |w| and cancels them, which float32 would not survive after a few thousand steps.
//!
//! After a pass `settle` folds the average into a, the model's weights themselves; a finished
//! fit copies them out (`settle_into`) and drops the state.

use crate::data::Real;
use crate::kernel::Query;

/// Above this, D or A are folded back into the vectors (a few digits lost to cancellation at most).
const RENORMALISE: f64 = 1e4;

/// The implicit state of averaged SGD (empty until it first runs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Averaged {
    /// Per feature j, [u_j, a_j]: the iterate is u / divisor, the average (a + coef u) / norm.
    /// Side by side, a step reads and writes both of a feature in one cache line, one vector
    /// operation.
    pub ua: Vec<[f64; 2]>,
    /// D of w = u / D: the decays so far, applied by division.
    pub divisor: f64,
    /// F of w_bar = (a + F u) / A.
    pub coef: f64,
    /// A of w_bar = (a + F u) / A.
    pub norm: f64,
    /// The iterate's bias (the model's own bias is the averaged one).
    pub bias: f64,
    /// Iterates averaged so far (0: averaging has not started, the model is the iterate).
    pub count: f64,
}

impl Averaged {
    /// Starts from the weights w and bias: the iterate is w, nothing averaged yet.
    pub fn new(w: impl Iterator<Item = f64>, bias: f64) -> Self {
        Averaged { ua: w.map(|v| [v, 0.0]).collect(), divisor: 1.0, coef: 0.0, norm: 1.0, bias, count: 0.0 }
    }

    /// f(x) of the iterate: <u, x> / D + b.
    #[inline(always)]
    pub fn decision(&self, x: Query) -> f64 {
        let ua = &self.ua[..];
        assert!(x.span() <= ua.len(), "a row wider than the weights");
        let s = match x {
            Query::D32(v) => dense_iterate_dot(ua, v),
            Query::D64(v) => dense_iterate_dot(ua, v),
            // SAFETY: every index of the row is below its span, at most ua.len() (asserted).
            Query::S32(j, v) => unsafe { sparse_iterate_dot(ua, j, v) },
            // SAFETY: as above.
            Query::S64(j, v) => unsafe { sparse_iterate_dot(ua, j, v) },
        };
        s / self.divisor + self.bias
    }

    /// One step: decay by (1 - eta lambda), move the iterate by -eta d x (its bias by
    /// -bias_step d), and if `average` fold the new iterate into the average. Returns the
    /// averaged bias when averaging, else the iterate's.
    #[inline(always)]
    pub fn step(
        &mut self, x: Query, d: f64, eta: f64, lambda: f64, bias_step: f64, average: bool, avg_bias: f64,
    ) -> f64 {
        let factor = (1.0 - eta * lambda).max(0.0);
        if factor < 0.5 {
            // a huge decay: on u itself, the average kept as it is
            self.fold_average();
            self.ua.iter_mut().for_each(|p| p[0] *= factor);
        } else {
            self.divisor /= factor;
        }
        if d != 0.0 {
            let du = -eta * d * self.divisor;
            let ua = &mut self.ua[..];
            let coef = if self.count > 0.0 && average { Some(self.coef) } else { None };
            match x {
                Query::S32(j, v) => move_sparse(ua, j, v, du, coef),
                Query::S64(j, v) => move_sparse(ua, j, v, du, coef),
                _ => x.for_each_nonzero(|j, v| {
                    ua[j][0] += du * v;
                    if let Some(coef) = coef {
                        ua[j][1] -= coef * du * v;
                    }
                }),
            }
            self.bias -= bias_step * d;
        }
        if !average {
            return self.bias;
        }
        self.count += 1.0;
        if self.count == 1.0 {
            self.ua.iter_mut().for_each(|p| p[1] = 0.0);
            self.coef = 1.0 / self.divisor;
            self.norm = 1.0;
            self.renormalise();
            return self.bias;
        }
        let mu = 1.0 / self.count;
        self.norm /= 1.0 - mu;
        self.coef += mu * self.norm / self.divisor;
        self.renormalise();
        avg_bias + mu * (self.bias - avg_bias)
    }

    /// a += F u, F = 0: the average held in a alone (before u changes outside the algebra).
    fn fold_average(&mut self) {
        if self.coef != 0.0 {
            let coef = self.coef;
            self.ua.iter_mut().for_each(|p| p[1] += coef * p[0]);
            self.coef = 0.0;
        }
    }

    /// D and A back to 1 when either grows past `RENORMALISE`, the average folded into a (F = 0).
    /// F u and a cancel each other up to the growth of D since the last fold: folding often
    /// enough keeps that cancellation to a few digits of float64.
    fn renormalise(&mut self) {
        if self.divisor > RENORMALISE || self.norm > RENORMALISE {
            self.fold();
        }
    }

    /// a = (a + F u) / A, u = u / D, and D = A = 1, F = 0.
    fn fold(&mut self) {
        let (d, coef, norm) = (self.divisor, self.coef, self.norm);
        self.ua.iter_mut().for_each(|p| {
            p[1] = (p[1] + coef * p[0]) / norm;
            p[0] /= d;
        });
        (self.divisor, self.coef, self.norm) = (1.0, 0.0, 1.0);
    }

    /// Leaves the model's weights in a (the average once averaging has started, else the
    /// iterate) and u the iterate itself, D = A = 1, F = 0: the same state, to rounding, which
    /// can be read as the model (after each pass) or kept.
    pub fn settle(&mut self) {
        if self.count > 0.0 {
            self.fold();
        } else {
            let d = self.divisor;
            self.ua.iter_mut().for_each(|p| {
                p[0] /= d;
                p[1] = p[0];
            });
            (self.divisor, self.coef, self.norm) = (1.0, 0.0, 1.0);
        }
    }

    /// `settle`, then the model's weights into `out` (as wide as the weights), the state dropped
    /// from its end as they are copied, so that the copy never holds both in full (on 10^7
    /// features the state is 160 MB, the weights 80 MB).
    pub fn settle_into(&mut self, out: &mut [f64]) {
        self.settle();
        assert_eq!(out.len(), self.ua.len(), "weights of another width");
        const PIECE: usize = 1 << 20;
        while !self.ua.is_empty() {
            let start = self.ua.len().saturating_sub(PIECE);
            out[start..self.ua.len()].iter_mut().zip(&self.ua[start..]).for_each(|(o, p)| *o = p[1]);
            self.ua.truncate(start);
            // (a large allocation shrinks in place: its tail goes back to the system)
            self.ua.shrink_to_fit();
        }
    }

    /// The model's weights, one at a time (nothing allocated: on 10^7 features a copy is 80 MB).
    pub fn for_each_weight(&self, mut visit: impl FnMut(f64)) {
        if self.count > 0.0 {
            let (coef, norm) = (self.coef, self.norm);
            self.ua.iter().for_each(|&[u, a]| visit((a + coef * u) / norm));
        } else {
            let d = self.divisor;
            self.ua.iter().for_each(|p| visit(p[0] / d));
        }
    }

    /// The model's f(x) but for its bias: <w_bar, x> (before averaging starts, the iterate's).
    pub fn model_dot(&self, x: Query) -> f64 {
        let mut s = 0.0;
        if self.count > 0.0 {
            let (coef, norm) = (self.coef, self.norm);
            x.for_each_nonzero(|j, v| s += (self.ua[j][1] + coef * self.ua[j][0]) / norm * v);
        } else {
            let d = self.divisor;
            x.for_each_nonzero(|j, v| s += self.ua[j][0] / d * v);
        }
        s
    }
}

/// The pattern step on a sparse row: u += du x and, while averaging (`coef` F), a -= F du x,
/// with one width check per row instead of one per nonzero.
#[inline(always)]
fn move_sparse<T: Real>(ua: &mut [[f64; 2]], j: &[i32], v: &[T], du: f64, coef: Option<f64>) {
    assert!(j.len() == v.len() && j.last().is_none_or(|&l| (l as usize) < ua.len()));
    // SAFETY: a Query's sparse indices increase and are non-negative, so each is at most the
    // last, which is below ua.len() (asserted).
    unsafe {
        match coef {
            Some(coef) => {
                // [u, a] += [du, -F du] x: a + (-F du) x is a - F du x to the bit
                let steps = [du, -(coef * du)];
                #[cfg(target_arch = "x86_64")]
                {
                    use std::arch::x86_64::{_mm_add_pd, _mm_loadu_pd, _mm_mul_pd, _mm_set1_pd, _mm_storeu_pd};
                    // (SSE2, which every x86_64 has: one load, multiply, add and store per entry)
                    let steps = _mm_loadu_pd(steps.as_ptr());
                    for (&j, x) in j.iter().zip(v) {
                        let p = ua.get_unchecked_mut(j as usize).as_mut_ptr();
                        _mm_storeu_pd(p, _mm_add_pd(_mm_loadu_pd(p), _mm_mul_pd(steps, _mm_set1_pd(x.to_f64()))));
                    }
                }
                #[cfg(not(target_arch = "x86_64"))]
                for (&j, x) in j.iter().zip(v) {
                    let (x, p) = (x.to_f64(), ua.get_unchecked_mut(j as usize));
                    p[0] += steps[0] * x;
                    p[1] += steps[1] * x;
                }
            }
            None => {
                for (&j, x) in j.iter().zip(v) {
                    ua.get_unchecked_mut(j as usize)[0] += du * x.to_f64();
                }
            }
        }
    }
}

/// <u, x> for a sparse row, four running sums (the order of `gather_dot`).
///
/// # Safety
/// Every index of `j` is below `ua.len()`.
#[inline(always)]
unsafe fn sparse_iterate_dot<T: Real>(ua: &[[f64; 2]], j: &[i32], v: &[T]) -> f64 {
    assert!(j.len() == v.len());
    let n = j.len();
    let mut acc = [0.0f64; 4];
    let mut k = 0;
    // SAFETY: k < n = j.len() = v.len(), and every index is below ua.len() (the contract).
    unsafe {
        let u = |k: usize| ua.get_unchecked(*j.get_unchecked(k) as usize)[0] * v.get_unchecked(k).to_f64();
        while k + 4 <= n {
            for (l, acc) in acc.iter_mut().enumerate() {
                *acc += u(k + l);
            }
            k += 4;
        }
        let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        while k < n {
            s += u(k);
            k += 1;
        }
        s
    }
}

/// <u, x> for a dense row (no wider than u), four running sums.
#[inline(always)]
fn dense_iterate_dot<T: Real>(ua: &[[f64; 2]], v: &[T]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (chunks, tail) = (v.chunks_exact(4), v.len() / 4 * 4);
    for (c, p) in chunks.zip(ua.chunks_exact(4)) {
        for l in 0..4 {
            acc[l] += p[l][0] * c[l].to_f64();
        }
    }
    let s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    v[tail..].iter().zip(&ua[tail..]).fold(s, |s, (x, p)| s + p[0] * x.to_f64())
}
