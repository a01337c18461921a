//! largemargin: large-scale support vector machines in pure Rust.
//!
//! Train a kernel SVM on a LIBSVM data file and predict a test file, the way a native tool would
//! (`Svc` maps the file's labels to classes; the model predicts data of any width):
//!
//! ```no_run
//! use largemargin::{read_libsvm_file, IndexBase, Kernel, Svc};
//!
//! let train = read_libsvm_file("adult.trn".as_ref(), IndexBase::Zero)?;
//! let test = read_libsvm_file("adult.tst".as_ref(), IndexBase::Zero)?;
//! let model = Svc::new().c(100.0).kernel(Kernel::Rbf { gamma: 0.005 }).fit(&train.x.view(), &train.labels)?;
//! let predicted = model.predict(&test.x.view())?;
//! let errors = predicted.iter().zip(&test.labels).filter(|(p, t)| p != t).count();
//! println!("test error {:.2}%", 100.0 * errors as f64 / test.labels.len() as f64);
//! model.save("adult.model".as_ref(), IndexBase::Zero)?; // LIBSVM's svm-predict reads it
//! # Ok::<(), largemargin::Error>(())
//! ```
//!
//! On data in memory (`Matrix::dense` borrows a row-major slice; CSR and f32 work too):
//!
//! ```
//! use largemargin::{Kernel, Matrix, Svc, Svr};
//!
//! let x = [0.0, 0.0, 0.2, 0.1, 1.0, 1.0, 0.9, 1.2];
//! let x = Matrix::dense(&x, 4, 2)?;
//! let clf = Svc::new().c(10.0).kernel(Kernel::Rbf { gamma: 1.0 }).fit(&x, &[3.0, 3.0, 8.0, 8.0])?;
//! assert_eq!(clf.predict(&x)?, vec![3.0, 3.0, 8.0, 8.0]);
//! let reg = Svr::new().c(10.0).epsilon(0.01).kernel(Kernel::Linear).fit(&x, &[0.0, 0.3, 2.0, 2.1])?;
//! assert_eq!(reg.predict(&x)?.len(), 4);
//! # Ok::<(), largemargin::Error>(())
//! ```
//!
//! Modules, one concept each: `estimator` (the `Svc`/`Svr` builders above), `data` (borrowed feature matrices), `kernel` (the kernel engine),
//! `cache` (the shared kernel-row cache), `solver` (decomposition and online solvers), `svm`
//! (training C-SVC / epsilon-SVR problems), `online` (training LaSVM problems), `multiclass` (training LaRank problems), `mixture` (the hard mixture of experts' gaters and reassignment), `mlp` (the margin MLPs), `sequence` (training sequence labelers), `linear`
//! (training linear models by SGD), `search` (cross-validated C and kernel search over `shared_rows`, kernel rows shared between threads), `probability` (Platt scaling), `predict`
//! (decision functions), `libsvm_format` (data files), `model` (LIBSVM model files), `atomic_file`
//! (files written whole or not at all) and `vecops` (the solvers' inner loops, vectorised).

// Every unsafe operation sits in its own block with the argument that makes it sound.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

pub mod atomic_file;
pub mod cache;
pub mod control;
pub mod data;
pub mod error;
pub mod estimator;
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
pub use estimator::{Svc, Svr};
/// The kernels: `Kernel::Linear`, `Kernel::Rbf { gamma }`, `Kernel::Poly { degree, gamma, coef0 }`,
/// `Kernel::Sigmoid { gamma, coef0 }`, `Kernel::Precomputed` and composed kernels.
pub use kernel::KernelSpec as Kernel;
pub use kernel::{KernelEngine, KernelSpec};
pub use libsvm_format::{read_libsvm_file, IndexBase, LibsvmData};
pub use model::{LibsvmModel, SvmType};
pub use solver::smo::Selection;
pub use svm::{DualSolver, SvmParams};
