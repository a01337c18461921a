//! SMO decomposition on the signed dual (LIBSVM / SVMTorch style):
//!
//!   maximise D(a) = sum_t p_t a_t - 1/2 a'Qa   subject to  sum_t a_t = 0,  lo_t <= a_t <= hi_t
//!
//! with gradient g = p - Qa. Each iteration moves one pair along e_i - e_j: i increases (a_i < hi_i),
//! j decreases (a_j > lo_j). C-SVC is p = y, [lo, hi] = [min(0, C y), max(0, C y)]; epsilon-SVR is
//! the 2L-variable problem with independent alpha+ and alpha- (`svm` module builds both).
//!
//! The solver is organised as LIBSVM's: working-set selection, the pair update, shrinking, and
//! gradient reconstruction, each in its own function. Positions are reordered so that the active
//! (unshrunk) variables come first; `index` maps positions back to variables.

use crate::control::Control;
use crate::error::{Error, Result};
use crate::solver::qmatrix::QMatrix;
use crate::team::{Team, SOLO};

/// Curvature used when Q_ii + Q_jj - 2 Q_ij is not positive (non-PSD kernels, duplicates).
const TAU: f64 = 1e-12;

/// How SMO picks the pair (i, j) of each iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Selection {
    /// Maximal violating pair (thesis Algorithm 1, SVMTorch).
    FirstOrder,
    /// Fan, Chen and Lin's second-order choice of j (LIBSVM >= 2.8).
    SecondOrder,
}

crate::error::option_names!(Selection, "selection", { SecondOrder => "second_order", FirstOrder => "first_order" });

/// When SMO stops, and how it works towards that.
#[derive(Clone, Debug)]
pub struct SmoParams {
    /// Stop when max_{a_t<hi_t} g_t - min_{a_t>lo_t} g_t < tol.
    pub tol: f64,
    /// Set aside, every min(l, 1000) iterations, the variables that seem bound to stay at a
    /// bound; the whole gradient is reconstructed before stopping.
    pub shrinking: bool,
    /// None: no limit beyond a safety cap of max(10^7, 100 n).
    pub max_iter: Option<u64>,
    /// The working-set rule.
    pub selection: Selection,
}

impl Default for SmoParams {
    fn default() -> Self {
        SmoParams { tol: 1e-3, shrinking: true, max_iter: None, selection: Selection::SecondOrder }
    }
}

/// What SMO returns: the dual point reached, how it got there, and the quantities a warm start
/// along C needs.
#[derive(Clone, Debug)]
pub struct SmoSolution {
    /// Signed coefficients, in the caller's variable order.
    pub alpha: Vec<f64>,
    /// b of f(x) = sum_t alpha_t K(x, x_t) + b: the mean gradient over the free variables, or
    /// the middle of the bounds' gradients when none is free.
    pub bias: f64,
    /// Dual objective D(alpha) (maximised).
    pub objective: f64,
    /// Pair updates made.
    pub iterations: u64,
    /// No pair violated `tol` at the end (false: `max_iter` or the safety cap came first).
    pub converged: bool,
    /// Final maximal violation max_up g - min_low g.
    pub gap: f64,
    /// Final gradient p - Q alpha, in the caller's variable order.
    pub gradient: Vec<f64>,
    /// The part of Q alpha owed to the variables at a nonzero bound (what a warm start along C
    /// rescales instead of recomputing), in the caller's order. Exact when the solve started from
    /// zero, was given its own, or shrinks; zeros from ISDA.
    pub gbar: Vec<f64>,
}

struct Smo<'q> {
    q: &'q mut dyn QMatrix,
    /// Splits the gradient update and the selection scans (the rows are split by `q`).
    team: &'q Team<'q>,
    l: usize,
    active: usize,
    alpha: Vec<f64>,
    g: Vec<f64>,
    /// Gradient part owed to variables sitting at a nonzero bound: sum_s a_s Q_st.
    gbar: Vec<f64>,
    p: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    qd: Vec<f64>,
    /// UP if the variable may increase (a < hi), DOWN if it may decrease (a > lo): what the
    /// selection scans read, one byte instead of three values.
    status: Vec<u8>,
    index: Vec<usize>,
    unshrunk: bool,
    /// `scan_up` of the active set as the last update left it, computed in the same pass as the
    /// gradient (one pass over the data instead of two), with the active size it covers.
    next_up: Option<(usize, Up)>,
}

const UP: u8 = 1;
/// What `scan_up` finds: the largest gradient of a variable that may increase, and its position.
type Up = Option<(f64, usize)>;
const DOWN: u8 = 2;

/// Solves the signed dual from the feasible start `alpha0` (sum zero, within bounds).
pub fn solve(
    q: &mut dyn QMatrix, p: &[f64], lo: &[f64], hi: &[f64], alpha0: &[f64], params: &SmoParams, control: &Control,
) -> Result<SmoSolution> {
    solve_warm(q, p, lo, hi, alpha0, None, params, control)
}

/// `solve` from a starting point whose gradient p - Q alpha0 the caller already knows (an online
/// solver's state): no kernel row is computed to start. With shrinking, the rows of the variables
/// at a bound still are (the solver keeps their part of the gradient aside).
#[allow(clippy::too_many_arguments)]
pub fn solve_warm(
    q: &mut dyn QMatrix, p: &[f64], lo: &[f64], hi: &[f64], alpha0: &[f64], gradient0: Option<&[f64]>,
    params: &SmoParams, control: &Control,
) -> Result<SmoSolution> {
    solve_on(&SOLO, q, p, lo, hi, alpha0, gradient0, params, control)
}

/// `solve_warm` with the gradient update and the selection scans split over `team` (give `q` the
/// same team for its rows). The solution does not depend on the team's size.
#[allow(clippy::too_many_arguments)]
pub fn solve_on<'q>(
    team: &'q Team<'q>, q: &'q mut dyn QMatrix, p: &[f64], lo: &[f64], hi: &[f64], alpha0: &[f64],
    gradient0: Option<&[f64]>, params: &SmoParams, control: &Control,
) -> Result<SmoSolution> {
    solve_from(team, q, p, lo, hi, alpha0, gradient0, None, params, control)
}

/// `solve_on` from a start whose gradient and bound part `gbar` (see `SmoSolution::gbar`) the
/// caller knows both: not a kernel row is computed to start, shrinking or not.
#[allow(clippy::too_many_arguments)]
pub fn solve_from<'q>(
    team: &'q Team<'q>, q: &'q mut dyn QMatrix, p: &[f64], lo: &[f64], hi: &[f64], alpha0: &[f64],
    gradient0: Option<&[f64]>, gbar0: Option<&[f64]>, params: &SmoParams, control: &Control,
) -> Result<SmoSolution> {
    let l = q.size();
    let wrong = |v: Option<&[f64]>| v.is_some_and(|g| g.len() != l);
    if p.len() != l || lo.len() != l || hi.len() != l || alpha0.len() != l || wrong(gradient0) || wrong(gbar0) {
        return Err(Error::InvalidData("SMO problem vectors differ in length".into()));
    }
    if !(params.tol > 0.0) {
        return Err(Error::InvalidParameter("tol must be positive".into()));
    }
    let qd = (0..l).map(|t| q.diag(t)).collect();
    let mut s = Smo {
        q,
        team,
        l,
        active: l,
        alpha: alpha0.to_vec(),
        g: p.to_vec(),
        gbar: vec![0.0; l],
        p: p.to_vec(),
        lo: lo.to_vec(),
        hi: hi.to_vec(),
        qd,
        status: vec![0; l],
        index: (0..l).collect(),
        unshrunk: false,
        next_up: None,
    };
    for t in 0..l {
        s.set_status(t);
    }
    match gradient0 {
        Some(g) => {
            s.g.copy_from_slice(g);
            match gbar0 {
                Some(gb) => s.gbar.copy_from_slice(gb),
                None if params.shrinking => s.init_gbar(),
                None => {}
            }
        }
        None => s.init_gradient(),
    }
    s.run(params, control)
}

impl<'q> Smo<'q> {
    /// The value a variable contributes to `gbar`: itself when at a bound, else nothing.
    #[inline(always)]
    fn bound_value(&self, t: usize, a: f64) -> f64 {
        if a == self.lo[t] || a == self.hi[t] {
            a
        } else {
            0.0
        }
    }

    fn init_gradient(&mut self) {
        for s in 0..self.l {
            let a = self.alpha[s];
            if a != 0.0 {
                let bv = self.bound_value(s, a);
                let row = self.q.row(s, self.l);
                for t in 0..self.l {
                    let k = row[t] as f64;
                    self.g[t] -= a * k;
                    self.gbar[t] += bv * k;
                }
            }
        }
    }

    /// gbar alone, from the rows of the variables at a nonzero bound.
    fn init_gbar(&mut self) {
        for s in 0..self.l {
            let bv = self.bound_value(s, self.alpha[s]);
            if bv != 0.0 {
                let row = self.q.row(s, self.l);
                for (gb, &k) in self.gbar.iter_mut().zip(row) {
                    *gb += bv * k as f64;
                }
            }
        }
    }

    fn set_status(&mut self, t: usize) {
        self.status[t] = status_of(self.alpha[t], self.lo[t], self.hi[t]);
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.q.swap(i, j);
        self.status.swap(i, j);
        self.alpha.swap(i, j);
        self.g.swap(i, j);
        self.gbar.swap(i, j);
        self.p.swap(i, j);
        self.lo.swap(i, j);
        self.hi.swap(i, j);
        self.qd.swap(i, j);
        self.index.swap(i, j);
        self.next_up = None;
    }

    /// (max g over variables that may increase, min g over those that may decrease), active set.
    fn extremes(&self) -> (f64, f64) {
        let (mut up, mut down) = (f64::NEG_INFINITY, f64::INFINITY);
        for t in 0..self.active {
            let (a, g) = (self.alpha[t], self.g[t]);
            if a < self.hi[t] && g > up {
                up = g;
            }
            if a > self.lo[t] && g < down {
                down = g;
            }
        }
        (up, down)
    }

    /// The pair (i, j) to move (i up, j down), or None when the active problem is tol-optimal.
    fn select(&mut self, tol: f64, selection: Selection) -> Option<(usize, usize)> {
        let n = self.active;
        let up = match self.next_up.take() {
            Some((active, up)) if active == n => up,
            _ => team_scan_up(self.team, &self.g[..n], &self.status[..n]),
        };
        let (gmax, i) = up?;
        let (gmin, j) = match selection {
            Selection::FirstOrder => scan_down_first_order(&self.g[..n], &self.status[..n]),
            Selection::SecondOrder => {
                let qdi = self.qd[i];
                let qi = self.q.row(i, n);
                team_scan_down_second_order(self.team, &self.g[..n], &self.status[..n], &self.qd[..n], qi, gmax, qdi)
            }
        };
        if gmax - gmin < tol || j == usize::MAX {
            return None;
        }
        Some((i, j))
    }

    /// Moves a_i up and a_j down by the clipped Newton step and updates the gradients.
    fn update(&mut self, i: usize, j: usize) {
        let n = self.active;
        let (old_i, old_j) = (self.alpha[i], self.alpha[j]);
        {
            let (qi, qj) = self.q.two_rows(i, j, n);
            let mut a = self.qd[i] + self.qd[j] - 2.0 * qi[j] as f64;
            if a <= 0.0 {
                a = TAU;
            }
            let room_i = self.hi[i] - old_i;
            let room_j = old_j - self.lo[j];
            let lambda = ((self.g[i] - self.g[j]) / a).min(room_i).min(room_j);
            self.alpha[i] = if lambda == room_i { self.hi[i] } else { old_i + lambda };
            self.alpha[j] = if lambda == room_j { self.lo[j] } else { old_j - lambda };
            // (the rows borrow the matrix: set_status would borrow all of self)
            for t in [i, j] {
                self.status[t] = status_of(self.alpha[t], self.lo[t], self.hi[t]);
            }
            // the next selection's first scan rides along with the update
            let status = &self.status;
            let parts = self.team.map_chunks(&mut self.g[..n], &|offset, g| {
                let (qi, qj) = (&qi[offset..offset + g.len()], &qj[offset..offset + g.len()]);
                for ((gt, &ki), &kj) in g.iter_mut().zip(qi).zip(qj) {
                    *gt -= lambda * (ki as f64 - kj as f64);
                }
                scan_up(g, &status[offset..offset + g.len()]).map(|(v, t)| (v, t + offset))
            });
            self.next_up = Some((n, merge_up(parts)));
        }
        for (t, old) in [(i, old_i), (j, old_j)] {
            let d = self.bound_value(t, self.alpha[t]) - self.bound_value(t, old);
            if d != 0.0 {
                let row = self.q.row(t, self.l);
                self.team.for_chunks(&mut self.gbar, &|offset, gbar| {
                    for (gb, &k) in gbar.iter_mut().zip(&row[offset..]) {
                        *gb += d * k as f64;
                    }
                });
            }
        }
    }

    fn shrinkable(&self, t: usize, up: f64, down: f64) -> bool {
        let (a, lo, hi) = (self.alpha[t], self.lo[t], self.hi[t]);
        if lo == hi {
            true
        } else if a >= hi {
            // may only decrease: useless while its gradient exceeds every candidate to increase
            self.g[t] > up
        } else if a <= lo {
            self.g[t] < down
        } else {
            false
        }
    }

    fn shrink(&mut self, tol: f64, control: &Control) -> Result<()> {
        let (up, down) = self.extremes();
        if !self.unshrunk && up - down <= 10.0 * tol {
            // Close to the end: bring everything back once so shrinking mistakes are undone.
            self.unshrunk = true;
            self.reconstruct_gradient(control)?;
            self.active = self.l;
        }
        let mut t = 0;
        while t < self.active {
            if self.shrinkable(t, up, down) {
                self.active -= 1;
                while self.active > t {
                    if !self.shrinkable(self.active, up, down) {
                        self.swap(t, self.active);
                        break;
                    }
                    self.active -= 1;
                }
            }
            t += 1;
        }
        Ok(())
    }

    /// Recomputes the gradient of the shrunk variables: g = p - gbar - (free part of Q a).
    /// Each kernel row can take milliseconds on large data, and there can be thousands: polls per row.
    fn reconstruct_gradient(&mut self, control: &Control) -> Result<()> {
        let (n, l) = (self.active, self.l);
        if n == l {
            return Ok(());
        }
        for t in n..l {
            self.g[t] = self.p[t] - self.gbar[t];
        }
        let free: Vec<usize> = (0..n).filter(|&s| self.alpha[s] > self.lo[s] && self.alpha[s] < self.hi[s]).collect();
        if free.len() * l > 2 * n * (l - n) {
            for t in n..l {
                control.poll()?;
                let row = self.q.row(t, n);
                let mut s_sum = 0.0;
                for &s in &free {
                    s_sum += self.alpha[s] * row[s] as f64;
                }
                self.g[t] -= s_sum;
            }
        } else {
            for &s in &free {
                control.poll()?;
                let a = self.alpha[s];
                let row = self.q.row(s, l);
                // (each entry on its own: the same values on a team of any size)
                self.team.for_chunks(&mut self.g[n..l], &|offset, g| {
                    for (gt, &k) in g.iter_mut().zip(&row[n + offset..]) {
                        *gt -= a * k as f64;
                    }
                });
            }
        }
        Ok(())
    }

    fn run(mut self, params: &SmoParams, control: &Control) -> Result<SmoSolution> {
        let l = self.l;
        let cap = params.max_iter.unwrap_or_else(|| (100 * l as u64).max(10_000_000));
        let period = l.clamp(1, 1000);
        let mut counter = period + 1;
        let mut iter: u64 = 0;
        let mut converged = false;
        while iter < cap {
            counter -= 1;
            control.poll()?;
            if counter == 0 {
                counter = period;
                control.add_iterations(period as u64);
                if params.shrinking {
                    self.shrink(params.tol, control)?;
                }
            }
            let pair = match self.select(params.tol, params.selection) {
                Some(pair) => pair,
                None => {
                    self.reconstruct_gradient(control)?;
                    self.active = l;
                    match self.select(params.tol, params.selection) {
                        Some(pair) => {
                            counter = 1;
                            pair
                        }
                        None => {
                            converged = true;
                            break;
                        }
                    }
                }
            };
            self.update(pair.0, pair.1);
            iter += 1;
        }
        if !converged {
            self.reconstruct_gradient(control)?;
            self.active = l;
        }
        Ok(self.finish(iter, converged))
    }

    fn finish(self, iterations: u64, converged: bool) -> SmoSolution {
        let (mut sum, mut nfree) = (0.0, 0usize);
        let (mut lb, mut ub) = (f64::NEG_INFINITY, f64::INFINITY);
        let mut objective = 0.0;
        for t in 0..self.l {
            let (a, g) = (self.alpha[t], self.g[t]);
            objective += 0.5 * a * (self.p[t] + g);
            if self.lo[t] == self.hi[t] {
                continue;
            }
            if a >= self.hi[t] {
                ub = ub.min(g);
            } else if a <= self.lo[t] {
                lb = lb.max(g);
            } else {
                sum += g;
                nfree += 1;
            }
        }
        let bias = if nfree > 0 {
            sum / nfree as f64
        } else if lb.is_finite() && ub.is_finite() {
            0.5 * (lb + ub)
        } else if lb.is_finite() {
            lb
        } else if ub.is_finite() {
            ub
        } else {
            0.0
        };
        let (up, down) = self.extremes();
        let mut alpha = vec![0.0; self.l];
        let mut gradient = vec![0.0; self.l];
        let mut gbar = vec![0.0; self.l];
        for t in 0..self.l {
            alpha[self.index[t]] = self.alpha[t];
            gradient[self.index[t]] = self.g[t];
            gbar[self.index[t]] = self.gbar[t];
        }
        SmoSolution { alpha, bias, objective, iterations, converged, gap: (up - down).max(0.0), gradient, gbar }
    }
}

/// max g over variables that may increase, and the last position holding it. Panics if
/// `status` is shorter than `g` (the solver keeps one of each per variable).
fn scan_up(g: &[f64], status: &[u8]) -> Option<(f64, usize)> {
    assert!(status.len() >= g.len(), "a status per gradient entry");
    #[cfg(target_arch = "x86_64")]
    {
        if crate::vecops::has_avx2() {
            // SAFETY: the feature was just detected.
            return unsafe { avx2::scan_up(g, status) };
        }
    }
    scan_up_from(g, status, 0, f64::NEG_INFINITY, usize::MAX)
}

/// `scan_up` over positions from..len, continuing from the best (v, i) found before.
fn scan_up_from(g: &[f64], status: &[u8], from: usize, mut v: f64, mut i: usize) -> Option<(f64, usize)> {
    for t in from..g.len() {
        if status[t] & UP != 0 && g[t] >= v {
            v = g[t];
            i = t;
        }
    }
    (i != usize::MAX).then_some((v, i))
}

/// min g over variables that may decrease, and the last position holding it.
fn scan_down_first_order(g: &[f64], status: &[u8]) -> (f64, usize) {
    let (mut v, mut j) = (f64::INFINITY, usize::MAX);
    for t in 0..g.len() {
        if status[t] & DOWN != 0 && g[t] <= v {
            v = g[t];
            j = t;
        }
    }
    (v, j)
}

/// Over variables that may decrease: min g (for the stopping test), and Fan, Chen and Lin's j, the
/// last position minimising -(gmax - g_t)^2 / (Q_ii + Q_tt - 2 Q_it) among those with g_t < gmax.
/// Panics if `status`, `qd` or `qi` is shorter than `g`.
fn scan_down_second_order(g: &[f64], status: &[u8], qd: &[f64], qi: &[f32], gmax: f64, qdi: f64) -> (f64, f64, usize) {
    assert!(status.len() >= g.len() && qd.len() >= g.len() && qi.len() >= g.len(), "an entry per gradient entry");
    #[cfg(target_arch = "x86_64")]
    {
        if crate::vecops::has_avx2() {
            // SAFETY: the feature was just detected.
            return unsafe { avx2::scan_down_second_order(g, status, qd, qi, gmax, qdi) };
        }
    }
    scan_down_second_order_from(g, status, qd, qi, gmax, qdi, 0, (f64::INFINITY, f64::INFINITY, usize::MAX))
}

/// `scan_down_second_order` over from..len, continuing from (gmin, best objective, j).
#[allow(clippy::too_many_arguments)]
fn scan_down_second_order_from(
    g: &[f64], status: &[u8], qd: &[f64], qi: &[f32], gmax: f64, qdi: f64, from: usize,
    (mut gmin, mut best, mut j): (f64, f64, usize),
) -> (f64, f64, usize) {
    for t in from..g.len() {
        if status[t] & DOWN == 0 {
            continue;
        }
        if g[t] < gmin {
            gmin = g[t];
        }
        let b = gmax - g[t];
        if b > 0.0 {
            let a = qdi + qd[t] - 2.0 * qi[t] as f64;
            let a = if a > 0.0 { a } else { TAU };
            let obj = -(b * b) / a;
            if obj <= best {
                best = obj;
                j = t;
            }
        }
    }
    (gmin, best, j)
}

/// The status byte of a variable at `a` in [lo, hi].
fn status_of(a: f64, lo: f64, hi: f64) -> u8 {
    (if a < hi { UP } else { 0 }) | (if a > lo { DOWN } else { 0 })
}

/// `scan_up` split over a team: each member scans a contiguous part, and the parts are merged in
/// order with the sequential tie rule (the last position wins), so the choice is the same.
fn team_scan_up(team: &Team, g: &[f64], status: &[u8]) -> Up {
    merge_up(team.map(g.len(), &|r| scan_up(&g[r.clone()], &status[r.clone()]).map(|(v, i)| (v, i + r.start))))
}

/// The parts' `scan_up` results, in order, merged with the sequential tie rule.
fn merge_up(found: Vec<Up>) -> Up {
    let mut best: Up = None;
    for (v, i) in found.into_iter().flatten() {
        if best.is_none_or(|(b, _)| v >= b) {
            best = Some((v, i));
        }
    }
    best
}

/// `scan_down_second_order` split over a team, merged as `team_scan_up` is: (min g, j).
fn team_scan_down_second_order(
    team: &Team, g: &[f64], status: &[u8], qd: &[f64], qi: &[f32], gmax: f64, qdi: f64,
) -> (f64, usize) {
    let found = team.map(g.len(), &|r| {
        let (gmin, best, j) =
            scan_down_second_order(&g[r.clone()], &status[r.clone()], &qd[r.clone()], &qi[r.clone()], gmax, qdi);
        (gmin, best, if j == usize::MAX { j } else { j + r.start })
    });
    let (mut gmin, mut best, mut j) = (f64::INFINITY, f64::INFINITY, usize::MAX);
    for (pg, pb, pj) in found {
        if pg < gmin {
            gmin = pg;
        }
        if pj != usize::MAX && pb <= best {
            best = pb;
            j = pj;
        }
    }
    (gmin, j)
}

/// The two selection scans four positions at a time: each lane keeps its own running best, the
/// lanes are merged with the sequential scan's tie rule (the last position wins), and the tail
/// is finished by the sequential scan, so the choice is exactly the sequential one. The vector
/// part stops at the shortest slice it reads, so it stays in bounds whatever their lengths.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{scan_down_second_order_from, scan_up_from, DOWN, TAU, UP};

    /// All-ones lanes where status[t + k] has `bit`.
    ///
    /// # Safety
    /// `t + 4 <= status.len()`, and the processor has AVX2.
    #[inline(always)]
    unsafe fn has(status: &[u8], t: usize, bit: u8) -> __m256d {
        debug_assert!(t + 4 <= status.len());
        // SAFETY: status[t..t + 4] is inside the slice (the contract); an unaligned read of 4 bytes.
        let four = unsafe { (status.as_ptr().add(t) as *const i32).read_unaligned() };
        // SAFETY: register operations only; the processor has AVX2 (the contract).
        unsafe {
            let s = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(four));
            let b = _mm256_set1_epi64x(bit as i64);
            _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(s, b), b))
        }
    }

    /// Four running bests with the positions that hold them, advancing four positions a step.
    /// Its methods are unsafe for one reason: the processor must have AVX2.
    struct Lanes {
        best: __m256d,
        arg: __m256i,
        idx: __m256i,
    }

    impl Lanes {
        #[inline(always)]
        unsafe fn new(start: f64) -> Self {
            // SAFETY: register operations only; AVX2 is the caller's promise.
            unsafe {
                Lanes { best: _mm256_set1_pd(start), arg: _mm256_set1_epi64x(-1), idx: _mm256_setr_epi64x(0, 1, 2, 3) }
            }
        }
        /// Keeps `value` (and the current positions) in the lanes where `take` is set, then steps.
        #[inline(always)]
        unsafe fn keep(&mut self, value: __m256d, take: __m256d) {
            // SAFETY: register operations only; AVX2 is the caller's promise.
            unsafe {
                self.best = _mm256_blendv_pd(self.best, value, take);
                let arg = _mm256_blendv_pd(_mm256_castsi256_pd(self.arg), _mm256_castsi256_pd(self.idx), take);
                self.arg = _mm256_castpd_si256(arg);
                self.idx = _mm256_add_epi64(self.idx, _mm256_set1_epi64x(4));
            }
        }
        /// Best lane by `better`, ties to the larger position; (start, usize::MAX) if no lane has one.
        #[inline(always)]
        unsafe fn merge(&self, start: f64, better: impl Fn(f64, f64) -> bool) -> (f64, usize) {
            let mut v = [0.0f64; 4];
            let mut i = [0i64; 4];
            // SAFETY: each store writes 32 bytes into a 4-lane array of 8-byte lanes, unaligned
            // stores allowed; AVX2 is the caller's promise.
            unsafe {
                _mm256_storeu_pd(v.as_mut_ptr(), self.best);
                _mm256_storeu_si256(i.as_mut_ptr() as *mut __m256i, self.arg);
            }
            let (mut bv, mut bi) = (start, usize::MAX);
            for k in 0..4 {
                if i[k] < 0 {
                    continue;
                }
                let ik = i[k] as usize;
                if bi == usize::MAX || better(v[k], bv) || (v[k] == bv && ik > bi) {
                    bv = v[k];
                    bi = ik;
                }
            }
            (bv, bi)
        }
    }

    /// # Safety
    /// The processor has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn scan_up(g: &[f64], status: &[u8]) -> Option<(f64, usize)> {
        let full = g.len().min(status.len()) / 4 * 4;
        // SAFETY: AVX2 is the caller's promise (so for the other `lanes` calls).
        let mut lanes = unsafe { Lanes::new(f64::NEG_INFINITY) };
        let mut t = 0;
        while t < full {
            // SAFETY: t + 4 <= full <= g.len() and status.len(); AVX2 is the caller's promise.
            let (vg, up) = unsafe { (_mm256_loadu_pd(g.as_ptr().add(t)), has(status, t, UP)) };
            let take = _mm256_and_pd(up, _mm256_cmp_pd::<_CMP_GE_OQ>(vg, lanes.best));
            // SAFETY: as for `Lanes::new`.
            unsafe { lanes.keep(vg, take) };
            t += 4;
        }
        // SAFETY: as for `Lanes::new`.
        let (v, i) = unsafe { lanes.merge(f64::NEG_INFINITY, |a, b| a > b) };
        scan_up_from(g, status, full, v, i)
    }

    /// # Safety
    /// The processor has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn scan_down_second_order(
        g: &[f64], status: &[u8], qd: &[f64], qi: &[f32], gmax: f64, qdi: f64,
    ) -> (f64, f64, usize) {
        let full = g.len().min(status.len()).min(qd.len()).min(qi.len()) / 4 * 4;
        let (vgmax, vqdi, vtau) = (_mm256_set1_pd(gmax), _mm256_set1_pd(qdi), _mm256_set1_pd(TAU));
        let (zero, two, sign) = (_mm256_setzero_pd(), _mm256_set1_pd(2.0), _mm256_set1_pd(-0.0));
        let mut gmin = _mm256_set1_pd(f64::INFINITY);
        // SAFETY: AVX2 is the caller's promise (so for the other `lanes` calls).
        let mut lanes = unsafe { Lanes::new(f64::INFINITY) };
        let mut t = 0;
        while t < full {
            // SAFETY: t + 4 <= full, no longer than any of the four slices; AVX2 is the caller's promise.
            let (vg, down, q, vqd) = unsafe {
                (
                    _mm256_loadu_pd(g.as_ptr().add(t)),
                    has(status, t, DOWN),
                    _mm256_cvtps_pd(_mm_loadu_ps(qi.as_ptr().add(t))),
                    _mm256_loadu_pd(qd.as_ptr().add(t)),
                )
            };
            gmin = _mm256_blendv_pd(gmin, _mm256_min_pd(gmin, vg), down);
            let b = _mm256_sub_pd(vgmax, vg);
            let a = _mm256_sub_pd(_mm256_add_pd(vqdi, vqd), _mm256_mul_pd(two, q));
            let a = _mm256_blendv_pd(vtau, a, _mm256_cmp_pd::<_CMP_GT_OQ>(a, zero));
            let obj = _mm256_div_pd(_mm256_xor_pd(_mm256_mul_pd(b, b), sign), a);
            let take = _mm256_and_pd(
                _mm256_and_pd(down, _mm256_cmp_pd::<_CMP_GT_OQ>(b, zero)),
                _mm256_cmp_pd::<_CMP_LE_OQ>(obj, lanes.best),
            );
            // SAFETY: as for `Lanes::new`.
            unsafe { lanes.keep(obj, take) };
            t += 4;
        }
        let mut gmins = [0.0f64; 4];
        // SAFETY: 32 bytes stored into a 4-lane f64 array, unaligned stores allowed.
        unsafe { _mm256_storeu_pd(gmins.as_mut_ptr(), gmin) };
        let low = gmins.iter().copied().fold(f64::INFINITY, f64::min);
        // SAFETY: as for `Lanes::new`.
        let (obj, j) = unsafe { lanes.merge(f64::INFINITY, |a, b| a < b) };
        scan_down_second_order_from(g, status, qd, qi, gmax, qdi, full, (low, obj, j))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A problem large enough for every pass to be split gives the same solution, to the last
    /// bit, on a team of one, two and three (so does `n_jobs`), with the same kernel work.
    #[test]
    fn teams_of_any_size_solve_to_the_same_bits() {
        use crate::data::{DenseView, Matrix};
        use crate::kernel::{KernelEngine, KernelSpec, Split};
        use crate::rng::Rng;
        use crate::solver::qmatrix::ExampleQ;
        use crate::team::with_team;

        let (n, d) = (4000, 4);
        let mut rng = Rng::new(11);
        let xs: Vec<f64> = (0..n * d).map(|_| rng.below(10_000) as f64 / 5000.0 - 1.0).collect();
        // a noisy circle: many free and many bounded support vectors
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let r = xs[d * i] * xs[d * i] + xs[d * i + 1] * xs[d * i + 1];
                if (r < 0.5) != (rng.below(10) == 0) {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        let x = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
        let (lo, hi): (Vec<f64>, Vec<f64>) = y.iter().map(|&v| ((v * 2.0).min(0.0), (v * 2.0).max(0.0))).unzip();
        let solve = |threads: usize| {
            let engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 2.0 }).unwrap();
            let sol = with_team(threads, |team| {
                let split = if team.size() > 1 { Split::Team(team) } else { Split::Serial };
                // a small cache: rows are computed again and again, and swapped while cached
                let mut q = ExampleQ::new(&engine, (0..n).collect(), 4 * n * 400).split(split);
                solve_on(team, &mut q, &y, &lo, &hi, &vec![0.0; n], None, &SmoParams::default(), &Control::new())
                    .unwrap()
            });
            (sol, engine.evals())
        };
        let (one, evals) = solve(1);
        assert!(one.converged && one.iterations > 1000);
        for threads in [2, 3] {
            let (other, other_evals) = solve(threads);
            assert_eq!(other.iterations, one.iterations);
            assert_eq!(other_evals, evals);
            assert!(other.alpha.iter().zip(&one.alpha).all(|(a, b)| a.to_bits() == b.to_bits()));
            assert_eq!(other.bias.to_bits(), one.bias.to_bits());
        }
    }

    /// A status or curvature slice shorter than the gradients is refused before any vector load.
    #[test]
    fn scans_refuse_short_slices() {
        let g = vec![1.0; 64];
        let status = vec![UP | DOWN; 64];
        let (qd, qi) = (vec![1.0; 64], vec![0.5f32; 64]);
        assert!(std::panic::catch_unwind(|| scan_up(&g, &status[..5])).is_err());
        assert!(std::panic::catch_unwind(|| scan_down_second_order(&g, &status[..5], &qd, &qi, 2.0, 1.0)).is_err());
        assert!(std::panic::catch_unwind(|| scan_down_second_order(&g, &status, &qd[..9], &qi, 2.0, 1.0)).is_err());
        assert!(std::panic::catch_unwind(|| scan_down_second_order(&g, &status, &qd, &qi[..1], 2.0, 1.0)).is_err());
        assert_eq!(scan_up(&g[..7], &status), Some((1.0, 6)));
    }

    #[test]
    fn vector_scans_choose_exactly_as_sequential_scans() {
        let mut rng = crate::rng::Rng::new(5);
        for n in [0, 1, 3, 4, 7, 64, 1001] {
            for _ in 0..50 {
                // few distinct values: many ties; q in {0, 0.5, 1} gives zero curvature (TAU) too
                let g: Vec<f64> = (0..n).map(|_| rng.below(7) as f64 - 3.0).collect();
                let status: Vec<u8> = (0..n).map(|_| rng.below(4) as u8).collect();
                let qd = vec![1.0; n];
                let qi: Vec<f32> = (0..n).map(|_| rng.below(3) as f32 * 0.5).collect();
                let up = scan_up(&g, &status);
                assert_eq!(up, scan_up_from(&g, &status, 0, f64::NEG_INFINITY, usize::MAX));
                if let Some((gmax, i)) = up {
                    let fast = scan_down_second_order(&g, &status, &qd, &qi, gmax, qd[i]);
                    let plain = scan_down_second_order_from(
                        &g,
                        &status,
                        &qd,
                        &qi,
                        gmax,
                        qd[i],
                        0,
                        (f64::INFINITY, f64::INFINITY, usize::MAX),
                    );
                    assert_eq!(fast, plain);
                }
            }
        }
    }
}
