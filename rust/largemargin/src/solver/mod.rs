//! Solvers. Each one is a module; they share the kernel engine and the kernel cache.

pub mod qmatrix;
pub mod smo;
