//! Files: LIBSVM data files (`data_file`: read, streaming), LIBSVM model files (`model_file`:
//! `LibsvmModel`'s `read`, `load`, `write` and `save`) and files written whole or not at all
//! (`atomic_file`).

pub mod atomic_file;
pub mod data_file;
mod model_file;

pub use atomic_file::write_atomically;
pub use data_file::{read_libsvm_file, IndexBase, LibsvmData, LibsvmParser};
