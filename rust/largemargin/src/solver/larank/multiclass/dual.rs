//! The multiclass dual's measures: every example's class scores, the gradients refreshed from
//! them, ||w||^2, the dual objective and the duality gap.

use super::{LaRank, Method, Scores};
use crate::kernel::Query;

impl LaRank<'_, '_> {
    /// Recomputes every support pattern's gradients from the expansion (no drift), and returns
    /// the duality gap (primal minus dual) over all examples; the class scores of every example
    /// are computed, in parallel.
    pub fn duality_gap(&mut self) -> f64 {
        self.refresh_gradients();
        let scores = self.all_scores();
        let k = self.classes;
        let slack: f64 = scores
            .chunks_exact(k)
            .enumerate()
            .map(|(e, s)| {
                // outside the set the positive label is free: the best candidate's loss is the primal's
                let y = match &self.bags {
                    Some(b) if self.set.position(e) >= self.set.len() => {
                        b.candidates(e).fold(self.label[e], |best, c| if s[c] > s[best] { c } else { best })
                    }
                    _ => self.label[e],
                };
                let worst =
                    (0..k).filter(|&j| j != y && !self.frozen(e, j)).map(|j| s[j]).fold(f64::NEG_INFINITY, f64::max);
                self.upper[e] * (1.0 + worst - s[y]).max(0.0)
            })
            .sum();
        let w2 = self.norm_w_squared();
        let dual = self.dual();
        0.5 * w2 + slack - dual
    }

    /// S_y(x_e) for every example and class, row-major.
    pub(super) fn all_scores(&self) -> Vec<f64> {
        use rayon::prelude::*;
        let (n, k) = (self.x.rows(), self.classes);
        let mut out = vec![0.0; n * k];
        match &self.scores {
            Scores::Kernel => {
                let len = self.set.len();
                let support: Vec<usize> = (0..len).map(|q| self.set.index_at(q)).collect();
                let beta = &self.beta;
                out.par_chunks_mut(k).enumerate().for_each_init(
                    || vec![0.0f64; len],
                    |row, (e, s)| {
                        self.engine.row(e, &support, row);
                        for (q, &kv) in row.iter().enumerate() {
                            for (v, b) in s.iter_mut().zip(&beta[q * k..(q + 1) * k]) {
                                *v += kv * b;
                            }
                        }
                    },
                );
            }
            Scores::Linear { w, d } => {
                out.par_chunks_mut(k).enumerate().for_each(|(e, s)| {
                    Query::row(&self.x, e).for_each_nonzero(|j, v| {
                        for (c, o) in s.iter_mut().enumerate() {
                            *o += w[c * d + j] * v;
                        }
                    });
                });
            }
        }
        out
    }

    /// Sets every support pattern's gradients from its exact class scores.
    pub(super) fn refresh_gradients(&mut self) {
        for s in 0..self.set.len() {
            let e = self.set.index_at(s);
            self.class_scores(e, s);
            let y = self.label[e];
            for (c, col) in self.grad.iter_mut().enumerate() {
                col[s] = (if c == y { 1.0 } else { 0.0 } - self.buf[c]) as f32;
            }
        }
    }

    /// ||w||^2 = sum_{i,y} beta_i^y S_y(x_i), from the stored gradients.
    pub(super) fn norm_w_squared(&self) -> f64 {
        let k = self.classes;
        (0..self.set.len())
            .map(|s| {
                let y = self.label[self.set.index_at(s)];
                (0..k)
                    .map(|c| self.beta[s * k + c] * (if c == y { 1.0 } else { 0.0 } - self.grad[c][s] as f64))
                    .sum::<f64>()
            })
            .sum()
    }

    /// The dual objective sum_i beta_i^{y_i} - 1/2 ||w||^2 (from the stored gradients: exact after
    /// `duality_gap` or a refresh, up to rounding drift otherwise).
    /// NaN for the perceptron and pairwise PA rules, whose coefficients are not a point of it.
    pub fn dual(&self) -> f64 {
        if !matches!(self.params.method, Method::LaRank(_)) {
            return f64::NAN;
        }
        let k = self.classes;
        let linear = (0..self.set.len()).map(|s| self.beta[s * k + self.label[self.set.index_at(s)]]).sum::<f64>();
        let w2 = match &self.scores {
            Scores::Linear { w, .. } => w.iter().map(|v| v * v).sum(),
            Scores::Kernel => self.norm_w_squared(),
        };
        linear - 0.5 * w2
    }
}
