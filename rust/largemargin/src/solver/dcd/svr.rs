//! Linear support vector regression's dual by coordinate descent (Ho and Lin 2012, section 3):
//!
//!   min_beta 1/2 beta' (Q + D) beta - y' beta + epsilon |beta|_1,  -U_i <= beta_i <= U_i,
//!   Q_ij = <x_i, x_j>,
//!
//! the epsilon-insensitive loss with D = 0 and U_i = C_i, the squared one with D_ii = 1/(2 C_i)
//! and no bound. Each coordinate's step is the exact minimiser of its one-variable problem (a
//! quadratic plus epsilon |beta_i|), clipped to the box; the stopping rule is LIBLINEAR's for
//! this problem: the 1-norm of the minimum-norm subgradient at most `tol` times the first pass's.

use crate::error::Result;
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::solver::dcd::svc::{prefetch_example, PREFETCH};
use crate::solver::dcd::{check_problem, ActiveSet, DcdOutcome, DcdParams, Rows};

/// The regression loss of a linear SVR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvrLoss {
    /// max(0, |y - f(x)| - epsilon): the L1 loss.
    EpsilonInsensitive,
    /// max(0, |y - f(x)| - epsilon)^2: the L2 loss.
    SquaredEpsilonInsensitive,
}

crate::error::option_names!(SvrLoss, "linear SVR loss", {
    EpsilonInsensitive => "epsilon_insensitive",
    SquaredEpsilonInsensitive => "squared_epsilon_insensitive",
});

impl SvrLoss {
    /// (D_ii, U_i) of an example whose C is `c` (> 0).
    #[inline(always)]
    fn diagonal_and_bound(self, c: f64) -> (f64, f64) {
        match self {
            SvrLoss::EpsilonInsensitive => (0.0, c),
            SvrLoss::SquaredEpsilonInsensitive => (0.5 / c, f64::INFINITY),
        }
    }
    /// The loss of residual r = y - f(x).
    pub fn at(self, r: f64, epsilon: f64) -> f64 {
        let h = (r.abs() - epsilon).max(0.0);
        match self {
            SvrLoss::EpsilonInsensitive => h,
            SvrLoss::SquaredEpsilonInsensitive => h * h,
        }
    }
}

/// Solves the dual for targets `y` with per-example C `c` from beta = 0; `w` (`x.cols() + 1`
/// long) ends as sum_i beta_i (x_i, bias), `beta` (n long) as the dual solution.
#[allow(clippy::too_many_arguments)]
pub fn solve_svr<R: Rows>(
    x: &R, y: &[f64], c: &[f64], loss: SvrLoss, epsilon: f64, bias: f64, sq_norms: &[f64], params: &DcdParams,
    w: &mut [f64], beta: &mut [f64], control: &Control,
) -> Result<DcdOutcome> {
    check_problem(x, y.len(), c, bias)?;
    params.validate()?;
    if !(epsilon.is_finite() && epsilon >= 0.0) {
        return Err(crate::error::Error::InvalidParameter(format!("epsilon must be nonnegative, got {epsilon}")));
    }
    assert!(w.len() == x.cols() + 1 && beta.len() == x.rows() && sq_norms.len() == x.rows());
    w.fill(0.0);
    beta.fill(0.0);
    // what a step reads of its example, side by side (a shuffled pass: one trip to memory)
    let mut vars: Vec<Variable> = (0..x.rows())
        .map(|i| {
            let (diag, upper) = if c[i] > 0.0 { loss.diagonal_and_bound(c[i]) } else { (0.0, 0.0) };
            Variable { beta: 0.0, y: y[i], diag, upper, h: sq_norms[i] + bias * bias + diag }
        })
        .collect();
    let mut active = ActiveSet::new((0..x.rows()).filter(|&i| c[i] > 0.0).collect());
    let mut rng = Rng::new(params.seed);
    // the last pass's largest violation: a variable at a bound (or at 0) whose gradient lies
    // beyond it on the side that keeps it there leaves the active set
    let mut last_max = f64::INFINITY;
    let mut first_norm = None;
    let mut iterations = 0;
    while iterations < params.max_iter {
        active.shuffle(&mut rng);
        let (mut violation_max, mut violation_sum) = (0.0f64, 0.0);
        let mut s = 0;
        while s < active.len() {
            control.poll()?;
            let i = active.at(s);
            if s + 2 * PREFETCH < active.len() {
                x.prefetch_bounds(active.at(s + 2 * PREFETCH));
            }
            if s + PREFETCH < active.len() {
                prefetch_example(x, &vars, active.at(s + PREFETCH));
            }
            let v = &mut vars[i];
            let (diag, upper, b) = (v.diag, v.upper, v.beta);
            let g = x.dot(i, w, bias) - v.y + diag * b;
            // the gradients of the two smooth pieces, beta_i > 0 and beta_i < 0
            let (gp, gn) = (g + epsilon, g - epsilon);
            let violation = if b == 0.0 {
                if gp < 0.0 {
                    -gp
                } else if gn > 0.0 {
                    gn
                } else if gp > last_max && gn < -last_max {
                    active.shrink(s);
                    continue;
                } else {
                    0.0
                }
            } else if b >= upper {
                if gp > 0.0 {
                    gp
                } else if gp < -last_max {
                    active.shrink(s);
                    continue;
                } else {
                    0.0
                }
            } else if b <= -upper {
                if gn < 0.0 {
                    -gn
                } else if gn > last_max {
                    active.shrink(s);
                    continue;
                } else {
                    0.0
                }
            } else if b > 0.0 {
                gp.abs()
            } else {
                gn.abs()
            };
            violation_max = violation_max.max(violation);
            violation_sum += violation;
            // the one-variable problem's minimiser: a quadratic with curvature h plus epsilon |.|
            let h = v.h;
            let next = if h <= 0.0 {
                b // an empty row without bias under the L1 loss: its beta moves no prediction
            } else if gp < h * b {
                b - gp / h
            } else if gn > h * b {
                b - gn / h
            } else {
                0.0
            };
            let next = next.clamp(-upper, upper);
            if (next - b).abs() >= 1e-12 {
                v.beta = next;
                x.add(i, next - b, w, bias);
            }
            s += 1;
        }
        iterations += 1;
        control.add_iterations(1);
        let first = *first_norm.get_or_insert(violation_sum);
        if violation_sum <= params.tol * first {
            if active.is_whole() {
                return Ok(finish(iterations, true, &vars, beta));
            }
            active.restore();
            last_max = f64::INFINITY;
            continue;
        }
        last_max = violation_max;
    }
    Ok(finish(iterations, false, &vars, beta))
}

/// One dual variable and what its step reads of the example.
#[derive(Clone, Copy)]
struct Variable {
    beta: f64,
    y: f64,
    diag: f64,
    upper: f64,
    /// The step's curvature: |x_i|^2 + bias^2 + D_ii.
    h: f64,
}

fn finish(iterations: usize, converged: bool, vars: &[Variable], beta: &mut [f64]) -> DcdOutcome {
    beta.iter_mut().zip(vars).for_each(|(b, v)| *b = v.beta);
    DcdOutcome { iterations, converged }
}

/// The primal 1/2 |w|^2 + sum_i C_i loss(y_i - <w, (x_i, bias)>).
#[allow(clippy::too_many_arguments)]
pub fn svr_primal(x: &impl Rows, y: &[f64], c: &[f64], loss: SvrLoss, epsilon: f64, bias: f64, w: &[f64]) -> f64 {
    let norm: f64 = w.iter().map(|v| v * v).sum();
    let losses: f64 = (0..x.rows()).map(|i| c[i] * loss.at(y[i] - x.dot(i, w, bias), epsilon)).sum();
    0.5 * norm + losses
}

/// The dual objective (negated, to compare with the primal) y' beta - epsilon |beta|_1 -
/// 1/2 |w|^2 - 1/2 sum_i D_ii beta_i^2.
pub fn svr_dual(y: &[f64], c: &[f64], loss: SvrLoss, epsilon: f64, beta: &[f64], w: &[f64]) -> f64 {
    let norm: f64 = w.iter().map(|v| v * v).sum();
    let mut total = -0.5 * norm;
    for i in 0..beta.len() {
        if c[i] > 0.0 {
            let diag = loss.diagonal_and_bound(c[i]).0;
            total += y[i] * beta[i] - epsilon * beta[i].abs() - 0.5 * diag * beta[i] * beta[i];
        }
    }
    total
}
