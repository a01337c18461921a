//! A linear sequence model: emission weights per feature and label, and a transition table per
//! lag of the Markov order; the local scores inference works on.

use crate::data::CsrView;
use crate::error::{Error, Result};

/// A linear sequence model: `emit[j * labels + y]` and
/// `trans[((s - 1) * (labels + 1) + prev) * labels + y]` with prev = `labels` for START.
#[derive(Clone, Debug)]
pub struct SeqModel {
    /// Number of labels (START excluded).
    pub labels: usize,
    /// Number of features the emission table covers; features beyond it score zero.
    pub features: usize,
    /// Markov order k: the number of transition tables, one per lag.
    pub order: usize,
    /// Emission weights, `features` rows of `labels`.
    pub emit: Vec<f64>,
    /// Transition weights, `order` tables of `labels + 1` previous labels by `labels`.
    pub trans: Vec<f64>,
}

impl SeqModel {
    /// A model with every weight zero.
    pub fn zeros(labels: usize, features: usize, order: usize) -> Self {
        SeqModel {
            labels,
            features,
            order,
            emit: vec![0.0; labels * features],
            trans: vec![0.0; order * (labels + 1) * labels],
        }
    }

    /// A model from arrays, checking their shapes.
    pub fn from_parts(labels: usize, features: usize, order: usize, emit: Vec<f64>, trans: Vec<f64>) -> Result<Self> {
        if labels == 0 {
            return Err(Error::InvalidData("a sequence model needs at least one label".into()));
        }
        if emit.len() != labels * features || trans.len() != order * (labels + 1) * labels {
            return Err(Error::InvalidData(format!(
                "model arrays do not match {labels} labels, {features} features and Markov order {order}"
            )));
        }
        if emit.iter().chain(&trans).any(|v| !v.is_finite()) {
            return Err(Error::InvalidData("model weights must be finite".into()));
        }
        Ok(SeqModel { labels, features, order, emit, trans })
    }

    #[inline]
    pub(crate) fn t(&self, lag: usize, prev: usize, y: usize) -> usize {
        ((lag - 1) * (self.labels + 1) + prev) * self.labels + y
    }

    /// Emission scores of tokens a..b, row-major (b - a) x labels, into `out`.
    pub fn emissions(&self, x: &CsrView<f64>, a: usize, b: usize, out: &mut Vec<f64>) {
        let l = self.labels;
        out.clear();
        out.resize((b - a) * l, 0.0);
        for t in a..b {
            let row = &mut out[(t - a) * l..(t - a + 1) * l];
            let (idx, val) = x.row(t);
            for (&j, &v) in idx.iter().zip(val) {
                let j = j as usize;
                if j >= self.features {
                    continue; // a feature the model never saw has weight zero
                }
                for (r, w) in row.iter_mut().zip(&self.emit[j * l..(j + 1) * l]) {
                    *r += v * w;
                }
            }
        }
    }

    /// Adds the transition scores of every label at one position, given the labels before it
    /// (`ctx[s - 1]` = label at lag s, `labels` for START).
    pub(crate) fn add_transitions(&self, ctx: &[usize], row: &mut [f64]) {
        for (s, &p) in ctx.iter().enumerate() {
            let base = self.t(s + 1, p, 0);
            for (r, w) in row.iter_mut().zip(&self.trans[base..base + self.labels]) {
                *r += w;
            }
        }
    }

    /// ||w||^2 over the emission and transition weights together.
    pub fn squared_norm(&self) -> f64 {
        self.emit.iter().chain(&self.trans).map(|w| w * w).sum()
    }
}
