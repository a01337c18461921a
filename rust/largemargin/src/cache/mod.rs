//! Kernel rows kept between requests: the one bounded cache every kernel solver reads through
//! (`rows`: LRU over rows, a byte budget, partial rows and index swaps), and whole rows that the
//! solvers of several threads read at once (`shared_rows`, the cross-validated search's; and
//! `class_rows`, a one-vs-one problem's rows over each example's own class); and the budget a fit
//! gets when it is given none (`budget`).

pub mod budget;
pub mod class_rows;
pub mod rows;
pub mod shared_rows;

pub use budget::{auto_budget, available_memory, DEFAULT_BUDGET};
pub use class_rows::ClassRows;
pub use rows::KernelCache;
pub use shared_rows::{RowStats, SharedRows};
