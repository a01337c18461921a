//! Solvers. Each one is a module; they share the kernel engine and the kernel cache.

pub mod expansion;
pub mod huller;
pub mod lasvm;
pub mod perceptron;
pub mod qmatrix;
pub mod smo;
