//! Working-set SMO (Joachims' decomposition with SMO inside, as ThunderSVM and oneDAL's "thunder"
//! solver run it): each outer step takes q variables, the q/2 largest gradients that may increase
//! and the q/2 smallest that may decrease (the maximal violating pair among them), computes the
//! rows it lacks as one block, solves the q-variable problem by second-order SMO on its q x q
//! matrix, and updates the whole gradient from the rows of the variables that moved, a pass over
//! the data for many pair steps instead of one. Half of each working set is kept for the next
//! (the variables that moved most recently first), so half the rows are already there. The
//! stopping rule is SMO's own (the maximal violation over all variables below tol), so the model
//! is the one SMO gives, to its tolerance; without shrinking.
//!
//! Used where the kernel engine computes rows by blocks and the problem is large (`choose`).

use super::{status_of, Decomposition, Smo, SmoParams, SmoSolution, DOWN, TAU, UP};
use crate::error::Result;
use crate::runtime::control::Control;

/// The rows of this many working sets are kept (`keep_at_most`).
const SETS_KEPT: usize = 4;
/// Variables per working set (at most: the budget may hold fewer rows).
const WORKING_SET: usize = 512;
/// Problems with fewer variables than this keep the pair path (their rows fit the cache anyway,
/// and a pass over them costs little).
pub(super) const MIN_VARIABLES: usize = 20_000;
/// The inner solve stops at this fraction of the working set's first violation (or at tol).
const INNER_REDUCTION: f64 = 0.1;
/// ... or after this many pair steps per variable of the set.
const INNER_STEPS_PER_VARIABLE: usize = 10;

impl Smo<'_> {
    /// The working set's size where the working-set path applies to this problem: one sum
    /// (C-SVC, one-class, epsilon-SVR's shape), second-order selection, enough variables, and a
    /// matrix that computes rows by blocks and holds two working sets of rows (`rows_held`).
    pub(super) fn working_set_size(&self, params: &SmoParams) -> Option<usize> {
        let wanted = match params.decomposition {
            Decomposition::Pairs => return None,
            Decomposition::Auto if self.l < MIN_VARIABLES => return None,
            Decomposition::Auto => WORKING_SET,
            Decomposition::WorkingSets(q) => q,
        };
        if self.signs != 1 || params.selection != super::Selection::SecondOrder {
            return None;
        }
        let held = self.q.rows_held(self.l);
        let q = wanted.min(held / 2).min(self.l) & !1;
        (q >= 4).then_some(q)
    }

    /// Runs the working-set decomposition from the current point to `params.tol`.
    pub(super) fn run_working_set(mut self, params: &SmoParams, control: &Control, ws: usize) -> Result<SmoSolution> {
        let l = self.l;
        let cap = params.max_iter.unwrap_or_else(|| (100 * l as u64).max(10_000_000));
        let mut iterations: u64 = 0;
        let mut converged = false;
        let mut in_set = vec![false; l];
        let mut kept: Vec<usize> = Vec::new();
        let mut kernel = vec![0.0f64; ws * ws];
        // a few sets of rows, in memory used again and again: on this kind of problem a row is
        // computed again by blocks faster than fresh memory is faulted in for it
        self.q.keep_at_most(SETS_KEPT * ws);
        while iterations < cap {
            control.poll()?;
            let Some(set) = self.choose(ws, params.tol, &kept, &mut in_set) else {
                converged = true;
                break;
            };
            let q = set.len();
            // K_BB from the set's rows, the missing ones computed as one block
            let missing: Vec<usize> = set.iter().copied().filter(|&t| !self.q.holds(t, l)).collect();
            if !missing.is_empty() {
                self.q.prefetch(&missing, l);
            }
            for (a, &s) in set.iter().enumerate() {
                let row = self.q.row(s, l);
                for (b, &t) in set.iter().enumerate() {
                    kernel[a * q + b] = row[t] as f64;
                }
            }
            let before: Vec<f64> = set.iter().map(|&t| self.alpha[t]).collect();
            let steps = self.solve_inner(&set, &kernel[..q * q], params.tol, cap - iterations);
            iterations += steps;
            control.add_iterations(steps);
            // the whole gradient from the rows of the variables that moved
            let (mut moved, mut deltas) = (Vec::new(), Vec::new());
            for (k, &t) in set.iter().enumerate() {
                let d = self.alpha[t] - before[k];
                if d != 0.0 {
                    moved.push(t);
                    deltas.push(d);
                }
                self.set_status(t);
            }
            self.q.subtract_rows(&moved, &deltas, &mut self.g, self.team);
            // half of the set carries over: the variables that moved, then the others
            kept = moved.iter().chain(set.iter().filter(|t| !moved.contains(t))).copied().take(q / 2).collect();
            if steps == 0 {
                // the set's own problem was optimal to the inner tolerance: its violation is the
                // global one only if the pair is below tol (then `choose` ends the run)
                kept.clear();
            }
        }
        Ok(self.finish(iterations, converged))
    }

    /// The next working set: `kept` first, then the largest gradients that may increase and the
    /// smallest that may decrease, alternately, up to `ws`; None when the maximal violation is
    /// below tol.
    fn choose(&mut self, ws: usize, tol: f64, kept: &[usize], in_set: &mut [bool]) -> Option<Vec<usize>> {
        let (mut ups, mut downs) = (Vec::new(), Vec::new());
        let (mut gmax, mut gmin) = (f64::NEG_INFINITY, f64::INFINITY);
        for t in 0..self.l {
            let s = self.status[t];
            if s & UP != 0 {
                ups.push((self.g[t], t));
                gmax = gmax.max(self.g[t]);
            }
            if s & DOWN != 0 {
                downs.push((self.g[t], t));
                gmin = gmin.min(self.g[t]);
            }
        }
        if gmax - gmin < tol {
            return None;
        }
        let mut set: Vec<usize> = Vec::with_capacity(ws);
        for &t in kept {
            in_set[t] = true;
            set.push(t);
        }
        let fresh = ws - set.len();
        // (ties by position, so that the set does not depend on the sort's method)
        let take = |list: &mut Vec<(f64, usize)>, descending: bool| {
            let k = fresh.min(list.len());
            let order = |a: &(f64, usize), b: &(f64, usize)| {
                let o = a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
                if descending {
                    o.reverse()
                } else {
                    o
                }
            };
            if k > 0 && k < list.len() {
                list.select_nth_unstable_by(k - 1, order);
            }
            list.truncate(k);
            list.sort_unstable_by(order);
        };
        take(&mut ups, true);
        take(&mut downs, false);
        let (mut u, mut d) = (ups.iter(), downs.iter());
        while set.len() < ws {
            let (a, b) = (u.next(), d.next());
            if a.is_none() && b.is_none() {
                break;
            }
            for &(_, t) in a.into_iter().chain(b) {
                if set.len() < ws && !in_set[t] {
                    in_set[t] = true;
                    set.push(t);
                }
            }
        }
        for &t in &set {
            in_set[t] = false;
        }
        Some(set)
    }

    /// Second-order SMO on the variables `set` with their matrix `kernel` (row-major), from the
    /// current point, updating their coefficients and gradients; stops when their violation falls
    /// to a tenth of its start (or to tol) or after a number of steps. Returns the steps made.
    fn solve_inner(&mut self, set: &[usize], kernel: &[f64], tol: f64, cap: u64) -> u64 {
        let q = set.len();
        let mut a: Vec<f64> = set.iter().map(|&t| self.alpha[t]).collect();
        let mut g: Vec<f64> = set.iter().map(|&t| self.g[t]).collect();
        let (lo, hi): (Vec<f64>, Vec<f64>) = set.iter().map(|&t| (self.lo[t], self.hi[t])).unzip();
        let qd: Vec<f64> = (0..q).map(|k| kernel[k * q + k]).collect();
        let mut status: Vec<u8> = (0..q).map(|k| status_of(a[k], lo[k], hi[k])).collect();
        let limit = (INNER_STEPS_PER_VARIABLE * q) as u64;
        let mut target = tol;
        let mut steps = 0u64;
        while steps < limit.min(cap) {
            // i: the largest gradient that may increase; j: the best second-order partner
            let (mut gmax, mut i) = (f64::NEG_INFINITY, usize::MAX);
            for k in 0..q {
                if status[k] & UP != 0 && g[k] >= gmax {
                    gmax = g[k];
                    i = k;
                }
            }
            if i == usize::MAX {
                break;
            }
            let ki = &kernel[i * q..(i + 1) * q];
            let (mut gmin, mut best, mut j) = (f64::INFINITY, f64::INFINITY, usize::MAX);
            for k in 0..q {
                if status[k] & DOWN == 0 {
                    continue;
                }
                gmin = gmin.min(g[k]);
                let diff = gmax - g[k];
                if diff > 0.0 {
                    let curvature = qd[i] + qd[k] - 2.0 * ki[k];
                    let gain = -(diff * diff) / if curvature > 0.0 { curvature } else { TAU };
                    if gain <= best {
                        best = gain;
                        j = k;
                    }
                }
            }
            if steps == 0 {
                target = tol.max(INNER_REDUCTION * (gmax - gmin));
            }
            if j == usize::MAX || gmax - gmin < target {
                break;
            }
            let kj = &kernel[j * q..(j + 1) * q];
            let mut curvature = qd[i] + qd[j] - 2.0 * ki[j];
            if curvature <= 0.0 {
                curvature = TAU;
            }
            let (room_i, room_j) = (hi[i] - a[i], a[j] - lo[j]);
            let lambda = ((g[i] - g[j]) / curvature).min(room_i).min(room_j);
            a[i] = if lambda == room_i { hi[i] } else { a[i] + lambda };
            a[j] = if lambda == room_j { lo[j] } else { a[j] - lambda };
            for k in 0..q {
                g[k] -= lambda * (ki[k] - kj[k]);
            }
            status[i] = status_of(a[i], lo[i], hi[i]);
            status[j] = status_of(a[j], lo[j], hi[j]);
            steps += 1;
        }
        for (k, &t) in set.iter().enumerate() {
            self.alpha[t] = a[k];
        }
        steps
    }
}
