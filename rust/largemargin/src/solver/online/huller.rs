//! The Huller (Bordes and Bottou 2005; Bordes 2010, PhD thesis, section 4.1): an online hard-margin SVM that tracks the nearest
//! points X_P, X_N of the two classes' convex hulls. Each update moves one hull point towards (or,
//! with a negative step, away from) an example, which can insert or remove it; the decision is
//! f(x) = <X_P - X_N, x> + (|X_N|^2 - |X_P|^2) / 2.

use crate::error::{Error, Result};
use crate::kernel::KernelEngine;
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::solver::online::expansion::{check_labels, ExpansionSet};

/// Below this a coefficient is zero (the example leaves the expansion).
const ZERO: f64 = 1e-12;

/// One binary Huller problem over some examples of an engine's data (labels +1/-1): the two
/// hull points as convex weights on an expansion set, and their inner products.
pub struct Huller<'e, 'a> {
    set: ExpansionSet<'e, 'a>,
    // By position: hull weights (>= 0, summing to 1 per class over S) and labels.
    alpha: Vec<f64>,
    y: Vec<f64>,
    /// |X_P|^2, |X_N|^2, <X_P, X_N>.
    pp: f64,
    nn: f64,
    pn: f64,
    /// HULLERUPDATEs that moved a hull point.
    pub updates: u64,
}

impl<'e, 'a> Huller<'e, 'a> {
    /// An empty hull over the engine rows `examples`, `y[k]` the label of `examples[k]`, its
    /// kernel rows cached within `cache_bytes`; `start` then sets the first hull points.
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, y: &[f64], cache_bytes: usize) -> Result<Self> {
        check_labels(y, examples.len(), false)?;
        let n = y.len();
        Ok(Huller {
            set: ExpansionSet::new(engine, examples, cache_bytes),
            alpha: vec![0.0; n],
            y: y.to_vec(),
            pp: 0.0,
            nn: 0.0,
            pn: 0.0,
            updates: 0,
        })
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.set.swap(i, j);
        self.alpha.swap(i, j);
        self.y.swap(i, j);
    }

    /// Moves the example at position `pos` (outside S) into S; returns its new position.
    fn insert(&mut self, pos: usize) -> usize {
        let n = self.set.len();
        self.swap(pos, n);
        self.set.set_len(n + 1);
        n
    }

    /// Takes every example of S whose weight fell to zero out of S.
    fn drop_zeros(&mut self) {
        let mut s = self.set.len();
        while s > 0 {
            s -= 1;
            if self.alpha[s] <= ZERO {
                self.alpha[s] = 0.0;
                let last = self.set.len() - 1;
                self.swap(s, last);
                self.set.set_len(last);
            }
        }
    }

    /// (<x_p, X_P>, <x_p, X_N>) from the example's kernel row over S.
    fn hull_products(&mut self, p: usize) -> (f64, f64) {
        let n = self.set.len();
        let row = self.set.row(p);
        let (mut kp, mut kn) = (0.0, 0.0);
        for ((&k, &a), &y) in row.iter().zip(&self.alpha[..n]).zip(&self.y[..n]) {
            if y > 0.0 {
                kp += a * k as f64;
            } else {
                kn += a * k as f64;
            }
        }
        (kp, kn)
    }

    /// Starts the hull points as the averages of the first `per_class` examples of each class in
    /// `order` (problem indices).
    pub fn start(&mut self, order: &[usize], per_class: usize) -> Result<()> {
        let (mut np, mut nn) = (0usize, 0usize);
        for &k in order {
            let p = self.set.position(k);
            let y = self.y[p];
            if (y > 0.0 && np < per_class) || (y < 0.0 && nn < per_class) {
                self.insert(p);
                if y > 0.0 {
                    np += 1
                } else {
                    nn += 1
                }
            }
            if np == per_class && nn == per_class {
                break;
            }
        }
        if np == 0 || nn == 0 {
            return Err(Error::InvalidData("the Huller needs examples of both classes".into()));
        }
        for s in 0..self.set.len() {
            self.alpha[s] = if self.y[s] > 0.0 { 1.0 / np as f64 } else { 1.0 / nn as f64 };
        }
        let (mut pp, mut nn2, mut pn) = (0.0, 0.0, 0.0);
        for s in 0..self.set.len() {
            let (kp, kn) = self.hull_products(s);
            if self.y[s] > 0.0 {
                pp += self.alpha[s] * kp;
                pn += self.alpha[s] * kn;
            } else {
                nn2 += self.alpha[s] * kn;
            }
        }
        (self.pp, self.nn, self.pn) = (pp, nn2, pn);
        Ok(())
    }

    /// HULLERUPDATE of the example at position `pos` (in S or not). Returns whether it moved.
    pub fn update(&mut self, pos: usize) -> bool {
        let (kp, kn) = self.hull_products(pos);
        let kk = self.set.diag(pos);
        let in_s = pos < self.set.len();
        let ak = if in_s { self.alpha[pos] } else { 0.0 };
        let positive = self.y[pos] > 0.0;
        let (num, den) = if positive {
            (self.pp - self.pn - kp + kn, self.pp + kk - 2.0 * kp)
        } else {
            (self.nn - self.pn - kn + kp, self.nn + kk - 2.0 * kn)
        };
        if den <= ZERO || ak >= 1.0 - ZERO {
            return false; // the hull point is x_k itself: nothing to move
        }
        let lambda = (num / den).max(-ak / (1.0 - ak)).min(1.0);
        if lambda == 0.0 || (!in_s && lambda < 0.0) {
            return false;
        }
        let pos = if in_s { pos } else { self.insert(pos) };
        let keep = 1.0 - lambda;
        for s in 0..self.set.len() {
            if (self.y[s] > 0.0) == positive {
                self.alpha[s] *= keep;
            }
        }
        self.alpha[pos] += lambda;
        if positive {
            self.pp = keep * keep * self.pp + 2.0 * lambda * keep * kp + lambda * lambda * kk;
            self.pn = keep * self.pn + lambda * kn;
        } else {
            self.nn = keep * keep * self.nn + 2.0 * lambda * keep * kn + lambda * lambda * kk;
            self.pn = keep * self.pn + lambda * kp;
        }
        self.drop_zeros();
        self.updates += 1;
        true
    }

    /// One epoch: each example of `order` not in S is offered (PROCESS), each followed by an
    /// update of a random current support vector (REPROCESS).
    pub fn epoch(&mut self, order: &[usize], rng: &mut Rng, control: &Control) -> Result<()> {
        for (t, &k) in order.iter().enumerate() {
            control.poll()?;
            if t % 256 == 255 {
                control.add_iterations(256);
            }
            let p = self.set.position(k);
            if p >= self.set.len() {
                self.update(p);
            }
            if !self.set.is_empty() {
                let r = rng.below(self.set.len());
                self.update(r);
            }
        }
        Ok(())
    }

    /// (problem index, signed coefficient) of the expansion, and the bias.
    pub fn expansion(&self) -> (Vec<(usize, f64)>, f64) {
        let mut out: Vec<(usize, f64)> =
            (0..self.set.len()).map(|s| (self.set.index_at(s), self.y[s] * self.alpha[s])).collect();
        out.sort_unstable_by_key(|&(k, _)| k);
        (out, (self.nn - self.pp) / 2.0)
    }

    /// |X_P - X_N|^2: twice the inverse squared margin's worth, falling as the hulls are found.
    pub fn distance2(&self) -> f64 {
        self.pp + self.nn - 2.0 * self.pn
    }
}
