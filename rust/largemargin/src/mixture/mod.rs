//! Hard mixtures of experts (Collobert, chapter 6): what the training loop needs besides the
//! experts themselves, which are ordinary SVMs. `assign` rebuilds the experts' subsets under the
//! capacity cap, `gater` is the global gater (an MLP trained on the mixture's output), `gmm` the
//! local gater (one diagonal Gaussian mixture per expert, trained by EM).

pub mod assign;
pub mod gater;
pub mod gmm;

pub use assign::assign_capped;
pub use gater::{ExpertOutputs, Gater, GaterSchedule, GaterTask};
pub use gmm::DiagonalGmm;
