//! Solvers, one module per algorithm. The kernel solvers share the kernel engine and the kernel
//! cache (through `qmatrix` for the dual problems of SMO and ISDA); the linear ones (`sgd`) their
//! `loss`.
//!
//! `smo` (SMO decomposition), `dcd` (exact linear SVMs by dual coordinate descent), `tron` (their L2-loss primal by trust-region Newton), `isda` (single-variable descent), `online` (LaSVM, the Huller, the
//! kernel perceptrons and the expansion set they keep), `larank` (multiclass and sequence LaRank,
//! their schedules, ambiguous supervision), `ospas` (the semantic parser's tagging from bags of labels)
//! and `sgd` (the linear SGD family).

pub mod dcd;
pub mod isda;
pub mod larank;
pub mod online;
pub mod ospas;
pub mod qmatrix;
pub mod sgd;
pub mod smo;
pub mod tron;
