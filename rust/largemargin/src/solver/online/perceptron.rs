//! The kernel perceptron family (Bordes 2010, PhD thesis, section 2.1.3), the online baselines: f(x) =
//! sum_{s in S} alpha_s K(x, x_s), no bias, one example at a time in random order.

use crate::error::{Error, Result};
use crate::kernel::KernelEngine;
use crate::runtime::control::Control;
use crate::solver::online::expansion::{check_labels, ExpansionSet};

/// When a kernel perceptron updates, and by how much.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PerceptronRule {
    /// Adds y_t when y_t f(x_t) <= 0.
    Perceptron,
    /// The perceptron, predicting with the average of all its intermediate expansions.
    Averaged,
    /// PA(C): adds y_t min(C, (1 - y_t f(x_t)) / K_tt) when y_t f(x_t) <= 1.
    PassiveAggressive {
        /// The largest coefficient an update adds; positive.
        c: f64,
    },
    /// Budget perceptron (beta, N): adds y_t when y_t f(x_t) <= beta; past N support vectors,
    /// removes argmax_i y_i (f(x_i) - alpha_i K_ii).
    Budget {
        /// The margin below which an example is added; finite.
        beta: f64,
        /// N, the most support vectors kept; positive.
        size: usize,
    },
}

/// One binary kernel-perceptron problem over some examples of an engine's data (labels +1/-1):
/// the expansion set, its coefficients, and the running sums of the averaged rule.
pub struct KernelPerceptron<'e, 'a> {
    set: ExpansionSet<'e, 'a>,
    rule: PerceptronRule,
    // By position:
    alpha: Vec<f64>,
    y: Vec<f64>,
    /// Averaged rule: sum over past steps of alpha, up to step `last`.
    alpha_sum: Vec<f64>,
    last: Vec<u64>,
    /// Examples seen.
    t: u64,
    /// Updates made: examples whose margin fell at or below the rule's threshold.
    pub mistakes: u64,
}

impl<'e, 'a> KernelPerceptron<'e, 'a> {
    /// An empty expansion over the engine rows `examples`, `y[k]` the label of `examples[k]`,
    /// kernel rows cached within `cache_bytes`; an error if the rule's parameters are invalid.
    pub fn new(
        engine: &'e KernelEngine<'a>, examples: Vec<usize>, y: &[f64], rule: PerceptronRule, cache_bytes: usize,
    ) -> Result<Self> {
        check_labels(y, examples.len(), false)?;
        match rule {
            PerceptronRule::PassiveAggressive { c } if !(c > 0.0 && c.is_finite()) => {
                return Err(Error::InvalidParameter("PA needs a positive C".into()))
            }
            PerceptronRule::Budget { beta, size } if !beta.is_finite() || size == 0 => {
                return Err(Error::InvalidParameter(
                    "the budget perceptron needs a finite beta and a positive size".into(),
                ))
            }
            _ => {}
        }
        let n = y.len();
        Ok(KernelPerceptron {
            set: ExpansionSet::new(engine, examples, cache_bytes),
            rule,
            alpha: vec![0.0; n],
            y: y.to_vec(),
            alpha_sum: vec![0.0; n],
            last: vec![0; n],
            t: 0,
            mistakes: 0,
        })
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.set.swap(i, j);
        self.alpha.swap(i, j);
        self.y.swap(i, j);
        self.alpha_sum.swap(i, j);
        self.last.swap(i, j);
    }

    /// f(x_p) over the current expansion.
    fn decision(&mut self, p: usize) -> f64 {
        self.set.expand(p, &self.alpha)
    }

    /// alpha_p += delta, entering S if needed; the running sum is brought up to date first.
    fn add(&mut self, p: usize, delta: f64) -> usize {
        let p = if p >= self.set.len() {
            let n = self.set.len();
            self.swap(p, n);
            self.set.set_len(n + 1);
            self.last[n] = self.t;
            n
        } else {
            p
        };
        self.alpha_sum[p] += self.alpha[p] * (self.t - self.last[p]) as f64;
        self.last[p] = self.t;
        self.alpha[p] += delta;
        p
    }

    /// Removes the support vector that contributes least to its own margin (budget rule).
    fn remove_one(&mut self) {
        let n = self.set.len();
        let mut worst = (f64::NEG_INFINITY, usize::MAX);
        for s in 0..n {
            let v = self.y[s] * (self.decision(s) - self.alpha[s] * self.set.diag(s));
            if v > worst.0 {
                worst = (v, s);
            }
        }
        let s = worst.1;
        self.alpha[s] = 0.0;
        self.swap(s, n - 1);
        self.set.set_len(n - 1);
    }

    /// One step on the example at position p.
    pub fn step(&mut self, p: usize) {
        let y = self.y[p];
        let margin = y * self.decision(p);
        match self.rule {
            PerceptronRule::Perceptron | PerceptronRule::Averaged => {
                if margin <= 0.0 {
                    self.add(p, y);
                    self.mistakes += 1;
                }
            }
            PerceptronRule::PassiveAggressive { c } => {
                if margin <= 1.0 {
                    let kk = self.set.diag(p).max(f64::MIN_POSITIVE);
                    self.add(p, y * c.min((1.0 - margin) / kk));
                    self.mistakes += 1;
                }
            }
            PerceptronRule::Budget { beta, size } => {
                if margin <= beta {
                    self.add(p, y);
                    self.mistakes += 1;
                    if self.set.len() > size {
                        self.remove_one();
                    }
                }
            }
        }
        self.t += 1;
    }

    /// One pass over `order` (problem indices).
    pub fn epoch(&mut self, order: &[usize], control: &Control) -> Result<()> {
        for (i, &k) in order.iter().enumerate() {
            control.poll()?;
            if i % 256 == 255 {
                control.add_iterations(256);
            }
            let p = self.set.position(k);
            self.step(p);
        }
        Ok(())
    }

    /// (problem index, coefficient) of the expansion: the final one, or for the averaged rule the
    /// average over all steps.
    pub fn expansion(&self) -> Vec<(usize, f64)> {
        let t = self.t.max(1) as f64;
        let mut out: Vec<(usize, f64)> = (0..self.set.len())
            .map(|s| {
                let a = if self.rule == PerceptronRule::Averaged {
                    (self.alpha_sum[s] + self.alpha[s] * (self.t - self.last[s]) as f64) / t
                } else {
                    self.alpha[s]
                };
                (self.set.index_at(s), a)
            })
            .filter(|&(_, a)| a != 0.0)
            .collect();
        out.sort_unstable_by_key(|&(k, _)| k);
        out
    }
}
