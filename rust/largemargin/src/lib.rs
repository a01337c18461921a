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
//! The modules are the layers, each using only those above it in this list:
//!
//! - [`data`], [`error`] and [`runtime`]: borrowed feature matrices, errors, stop requests and
//!   progress, the seeded generator, the thread team, the vectorised inner loops;
//! - [`kernel`]: the one kernel engine every solver uses;
//! - [`cache`]: the bounded kernel-row cache, and rows shared between threads;
//! - [`sequence`]: sequences of tokens, the sequence model and its decoding;
//! - [`solver`]: one module per algorithm (SMO, ISDA, LaSVM and the online baselines, LaRank,
//!   the linear SGD family);
//! - [`model`]: LIBSVM models, decision functions, Platt scaling;
//! - [`train`]: the training drivers, a problem in and a fitted model out (C-SVC/epsilon-SVR,
//!   LaSVM, LaRank, linear models, sequence labelers, the cross-validated search) and the
//!   [`Svc`]/[`Svr`] builders above; [`mixture`] and [`mlp`], the hard mixture of experts' gaters
//!   and the margin MLPs, with their training;
//! - [`io`]: LIBSVM data and model files, files written whole or not at all (a model's check
//!   borrows the data files' index limit from it).

// Every unsafe operation sits in its own block with the argument that makes it sound.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

pub mod cache;
pub mod data;
pub mod error;
pub mod io;
pub mod kernel;
pub mod mixture;
pub mod mlp;
pub mod model;
pub mod runtime;
pub mod sequence;
pub mod solver;
pub mod train;

pub use data::{CsrMatrix, CsrView, DenseView, Matrix};
pub use error::{Error, Result};
pub use io::data_file::{read_libsvm_file, IndexBase, LibsvmData};
/// The kernels: `Kernel::Linear`, `Kernel::Rbf { gamma }`, `Kernel::Poly { degree, gamma, coef0 }`,
/// `Kernel::Sigmoid { gamma, coef0 }`, `Kernel::Precomputed` and composed kernels.
pub use kernel::KernelSpec as Kernel;
pub use kernel::{KernelEngine, KernelSpec};
pub use model::{LibsvmModel, SvmType};
pub use runtime::Control;
pub use solver::smo::Selection;
pub use train::estimator::{Svc, Svr};
pub use train::svm::{DualSolver, SvmParams};
