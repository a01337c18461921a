//! LaRank's baselines in the same solver: the pairwise passive-aggressive step of ambiguous
//! supervision (AMBIGSVMDUALSTEP) and the (averaged) multiclass kernel perceptron.

use super::{argmax_first, LaRank, Scores};
use crate::kernel::Query;
use crate::solver::larank::ambiguous::pairwise_step;

impl LaRank<'_, '_> {
    /// AMBIGSVMDUALSTEP (Algorithm 23 of the thesis, chapter 6) on example e with its candidate set,
    /// by `pairwise_step` with `||x||^2 = K(x, x)` and C scaled by e's weight: beta_e += alpha v / N.
    pub(super) fn pairwise_pa(&mut self, e: usize) {
        self.stats.process_new += 1;
        self.stats.argmax += 1;
        let p = self.set.position(e);
        self.class_scores(e, p);
        let k = self.classes;
        let inside: Vec<bool> = match &self.bags {
            Some(b) => (0..k).map(|c| b.contains(e, c)).collect(),
            None => (0..k).map(|c| c == self.label[e]).collect(),
        };
        let mut coef = vec![0.0f64; k];
        if !pairwise_step(&self.buf[..k], &inside, self.self_kernel[e], self.upper[e], &mut coef) {
            if p >= self.set.len() {
                self.set.discard(p); // never removed from the set: its row patches nothing
            }
            return;
        }
        // reported as its label: the candidate that scored best when it was stepped on
        self.label[e] = self.best_candidate(e);
        let s = if p < self.set.len() { p } else { self.insert(p) };
        for (c, d) in coef.iter().enumerate() {
            self.beta[s * k + c] += d;
        }
        if let Scores::Linear { w, d } = &mut self.scores {
            let d = *d;
            Query::row(&self.x, e).for_each_nonzero(|j, x| {
                for (c, dc) in coef.iter().enumerate() {
                    w[c * d + j] += dc * x;
                }
            });
        }
        self.stats.steps += 1;
    }

    /// A perceptron update on example e: on a mistake, +1 to its class and -1 to the predicted one.
    pub(super) fn perceptron(&mut self, e: usize) {
        self.stats.process_new += 1;
        self.stats.argmax += 1;
        self.ticks += 1;
        let p = self.set.position(e);
        self.class_scores(e, p);
        let y = self.label[e];
        let predicted = argmax_first(&self.buf);
        if predicted == y {
            if p >= self.set.len() {
                self.set.discard(p); // never removed from the set: its row patches nothing
            }
            return;
        }
        let s = if p < self.set.len() { p } else { self.insert(p) };
        let k = self.classes;
        let t = (self.ticks - 1) as f64;
        for (c, d) in [(y, 1.0), (predicted, -1.0)] {
            self.beta[s * k + c] += d;
            self.acc[s * k + c] += d * t;
        }
        if let Scores::Linear { w, d } = &mut self.scores {
            let d = *d;
            Query::row(&self.x, e).for_each_nonzero(|j, v| {
                w[y * d + j] += v;
                w[predicted * d + j] -= v;
            });
        }
        self.stats.steps += 1;
    }
}
