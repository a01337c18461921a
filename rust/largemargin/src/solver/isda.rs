//! ISDA, the iterative single data algorithm (Kecman, Vogt and Huang): coordinate ascent on one
//! dual variable at a time. On the signed dual of `smo`
//!
//!   maximise D(a) = sum_t p_t a_t - 1/2 a'Qa   subject to  lo_t <= a_t <= hi_t
//!
//! without the equality constraint sum_t a_t = 0, one variable moves by the clipped Newton step
//! a_t += w g_t / Q_tt, g = p - Qa (Kernel AdaTron with rate 1/K_tt = SMO on one variable =
//! Gauss-Seidel; w in (0, 2) over-relaxes, successive over-relaxation). The variable moved is the
//! worst KKT violator, found in the same pass that brings the gradient up to date.
//!
//! The bias enters by one of the slides' methods:
//! - `Bias::None`: f(x) = sum a_s K(x_s, x) (positive definite kernels need no b);
//! - `Bias::Penalty(k)`: 1/2 k b^2 added to the primal, i.e. ISDA on the kernel K + 1/k, and
//!   b = (1/k) sum_t a_t afterwards (a small k enforces sum a = 0 strongly);
//! - `Bias::Secant`: the original problem with b held fixed while the single-variable steps
//!   converge, then b moved by a secant step on the equality residual w(b) = sum_t a_t (w is
//!   non-increasing in b; the steps are safeguarded by a bracket, with bisection when a secant
//!   step leaves it). The inner problems carry a penalty on sum a, see `equality_penalty`.
//!
//! The slides' first method, two variables at a time keeping sum a = 0, is SMO (`smo`).
//!
//! Regression runs on the 2L-variable problem of `train::svm::train_svr` unchanged: each variable of an
//! example's pair (alpha+ in [0, C], alpha- in [-C, 0]) is one coordinate.
//!
//! With shrinking, a variable at a bound whose gradient holds it there by more than the current
//! largest violation leaves the active set (kept last in the ordering, as SMO keeps it), so the
//! kernel rows and the gradient pass shorten; before convergence is declared the gradient of the
//! shrunk variables is rebuilt from the nonzero alphas' rows and the check runs over all.

use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::solver::qmatrix::QMatrix;
use crate::solver::smo::SmoSolution;

/// How ISDA accounts for the bias b, which single-variable steps cannot keep sum a = 0 for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bias {
    /// No bias: f(x) = sum a_s K(x_s, x).
    None,
    /// The penalty method with parameter k > 0 (the kernel gains 1/k).
    Penalty(f64),
    /// b held fixed while the inner problem converges, then moved by a safeguarded secant step
    /// on the residual sum_t a_t.
    Secant,
}

/// A bias method as its name gives it: `Penalty`'s parameter comes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiasKind {
    /// `Bias::Secant`.
    Secant,
    /// `Bias::Penalty`.
    Penalty,
    /// `Bias::None`.
    None,
}
crate::error::option_names!(BiasKind, "ISDA bias method", { Secant => "secant", Penalty => "penalty", None => "none" });

impl BiasKind {
    /// The bias method, with `k` for `Penalty` (unread otherwise).
    pub fn with(self, k: f64) -> Bias {
        match self {
            BiasKind::Secant => Bias::Secant,
            BiasKind::Penalty => Bias::Penalty(k),
            BiasKind::None => Bias::None,
        }
    }
}

/// When ISDA stops, and how it steps and handles the bias.
#[derive(Clone, Debug)]
pub struct IsdaParams {
    /// Stop when no variable violates its KKT condition by tol or more (and, with the secant
    /// method, when b has settled to within tol).
    pub tol: f64,
    /// Over-relaxation factor of each step, in (0, 2); 1 is Gauss-Seidel / SMO on one variable.
    pub over_relaxation: f64,
    /// The bias method.
    pub bias: Bias,
    /// None: no limit beyond a safety cap of max(10^7, 100 n) single-variable steps.
    pub max_iter: Option<u64>,
    /// Take out of the active set the variables held at a bound by more than the largest
    /// violation; their gradient is rebuilt before convergence is declared.
    pub shrinking: bool,
}

impl Default for IsdaParams {
    fn default() -> Self {
        IsdaParams { tol: 1e-3, over_relaxation: 1.0, bias: Bias::None, max_iter: None, shrinking: true }
    }
}

impl IsdaParams {
    fn validate(&self) -> Result<()> {
        if !(self.tol > 0.0 && self.tol.is_finite()) {
            return Err(Error::InvalidParameter("tol must be positive".into()));
        }
        if !(self.over_relaxation > 0.0 && self.over_relaxation < 2.0) {
            return Err(Error::InvalidParameter(format!(
                "the over-relaxation factor must be in (0, 2), got {}",
                self.over_relaxation
            )));
        }
        if let Bias::Penalty(k) = self.bias {
            if !(k > 0.0 && k.is_finite()) {
                return Err(Error::InvalidParameter(format!(
                    "the bias penalty k must be positive and finite, got {k}"
                )));
            }
        }
        Ok(())
    }
}

/// The worst violator of the current state: (position, violation), violation <= 0 if none.
#[derive(Clone, Copy)]
struct Worst {
    up: (usize, f64),
    down: (usize, f64),
}

impl Worst {
    fn new() -> Self {
        Worst { up: (usize::MAX, f64::NEG_INFINITY), down: (usize::MAX, f64::INFINITY) }
    }
    /// Considers variable t with gradient part g (before the shift): it may rise if it is below
    /// its upper bound, fall if above its lower one.
    #[inline]
    fn see(&mut self, t: usize, g: f64, may_rise: bool, may_fall: bool) {
        if may_rise && g > self.up.1 {
            self.up = (t, g);
        }
        if may_fall && g < self.down.1 {
            self.down = (t, g);
        }
    }
    /// The variable to move and its violation, with gradients g - shift.
    fn pick(&self, shift: f64) -> (usize, f64) {
        let (vu, vd) = (self.up.1 - shift, shift - self.down.1);
        if vu >= vd {
            (self.up.0, vu)
        } else {
            (self.down.0, vd)
        }
    }
}

struct Isda<'q> {
    q: &'q mut dyn QMatrix,
    /// Per position (the variables reordered so that the active ones come first):
    alpha: Vec<f64>,
    /// p - K a (the kernel part only; the bias or penalty is the `shift`).
    g: Vec<f64>,
    p: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// Q_tt of each coordinate (the penalty adds 1/k).
    diag: Vec<f64>,
    /// The variable at each position.
    index: Vec<usize>,
    /// Positions 0..active are optimised; the others are shrunk, their gradients stale.
    active: usize,
    shrinking: bool,
    /// 1/k with the penalty, else 0.
    inv_k: f64,
    /// sum_t a_t, kept for the penalty and the secant's residual.
    sum: f64,
    step: f64,
    iterations: u64,
    max_iter: u64,
}

impl Isda<'_> {
    fn scan(&self) -> Worst {
        self.scan_excluding(usize::MAX)
    }

    /// Moves variable t by its clipped (over-relaxed) Newton step for gradient g_t - shift,
    /// updates the active gradients in the same pass that finds the next worst violator.
    fn update(&mut self, t: usize, shift: f64) -> Worst {
        let gt = self.g[t] - shift - self.inv_k * self.sum;
        let curvature = (self.diag[t] + self.inv_k).max(1e-12);
        let target = (self.alpha[t] + self.step * gt / curvature).clamp(self.lo[t], self.hi[t]);
        let delta = target - self.alpha[t];
        self.iterations += 1;
        if delta == 0.0 {
            // (a degenerate step: the violation is below what the arithmetic resolves)
            return self.scan_excluding(t);
        }
        self.alpha[t] = target;
        self.sum += delta;
        let active = self.active;
        let row = self.q.row(t, active);
        let mut w = Worst::new();
        for (s, (&k, g)) in row.iter().zip(self.g[..active].iter_mut()).enumerate() {
            *g -= delta * k as f64;
            w.see(s, *g, self.alpha[s] < self.hi[s], self.alpha[s] > self.lo[s]);
        }
        w
    }

    /// The worst violator among the active variables other than t (a stuck one; usize::MAX: none).
    fn scan_excluding(&self, t: usize) -> Worst {
        let mut w = Worst::new();
        for s in (0..self.active).filter(|&s| s != t) {
            w.see(s, self.g[s], self.alpha[s] < self.hi[s], self.alpha[s] > self.lo[s]);
        }
        w
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.q.swap(i, j);
        for v in [&mut self.alpha, &mut self.g, &mut self.p, &mut self.lo, &mut self.hi, &mut self.diag] {
            v.swap(i, j);
        }
        self.index.swap(i, j);
    }

    /// Moves out of the active set the variables at a bound held there by more than `gmax`
    /// (gradients g - shift).
    fn shrink(&mut self, shift: f64, gmax: f64) {
        let mut t = 0;
        while t < self.active {
            let g = self.g[t] - shift;
            let held = (self.alpha[t] <= self.lo[t] && g < -gmax) || (self.alpha[t] >= self.hi[t] && g > gmax);
            if held {
                self.active -= 1;
                self.swap(t, self.active);
            } else {
                t += 1;
            }
        }
    }

    /// Rebuilds the gradient of the shrunk variables, g = p - K a, from the rows of the nonzero
    /// alphas, and makes every variable active.
    fn unshrink(&mut self, control: &Control) -> Result<()> {
        let (l, active) = (self.alpha.len(), self.active);
        if active == l {
            return Ok(());
        }
        self.g[active..].copy_from_slice(&self.p[active..]);
        for t in 0..l {
            let a = self.alpha[t];
            if a == 0.0 {
                continue;
            }
            // rows can be slow and many: a stop must not wait for all of them
            control.poll()?;
            let row = self.q.row(t, l);
            for (g, &k) in self.g[active..].iter_mut().zip(&row[active..]) {
                *g -= a * k as f64;
            }
        }
        self.active = l;
        Ok(())
    }

    /// Single-variable steps until no violation reaches tol over all variables (true) or the
    /// step budget is spent; every variable is active again on return.
    fn converge(&mut self, shift: f64, tol: f64, control: &Control) -> Result<bool> {
        let l = self.alpha.len();
        let period = l.clamp(1, 1000);
        let mut countdown = period;
        let mut worst = self.scan();
        loop {
            // the penalty shifts every gradient by sum/k, which moves with each step
            let effective = shift + self.inv_k * self.sum;
            let (t, violation) = worst.pick(effective);
            if t == usize::MAX || violation < tol {
                if self.active == l {
                    return Ok(true);
                }
                self.unshrink(control)?;
                worst = self.scan();
                continue;
            }
            if self.iterations >= self.max_iter {
                self.unshrink(control)?;
                return Ok(false);
            }
            control.poll()?;
            countdown -= 1;
            if countdown == 0 {
                countdown = period;
                if self.shrinking {
                    self.shrink(effective, violation);
                    worst = self.scan();
                    continue;
                }
            }
            worst = self.update(t, shift);
        }
    }

    fn violation(&self, shift: f64) -> f64 {
        let (t, v) = self.scan().pick(shift + self.inv_k * self.sum);
        if t == usize::MAX {
            0.0
        } else {
            v.max(0.0)
        }
    }

    /// A per-position vector in the caller's variable order.
    fn in_caller_order(&self, v: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; v.len()];
        for (pos, &var) in self.index.iter().enumerate() {
            out[var] = v[pos];
        }
        out
    }
}

/// Solves the box-constrained signed dual from a = 0 by ISDA, with the bias by `params.bias`.
pub fn solve(
    q: &mut dyn QMatrix, p: &[f64], lo: &[f64], hi: &[f64], params: &IsdaParams, control: &Control,
) -> Result<SmoSolution> {
    params.validate()?;
    let l = q.size();
    if p.len() != l || lo.len() != l || hi.len() != l {
        return Err(Error::InvalidData("ISDA problem vectors differ in length".into()));
    }
    if lo.iter().zip(hi).any(|(a, b)| !(*a <= 0.0 && 0.0 <= *b)) {
        return Err(Error::InvalidData("ISDA starts from a = 0, which must lie within the bounds".into()));
    }
    let inv_k = match params.bias {
        Bias::Penalty(k) => 1.0 / k,
        _ => 0.0,
    };
    let diag: Vec<f64> = (0..l).map(|t| q.diag(t)).collect();
    let mut s = Isda {
        q,
        alpha: vec![0.0; l],
        g: p.to_vec(),
        p: p.to_vec(),
        lo: lo.to_vec(),
        hi: hi.to_vec(),
        diag,
        index: (0..l).collect(),
        active: l,
        shrinking: params.shrinking,
        inv_k,
        sum: 0.0,
        step: params.over_relaxation,
        iterations: 0,
        max_iter: params.max_iter.unwrap_or_else(|| 10_000_000u64.max(100 * l as u64)),
    };
    let (bias, converged) = match params.bias {
        Bias::None => (0.0, s.converge(0.0, params.tol, control)?),
        Bias::Penalty(_) => {
            let converged = s.converge(0.0, params.tol, control)?;
            (inv_k * s.sum, converged)
        }
        Bias::Secant => {
            s.inv_k = equality_penalty(&s.diag);
            let (b, converged) = secant(&mut s, p, params.tol, control)?;
            if converged {
                settle_equality(&mut s, b, params.tol, control)?
            } else {
                (b, false)
            }
        }
    };
    // the penalty's shift sum/k is the bias; the secant method's multiplier stage leaves its
    // penalty on, the bias being b + sum/k there too
    let gap = s.violation(bias - s.inv_k * s.sum);
    // D = sum p a - 1/2 a'Ka (- sum^2 / 2k): with g = p - Ka, a'Ka = sum a (p - g)
    let objective = 0.5 * s.alpha.iter().zip(&s.p).zip(&s.g).map(|((a, p), g)| a * (p + g)).sum::<f64>()
        - 0.5 * s.inv_k * s.sum * s.sum;
    let gradient: Vec<f64> = s.g.iter().map(|g| g - bias).collect();
    Ok(SmoSolution {
        alpha: s.in_caller_order(&s.alpha),
        bias,
        r: 0.0,
        objective,
        iterations: s.iterations,
        converged,
        gap,
        gradient: s.in_caller_order(&gradient),
        gbar: vec![0.0; gradient.len()],
    })
}

/// The secant method's inner problems carry a penalty rho/2 (sum a)^2 on the dual (the penalty
/// method's kernel K + rho, rho the mean of Q_tt), which changes nothing where sum a = 0, the end
/// point, but keeps w(b) continuous: without it a low-rank kernel (a linear one, say) has many
/// optima at the root's b, w jumps there, and a b off the root by rounding makes the
/// single-variable steps drift along the kernel's null space for millions of steps.
fn equality_penalty(diag: &[f64]) -> f64 {
    let mean = diag.iter().sum::<f64>() / diag.len().max(1) as f64;
    if mean > 0.0 && mean.is_finite() {
        mean
    } else {
        1.0
    }
}

/// When the secant's bracket closes with sum_t a_t not yet within rounding of zero, the
/// method of multipliers finishes: b moved to b + rho sum a after each solve until sum a
/// vanishes. Returns (bias, converged), the bias being b + rho sum a.
fn settle_equality(s: &mut Isda, b: f64, tol: f64, control: &Control) -> Result<(f64, bool)> {
    let residual = tol.min(1e-3);
    let mut b = b;
    for _ in 0..100 {
        if !s.converge(b, tol, control)? {
            return Ok((b + s.inv_k * s.sum, false));
        }
        if s.sum.abs() <= residual {
            break;
        }
        b += s.inv_k * s.sum;
    }
    Ok((b + s.inv_k * s.sum, s.sum.abs() <= residual))
}

/// A point (b, w(b)) of the secant's bracket.
type Interval = (f64, f64);

/// The secant method on b: converge the single-variable steps at fixed b, then move b towards the
/// root of w(b) = sum_t a_t(b). Returns (b, converged).
fn secant(s: &mut Isda, p: &[f64], tol: f64, control: &Control) -> Result<(f64, bool)> {
    // first trial step: the scale of the linear terms (the targets)
    let scale = (p.iter().map(|v| v.abs()).sum::<f64>() / p.len().max(1) as f64).max(tol);
    let (mut b, mut converged) = (0.0, s.converge(0.0, tol, control)?);
    // points with w > 0 lie left of the root, w < 0 right of it
    let (mut left, mut right): (Option<Interval>, Option<Interval>) = (None, None);
    let mut expand = scale;
    let mut previous: Option<(f64, f64)> = None;
    while converged {
        let w = s.sum;
        // a residual this small moves no gradient by more than the tolerance allows
        if w.abs() <= tol * 1e-3 {
            break;
        }
        if w > 0.0 {
            left = Some((b, w));
        } else {
            right = Some((b, w));
        }
        let next = match (left, right) {
            (Some((bl, wl)), Some((br, wr))) => {
                if br - bl < 0.5 * tol {
                    break;
                }
                // secant through the last two points when it stays inside the bracket, else
                // through the bracket's ends (regula falsi), bisecting when that stalls
                let secant_through = |(b0, w0): (f64, f64), (b1, w1): (f64, f64)| {
                    if w1 != w0 {
                        Some(b1 - w1 * (b1 - b0) / (w1 - w0))
                    } else {
                        None
                    }
                };
                let cand = previous
                    .and_then(|prev| secant_through(prev, (b, w)))
                    .filter(|c| *c > bl && *c < br)
                    .or_else(|| secant_through((bl, wl), (br, wr)).filter(|c| *c > bl && *c < br))
                    .unwrap_or(0.5 * (bl + br));
                // guard against the one-sided crawl of regula falsi
                let third = (br - bl) / 3.0;
                if cand - bl < 1e-3 * third || br - cand < 1e-3 * third {
                    0.5 * (bl + br)
                } else {
                    cand
                }
            }
            // no bracket yet: widen geometrically in the direction of the root
            (Some(_), None) => {
                let n = b + expand;
                expand *= 2.0;
                n
            }
            (None, Some(_)) => {
                let n = b - expand;
                expand *= 2.0;
                n
            }
            (None, None) => unreachable!(),
        };
        previous = Some((b, w));
        if (next - b).abs() < 0.5 * tol {
            b = next;
            converged = s.converge(b, tol, control)?;
            break;
        }
        b = next;
        converged = s.converge(b, tol, control)?;
    }
    Ok((b, converged))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dense Q for tests.
    struct Dense {
        q: Vec<Vec<f32>>,
    }

    impl QMatrix for Dense {
        fn size(&self) -> usize {
            self.q.len()
        }
        fn diag(&self, i: usize) -> f64 {
            self.q[i][i] as f64
        }
        fn row(&mut self, i: usize, len: usize) -> &[f32] {
            &self.q[i][..len]
        }
        fn two_rows(&mut self, _: usize, _: usize, _: usize) -> (&[f32], &[f32]) {
            unreachable!()
        }
        fn swap(&mut self, i: usize, j: usize) {
            self.q.swap(i, j);
            for row in self.q.iter_mut() {
                row.swap(i, j);
            }
        }
    }

    fn classification(k: &[Vec<f64>], y: &[f64], c: f64, bias: Bias) -> SmoSolution {
        let mut q = Dense { q: k.iter().map(|r| r.iter().map(|&v| v as f32).collect()).collect() };
        let lo: Vec<f64> = y.iter().map(|&s| (c * s).min(0.0)).collect();
        let hi: Vec<f64> = y.iter().map(|&s| (c * s).max(0.0)).collect();
        let params = IsdaParams { tol: 1e-9, bias, ..Default::default() };
        let sol = solve(&mut q, y, &lo, &hi, &params, &Control::new()).unwrap();
        let mut q = Dense { q: k.iter().map(|r| r.iter().map(|&v| v as f32).collect()).collect() };
        let plain = solve(&mut q, y, &lo, &hi, &IsdaParams { shrinking: false, ..params }, &Control::new()).unwrap();
        for (a, b) in sol.alpha.iter().zip(&plain.alpha) {
            assert!(
                (a - b).abs() < 1e-6 * (1.0 + a.abs()),
                "shrinking changed the solution: {:?} vs {:?}",
                sol.alpha,
                plain.alpha
            );
        }
        sol
    }

    /// RBF XOR (a worked example of Kecman's ISDA lectures): every alpha is 1/(1 - e^-1)^2, b = 0, with or without bias.
    #[test]
    fn rbf_xor_alphas() {
        let x: [[f64; 2]; 4] = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]];
        let y = [1.0, 1.0, -1.0, -1.0];
        let k: Vec<Vec<f64>> = x
            .iter()
            .map(|a| x.iter().map(|b| (-((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2))).exp()).collect())
            .collect();
        let expect = 1.0 / (1.0 - (-1.0f64).exp()).powi(2);
        for bias in [Bias::None, Bias::Secant] {
            let sol = classification(&k, &y, 1e6, bias);
            for (a, s) in sol.alpha.iter().zip(&y) {
                assert!((a * s - expect).abs() < 1e-5, "{bias:?}: {:?}", sol.alpha);
            }
            assert!(sol.bias.abs() < 1e-6 && sol.converged);
        }
    }

    /// Linear 1-D hard and soft margin with bias (a worked example of the same lectures) by the secant method, and the penalty
    /// method's alphas [0, 6k + 1/2, 3k + 1/2, 0] with b = 3 (D10).
    #[test]
    fn one_dimensional_margins() {
        let x = [1.0, 2.0, 4.0, 5.0];
        let y = [1.0, 1.0, -1.0, -1.0];
        let k: Vec<Vec<f64>> = x.iter().map(|a| x.iter().map(|b| a * b).collect()).collect();
        let hard = classification(&k, &y, 1e6, Bias::Secant);
        let expect = [0.0, 0.5, -0.5, 0.0];
        for (a, e) in hard.alpha.iter().zip(expect) {
            assert!((a - e).abs() < 1e-5, "{:?}", hard.alpha);
        }
        assert!((hard.bias - 3.0).abs() < 1e-5, "{}", hard.bias);
        let soft = classification(&k, &y, 0.1, Bias::Secant);
        for (a, e) in soft.alpha.iter().zip([0.075, 0.1, -0.1, -0.075]) {
            assert!((a - e).abs() < 1e-6, "{:?}", soft.alpha);
        }
        assert!(
            (soft.bias - 1.5).abs() < 1e-5 && (soft.objective - 0.225).abs() < 1e-7,
            "{} {}",
            soft.bias,
            soft.objective
        );
        for kk in [1.0, 10.0, 100.0] {
            let pen = classification(&k, &y, 1e9, Bias::Penalty(kk));
            for (a, e) in pen.alpha.iter().zip([0.0, 6.0 * kk + 0.5, -(3.0 * kk + 0.5), 0.0]) {
                assert!((a - e).abs() < 1e-5 * (1.0 + e.abs()), "k={kk}: {:?}", pen.alpha);
            }
            assert!((pen.bias - 3.0).abs() < 1e-6, "k={kk}: b={}", pen.bias);
        }
    }

    #[test]
    fn bad_parameters() {
        let mut q = Dense { q: vec![vec![1.0]] };
        let c = Control::new();
        for params in [
            IsdaParams { over_relaxation: 2.0, ..Default::default() },
            IsdaParams { tol: 0.0, ..Default::default() },
            IsdaParams { bias: Bias::Penalty(0.0), ..Default::default() },
        ] {
            assert!(solve(&mut q, &[1.0], &[0.0], &[1.0], &params, &c).is_err());
        }
        assert!(solve(&mut q, &[1.0], &[0.5], &[1.0], &IsdaParams::default(), &c).is_err());
    }
}
