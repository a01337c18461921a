//! Candidate label sets for ambiguous supervision (Bordes, Usunier, Weston 2010; Bordes 2010, PhD thesis, chapter 6): each training
//! example comes with a bag of labels, one of which (unknown) is correct.
//!
//! LaRank (`solver::larank`) trains from bags when given them: a pattern's positive label is the
//! candidate with the highest current score, chosen when the pattern enters the set of support
//! patterns and kept while it stays there; the negative labels are drawn from outside the bag only,
//! so the other candidates are never pushed down. For a fixed choice of positive labels this is the
//! multiclass beta-dual with the other candidates' coefficients held at zero, so every step still
//! increases one concave dual; over the choices it minimises
//! `1/2 ||w||^2 + C sum_i [1 - max_{y in bag_i} S_y(x_i) + max_{y not in bag_i} S_y(x_i)]_+`.
//! With bags of one label it is multiclass LaRank, step for step.

use crate::error::{Error, Result};

/// One bit row per example: bit c of row e is set when class c is a candidate of example e.
#[derive(Clone, Debug)]
pub struct Bags {
    classes: usize,
    words: usize,
    bits: Vec<u64>,
}

impl Bags {
    /// From lists: example e's candidates are `labels[offsets[e]..offsets[e + 1]]` (class indices;
    /// repeats are allowed and count once).
    pub fn from_lists(offsets: &[usize], labels: &[usize], classes: usize) -> Result<Self> {
        if classes < 2 {
            return Err(Error::InvalidData("ambiguous supervision needs at least two classes".into()));
        }
        if offsets.is_empty() || offsets[0] != 0 || offsets[offsets.len() - 1] != labels.len() {
            return Err(Error::InvalidData("bag offsets must start at 0 and end at the number of labels".into()));
        }
        let n = offsets.len() - 1;
        let words = classes.div_ceil(64);
        let mut bits = vec![0u64; n * words];
        for e in 0..n {
            let (a, b) = (offsets[e], offsets[e + 1]);
            if b < a {
                return Err(Error::InvalidData(format!("bag offsets decrease at example {e}")));
            }
            if a == b {
                return Err(Error::InvalidData(format!("the candidate label set of example {e} is empty")));
            }
            for &c in &labels[a..b] {
                if c >= classes {
                    return Err(Error::InvalidData(format!(
                        "candidate label {c} of example {e} is not below {classes}"
                    )));
                }
                bits[e * words + c / 64] |= 1 << (c % 64);
            }
        }
        Ok(Bags { classes, words, bits })
    }

    /// One candidate per example (plain supervision).
    pub fn single(label: &[usize], classes: usize) -> Result<Self> {
        let offsets: Vec<usize> = (0..=label.len()).collect();
        Self::from_lists(&offsets, label, classes)
    }

    /// Number of examples, one bag each.
    pub fn examples(&self) -> usize {
        self.bits.len() / self.words
    }

    /// Number of classes a candidate may be.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// Whether class c is a candidate of example e.
    #[inline]
    pub fn contains(&self, e: usize, c: usize) -> bool {
        self.bits[e * self.words + c / 64] >> (c % 64) & 1 == 1
    }

    /// The candidates of example e, in increasing order.
    pub fn candidates(&self, e: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.classes).filter(move |&c| self.contains(e, c))
    }

    /// Number of distinct candidates of example e.
    pub fn size(&self, e: usize) -> usize {
        self.bits[e * self.words..(e + 1) * self.words].iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// AMBIGSVMDUALSTEP (Algorithm 23 of the thesis, chapter 6) for `Phi(x, y) = e_y (x) x`, on one example
/// whose labels score `scores` and whose candidate set is `inside`: the pairs (y in the set, y' not in
/// it) with a margin `S_y - S_y'` below 1 give `v` (`v_y` = pairs where y is the candidate minus pairs
/// where y is the other label); with `N` = |set| |others| the step is `w_y += alpha v_y / N x`,
/// `alpha = min(c, loss / ||Psi||^2)`, loss the mean of the violated pairs' hinges and
/// `||Psi||^2 = sq_norm ||v||^2 / N^2` (`sq_norm` = `||x||^2`). Writes `alpha v_y / N` into `coef`
/// and returns true, or returns false (`coef` untouched) when no pair is violated, the set is
/// empty or full, or `x` is zero. Shared by LaRank's `ambigsvm` method and the semantic parser.
pub fn pairwise_step(scores: &[f64], inside: &[bool], sq_norm: f64, c: f64, coef: &mut [f64]) -> bool {
    let k = scores.len();
    let size = inside.iter().filter(|&&b| b).count();
    if size == 0 || size == k || sq_norm <= 0.0 {
        return false;
    }
    coef[..k].fill(0.0);
    let mut hinge = 0.0;
    for y in (0..k).filter(|&c| inside[c]) {
        for o in (0..k).filter(|&c| !inside[c]) {
            let l = 1.0 - (scores[y] - scores[o]);
            if l > 0.0 {
                coef[y] += 1.0;
                coef[o] -= 1.0;
                hinge += l;
            }
        }
    }
    let n = (size * (k - size)) as f64;
    let psi2 = sq_norm * coef[..k].iter().map(|a| a * a).sum::<f64>() / (n * n);
    if hinge == 0.0 || psi2 <= 0.0 {
        return false;
    }
    let alpha = (hinge / n / psi2).min(c);
    for v in &mut coef[..k] {
        *v = alpha * *v / n;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DenseView, Matrix};
    use crate::kernel::{KernelEngine, KernelSpec};
    use crate::runtime::control::Control;
    use crate::runtime::rng::Rng;
    use crate::solver::larank::{LaRank, LaRankParams, Method, Schedule};

    /// Four noisy clusters on a circle, and each example's bag: its class plus `extra` distinct
    /// random others.
    fn problem(n: usize, extra: usize, seed: u64) -> (Vec<f64>, Vec<usize>, Bags) {
        let mut rng = Rng::new(seed);
        let (mut x, mut y, mut offsets, mut labels) = (Vec::new(), Vec::new(), vec![0], Vec::new());
        for i in 0..n {
            let c = i % 4;
            let angle = c as f64 * std::f64::consts::FRAC_PI_2;
            for centre in [angle.cos(), angle.sin()] {
                let u: f64 = (0..6).map(|_| rng.below(1000) as f64 / 1000.0).sum::<f64>() - 3.0;
                x.push(1.5 * centre + 0.5 * u);
            }
            y.push(c);
            labels.push(c);
            let mut others: Vec<usize> = (0..4).filter(|&o| o != c).collect();
            rng.shuffle(&mut others);
            labels.extend_from_slice(&others[..extra]);
            offsets.push(labels.len());
        }
        (x, y.clone(), Bags::from_lists(&offsets, &labels, 4).unwrap())
    }

    fn run(
        x: &[f64], label: Vec<usize>, bags: Option<Bags>, schedule: Schedule, epochs: usize,
    ) -> (Vec<usize>, Vec<f64>, f64) {
        let n = label.len();
        let xm = Matrix::Dense64(DenseView::new(x, n, 2).unwrap());
        let engine = KernelEngine::new(xm, KernelSpec::Rbf { gamma: 0.5 }).unwrap();
        let params = LaRankParams { c: 1.0, method: Method::LaRank(schedule), ..Default::default() };
        let mut lr = LaRank::new(&engine, xm, label, &[], 4, params).unwrap();
        if let Some(b) = bags {
            lr = lr.with_bags(b, 7).unwrap();
        }
        let (mut rng, mut order, control) = (Rng::new(1), (0..n).collect::<Vec<_>>(), Control::new());
        for _ in 0..epochs {
            rng.shuffle(&mut order);
            lr.epoch(&order, &mut rng, &control).unwrap();
        }
        let (support, coef) = lr.expansion();
        (support, coef, lr.dual())
    }

    /// Bags of one label are plain supervision: the same steps, the same model.
    #[test]
    fn single_label_bags_are_multiclass_larank() {
        let (x, y, _) = problem(300, 0, 5);
        for schedule in [Schedule::Adaptive, Schedule::Fixed { reprocess: 2 }] {
            let plain = run(&x, y.clone(), None, schedule, 2);
            let bags = run(&x, vec![0; y.len()], Some(Bags::single(&y, 4).unwrap()), schedule, 2);
            assert_eq!(plain.0, bags.0);
            assert_eq!(plain.1, bags.1);
            assert_eq!(plain.2, bags.2);
        }
    }

    /// With a distractor in every bag: each operation leaves the dual no lower, the coefficients of
    /// the other candidates stay zero, the gap stays non-negative and the true classes are learnt.
    #[test]
    fn ambiguous_steps_increase_the_dual() {
        let n = 400;
        let (x, y, bags) = problem(n, 1, 9);
        let xm = Matrix::Dense64(DenseView::new(&x, n, 2).unwrap());
        let engine = KernelEngine::new(xm, KernelSpec::Rbf { gamma: 0.5 }).unwrap();
        let params = LaRankParams { c: 1.0, ..Default::default() };
        let mut lr = LaRank::new(&engine, xm, vec![0; n], &[], 4, params).unwrap().with_bags(bags.clone(), 3).unwrap();
        let mut rng = Rng::new(2);
        let mut dual = lr.dual();
        for pass in 0..3 {
            for e in 0..n {
                let gains = [lr.process_new(e), lr.process_old(&mut rng), lr.optimize(&mut rng)];
                let now = lr.dual();
                assert!(gains.iter().all(|&g| g >= 0.0), "gains {gains:?}");
                // the dual is read from the float32 gradients: equal up to their rounding
                assert!(now >= dual - 1e-7 * dual.abs(), "pass {pass} example {e}: dual {dual} -> {now}");
                dual = now;
            }
        }
        let gap = lr.duality_gap();
        assert!(gap >= -1e-6, "gap {gap}");
        let (support, coef) = lr.expansion();
        for (s, &e) in support.iter().enumerate() {
            let pos = lr.label_of(e);
            assert!(bags.contains(e, pos));
            for c in 0..4 {
                let b = coef[s * 4 + c];
                if c == pos {
                    assert!((-1e-12..=1.0 + 1e-12).contains(&b), "beta {b}");
                } else if bags.contains(e, c) {
                    assert_eq!(b, 0.0, "another candidate moved");
                } else {
                    assert!(b <= 0.0);
                }
            }
        }
        // true-class errors of the training examples chosen as support patterns
        let wrong = support.iter().filter(|&&e| lr.label_of(e) != y[e]).count();
        assert!(wrong * 5 < support.len(), "{wrong} of {} positives are distractors", support.len());
    }

    #[test]
    fn perceptron_refuses_bags() {
        let (x, y, bags) = problem(8, 1, 1);
        let xm = Matrix::Dense64(DenseView::new(&x, 8, 2).unwrap());
        let engine = KernelEngine::new(xm, KernelSpec::Linear).unwrap();
        let params = LaRankParams { method: Method::Perceptron { averaged: false }, ..Default::default() };
        assert!(LaRank::new(&engine, xm, y, &[], 4, params).unwrap().with_bags(bags, 0).is_err());
    }

    #[test]
    fn lists_and_checks() {
        let b = Bags::from_lists(&[0, 2, 3, 6], &[1, 70, 0, 2, 2, 5], 80).unwrap();
        assert_eq!(b.examples(), 3);
        assert_eq!(b.candidates(0).collect::<Vec<_>>(), vec![1, 70]);
        assert_eq!(b.size(2), 2);
        assert!(b.contains(0, 70) && !b.contains(1, 70));
        assert!(Bags::from_lists(&[0, 0, 1], &[1], 3).is_err(), "empty bag");
        assert!(Bags::from_lists(&[0, 1], &[3], 3).is_err(), "unknown label");
        assert!(Bags::from_lists(&[0, 2], &[1], 3).is_err(), "offsets past the labels");
    }
}
