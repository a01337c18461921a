//! The training and test data of sequence labeling: tokens as CSR rows, grouped into sequences.

use crate::data::CsrView;
use crate::error::{Error, Result};

/// Tokens of many sequences: one CSR row per token, sequence i holding rows
/// `seq_ptr[i]..seq_ptr[i + 1]`.
#[derive(Clone, Copy, Debug)]
pub struct Sequences<'a> {
    pub x: CsrView<'a, f64>,
    pub seq_ptr: &'a [usize],
}

impl<'a> Sequences<'a> {
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
    pub fn len(&self) -> usize {
        self.seq_ptr.len() - 1
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn tokens(&self) -> usize {
        self.x.rows()
    }
    pub fn range(&self, i: usize) -> (usize, usize) {
        (self.seq_ptr[i], self.seq_ptr[i + 1])
    }
}
