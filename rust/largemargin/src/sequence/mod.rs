//! Sequence labeling with linear models (Bordes 2010, PhD thesis, sections 2.1.3, 2.2, 5.1 and 5.3; Bordes, Usunier, Bottou 2008):
//! LaRankGreedy, LaRankExact, passive-aggressive (LaRank without reprocessing) and the
//! (averaged) structured perceptron, over explicit weights.
//!
//! A model holds an emission table `W[feature][label]` and, for Markov order k, k lag-specific
//! transition tables `T_s[previous label][label]` whose previous label may be START (positions
//! before the sequence). The local score of label y at token t is
//!   `s^t(y) = <W[.][y], x^t> + sum_{s=1..k} T_s[y^{t-s}, y]`.
//!
//! Both LaRank variants optimise the beta-dual (5.3) with g_{i,c} = -Delta(c, c_i) - S(p_i, c)
//! (with the signs corrected: the thesis prints the gradient of section 5.1 with the opposite sign). A pattern is a range of tokens with a fixed context
//! before it: a whole sequence for exact inference (outputs = label sequences, Delta = Hamming),
//! one token with its true previous labels for greedy inference (outputs = one label, Delta =
//! 0/1 loss). Gradients are never stored: the weights are explicit, so they are recomputed.

//!
//! `data` (the sequences), `model` (weights and local scores), `inference` (greedy and Viterbi
//! decoding), `solver` (the LaRank operations and the perceptron over one model) and `train`
//! (epochs over the data).

mod data;
mod inference;
mod model;
mod solver;
mod train;

pub use data::Sequences;
pub use inference::Inference;
pub use model::SeqModel;
pub use solver::{SeqMethod, SeqMethodKind, SeqParams, SeqSolver};
pub use train::{train_sequence, SeqConfig, SeqFit};
