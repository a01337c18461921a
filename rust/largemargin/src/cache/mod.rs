//! Kernel rows kept between requests: the one bounded cache every kernel solver reads through
//! (`rows`: LRU over rows, a byte budget, partial rows and index swaps), and whole rows that the
//! solvers of several threads read at once (`shared_rows`, the cross-validated search's; and
//! `class_rows`, a one-vs-one problem's rows over each example's own class).

pub mod class_rows;
pub mod rows;
pub mod shared_rows;

pub use class_rows::ClassRows;
pub use rows::KernelCache;
pub use shared_rows::{RowStats, SharedRows};
