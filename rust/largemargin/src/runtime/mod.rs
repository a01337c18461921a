//! What every layer runs on: stop requests and progress (`control`), the seeded generator
//! (`rng`), the thread team that stays hot for one solve (`team`) and the inner loops built for
//! AVX2+FMA at run time (`vecops`).

pub mod control;
pub mod rng;
pub mod team;
pub mod vecops;

pub use control::Control;
pub use rng::Rng;
