//! A shuffled pass over sparse rows with a second thread staging the rows ahead.
//!
//! In a shuffled order every row of a pass is a trip to memory, and a step takes less time than
//! the trip: the stepping thread alone, even prefetching, waits on memory for most of a pass
//! over data larger than the caches. With a team of two, the helper copies the rows of the next
//! stretch of the order, their labels and weights into one contiguous buffer while the caller
//! steps through the rows it copied last time; the caller then reads its rows in storage order.
//! Both buffers are reused for the whole pass. What the steps compute does not change (the same
//! rows in the same order), so the model does not depend on `n_jobs`.

use std::sync::Mutex;

use crate::data::{CsrView, Real};
use crate::kernel::Query;
use crate::runtime::team::{Team, SPLIT_MIN};
use crate::runtime::vecops::prefetch_lines;

/// Examples per stretch: a stretch's rows (a few hundred KB for text) stay in the cache
/// between the copy and the steps, and a hand-off costs about a microsecond against tens.
pub(super) const STRETCH: usize = 256;

/// How many rows ahead `Stretch::fill` asks for rows (twice as far for their bounds).
const AHEAD: usize = 6;

/// An example as the steps take it: its row, label and weight.
pub(super) type Gathered<'x> = (Query<'x>, f64, f64);

/// A value type a sparse row can be read in.
pub(super) trait Value: Real {
    fn query<'a>(indices: &'a [i32], values: &'a [Self]) -> Query<'a>;
}

impl Value for f32 {
    fn query<'a>(indices: &'a [i32], values: &'a [f32]) -> Query<'a> {
        Query::S32(indices, values)
    }
}

impl Value for f64 {
    fn query<'a>(indices: &'a [i32], values: &'a [f64]) -> Query<'a> {
        Query::S64(indices, values)
    }
}

/// The rows of one stretch, copied one after another.
struct Stretch<T> {
    /// Row k is `indices[ends[k - 1]..ends[k]]` (from 0 for the first).
    ends: Vec<usize>,
    indices: Vec<i32>,
    values: Vec<T>,
    y: Vec<f64>,
    c: Vec<f64>,
}

impl<T: Value> Stretch<T> {
    fn new() -> Self {
        Stretch { ends: Vec::new(), indices: Vec::new(), values: Vec::new(), y: Vec::new(), c: Vec::new() }
    }

    /// Copies the rows `order` of x (their labels and weights too).
    fn fill(&mut self, x: &CsrView<T>, y: &[f64], c: &[f64], order: &[usize]) {
        self.ends.clear();
        self.indices.clear();
        self.values.clear();
        self.y.clear();
        self.c.clear();
        for (k, &i) in order.iter().enumerate() {
            // the rows come in a shuffled order: ask for where the row after next few starts
            // (and its label and weight), and for the rows whose start is known by now
            if let Some(&far) = order.get(k + 2 * AHEAD) {
                prefetch_lines(&x.indptr()[far..far + 2]);
                prefetch_lines(&y[far..=far]);
                prefetch_lines(&c[far..=far]);
            }
            if let Some(&ahead) = order.get(k + AHEAD) {
                let (j, v) = x.row(ahead);
                prefetch_lines(j);
                prefetch_lines(v);
            }
            let (j, v) = x.row(i);
            self.indices.extend_from_slice(j);
            self.values.extend_from_slice(v);
            self.ends.push(self.indices.len());
            self.y.push(y[i]);
            self.c.push(c[i]);
        }
    }

    /// The copied examples as the steps take them (row, label, weight).
    fn examples(&self) -> Vec<Gathered<'_>> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .enumerate()
            .map(|(k, (start, &end))| {
                (T::query(&self.indices[start..end], &self.values[start..end]), self.y[k], self.c[k])
            })
            .collect()
    }
}

/// Runs `steps` on every stretch of `order` (at most `STRETCH` examples, in order) on the caller,
/// the team's second member copying the next stretch meanwhile (the caller copies it itself
/// when no helper is free). `after(examples)` runs on the caller after each stretch; a `false`
/// stops the pass there.
pub(super) fn staged_pass<T: Value>(
    team: &Team, x: &CsrView<T>, y: &[f64], c: &[f64], order: &[usize],
    steps: &mut (dyn FnMut(&[Gathered<'_>]) + Send), after: &mut dyn FnMut(usize) -> bool,
) {
    let stretches: Vec<&[usize]> = order.chunks(STRETCH).collect();
    let buffers = [Mutex::new(Stretch::new()), Mutex::new(Stretch::new())];
    if let Some(first) = stretches.first() {
        lock(&buffers[0]).fill(x, y, c, first);
    }
    // (only the caller runs part 0; the mutex makes the closure shareable)
    let steps = Mutex::new(steps);
    for k in 0..stretches.len() {
        let (current, next) = (&buffers[k % 2], &buffers[(k + 1) % 2]);
        let fill_next = || {
            if let Some(order) = stretches.get(k + 1) {
                lock(next).fill(x, y, c, order);
            }
        };
        // (a team whose helpers keep missing their turn runs a pass as one part: both, in turn)
        team.run(SPLIT_MIN, &|part, parts| match (part, parts) {
            (0, 1) => {
                (lock(&steps))(&lock(current).examples());
                fill_next();
            }
            (0, _) => (lock(&steps))(&lock(current).examples()),
            (1, _) => fill_next(),
            _ => {}
        });
        if !after(stretches[k].len()) {
            break;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
