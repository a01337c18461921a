//! The binary linear SVM's dual by coordinate descent (Hsieh et al. 2008, algorithm 1 with
//! shrinking, algorithm 3):
//!
//!   min_alpha 1/2 alpha' (Q + D) alpha - e' alpha,  0 <= alpha_i <= U_i,
//!   Q_ij = y_i y_j <x_i, x_j>,
//!
//! the hinge loss with D = 0 and U_i = C_i, the squared hinge with D_ii = 1/(2 C_i) and no upper
//! bound. C_i is the example's C (C times its class weight and sample weight); an example whose
//! C_i is 0 plays no part in either primal and is left out.

use crate::error::Result;
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::runtime::vecops::prefetch;
use crate::solver::dcd::{check_problem, ActiveSet, DcdOutcome, DcdParams, Rows};

/// The classification loss of a linear SVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvcLoss {
    /// max(0, 1 - y f(x)): the L1-loss SVM.
    Hinge,
    /// max(0, 1 - y f(x))^2: the L2-loss SVM.
    SquaredHinge,
}

crate::error::option_names!(SvcLoss, "linear SVC loss", { Hinge => "hinge", SquaredHinge => "squared_hinge" });

impl SvcLoss {
    /// (D_ii, U_i) of an example whose C is `c` (> 0).
    #[inline(always)]
    pub(crate) fn diagonal_and_bound(self, c: f64) -> (f64, f64) {
        match self {
            SvcLoss::Hinge => (0.0, c),
            SvcLoss::SquaredHinge => (0.5 / c, f64::INFINITY),
        }
    }
    /// The loss at margin y f(x) = m.
    pub fn at(self, m: f64) -> f64 {
        let h = (1.0 - m).max(0.0);
        match self {
            SvcLoss::Hinge => h,
            SvcLoss::SquaredHinge => h * h,
        }
    }
}

/// Projected gradients below this are taken as zero: the variable is not moved.
const FLAT: f64 = 1e-12;

/// Solves the dual of labels `y` (+1/-1) with per-example C `c` from alpha = 0, the constant
/// feature `bias` (0: no intercept) appended to every row. On return `w` (`x.cols() + 1` long,
/// the bias feature's weight last) is the primal solution sum_i alpha_i y_i (x_i, bias), and
/// `alpha` (n long) the dual one. `sq_norms` holds every row's squared norm.
#[allow(clippy::too_many_arguments)]
pub fn solve_svc<R: Rows>(
    x: &R, y: &[f64], c: &[f64], loss: SvcLoss, bias: f64, sq_norms: &[f64], params: &DcdParams, w: &mut [f64],
    alpha: &mut [f64], control: &Control,
) -> Result<DcdOutcome> {
    check_problem(x, y.len(), c, bias)?;
    params.validate()?;
    assert!(w.len() == x.cols() + 1 && alpha.len() == x.rows() && sq_norms.len() == x.rows());
    w.fill(0.0);
    alpha.fill(0.0);
    // what a step reads of its example, side by side: one trip to memory in a shuffled order
    let mut vars: Vec<Variable> = (0..x.rows())
        .map(|i| {
            let (diag, upper) = if c[i] > 0.0 { loss.diagonal_and_bound(c[i]) } else { (0.0, 0.0) };
            Variable { alpha: 0.0, y: y[i], diag, upper, qd: sq_norms[i] + bias * bias + diag }
        })
        .collect();
    let mut active = ActiveSet::new((0..x.rows()).filter(|&i| c[i] > 0.0).collect());
    let mut rng = Rng::new(params.seed);
    // the last pass's extremes of the projected gradient: a variable at a bound whose gradient
    // lies beyond them is unlikely to move again (infinite: nothing is shrunk)
    let (mut last_max, mut last_min) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut iterations = 0;
    while iterations < params.max_iter {
        active.shuffle(&mut rng);
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
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
            let a = v.alpha;
            let g = v.y * x.dot(i, w, bias) - 1.0 + v.diag * a;
            let pg = if a == 0.0 {
                if g > last_max {
                    active.shrink(s);
                    continue;
                }
                g.min(0.0)
            } else if a == v.upper {
                if g < last_min {
                    active.shrink(s);
                    continue;
                }
                g.max(0.0)
            } else {
                g
            };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            if pg.abs() > FLAT {
                // (qd = 0 only for an empty row without bias under the hinge: the dual is then
                // linear in alpha_i, and the division's infinity clips it to the bound it favours)
                let next = (a - g / v.qd).max(0.0).min(v.upper);
                v.alpha = next;
                x.add(i, (next - a) * v.y, w, bias);
            }
            s += 1;
        }
        iterations += 1;
        control.add_iterations(1);
        if pg_max - pg_min <= params.tol {
            if active.is_whole() {
                return Ok(finish(iterations, true, &vars, alpha));
            }
            // met on the shrunk set: check it on every variable
            active.restore();
            (last_max, last_min) = (f64::INFINITY, f64::NEG_INFINITY);
            continue;
        }
        last_max = if pg_max > 0.0 { pg_max } else { f64::INFINITY };
        last_min = if pg_min < 0.0 { pg_min } else { f64::NEG_INFINITY };
    }
    Ok(finish(iterations, false, &vars, alpha))
}

/// One dual variable and what its step reads of the example.
#[derive(Clone, Copy)]
struct Variable {
    alpha: f64,
    y: f64,
    diag: f64,
    upper: f64,
    /// The step's curvature: |x_i|^2 + bias^2 + D_ii.
    qd: f64,
}

/// How many steps ahead an example's row and variable are fetched.
pub(crate) const PREFETCH: usize = 4;

/// Asks for example i's row and variable ahead of its step.
#[inline(always)]
pub(crate) fn prefetch_example<R: Rows, T>(x: &R, vars: &[T], i: usize) {
    prefetch(&vars[i] as *const T);
    x.prefetch(i);
}

fn finish(iterations: usize, converged: bool, vars: &[Variable], alpha: &mut [f64]) -> DcdOutcome {
    alpha.iter_mut().zip(vars).for_each(|(a, v)| *a = v.alpha);
    DcdOutcome { iterations, converged }
}

/// The primal 1/2 |w|^2 + sum_i C_i loss(y_i <w, (x_i, bias)>) of a weight vector.
pub fn svc_primal(x: &impl Rows, y: &[f64], c: &[f64], loss: SvcLoss, bias: f64, w: &[f64]) -> f64 {
    let norm: f64 = w.iter().map(|v| v * v).sum();
    let losses: f64 = (0..x.rows()).map(|i| c[i] * loss.at(y[i] * x.dot(i, w, bias))).sum();
    0.5 * norm + losses
}

/// The dual objective e' alpha - 1/2 |w|^2 - 1/2 sum_i D_ii alpha_i^2 at (alpha, w(alpha)): at most
/// the primal's minimum, equal at the optimum.
pub fn svc_dual(c: &[f64], loss: SvcLoss, alpha: &[f64], w: &[f64]) -> f64 {
    let norm: f64 = w.iter().map(|v| v * v).sum();
    let diag: f64 =
        alpha.iter().zip(c).filter(|(_, &c)| c > 0.0).map(|(a, &c)| loss.diagonal_and_bound(c).0 * a * a).sum();
    alpha.iter().sum::<f64>() - 0.5 * norm - 0.5 * diag
}
