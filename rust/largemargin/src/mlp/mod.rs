//! Multi-layer perceptrons of the margin family: `simple` is Collobert and Bengio's very simple
//! MLP (hard-tanh hidden units summed without output weights, trained by SGD on a beta-hinge,
//! early stopping as the margin control), `nilsson` the Phi-machine (a fixed random tanh layer, the
//! output trained by the margin perceptron); `hidden` holds their shared hidden layer and epoch
//! driver.

pub mod hidden;
pub mod nilsson;
pub mod simple;

pub use hidden::{EpochFit, HiddenLayer};
pub use nilsson::{train_nilsson, NilssonMlp, NilssonParams};
pub use simple::{train_simple_mlp, SimpleMlp, SimpleMlpFit, SimpleMlpParams};
