//! SMO decomposition on the signed dual (LIBSVM / SVMTorch style):
//!
//!   maximise D(a) = sum_t p_t a_t - 1/2 a'Qa   subject to  lo_t <= a_t <= hi_t
//!
//! and one or two equality constraints (`Equality`): sum_t a_t constant (C-SVC, epsilon-SVR,
//! one-class), or the sum of each sign's variables constant (nu-SVC, nu-SVR: LIBSVM's
//! `Solver_NU`). The gradient is g = p - Qa. Each iteration moves one pair along e_i - e_j: i
//! increases (a_i < hi_i), j decreases (a_j > lo_j), both of one sign when the signs have their
//! own sums. C-SVC is p = y, [lo, hi] = [min(0, C y), max(0, C y)]; epsilon-SVR is the
//! 2L-variable problem with independent alpha+ and alpha- (`train::svm` builds them all).
//!
//! The solver is organised as LIBSVM's: working-set selection, the pair update, shrinking, and
//! gradient reconstruction, each in its own function; what the per-sign constraints change is
//! the set each scan reads (a status bit per sign) and the levels the bias is read from.
//! Positions are reordered so that the active (unshrunk) variables come first; `index` maps
//! positions back to variables.

mod prefetch;
mod scan;
mod working_set;

use scan::{merge_up, scan_down_first_order, scan_up, team_scan_down_second_order, team_scan_up};

use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::runtime::team::Team;
use crate::solver::qmatrix::QMatrix;

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
    /// Stop when max_{a_t<hi_t} g_t - min_{a_t>lo_t} g_t < tol (within each sign, for per-sign sums).
    pub tol: f64,
    /// Set aside, every min(l, 1000) iterations, the variables that seem bound to stay at a
    /// bound; the whole gradient is reconstructed before stopping.
    pub shrinking: bool,
    /// None: no limit beyond a safety cap of max(10^7, 100 n).
    pub max_iter: Option<u64>,
    /// The working-set rule.
    pub selection: Selection,
    /// Pair steps over the whole gradient, or working sets of many variables (`working_set`).
    pub decomposition: Decomposition,
}

impl Default for SmoParams {
    fn default() -> Self {
        SmoParams {
            tol: 1e-3,
            shrinking: true,
            max_iter: None,
            selection: Selection::SecondOrder,
            decomposition: Decomposition::Pairs,
        }
    }
}

/// How SMO decomposes the problem. Working sets apply to problems with one sum solved from zero
/// with the second-order rule (C-SVC) over a matrix that computes rows by blocks; elsewhere the
/// pair steps run whatever this says. The default is `Pairs`: working sets win where nearly every
/// example is a support vector (0.66x intelex's time at 32,000 dense rows, against 1.0x for pairs)
/// but lose where few are and the pairs' shrinking and cache work well (ijcnn1: 3.4 times the
/// pairs' time), and no rule tells the two apart before the solve yet; rows ahead likewise (twice
/// the kernel values on a 20,000-row set with a third of the examples support vectors).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decomposition {
    /// Working sets where they apply and the problem has at least 20,000 variables
    /// (`working_set::MIN_VARIABLES`), pair steps otherwise, with rows asked for ahead as blocks
    /// (`prefetch.rs`).
    Auto,
    /// Pair steps, each updating the whole gradient (LIBSVM's solver).
    Pairs,
    /// Working sets of this many variables where they apply (at most what the budget holds).
    WorkingSets(usize),
}

/// The equality constraints the dual keeps; a pair update keeps them all.
#[derive(Clone, Copy, Debug)]
pub enum Equality<'a> {
    /// sum_t a_t stays what the start gives (zero for C-SVC and epsilon-SVR, nu l for one-class).
    Total,
    /// The sum over the variables with `positive[t]` and the sum over the others each stay what
    /// the start gives (nu-SVC: the two classes; nu-SVR: alpha+ and alpha-).
    PerSign(&'a [bool]),
}

/// The dual problem: linear term `p`, the box [lo_t, hi_t] of each variable, and which sums the
/// updates keep; the Hessian is the `QMatrix` given beside it.
#[derive(Clone, Copy, Debug)]
pub struct DualProblem<'a> {
    /// The linear term p.
    pub p: &'a [f64],
    /// Lower bounds.
    pub lo: &'a [f64],
    /// Upper bounds.
    pub hi: &'a [f64],
    /// The equality constraints.
    pub equality: Equality<'a>,
}

/// Where SMO starts.
#[derive(Clone, Copy, Debug)]
pub enum Start<'a> {
    /// a = 0 (feasible when the constraints' sums are zero), gradient p.
    Zero,
    /// A feasible point (within the bounds, the sums as the problem wants them). `gradient`,
    /// p - Q alpha, when the caller knows it (an online solver's state): no kernel row is then
    /// computed to start except, with shrinking, the rows of the variables at a nonzero bound,
    /// unless `gbar` (their part of Q alpha, see `SmoSolution::gbar`) is given too.
    At {
        /// The starting coefficients.
        alpha: &'a [f64],
        /// Their gradient, if known.
        gradient: Option<&'a [f64]>,
        /// Their bound part of Q alpha, if known (read only with `gradient`).
        gbar: Option<&'a [f64]>,
    },
}

/// What SMO returns: the dual point reached, how it got there, and the quantities a warm start
/// along C needs.
#[derive(Clone, Debug)]
pub struct SmoSolution {
    /// Signed coefficients, in the caller's variable order.
    pub alpha: Vec<f64>,
    /// b of f(x) = sum_t alpha_t K(x, x_t) + b (LIBSVM's -rho): the level the gradient of the free
    /// variables settles at (their mean; the middle of the bounds' gradients when none is
    /// free). With per-sign sums each sign has its level, and b is their mean.
    pub bias: f64,
    /// With per-sign sums, half the difference of the two levels, positive sign's minus the
    /// other's (LIBSVM's -r: nu-SVC's margin is -r, nu-SVR's tube half-width r); 0 otherwise.
    pub r: f64,
    /// Dual objective D(alpha) (maximised).
    pub objective: f64,
    /// Pair updates made.
    pub iterations: u64,
    /// No pair violated `tol` at the end (false: `max_iter` or the safety cap came first).
    pub converged: bool,
    /// Final maximal violation max_up g - min_low g (the larger of the two signs').
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
    /// The bits UP and DOWN, shifted left by the variable's `shift`: what the selection scans
    /// read, one byte instead of three values, each sign's variables on their own bits.
    status: Vec<u8>,
    /// 0 for every variable with one sum; 0 (positive) or SIGN_SHIFT with per-sign sums.
    shift: Vec<u8>,
    /// Number of sums kept: 1 or 2.
    signs: usize,
    index: Vec<usize>,
    unshrunk: bool,
    /// `scan_up` of the active set for each sign as the last update left it, computed in the same
    /// pass as the gradient (one pass over the data instead of two), with the active size it covers.
    next_up: Option<(usize, [Up; 2])>,
    /// Rows asked for ahead as blocks (`prefetch_around`; `Decomposition::Auto` only).
    rows_ahead: bool,
}

const UP: u8 = 1;
/// What `scan_up` finds: the largest gradient of a variable that may increase, and its position.
type Up = Option<(f64, usize)>;
const DOWN: u8 = 2;
/// How far the second sign's status bits are shifted.
const SIGN_SHIFT: u8 = 2;

/// Solves `problem` from `start`, with the gradient update and the selection scans split over
/// `team` (give `q` the same team for its rows; `SOLO` for none). The solution does not depend on
/// the team's size.
pub fn solve<'q>(
    team: &'q Team<'q>, q: &'q mut dyn QMatrix, problem: &DualProblem, start: Start, params: &SmoParams,
    control: &Control,
) -> Result<SmoSolution> {
    let l = q.size();
    let DualProblem { p, lo, hi, equality } = *problem;
    let wrong = |v: Option<&[f64]>| v.is_some_and(|g| g.len() != l);
    let (alpha0, gradient0, gbar0) = match start {
        Start::Zero => (None, None, None),
        Start::At { alpha, gradient, gbar } => (Some(alpha), gradient, gbar),
    };
    let shift: Vec<u8> = match equality {
        Equality::Total => vec![0; l],
        Equality::PerSign(positive) if positive.len() == l => {
            positive.iter().map(|&pos| if pos { 0 } else { SIGN_SHIFT }).collect()
        }
        Equality::PerSign(_) => return Err(Error::InvalidData("SMO sign vector differs in length".into())),
    };
    if p.len() != l || lo.len() != l || hi.len() != l || wrong(alpha0) || wrong(gradient0) || wrong(gbar0) {
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
        alpha: alpha0.map_or_else(|| vec![0.0; l], <[f64]>::to_vec),
        g: p.to_vec(),
        gbar: vec![0.0; l],
        p: p.to_vec(),
        lo: lo.to_vec(),
        hi: hi.to_vec(),
        qd,
        status: vec![0; l],
        shift,
        signs: if matches!(equality, Equality::Total) { 1 } else { 2 },
        index: (0..l).collect(),
        unshrunk: false,
        next_up: None,
        rows_ahead: params.decomposition == Decomposition::Auto,
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
        None if alpha0.is_some() => s.init_gradient(),
        None => {}
    }
    if alpha0.is_none() {
        if let Some(ws) = s.working_set_size(params) {
            return s.run_working_set(params, control, ws);
        }
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
        self.status[t] = status_of(self.alpha[t], self.lo[t], self.hi[t]) << self.shift[t];
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.q.swap(i, j);
        self.status.swap(i, j);
        self.shift.swap(i, j);
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

    /// The sign (0 or 1) of the sum variable t is in.
    #[inline(always)]
    fn sign(&self, t: usize) -> usize {
        (self.shift[t] / SIGN_SHIFT) as usize
    }

    /// For each sign: (max g over variables that may increase, min g over those that may
    /// decrease), active set.
    fn extremes(&self) -> [(f64, f64); 2] {
        let mut out = [(f64::NEG_INFINITY, f64::INFINITY); 2];
        for t in 0..self.active {
            let (a, g) = (self.alpha[t], self.g[t]);
            let (up, down) = &mut out[self.sign(t)];
            if a < self.hi[t] && g > *up {
                *up = g;
            }
            if a > self.lo[t] && g < *down {
                *down = g;
            }
        }
        out
    }

    /// The largest violation max g_up - min g_down over the signs.
    fn violation(&self, extremes: &[(f64, f64); 2]) -> f64 {
        extremes[..self.signs].iter().map(|(up, down)| up - down).fold(f64::NEG_INFINITY, f64::max)
    }

    /// The pair (i, j) to move (i up, j down), or None when the active problem is tol-optimal.
    /// With per-sign sums both are of one sign: each sign proposes its pair, and the one whose
    /// step gains more is taken (ties to the later position, as one scan over both would).
    fn select(&mut self, tol: f64, selection: Selection) -> Option<(usize, usize)> {
        let n = self.active;
        let ups = match self.next_up.take() {
            Some((active, ups)) if active == n => ups,
            _ => {
                let mut ups = [None; 2];
                for (k, up) in ups.iter_mut().enumerate().take(self.signs) {
                    *up = team_scan_up(self.team, &self.g[..n], &self.status[..n], UP << (SIGN_SHIFT * k as u8));
                }
                ups
            }
        };
        let mut violation = f64::NEG_INFINITY;
        let mut best: Option<(f64, usize, usize)> = None;
        for (k, up) in ups.iter().enumerate().take(self.signs) {
            let Some((gmax, i)) = *up else { continue };
            let down = DOWN << (SIGN_SHIFT * k as u8);
            let (gmin, gain, j) = match selection {
                Selection::FirstOrder => {
                    let (gmin, j) = scan_down_first_order(&self.g[..n], &self.status[..n], down);
                    (gmin, gmin - gmax, j)
                }
                Selection::SecondOrder => {
                    if self.rows_ahead {
                        self.prefetch_around(i);
                    }
                    let qdi = self.qd[i];
                    let qi = self.q.row(i, n);
                    let (g, status, qd) = (&self.g[..n], &self.status[..n], &self.qd[..n]);
                    team_scan_down_second_order(self.team, g, status, down, qd, qi, gmax, qdi)
                }
            };
            violation = violation.max(gmax - gmin);
            if j != usize::MAX && best.is_none_or(|(b, _, bj)| gain < b || (gain == b && j > bj)) {
                best = Some((gain, i, j));
            }
        }
        let (_, i, j) = best?;
        if violation < tol {
            return None;
        }
        Some((i, j))
    }

    /// Moves a_i up and a_j down by the clipped Newton step and updates the gradients.
    fn update(&mut self, i: usize, j: usize) {
        let n = self.active;
        if self.rows_ahead {
            self.prefetch_around(j);
        }
        let (old_i, old_j) = (self.alpha[i], self.alpha[j]);
        {
            let (qi, qj) = self.q.two_rows(i, j, n);
            let mut a = self.qd[i] + self.qd[j] - 2.0 * qi[j] as f64;
            if a <= 0.0 {
                a = TAU;
            }
            // the step: lambda along e_i - e_j (one sum), or each coefficient's change (two)
            let (lambda, di, dj) = if self.signs == 1 {
                let room_i = self.hi[i] - old_i;
                let room_j = old_j - self.lo[j];
                let lambda = ((self.g[i] - self.g[j]) / a).min(room_i).min(room_j);
                self.alpha[i] = if lambda == room_i { self.hi[i] } else { old_i + lambda };
                self.alpha[j] = if lambda == room_j { self.lo[j] } else { old_j - lambda };
                (lambda, 0.0, 0.0)
            } else {
                let (new_i, new_j) = libsvm_step(
                    self.shift[i] == 0,
                    (old_i, old_j),
                    (self.g[i], self.g[j]),
                    (self.lo[i], self.hi[i]),
                    (self.lo[j], self.hi[j]),
                    a,
                );
                (self.alpha[i], self.alpha[j]) = (new_i, new_j);
                (0.0, new_i - old_i, new_j - old_j)
            };
            // (the rows borrow the matrix: set_status would borrow all of self)
            for t in [i, j] {
                self.status[t] = status_of(self.alpha[t], self.lo[t], self.hi[t]) << self.shift[t];
            }
            // the next selection's first scans ride along with the update
            let (status, signs) = (&self.status, self.signs);
            let parts = self.team.map_chunks(&mut self.g[..n], &|offset, g| {
                let (qi, qj) = (&qi[offset..offset + g.len()], &qj[offset..offset + g.len()]);
                if signs == 1 {
                    for ((gt, &ki), &kj) in g.iter_mut().zip(qi).zip(qj) {
                        *gt -= lambda * (ki as f64 - kj as f64);
                    }
                } else {
                    // LIBSVM's form of the same update: its per-sign problems keep its path
                    for ((gt, &ki), &kj) in g.iter_mut().zip(qi).zip(qj) {
                        *gt -= ki as f64 * di + kj as f64 * dj;
                    }
                }
                let status = &status[offset..offset + g.len()];
                let up = |k: u8| scan_up(g, status, UP << (SIGN_SHIFT * k)).map(|(v, t)| (v, t + offset));
                [up(0), if signs == 2 { up(1) } else { None }]
            });
            let (first, second): (Vec<Up>, Vec<Up>) = parts.into_iter().map(|[a, b]| (a, b)).unzip();
            self.next_up = Some((n, [merge_up(first), merge_up(second)]));
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

    /// Whether variable t seems bound to stay at its bound, given its sign's extremes.
    fn shrinkable(&self, t: usize, extremes: &[(f64, f64); 2]) -> bool {
        let (a, lo, hi) = (self.alpha[t], self.lo[t], self.hi[t]);
        let (up, down) = extremes[self.sign(t)];
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
        let extremes = self.extremes();
        if !self.unshrunk && self.violation(&extremes) <= 10.0 * tol {
            // Close to the end: bring everything back once so shrinking mistakes are undone.
            self.unshrunk = true;
            self.reconstruct_gradient(control)?;
            self.active = self.l;
        }
        let mut t = 0;
        while t < self.active {
            if self.shrinkable(t, &extremes) {
                self.active -= 1;
                while self.active > t {
                    if !self.shrinkable(self.active, &extremes) {
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
                if self.signs == 1 {
                    let mut s_sum = 0.0;
                    for &s in &free {
                        s_sum += self.alpha[s] * row[s] as f64;
                    }
                    self.g[t] -= s_sum;
                } else {
                    // one term at a time, as LIBSVM (see `libsvm_step`)
                    for &s in &free {
                        self.g[t] -= self.alpha[s] * row[s] as f64;
                    }
                }
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
        // per sign: (sum of free gradients, how many, max g at the lower bound, min g at the upper)
        let mut level = [(0.0, 0usize, f64::NEG_INFINITY, f64::INFINITY); 2];
        let mut objective = 0.0;
        for t in 0..self.l {
            let (a, g) = (self.alpha[t], self.g[t]);
            objective += 0.5 * a * (self.p[t] + g);
            if self.lo[t] == self.hi[t] {
                continue;
            }
            let (sum, nfree, lb, ub) = &mut level[self.sign(t)];
            if a >= self.hi[t] {
                *ub = ub.min(g);
            } else if a <= self.lo[t] {
                *lb = lb.max(g);
            } else {
                *sum += g;
                *nfree += 1;
            }
        }
        let level_of = |(sum, nfree, lb, ub): (f64, usize, f64, f64)| {
            if nfree > 0 {
                sum / nfree as f64
            } else if lb.is_finite() && ub.is_finite() {
                0.5 * (lb + ub)
            } else if lb.is_finite() {
                lb
            } else if ub.is_finite() {
                ub
            } else {
                0.0
            }
        };
        let (bias, r) = if self.signs == 1 {
            (level_of(level[0]), 0.0)
        } else {
            let (positive, negative) = (level_of(level[0]), level_of(level[1]));
            (0.5 * (positive + negative), 0.5 * (positive - negative))
        };
        let gap = self.violation(&self.extremes()).max(0.0);
        let mut alpha = vec![0.0; self.l];
        let mut gradient = vec![0.0; self.l];
        let mut gbar = vec![0.0; self.l];
        for t in 0..self.l {
            alpha[self.index[t]] = self.alpha[t];
            gradient[self.index[t]] = self.g[t];
            gbar[self.index[t]] = self.gbar[t];
        }
        SmoSolution { alpha, bias, r, objective, iterations, converged, gap, gradient, gbar }
    }
}

/// The pair step of LIBSVM's solver on two variables of one sign, in its own terms (unsigned
/// coefficients in [0, C], the gradient of its minimisation) and its own arithmetic, so that the
/// per-sign problems, which LIBSVM solves to a tolerance that their rescaling by the margin
/// magnifies, follow LIBSVM's path to the last bit. Returns the new signed coefficients of i
/// (which increases) and j. The sign flips are exact: the result is LIBSVM's, signed.
fn libsvm_step(
    positive: bool, (old_i, old_j): (f64, f64), (g_i, g_j): (f64, f64), (lo_i, hi_i): (f64, f64),
    (lo_j, hi_j): (f64, f64), curvature: f64,
) -> (f64, f64) {
    let s = if positive { 1.0 } else { -1.0 };
    let (a_i, a_j) = (s * old_i, s * old_j);
    let (c_i, c_j) = if positive { (hi_i, hi_j) } else { (-lo_i, -lo_j) };
    let delta = (-s * g_i - -s * g_j) / curvature;
    let sum = a_i + a_j;
    let (mut new_i, mut new_j) = (a_i - delta, a_j + delta);
    if sum > c_i {
        if new_i > c_i {
            (new_i, new_j) = (c_i, sum - c_i);
        }
    } else if new_j < 0.0 {
        (new_i, new_j) = (sum, 0.0);
    }
    if sum > c_j {
        if new_j > c_j {
            (new_i, new_j) = (sum - c_j, c_j);
        }
    } else if new_i < 0.0 {
        (new_i, new_j) = (0.0, sum);
    }
    (s * new_i, s * new_j)
}

/// The status byte of a variable at `a` in [lo, hi].
fn status_of(a: f64, lo: f64, hi: f64) -> u8 {
    (if a < hi { UP } else { 0 }) | (if a > lo { DOWN } else { 0 })
}

#[cfg(test)]
mod tests;
