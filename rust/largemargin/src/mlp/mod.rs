//! Multi-layer perceptrons of the margin family: `simple` is Collobert and Bengio's very simple
//! MLP (hard-tanh hidden units summed without output weights, trained by SGD on a beta-hinge,
//! early stopping as the margin control), `nilsson` the Nilsson MLP (a committee of sign units,
//! the fewest wrong units closest to a mistake moved), `network` the thesis' one-hidden-layer tanh MLP (MSE,
//! cross-entropy or tanh-output MSE; plain SGD or block-diagonal second-order steps); `hidden`
//! holds their shared hidden layer and epoch driver.

pub mod hidden;
pub mod network;
pub mod nilsson;
pub mod simple;

pub use hidden::{EpochFit, HiddenLayer};
pub use network::{train_network, Criterion, Network, NetworkFit, NetworkParams, Optimizer, OptimizerKind};
pub use nilsson::{train_nilsson, NilssonMlp, NilssonParams};
pub use simple::{train_simple_mlp, SimpleMlp, SimpleMlpFit, SimpleMlpParams};
