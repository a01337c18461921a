//! LaRank and its baselines: the multiclass solver (`multiclass`, with candidate label sets from
//! `ambiguous`), the sequence solver (`sequence`) and the schedules both share (`schedule`).

pub mod ambiguous;
pub mod multiclass;
pub mod schedule;
pub mod sequence;

pub use multiclass::{LaRank, LaRankParams, LaRankStats, Method, MethodKind};
pub use schedule::{Clock, Schedule, ScheduleKind};
