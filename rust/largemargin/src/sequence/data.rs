//! The training and test data of sequence labeling: tokens as CSR rows, grouped into sequences.

use crate::data::CsrView;
use crate::error::{Error, Result};

/// Tokens of many sequences: one CSR row per token, sequence i holding rows
/// `seq_ptr[i]..seq_ptr[i + 1]`.
#[derive(Clone, Copy, Debug)]
pub struct Sequences<'a> {
    /// The tokens' features, one row per token, sequences one after the other.
    pub x: CsrView<'a, f64>,
    /// Sequence offsets into the rows of `x`: rising from 0 to the number of tokens.
    pub seq_ptr: &'a [usize],
}

impl<'a> Sequences<'a> {
    /// Sequences over `x`; an error unless `seq_ptr` rises from 0 to `x.rows()` and every value
    /// of `x` is finite.
    pub fn new(x: CsrView<'a, f64>, seq_ptr: &'a [usize]) -> Result<Self> {
        if seq_ptr.is_empty() || seq_ptr[0] != 0 || *seq_ptr.last().unwrap() != x.rows() {
            return Err(Error::InvalidData(format!(
                "sequence offsets must start at 0 and end at the number of tokens ({})",
                x.rows()
            )));
        }
        if let Some(i) = seq_ptr.windows(2).position(|w| w[1] < w[0]) {
            return Err(Error::InvalidData(format!("sequence offsets decrease at sequence {i}")));
        }
        if let Some(k) = x.data().iter().position(|v| !v.is_finite()) {
            return Err(Error::InvalidData(format!("feature value {} (entry {k}) is not finite", x.data()[k])));
        }
        Ok(Sequences { x, seq_ptr })
    }
    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.seq_ptr.len() - 1
    }
    /// Whether there is no sequence.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of tokens over all sequences.
    pub fn tokens(&self) -> usize {
        self.x.rows()
    }
    /// The rows of sequence i, as the half-open range (start, end).
    pub fn range(&self, i: usize) -> (usize, usize) {
        (self.seq_ptr[i], self.seq_ptr[i + 1])
    }
}
