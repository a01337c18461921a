//! Multi-layer perceptrons of the margin family: `simple` is Collobert and Bengio's very simple
//! MLP (hard-tanh hidden units summed without output weights, trained by SGD on a beta-hinge,
//! early stopping as the margin control).

pub mod simple;

pub use simple::{train_simple_mlp, SimpleMlp, SimpleMlpFit, SimpleMlpParams};
