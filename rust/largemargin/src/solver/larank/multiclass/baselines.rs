//! LaRank's baselines in the same solver: the pairwise passive-aggressive step of ambiguous
//! supervision (AMBIGSVMDUALSTEP) and the (averaged) multiclass kernel perceptron.

use super::{argmax_first, LaRank, Scores};
use crate::kernel::Query;

impl LaRank<'_, '_> {
    /// AMBIGSVMDUALSTEP (Algorithm 23 of the thesis, chapter 6) on example e with candidate set B: the pairs
    /// (y in B, y' not in B) whose margin S_y - S_y' is below 1 give v (v_y = pairs where y is the
    /// candidate minus pairs where y is the other label); with N = |B| |Y \ B| the step is
    /// w += alpha (x / N) (x) v, alpha = min(C_e, loss / ||Psi||^2), loss = (1/N) sum of the
    /// violated pairs' hinges and ||Psi||^2 = K(x, x) ||v||^2 / N^2. So beta_e += alpha v / N.
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
        let size = inside.iter().filter(|&&b| b).count();
        let mut v = vec![0.0f64; k];
        let mut hinge = 0.0;
        for y in (0..k).filter(|&c| inside[c]) {
            for o in (0..k).filter(|&c| !inside[c]) {
                let l = 1.0 - (self.buf[y] - self.buf[o]);
                if l > 0.0 {
                    v[y] += 1.0;
                    v[o] -= 1.0;
                    hinge += l;
                }
            }
        }
        let n = (size * (k - size)) as f64;
        let kii = self.self_kernel[e];
        let psi2 = kii * v.iter().map(|a| a * a).sum::<f64>() / (n * n);
        if hinge == 0.0 || n == 0.0 || psi2 <= 0.0 {
            if p >= self.set.len() {
                self.set.discard(p); // never removed from the set: its row patches nothing
            }
            return;
        }
        // reported as its label: the candidate that scored best when it was stepped on
        self.label[e] = self.best_candidate(e);
        let alpha = (hinge / n / psi2).min(self.upper[e]);
        let s = if p < self.set.len() { p } else { self.insert(p) };
        for (c, vc) in v.iter().enumerate() {
            self.beta[s * k + c] += alpha * vc / n;
        }
        if let Scores::Linear { w, d } = &mut self.scores {
            let d = *d;
            Query::row(&self.x, e).for_each_nonzero(|j, x| {
                for (c, vc) in v.iter().enumerate() {
                    w[c * d + j] += alpha * vc / n * x;
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
