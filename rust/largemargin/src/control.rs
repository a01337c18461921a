//! What a caller can see and do while a solver runs: ask it to stop, read its progress.
//! Solvers poll `should_stop` every few hundred iterations; the Python bindings set it on Ctrl-C.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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
