//! Training drivers: a problem in, a fitted model out. Each one checks its inputs, builds the
//! kernel engine (or the linear models), splits the work into the solver's problems (one-vs-one
//! pairs, one-vs-rest problems, epochs), runs them in parallel within the cache budget and
//! gathers the solutions.
//!
//! `svm` (C-SVC and epsilon-SVR by SMO or ISDA, and the `LibsvmModel` of a fit), `lasvm`
//! (LaSVM and the online baselines), `larank` (multiclass LaRank, from labels or candidate label
//! sets), `linear` (linear models by SGD), `linear_svm` (exact linear SVMs by dual coordinate descent), `sequence` (sequence labelers by LaRank or the
//! structured perceptron), `semantic_parser` (OSPAS: MRs from ambiguous supervision) and `search` (a cross-validated grid of C and kernels); above them,
//! `estimator`'s `Svc` and `Svr` builders, which take labels as they come and return a
//! `LibsvmModel`.

pub mod estimator;
pub mod larank;
pub mod lasvm;
pub mod linear;
pub mod linear_svm;
pub mod search;
pub mod semantic_parser;
pub mod sequence;
pub mod svm;
