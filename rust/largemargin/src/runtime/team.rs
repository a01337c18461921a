//! A team of threads that stays hot for the length of one solve.
//!
//! An SMO iteration on one binary problem is a handful of passes of some 10-100 µs each (a kernel
//! row, the gradient update, two selection scans). Splitting each over rayon's pool wakes a
//! sleeping worker every time, and the wake-up costs about what the split saves. A team's helpers
//! instead wait for the next pass by spinning for a while (parking only after a long quiet
//! spell), so handing them a pass costs well under a microsecond.
//!
//! Every pass is split into contiguous parts, one per member, the caller taking the first; a
//! member always takes the same part, so the part of the data it reads stays in its own cache
//! (parts claimed dynamically, tried, made passes slower by moving data between cores). A part
//! whose helper has not claimed it by the time the caller finished its own is taken by the caller:
//! a helper that the system does not schedule (another process on its processor) delays nothing.
//!
//! Callers use it only for work whose result does not depend on the split or on who computes a
//! part (elementwise updates, kernel values, scans merged with the sequential tie rule), so the
//! model does not depend on `n_jobs`.

use std::cell::UnsafeCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread::Thread;
use std::time::{Duration, Instant};

/// Passes shorter than this run on the caller alone (a hand-off costs about as much as this
/// many cheap elements).
pub const SPLIT_MIN: usize = 2048;

/// How long an idle helper spins before it parks.
const SPIN_FOR: Duration = Duration::from_millis(2);

type Task = *const (dyn Fn(usize, usize) + Sync);

/// A part's state within its pass: `generation * 4 + OPEN | TAKEN | DONE`.
const OPEN: u64 = 0;
const TAKEN: u64 = 1;
const DONE: u64 = 2;

/// What the caller and its helpers share.
struct Shared {
    /// Bumped by the caller for every pass; helpers look for a new value.
    generation: AtomicU64,
    /// Per member (index 0, the caller's, unused): its part's state in the current pass. A part
    /// is taken by one compare-and-swap from OPEN, by its helper or by the caller.
    parts: Vec<AtomicU64>,
    /// Written by the caller before it publishes a generation; read by a helper only after it took
    /// its part of that generation, and the caller waits for every taken part to be DONE before it
    /// returns (and before it writes the next task).
    task: UnsafeCell<Option<Task>>,
    stop: AtomicBool,
    panicked: AtomicBool,
    /// Helpers that parked (or are about to), with their handles.
    parked: AtomicUsize,
    threads: Mutex<Vec<Thread>>,
}

// SAFETY: `task` is written only by the caller while no helper can read it (see its comment);
// everything else is atomic or behind a mutex. The task itself is `Sync`.
unsafe impl Sync for Shared {}

/// A handle on a team: `size()` members, the caller among them.
pub struct Team<'s> {
    shared: Option<&'s Shared>,
    size: usize,
    /// Passes split in the current window, and how many of them the caller finished alone
    /// (it took a part whose helper had not started it).
    window: AtomicU32,
    late: AtomicU32,
    /// Passes left to run on the caller alone.
    solo_left: AtomicU32,
}

/// The team of one: every pass runs on the caller.
pub static SOLO: Team<'static> = Team::of(None, 1);

/// A part taking the caller this long is long enough for a helper with a processor to start
/// its own meanwhile.
const LONG_PART: Duration = Duration::from_micros(20);

/// A window of split passes in which helpers were late this often...
const LATE_WINDOW: u32 = 64;
const LATE_MOST: u32 = LATE_WINDOW / 2;
/// ...makes the next this many passes run on the caller alone: the helpers do not get a
/// processor (another process has it), and spinning they would only take time from the caller.
const SOLO_FOR: u32 = 4096;

impl<'s> Team<'s> {
    const fn of(shared: Option<&'s Shared>, size: usize) -> Self {
        Team { shared, size, window: AtomicU32::new(0), late: AtomicU32::new(0), solo_left: AtomicU32::new(0) }
    }

    /// Members of the team, the caller included.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Runs `f(part, parts)` for every part of a pass over `len` elements (one part per member,
    /// one in all when `len` is short), the caller taking part 0 and any part its helper has not
    /// taken when the caller is done with its own, and returns when all are done.
    pub fn run(&self, len: usize, f: &(dyn Fn(usize, usize) + Sync)) {
        let shared = match self.shared {
            Some(s) if len >= SPLIT_MIN => s,
            _ => return f(0, 1),
        };
        // (one caller at a time: the counters need no more than relaxed atomics)
        let solo = self.solo_left.load(Ordering::Relaxed);
        if solo > 0 {
            self.solo_left.store(solo - 1, Ordering::Relaxed);
            return f(0, 1);
        }
        let parts = self.size;
        // SAFETY: no helper reads `task` now: every part taken in the last pass was DONE before
        // the last `run` returned, and this pass is not yet published. The pointer's lifetime is
        // erased; it is used only by the parts of this pass, all DONE before this returns.
        unsafe {
            let task: Task = std::mem::transmute::<&(dyn Fn(usize, usize) + Sync), Task>(f);
            *shared.task.get() = Some(task);
        }
        let generation = shared.generation.load(Ordering::Relaxed) + 1;
        for p in &shared.parts[1..] {
            p.store(generation * 4 + OPEN, Ordering::Relaxed);
        }
        shared.generation.store(generation, Ordering::SeqCst);
        // (SeqCst with the helper's announcement below: either it sees this pass or this sees it)
        if shared.parked.load(Ordering::SeqCst) > 0 {
            for t in shared.threads.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                t.unpark();
            }
        }
        let started = Instant::now();
        let mut outcome = panic::catch_unwind(AssertUnwindSafe(|| f(0, parts)));
        // a helper that has not started its part in the time the caller took for a long one has
        // no processor (a short pass can end before a running helper sees it: that is no sign)
        let mut late = false;
        let long = started.elapsed() >= LONG_PART;
        for (member, state) in shared.parts.iter().enumerate().skip(1) {
            let open = generation * 4 + OPEN;
            if state.compare_exchange(open, generation * 4 + TAKEN, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                // its helper is late: the caller takes the part
                late |= long;
                let mine = panic::catch_unwind(AssertUnwindSafe(|| f(member, parts)));
                state.store(generation * 4 + DONE, Ordering::Release);
                outcome = outcome.and(mine);
                continue;
            }
            let mut spins = 0u32;
            while state.load(Ordering::Acquire) != generation * 4 + DONE {
                spins += 1;
                if spins < 1 << 14 {
                    std::hint::spin_loop();
                } else {
                    // hundreds of microseconds: its helper lost its processor in the middle
                    late = true;
                    std::thread::yield_now();
                }
            }
        }
        self.count_pass(late);
        if let Err(p) = outcome {
            panic::resume_unwind(p);
        }
        if shared.panicked.swap(false, Ordering::Relaxed) {
            panic!("a team helper panicked");
        }
    }

    /// The next `passes` passes on the caller alone, as after late helpers (for tests).
    #[cfg(test)]
    pub(crate) fn go_solo_for(&self, passes: u32) {
        self.solo_left.store(passes, Ordering::Relaxed);
    }

    /// Counts a split pass; when helpers were late in most passes of a window, the next
    /// `SOLO_FOR` passes run on the caller alone (helpers left idle park after `SPIN_FOR`).
    fn count_pass(&self, late: bool) {
        let late = self.late.load(Ordering::Relaxed) + late as u32;
        let window = self.window.load(Ordering::Relaxed) + 1;
        if window < LATE_WINDOW {
            self.window.store(window, Ordering::Relaxed);
            self.late.store(late, Ordering::Relaxed);
            return;
        }
        self.window.store(0, Ordering::Relaxed);
        self.late.store(0, Ordering::Relaxed);
        if late >= LATE_MOST {
            self.solo_left.store(SOLO_FOR, Ordering::Relaxed);
        }
    }

    /// The most parts a pass is cut into (`run` gives each part's index below this).
    pub fn max_parts(&self) -> usize {
        self.size
    }

    /// The range of part `part` of `parts` over `len` elements (contiguous, in order).
    pub fn part(len: usize, part: usize, parts: usize) -> std::ops::Range<usize> {
        (len * part / parts)..(len * (part + 1) / parts)
    }

    /// `f(range)` for the parts of a pass over `len` elements, the results in the parts' order
    /// (one result when the pass is not split).
    pub fn map<R: Send>(&self, len: usize, f: &(dyn Fn(std::ops::Range<usize>) -> R + Sync)) -> Vec<R> {
        if self.shared.is_none() || len < SPLIT_MIN {
            return vec![f(0..len)];
        }
        let found: Vec<Mutex<Option<R>>> = (0..self.max_parts()).map(|_| Mutex::new(None)).collect();
        self.run(len, &|part, parts| {
            let r = f(Self::part(len, part, parts));
            *found[part].lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
        });
        found.into_iter().filter_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner())).collect()
    }

    /// `f(offset, chunk)` over `out` cut into one contiguous chunk per member, the results in the
    /// chunks' order.
    pub fn map_chunks<T: Send, R: Send>(&self, out: &mut [T], f: &(dyn Fn(usize, &mut [T]) -> R + Sync)) -> Vec<R> {
        let len = out.len();
        let base = SendPtr(out.as_mut_ptr());
        self.map(len, &|r| {
            let b = &base;
            // SAFETY: the parts of one pass are disjoint ranges of `out`, each run once, and `out`
            // stays mutably borrowed until every part is done.
            let chunk = unsafe { std::slice::from_raw_parts_mut(b.0.add(r.start), r.len()) };
            f(r.start, chunk)
        })
    }

    /// `f(offset, chunk)` over `out` cut into one contiguous chunk per member.
    /// Unlike `map_chunks`, it keeps no results: nothing is allocated (the SVR matrix's gather
    /// calls it at every step).
    pub fn for_chunks<T: Send>(&self, out: &mut [T], f: &(dyn Fn(usize, &mut [T]) + Sync)) {
        let len = out.len();
        if self.shared.is_none() || len < SPLIT_MIN {
            return f(0, out);
        }
        let base = SendPtr(out.as_mut_ptr());
        self.run(len, &|part, parts| {
            let r = Self::part(len, part, parts);
            let b = &base;
            // SAFETY: the parts of one pass are disjoint ranges of `out`, each run once, and `out`
            // stays mutably borrowed until every part is done.
            let chunk = unsafe { std::slice::from_raw_parts_mut(b.0.add(r.start), r.len()) };
            f(r.start, chunk)
        });
    }
}

struct SendPtr<T>(*mut T);
// SAFETY: used only to hand disjoint chunks of one slice to the team's members.
unsafe impl<T: Send> Sync for SendPtr<T> {}

/// The team size for one problem of `variables` variables on the current rayon pool: every
/// thread, or one when no pass would be long enough to split (no helper thread is started).
pub fn threads_for(variables: usize) -> usize {
    if variables >= SPLIT_MIN {
        rayon::current_num_threads()
    } else {
        1
    }
}

/// Runs `body` with a team of `threads` members (at most one per processor: a helper that spins
/// on a processor another member needs would only delay it): the caller and `threads - 1` helper
/// threads that live until `body` returns. A team of one starts no thread.
pub fn with_team<R>(threads: usize, body: impl FnOnce(&Team) -> R) -> R {
    let threads = threads.min(std::thread::available_parallelism().map_or(1, |p| p.get()));
    if threads <= 1 {
        return body(&SOLO);
    }
    let shared = Shared {
        generation: AtomicU64::new(0),
        parts: (0..threads).map(|_| AtomicU64::new(DONE)).collect(),
        task: UnsafeCell::new(None),
        stop: AtomicBool::new(false),
        panicked: AtomicBool::new(false),
        parked: AtomicUsize::new(0),
        threads: Mutex::new(Vec::new()),
    };
    std::thread::scope(|s| {
        for member in 1..threads {
            let shared = &shared;
            s.spawn(move || {
                shared.threads.lock().unwrap_or_else(|p| p.into_inner()).push(std::thread::current());
                serve(shared, member, threads)
            });
        }
        struct StopOnDrop<'a>(&'a Shared);
        impl Drop for StopOnDrop<'_> {
            fn drop(&mut self) {
                self.0.stop.store(true, Ordering::Release);
                for t in self.0.threads.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                    t.unpark();
                }
            }
        }
        let _stop = StopOnDrop(&shared);
        body(&Team::of(Some(&shared), threads))
    })
}

/// A helper's loop: wait for a new generation (spinning, then parked), take its part unless the
/// caller already did, run it, mark it done.
fn serve(shared: &Shared, member: usize, parts: usize) {
    let mut seen = 0u64;
    loop {
        let mut idle_since: Option<Instant> = None;
        let mut spins = 0u32;
        let now = loop {
            if shared.stop.load(Ordering::Acquire) {
                return;
            }
            let g = shared.generation.load(Ordering::Acquire);
            if g != seen {
                break g;
            }
            spins = spins.wrapping_add(1);
            if spins % 256 != 0 {
                if spins % 64 == 0 {
                    // let a thread waiting for this processor have it (the caller, or another
                    // process): on an idle processor this returns at once
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
                continue;
            }
            let since = *idle_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= SPIN_FOR {
                shared.parked.fetch_add(1, Ordering::SeqCst);
                // re-check after announcing: a pass published before the announcement is seen
                // here, one published after it unparks this thread
                if shared.generation.load(Ordering::SeqCst) == seen && !shared.stop.load(Ordering::Acquire) {
                    std::thread::park_timeout(Duration::from_millis(50));
                }
                shared.parked.fetch_sub(1, Ordering::AcqRel);
                idle_since = None;
            }
        };
        seen = now;
        let state = &shared.parts[member];
        if state.compare_exchange(now * 4 + OPEN, now * 4 + TAKEN, Ordering::AcqRel, Ordering::Acquire).is_err() {
            continue; // the caller took it (or a later pass is out: the next loop sees it)
        }
        // SAFETY: the caller wrote the task before publishing this generation and keeps it (and
        // what it borrows) alive until this part is DONE.
        let task = unsafe { (*shared.task.get()).expect("a published pass has a task") };
        // SAFETY: as above: the pointee outlives this call.
        let f = unsafe { &*task };
        if panic::catch_unwind(AssertUnwindSafe(|| f(member, parts))).is_err() {
            shared.panicked.store(true, Ordering::Relaxed);
        }
        state.store(now * 4 + DONE, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_runs_once_and_chunks_cover_the_slice() {
        for threads in [1, 2, 3] {
            with_team(threads, |team| {
                for len in [0, 1, 100, SPLIT_MIN, 10_007] {
                    let mut out = vec![0usize; len];
                    team.for_chunks(&mut out, &|offset, chunk| {
                        for (k, v) in chunk.iter_mut().enumerate() {
                            *v += offset + k + 1;
                        }
                    });
                    assert!(out.iter().enumerate().all(|(k, &v)| v == k + 1), "threads {threads} len {len}");
                }
                // every part exactly once per pass, whoever takes it (helpers late or not; all
                // of them on the caller, as one part, when they were late too often)
                for pass in 0..2000 {
                    let seen: Vec<AtomicUsize> = (0..team.max_parts()).map(|_| AtomicUsize::new(0)).collect();
                    let cut = AtomicUsize::new(0);
                    team.run(SPLIT_MIN, &|k, n| {
                        assert!(n == 1 || n == team.max_parts());
                        cut.store(n, Ordering::Relaxed);
                        seen[k].fetch_add(1, Ordering::Relaxed);
                    });
                    let n = cut.load(Ordering::Relaxed);
                    assert!(
                        seen.iter().enumerate().all(|(k, c)| c.load(Ordering::Relaxed) == (k < n) as usize),
                        "pass {pass}"
                    );
                }
            });
        }
    }

    #[test]
    fn helpers_wake_after_parking() {
        with_team(2, |team| {
            std::thread::sleep(SPIN_FOR * 3);
            let sum = AtomicUsize::new(0);
            team.run(SPLIT_MIN, &|p, _| {
                sum.fetch_add(p + 1, Ordering::Relaxed);
            });
            assert_eq!(sum.load(Ordering::Relaxed), 3);
        });
    }

    #[test]
    fn a_helper_panic_reaches_the_caller() {
        let r = panic::catch_unwind(|| {
            with_team(2, |team| team.run(SPLIT_MIN, &|p, _| assert!(p == 0, "boom")));
        });
        assert!(r.is_err());
    }
}
