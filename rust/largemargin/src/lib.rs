//! largemargin: large-scale support vector machines in pure Rust.
//!
//! Modules, one concept each: `data` (borrowed feature matrices), `kernel` (the kernel engine),
//! `cache` (the shared kernel-row cache), `solver` (decomposition and online solvers), `svm`
//! (training C-SVC / epsilon-SVR problems), `online` (training LaSVM problems), `multiclass` (training LaRank problems), `mixture` (the hard mixture of experts' gaters and reassignment), `mlp` (the margin MLPs), `sequence` (training sequence labelers), `linear`
//! (training linear models by SGD), `search` (cross-validated C and kernel search over `shared_rows`, kernel rows shared between threads), `probability` (Platt scaling), `predict`
//! (decision functions), `libsvm_format` (data files), `model` (LIBSVM model files), `atomic_file`
//! (files written whole or not at all) and `vecops` (the solvers' inner loops, vectorised).

// Every unsafe operation sits in its own block with the argument that makes it sound.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod atomic_file;
pub mod cache;
pub mod control;
pub mod data;
pub mod error;
pub mod kernel;
pub mod libsvm_format;
pub mod linear;
pub mod mixture;
pub mod mlp;
pub mod model;
pub mod multiclass;
pub mod online;
pub mod predict;
pub mod probability;
pub mod rng;
pub mod search;
pub mod sequence;
pub mod shared_rows;
pub mod solver;
pub mod svm;
pub mod team;
pub mod vecops;

pub use control::Control;
pub use data::{CsrMatrix, CsrView, DenseView, Matrix};
pub use error::{Error, Result};
pub use kernel::{KernelEngine, KernelSpec};
