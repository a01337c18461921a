//! Choosing a label sequence under a model: greedy (left to right, any Markov order) or exact
//! (Viterbi, order 1), optionally loss-augmented (the solvers' most violating output).

use super::{SeqModel, Sequences};
use crate::error::{Error, Result};

/// How a label sequence is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Inference {
    /// Left to right, each label given the k previous predictions (any Markov order).
    Greedy,
    /// Viterbi over whole sequences (Markov order 1).
    Exact,
}

crate::error::option_names!(Inference, "inference", { Greedy => "greedy", Exact => "exact" });

impl SeqModel {
    /// Greedy decoding of one sequence from its emission table (T x labels).
    /// `truth` (loss-augmented): +1 to each label that differs from the true one.
    pub fn greedy(&self, emit: &[f64], truth: Option<&[usize]>, out: &mut Vec<usize>) {
        let l = self.labels;
        let n = emit.len() / l;
        out.clear();
        let mut row = vec![0.0; l];
        let mut ctx = vec![l; self.order];
        for t in 0..n {
            row.copy_from_slice(&emit[t * l..(t + 1) * l]);
            for (s, c) in ctx.iter_mut().enumerate() {
                *c = if t > s { out[t - s - 1] } else { l };
            }
            self.add_transitions(&ctx, &mut row);
            if let Some(y) = truth {
                row.iter_mut().enumerate().filter(|(c, _)| *c != y[t]).for_each(|(_, r)| *r += 1.0);
            }
            out.push(argmax(&row));
        }
    }

    /// Viterbi decoding (order 1) of one sequence from its emission table; `truth` as in `greedy`.
    pub fn viterbi(&self, emit: &[f64], truth: Option<&[usize]>, out: &mut Vec<usize>) {
        let l = self.labels;
        let n = emit.len() / l;
        out.clear();
        if n == 0 {
            return;
        }
        let aug = |t: usize, y: usize| match truth {
            Some(tr) if tr[t] != y => 1.0,
            _ => 0.0,
        };
        let mut v: Vec<f64> = (0..l).map(|y| emit[y] + self.trans[self.t(1, l, y)] + aug(0, y)).collect();
        let mut back = vec![0u32; n * l];
        let mut next = vec![0.0; l];
        for t in 1..n {
            for y in 0..l {
                let mut best = f64::NEG_INFINITY;
                let mut arg = 0;
                for (p, vp) in v.iter().enumerate() {
                    let s = vp + self.trans[self.t(1, p, y)];
                    if s > best {
                        best = s;
                        arg = p;
                    }
                }
                next[y] = best + emit[t * l + y] + aug(t, y);
                back[t * l + y] = arg as u32;
            }
            std::mem::swap(&mut v, &mut next);
        }
        out.resize(n, 0);
        out[n - 1] = argmax(&v);
        for t in (1..n).rev() {
            out[t - 1] = back[t * l + out[t]] as usize;
        }
    }

    /// Labels of every token of `data` (concatenated).
    pub fn predict(&self, data: &Sequences, inference: Inference) -> Result<Vec<usize>> {
        if inference == Inference::Exact && self.order != 1 {
            return Err(Error::InvalidParameter("exact (Viterbi) inference needs a model of Markov order 1".into()));
        }
        let mut labels = Vec::with_capacity(data.tokens());
        let (mut emit, mut out) = (Vec::new(), Vec::new());
        for i in 0..data.len() {
            let (a, b) = data.range(i);
            self.emissions(&data.x, a, b, &mut emit);
            match inference {
                Inference::Greedy => self.greedy(&emit, None, &mut out),
                Inference::Exact => self.viterbi(&emit, None, &mut out),
            }
            labels.extend_from_slice(&out);
        }
        Ok(labels)
    }
}

pub(crate) fn argmax(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}
