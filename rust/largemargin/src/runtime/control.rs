//! What a caller can see and do while a solver runs: ask it to stop, read its progress.
//! Solvers call `poll` at every step (one relaxed atomic load, far cheaper than any step), and
//! inside any step that can run long, so a stop request lands within one step: a polling period
//! counted in iterations would make the delay grow with the cost of an iteration. The Python
//! bindings request a stop on Ctrl-C.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{Error, Result};

/// A stop flag and progress counters, shared between a running fit and whoever watches it.
/// All accesses are relaxed atomics: the counters are for display, not synchronisation.
#[derive(Default)]
pub struct Control {
    stop: AtomicBool,
    iterations: AtomicU64,
    problems_done: AtomicU64,
    planned: AtomicU64,
}

impl Control {
    /// A control with no stop requested and every counter at zero.
    pub fn new() -> Self {
        Self::default()
    }
    /// Asks every solver polling this control to stop at its next step; there is no way back.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed)
    }
    /// Whether a stop was requested.
    pub fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
    /// `Err(Interrupted)` once a stop was requested: `control.poll()?` at every step.
    #[inline]
    pub fn poll(&self) -> Result<()> {
        if self.should_stop() {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }
    /// Counts `n` more solver steps (SMO iterations, points visited by an online or SGD pass).
    pub fn add_iterations(&self, n: u64) {
        self.iterations.fetch_add(n, Ordering::Relaxed);
    }
    /// Solver steps counted so far, over every problem of the fit.
    pub fn iterations(&self) -> u64 {
        self.iterations.load(Ordering::Relaxed)
    }
    /// Counts one unit of progress: a finished problem (a one-vs-one pair, a binary problem, a
    /// class pair at one C of a search, a single-problem fit) or, where a fit plans in epochs, an
    /// epoch.
    pub fn problem_done(&self) {
        self.problems_done.fetch_add(1, Ordering::Relaxed);
    }
    /// Units of progress counted so far.
    pub fn problems_done(&self) -> u64 {
        self.problems_done.load(Ordering::Relaxed)
    }
    /// Says how many units `problem_done` will count in all (pairs, problems, or epochs for the
    /// single-problem LaRank and sequence fits, whose counts are then at most this): a watcher
    /// shows a bar and an estimated time left. Never called: unknown.
    pub fn plan(&self, units: u64) {
        self.planned.store(units, Ordering::Relaxed)
    }
    /// The units announced by `plan`; 0 when unknown.
    pub fn planned(&self) -> u64 {
        self.planned.load(Ordering::Relaxed)
    }
}
