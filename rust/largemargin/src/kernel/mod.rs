//! The kernel engine: built-in kernels over dense and sparse rows, computed a row segment at a
//! time (in parallel with rayon when the segment is long) and counted.
//!
//! Every kernel is a transform of one "base" quantity between two rows — a dot product or a
//! squared distance — so the per-format loops are written once and the kernels once. Composed
//! kernels (`composite`) are several transforms of the same base; external kernels (`external`)
//! are computed elsewhere, a row segment per call.

mod block;
mod columns;
pub mod composite;
mod cost;
mod direct;
mod engine;
pub mod external;
mod primitives;
mod query;
mod scratch;
mod spec;
#[cfg(test)]
mod tests;
mod transform;

pub use block::{PackedRows, PACKED_ALIGN};
pub use composite::{Composite, Term};
pub(crate) use engine::overflowing_norm;
pub use engine::{KernelEngine, Split};
pub use external::ExternalKernel;
pub(crate) use primitives::{dense_dot, gather_dot, BLOCK};
pub use primitives::{exp_nonpositive, Store};
pub use query::Query;
pub use spec::{KernelKind, KernelSpec};
pub(crate) use transform::transform_block;
