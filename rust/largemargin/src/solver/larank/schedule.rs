//! LaRank's schedules (Bordes, Bottou, Gallinari, Weston 2007; Bordes 2010, PhD thesis, section 5.2): how PROCESSNEW, PROCESSOLD and OPTIMIZE are
//! interleaved, written once over a small trait of steps that the multiclass solver (`multiclass`)
//! and the sequence solver (`sequence`) implement.

use std::time::Instant;

use crate::runtime::rng::Rng;

/// How the LaRank operations are interleaved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// Algorithm 22: after each PROCESSNEW, operations are drawn with probabilities that follow
    /// their recent dual increase per unit of cost, until PROCESSNEW is drawn again.
    Adaptive,
    /// Algorithm 21: per example, PROCESSNEW then `reprocess` times (1 PROCESSOLD + 10 OPTIMIZE).
    /// `reprocess = 0` is the passive-aggressive / MIRA baseline.
    Fixed {
        /// Rounds of PROCESSOLD and OPTIMIZE after each PROCESSNEW.
        reprocess: usize,
    },
}

/// A schedule as its name gives it: `Fixed`'s number of rounds comes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleKind {
    /// `Schedule::Adaptive`.
    Adaptive,
    /// `Schedule::Fixed`.
    Fixed,
}
crate::error::option_names!(ScheduleKind, "schedule", { Adaptive => "adaptive", Fixed => "fixed" });

impl ScheduleKind {
    /// The schedule, `reprocess` rounds for `Fixed` (unread for `Adaptive`).
    pub fn with(self, reprocess: usize) -> Schedule {
        match self {
            ScheduleKind::Adaptive => Schedule::Adaptive,
            ScheduleKind::Fixed => Schedule::Fixed { reprocess },
        }
    }
}

/// What the adaptive schedule counts as an operation's duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// A cost proxy (kernel evaluations weighted by the features they read, plus the solver's
    /// other work): runs depend on the seed only.
    Cost,
    /// Measured wall time, as in the thesis (runs are not reproducible).
    Wall,
}

crate::error::option_names!(Clock, "clock", { Cost => "cost", Wall => "wall" });

/// The three operations of a LaRank solver, each returning the dual increase it made, and the
/// work counters the cost clock reads.
pub trait LaRankSteps {
    /// PROCESSNEW on a pattern (an example, a token, a sequence).
    fn process_new(&mut self, pattern: usize) -> f64;
    /// PROCESSOLD on a random support pattern.
    fn process_old(&mut self, rng: &mut Rng) -> f64;
    /// OPTIMIZE on a random support pattern.
    fn optimize(&mut self, rng: &mut Rng) -> f64;
    /// Whether there is a support pattern for PROCESSOLD and OPTIMIZE to work on.
    fn has_support(&self) -> bool;
    /// Work done so far, in cost units, besides kernel evaluations.
    fn work(&self) -> f64;
    /// Kernel evaluations so far (none for explicit weights).
    fn kernel_evals(&self) -> u64 {
        0
    }
    /// Cost units of one kernel evaluation.
    fn kernel_cost(&self) -> f64 {
        0.0
    }
}

/// OPTIMIZE steps batched into one operation.
pub const OPTIMIZE_BATCH: usize = 10;
/// Patterns the adaptive PROCESSOLD tries before giving up.
const PROCESS_OLD_TRIES: usize = 10;
/// Smoothing of the adaptive scores, and each operation's least share of the total score.
const ADAPT_RATE: f64 = 0.05;
const ADAPT_FLOOR: f64 = 1.0 / 20.0;
/// Operations of the adaptive schedule.
const NEW: usize = 0;
const OLD: usize = 1;
const OPT: usize = 2;

/// Algorithm 21 on one pattern: PROCESSNEW, then `reprocess` times PROCESSOLD and a batch of
/// OPTIMIZE.
pub fn fixed_step(steps: &mut impl LaRankSteps, pattern: usize, reprocess: usize, rng: &mut Rng) {
    steps.process_new(pattern);
    for _ in 0..reprocess {
        steps.process_old(rng);
        for _ in 0..OPTIMIZE_BATCH {
            steps.optimize(rng);
        }
    }
}

/// Algorithm 22's state: each operation's smoothed gain per unit of duration (an epoch starts
/// from equal scores).
pub struct Adaptive {
    score: [f64; 3],
    clock: Clock,
}

impl Adaptive {
    /// Equal scores for the three operations, durations read from `clock`.
    pub fn new(clock: Clock) -> Self {
        Adaptive { score: [1.0; 3], clock }
    }

    /// PROCESSNEW on `pattern`, then operations drawn by their scores until PROCESSNEW is drawn
    /// again (or nothing is left to reprocess).
    pub fn step(&mut self, steps: &mut impl LaRankSteps, pattern: usize, rng: &mut Rng) {
        let score = &mut self.score;
        let mut op = NEW;
        loop {
            let (start_work, start_evals, start_time) = (steps.work(), steps.kernel_evals(), Instant::now());
            let gain = match op {
                NEW => steps.process_new(pattern),
                OLD => (0..PROCESS_OLD_TRIES).map(|_| steps.process_old(rng)).find(|&g| g > 0.0).unwrap_or(0.0),
                _ => (0..OPTIMIZE_BATCH).map(|_| steps.optimize(rng)).sum(),
            };
            let duration = match self.clock {
                Clock::Cost => {
                    steps.work() - start_work + (steps.kernel_evals() - start_evals) as f64 * steps.kernel_cost() + 10.0
                }
                Clock::Wall => 1e-5 + start_time.elapsed().as_secs_f64(),
            };
            score[op] = (1.0 - ADAPT_RATE) * score[op] + ADAPT_RATE * gain / duration;
            let floor = ADAPT_FLOOR * score.iter().sum::<f64>();
            for s in score.iter_mut() {
                *s = s.max(floor);
            }
            let total: f64 = score.iter().sum();
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            op = if u < score[NEW] {
                NEW
            } else if u < score[NEW] + score[OLD] {
                OLD
            } else {
                OPT
            };
            if op == NEW || !steps.has_support() {
                break;
            }
        }
    }
}
