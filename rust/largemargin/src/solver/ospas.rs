//! OSPAS, the online semantic parser for ambiguous supervision (Bordes 2010, PhD thesis, chapter
//! 6.2, Algorithm 24): the tokens of a sentence are labelled one at a time, LaSO-style, from a bag
//! of labels. A token whose predicted label is not in the bag triggers an AMBIGSVMDUALSTEP
//! (`larank::ambiguous::pairwise_step`) towards the labels still in the bag and stays unlabelled;
//! a token whose prediction is in the bag takes that label, which leaves the bag (so that the
//! empty symbol cannot label every word). A sweep ends at the first token labelled; training on a
//! sentence ends when every token is labelled or a whole sweep labelled none.
//!
//! The scorer is linear over binary sparse features, `S_y(x) = sum_{f in x} w[f, y]`, which is
//! the thesis' `Phi(x, y) = e_y (x) x` with one-hot window features.

use crate::error::{Error, Result};
use crate::runtime::rng::Rng;
use crate::solver::larank::ambiguous::pairwise_step;

/// The order in which a sweep tries the unlabelled tokens (the thesis' Figure 6.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// In a random order, without replacement within a sweep (Algorithm 24's `choose`).
    Random,
    /// From left to right.
    LeftRight,
    /// The token whose best label scores highest first, scores taken afresh after each update.
    OrderFree,
}
crate::error::option_names!(Strategy, "exploration strategy", {
    Random => "random",
    LeftRight => "left-right",
    OrderFree => "order-free",
});

/// A label no token may take (an entry of the candidates table).
pub const NOT_IN_BAG: u32 = u32::MAX;

/// A linear multiclass scorer over binary sparse features, stored feature-major (`w[f * labels + y]`)
/// so that a token's scores read one short row per active feature.
#[derive(Clone, Debug)]
pub struct LinearTagger {
    labels: usize,
    w: Vec<f64>,
}

impl LinearTagger {
    /// All weights zero.
    pub fn new(features: usize, labels: usize) -> Result<Self> {
        let size = features
            .checked_mul(labels)
            .ok_or_else(|| Error::InvalidParameter("the weight matrix is too large".into()))?;
        Self::from_parts(vec![0.0; size], labels)
    }

    /// From weights `w` (features x labels, row-major).
    pub fn from_parts(w: Vec<f64>, labels: usize) -> Result<Self> {
        if labels == 0 || w.len() % labels != 0 {
            return Err(Error::InvalidData(format!("{} weights do not make rows of {labels} labels", w.len())));
        }
        if let Some(v) = w.iter().find(|v| !v.is_finite()) {
            return Err(Error::InvalidData(format!("the weights hold a non-finite value ({v})")));
        }
        Ok(LinearTagger { labels, w })
    }

    /// Number of labels.
    pub fn labels(&self) -> usize {
        self.labels
    }

    /// Number of features.
    pub fn features(&self) -> usize {
        self.w.len() / self.labels
    }

    /// The weights, features x labels, row-major.
    pub fn weights(&self) -> &[f64] {
        &self.w
    }

    /// Takes the weights out.
    pub fn into_weights(self) -> Vec<f64> {
        self.w
    }

    /// Every label's score for the token with active features `x` (each below `features()`).
    pub fn scores(&self, x: &[u32], out: &mut [f64]) {
        let l = self.labels;
        out[..l].fill(0.0);
        for &f in x {
            let row = &self.w[f as usize * l..(f as usize + 1) * l];
            for (o, v) in out.iter_mut().zip(row) {
                *o += v;
            }
        }
    }

    /// `w[f, y] += coef[y]` for every active feature f of `x`.
    fn add(&mut self, x: &[u32], coef: &[f64]) {
        let l = self.labels;
        for &f in x {
            let row = &mut self.w[f as usize * l..(f as usize + 1) * l];
            for (w, c) in row.iter_mut().zip(coef) {
                *w += c;
            }
        }
    }
}

/// The first label of highest score (all-zero scores give label 0).
pub fn best_label(scores: &[f64]) -> usize {
    let mut best = 0;
    for (y, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            best = y;
        }
    }
    best
}

/// A label of highest score, ties broken at random: right after a step every candidate of the bag
/// scores the same, and taking the first would favour the lowest label (the empty one) for good.
fn best_label_tied(scores: &[f64], rng: &mut Rng) -> usize {
    let (mut best, mut ties) = (0, 0usize);
    for (y, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            (best, ties) = (y, 1);
        } else if s == scores[best] {
            ties += 1;
            if rng.below(ties) == 0 {
                best = y;
            }
        }
    }
    best
}

/// One sentence to label from a bag: each token's active features, and the candidates table
/// (`items[k * labels + y]`: the bag entry label y of token k draws on, or `NOT_IN_BAG`). For role
/// labelling it is the (symbol, role) pair of the token's symbol; symbol labelling gives no
/// table, every token's entry for y being y itself.
pub struct BagProblem<'a> {
    /// Token k's active features, sorted and distinct.
    pub x: &'a [Vec<u32>],
    /// tokens x labels entries into `bag`; None: label y draws on entry y.
    pub items: Option<&'a [u32]>,
    /// How many copies of each entry the bag still holds.
    pub bag: &'a mut [u32],
    /// Labels 0..known are those met so far in the stream: the others are neither predicted nor
    /// pushed down, as if they did not exist yet, so that training on a stream in several calls
    /// (where later labels are added later) is training on it in one.
    pub known: usize,
}

/// What a sentence's training did.
#[derive(Clone, Copy, Debug, Default)]
pub struct BagOutcome {
    /// Steps taken (predictions outside the bag that moved the weights).
    pub updates: u64,
    /// Predictions tried.
    pub tries: u64,
}

/// Algorithm 24 on one sentence: returns each token's label (None: left unlabelled, when no sweep
/// could label it) and adds to `outcome`. `c` bounds each step.
pub fn label_from_bag(
    tagger: &mut LinearTagger, problem: BagProblem<'_>, strategy: Strategy, c: f64, rng: &mut Rng,
    outcome: &mut BagOutcome,
) -> Vec<Option<usize>> {
    let BagProblem { x, items, bag, known } = problem;
    let (m, l) = (x.len(), tagger.labels);
    let known = known.min(l);
    let entry = |k: usize, y: usize| items.map_or(y as u32, |t| t[k * l + y]);
    let mut out = vec![None; m];
    let mut unlabelled: Vec<usize> = (0..m).collect();
    let (mut scores, mut coef, mut inside) = (vec![0.0; l], vec![0.0; known], vec![false; known]);
    while !unlabelled.is_empty() {
        let mut order = unlabelled.clone(); // kept in increasing position: left-right as it is
        if strategy == Strategy::Random {
            rng.shuffle(&mut order);
        }
        let mut labelled = None;
        for i in 0..order.len() {
            if strategy == Strategy::OrderFree {
                // the remaining token with the most confident prediction goes next
                let mut best = (i, f64::NEG_INFINITY);
                for (j, &k) in order.iter().enumerate().skip(i) {
                    tagger.scores(&x[k], &mut scores);
                    let top = scores[best_label(&scores[..known])];
                    if top > best.1 {
                        best = (j, top);
                    }
                }
                order.swap(i, best.0);
            }
            let k = order[i];
            tagger.scores(&x[k], &mut scores);
            let y = best_label_tied(&scores[..known], rng);
            outcome.tries += 1;
            let item = entry(k, y);
            if item != NOT_IN_BAG && bag[item as usize] > 0 {
                bag[item as usize] -= 1;
                out[k] = Some(y);
                labelled = Some(k);
                break;
            }
            for (z, inn) in inside.iter_mut().enumerate() {
                let it = entry(k, z);
                *inn = it != NOT_IN_BAG && bag[it as usize] > 0;
            }
            if pairwise_step(&scores[..known], &inside, x[k].len() as f64, c, &mut coef) {
                tagger.add(&x[k], &coef);
                outcome.updates += 1;
            }
        }
        match labelled {
            Some(k) => unlabelled.retain(|&t| t != k),
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens that are their own single feature.
    fn features(words: &[u32]) -> Vec<Vec<u32>> {
        words.iter().map(|&w| vec![w]).collect()
    }

    /// With no ambiguity, each word's symbol is learnt: word w means symbol w (w > 0), word 0
    /// means nothing, and sentences hold two content words among three.
    #[test]
    fn recovers_a_lexicon_from_bags() {
        for strategy in [Strategy::Random, Strategy::LeftRight, Strategy::OrderFree] {
            let (labels, words) = (6usize, 6usize);
            let mut tagger = LinearTagger::new(words, labels).unwrap();
            let mut rng = Rng::new(3);
            let mut outcome = BagOutcome::default();
            for _ in 0..400 {
                let a = 1 + rng.below(words - 1) as u32;
                let b = 1 + rng.below(words - 1) as u32;
                let mut sentence = vec![0u32, a, b];
                rng.shuffle(&mut sentence);
                let x = features(&sentence);
                let mut bag = vec![0u32; labels];
                for &w in &sentence {
                    bag[w as usize] += 1; // symbol of word w is w; '-' for word 0
                }
                let before: u32 = bag.iter().sum();
                let out = label_from_bag(
                    &mut tagger,
                    BagProblem { x: &x, items: None, bag: &mut bag, known: labels },
                    strategy,
                    1.0,
                    &mut rng,
                    &mut outcome,
                );
                // the labels given are taken from the bag, one copy each
                let given = out.iter().flatten().count() as u32;
                assert_eq!(bag.iter().sum::<u32>(), before - given);
            }
            let mut s = vec![0.0; labels];
            for w in 0..words as u32 {
                tagger.scores(&[w], &mut s);
                assert_eq!(best_label(&s), w as usize, "{strategy:?}: word {w}");
            }
            assert!(outcome.updates > 0 && outcome.tries >= outcome.updates);
        }
    }

    /// A token whose every label is outside the bag is left unlabelled, and the loop ends.
    #[test]
    fn an_impossible_token_stays_unlabelled() {
        let mut tagger = LinearTagger::new(2, 3).unwrap();
        let x = vec![vec![0u32], vec![1u32]];
        let items = vec![0, 1, 2, NOT_IN_BAG, NOT_IN_BAG, NOT_IN_BAG];
        let mut bag = vec![1, 1, 1];
        let mut outcome = BagOutcome::default();
        let out = label_from_bag(
            &mut tagger,
            BagProblem { x: &x, items: Some(&items), bag: &mut bag, known: 3 },
            Strategy::Random,
            0.5,
            &mut Rng::new(1),
            &mut outcome,
        );
        assert!(out[0].is_some());
        assert_eq!(out[1], None);
    }

    #[test]
    fn strategy_names() {
        assert_eq!("order-free".parse::<Strategy>().unwrap(), Strategy::OrderFree);
        assert!("depth-first".parse::<Strategy>().is_err());
    }
}
