//! Solvers. Each one is a module; the kernel solvers share the kernel engine and the kernel cache,
//! the linear ones (`sgd`) their `loss`.

pub mod ambiguous;
pub mod asgd;
pub mod expansion;
pub mod huller;
pub mod isda;
pub mod larank;
pub mod lasvm;
pub mod loss;
pub mod perceptron;
pub mod qmatrix;
pub mod schedule;
pub mod sgd;
mod sgd_staging;
pub mod sgd_t0;
pub mod smo;
