//! What a caller can see and do while a solver runs: ask it to stop, read its progress.
//! Solvers call `poll` at every step (one relaxed atomic load, far cheaper than any step), and
//! inside any step that can run long, so a stop request lands within one step: a polling period
//! counted in iterations would make the delay grow with the cost of an iteration. The Python
//! bindings request a stop on Ctrl-C.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{Error, Result};

#[derive(Default)]
pub struct Control {
    stop: AtomicBool,
    iterations: AtomicU64,
    problems_done: AtomicU64,
}

impl Control {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed)
    }
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
    pub fn add_iterations(&self, n: u64) {
        self.iterations.fetch_add(n, Ordering::Relaxed);
    }
    pub fn iterations(&self) -> u64 {
        self.iterations.load(Ordering::Relaxed)
    }
    pub fn problem_done(&self) {
        self.problems_done.fetch_add(1, Ordering::Relaxed);
    }
    pub fn problems_done(&self) -> u64 {
        self.problems_done.load(Ordering::Relaxed)
    }
}
