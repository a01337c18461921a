//! Training LIBSVM's five formulations with the SMO solver (C-SVC and epsilon-SVR also with ISDA):
//! C-SVC and nu-SVC one-vs-one over class pairs (solved in parallel), epsilon-SVR and nu-SVR,
//! and the one-class SVM, plus the cross-validated Platt calibration of each pair. Each builds
//! its signed dual (linear term, bounds, equality constraints, start) and reads its model back;
//! the solver is the same.

use rayon::prelude::*;

use crate::cache::ClassRows;
use crate::data::{CsrMatrix, Matrix};
use crate::error::{Error, Result};
use crate::kernel::{KernelEngine, KernelSpec, Split};
use crate::model::probability::fit_sigmoid;
use crate::model::{LibsvmModel, SvmType};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::runtime::team::{threads_for, with_team, Team, SOLO};
use crate::solver::isda::{self, Bias, IsdaParams};
use crate::solver::qmatrix::{ExampleQ, PairedQ, QMatrix};
use crate::solver::smo::{self, DualProblem, Equality, Selection, SmoParams, SmoSolution, Start};

/// The solver of each dual problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DualSolver {
    /// SMO: pairs of variables, the equality constraint kept (the bias by the standard method).
    Smo,
    /// ISDA: one variable at a time, the bias by `bias` (see `solver::isda`).
    Isda {
        /// How ISDA handles the bias.
        bias: Bias,
        /// The over-relaxation factor of each step, in (0, 2).
        over_relaxation: f64,
    },
}

/// A dual solver as its name gives it: `Isda`'s settings come apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DualSolverKind {
    /// `DualSolver::Smo`.
    Smo,
    /// `DualSolver::Isda`.
    Isda,
}
crate::error::option_names!(DualSolverKind, "solver", { Smo => "smo", Isda => "isda" });

impl DualSolverKind {
    /// The solver, with ISDA's bias method and over-relaxation factor (unread for `Smo`).
    pub fn with(self, bias: Bias, over_relaxation: f64) -> DualSolver {
        match self {
            DualSolverKind::Smo => DualSolver::Smo,
            DualSolverKind::Isda => DualSolver::Isda { bias, over_relaxation },
        }
    }
}

/// The settings of a C-SVC or epsilon-SVR fit, C itself aside (given per example).
#[derive(Clone, Debug)]
pub struct SvmParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// The solver's stopping tolerance on the KKT violation; positive.
    pub tol: f64,
    /// Whether the solver shrinks its active set.
    pub shrinking: bool,
    /// Kernel cache budget for the whole fit, in bytes (split between problems solved at once).
    pub cache_bytes: usize,
    /// The solver's iteration limit per problem (None: its safety cap only).
    pub max_iter: Option<u64>,
    /// SMO's working-set rule.
    pub selection: Selection,
    /// Fit Platt sigmoids on 5-fold cross-validated decision values (classification).
    pub probability: bool,
    /// Seeds the cross-validation folds of the probability fit; pair p uses `seed + p`.
    pub seed: u64,
    /// SMO or ISDA.
    pub solver: DualSolver,
}

impl Default for SvmParams {
    fn default() -> Self {
        SvmParams {
            kernel: KernelSpec::Rbf { gamma: 1.0 },
            tol: 1e-3,
            shrinking: true,
            cache_bytes: crate::cache::DEFAULT_BUDGET,
            max_iter: None,
            selection: Selection::SecondOrder,
            probability: false,
            seed: 0,
            solver: DualSolver::Smo,
        }
    }
}

impl SvmParams {
    fn smo(&self) -> SmoParams {
        SmoParams {
            tol: self.tol,
            shrinking: self.shrinking,
            max_iter: self.max_iter,
            selection: self.selection,
            ..Default::default()
        }
    }
    /// Solves the signed dual `problem` from `start` with the chosen solver (SMO's passes split
    /// over `team`); ISDA solves only the single-sum problems from zero.
    fn solve(
        &self, team: &Team, q: &mut dyn QMatrix, problem: &DualProblem, start: Start, control: &Control,
    ) -> Result<SmoSolution> {
        match self.solver {
            DualSolver::Smo => smo::solve(team, q, problem, start, &self.smo(), control),
            DualSolver::Isda { bias, over_relaxation } => {
                if !matches!((problem.equality, start), (Equality::Total, Start::Zero)) {
                    return Err(Error::InvalidParameter(
                        "solver 'isda' trains C-SVC and epsilon-SVR only; the nu and one-class formulations need 'smo'"
                            .into(),
                    ));
                }
                let params = IsdaParams {
                    tol: self.tol,
                    over_relaxation,
                    bias,
                    max_iter: self.max_iter,
                    shrinking: self.shrinking,
                };
                isda::solve(q, problem.p, problem.lo, problem.hi, &params, control)
            }
        }
    }
    fn validate(&self) -> Result<()> {
        self.kernel.validate()?;
        if !(self.tol > 0.0 && self.tol.is_finite()) {
            return Err(Error::InvalidParameter("tol must be positive".into()));
        }
        Ok(())
    }
}

/// A fitted one-vs-one classifier, laid out as LIBSVM lays it out.
#[derive(Clone, Debug, Default)]
pub struct SvcFit {
    /// Number of classes.
    pub n_classes: usize,
    /// Training indices of the support vectors, grouped by class, ascending within a class.
    pub support: Vec<usize>,
    /// Support vectors of each class, in class order.
    pub n_support: Vec<usize>,
    /// (n_classes - 1) x n_sv, row-major: for pair (a, b), the coefficients of class a's vectors
    /// are in row b - 1 and those of class b's vectors in row a. Signed (positive for a).
    pub dual_coef: Vec<f64>,
    /// Bias of each pair (a, b), a < b, in LIBSVM's pair order; decision > 0 votes for a.
    pub intercept: Vec<f64>,
    /// A of each pair's Platt sigmoid P(a | f) = 1 / (1 + exp(A f + B)); empty without
    /// `probability`.
    pub prob_a: Vec<f64>,
    /// B of each pair's Platt sigmoid; empty without `probability`.
    pub prob_b: Vec<f64>,
    /// Each pair's dual objective at the end.
    pub objective: Vec<f64>,
    /// Each pair's solver iterations.
    pub n_iter: Vec<u64>,
    /// Whether each pair's solver met `tol` before its iteration limit.
    pub converged: Vec<bool>,
    /// Kernel values computed over the fit, all pairs together.
    pub kernel_evals: u64,
}

/// A fitted epsilon-SVR, nu-SVR or one-class SVM: `f(x) = sum_k coef[k] K(x, x_support[k]) + intercept`.
#[derive(Clone, Debug, Default)]
pub struct SvrFit {
    /// Training indices of the support vectors, ascending.
    pub support: Vec<usize>,
    /// alpha+ + alpha- of each support vector (regression), alpha (one-class).
    pub coef: Vec<f64>,
    /// The bias b of f.
    pub intercept: f64,
    /// The dual objective at the end.
    pub objective: f64,
    /// The solver's iterations.
    pub n_iter: u64,
    /// Whether the solver met `tol` before its iteration limit.
    pub converged: bool,
    /// Kernel values computed over the fit.
    pub kernel_evals: u64,
}

fn check_inputs(x: &Matrix, n: usize, sample_c: &[f64]) -> Result<()> {
    if x.rows() == 0 {
        return Err(Error::InvalidData("no training examples".into()));
    }
    if n != x.rows() || sample_c.len() != x.rows() {
        return Err(Error::InvalidData(format!(
            "X has {} rows but the targets have {n} and the per-example C {}",
            x.rows(),
            sample_c.len()
        )));
    }
    x.check_finite()?;
    if let Some(i) = sample_c.iter().position(|c| !(c.is_finite() && *c >= 0.0)) {
        return Err(Error::InvalidParameter(format!("C of example {i} is negative or not finite")));
    }
    Ok(())
}

/// How a pair of classes (or a regression) is posed: with a C (LIBSVM's C-SVC, epsilon-SVR), or
/// with a nu, which fixes each sign's share of the coefficients instead (nu-SVC, nu-SVR).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Formulation {
    C,
    Nu(f64),
}

/// The binary problem "pos against neg" on the examples given. `bound[e]` is example e's box:
/// its C for C-SVC, its weight for nu-SVC (whose box is the weight alone).
fn solve_binary(
    team: &Team, engine: &KernelEngine, pos: &[usize], neg: &[usize], bound: &[f64], formulation: Formulation,
    params: &SvmParams, cache_bytes: usize, class_rows: Option<&ClassRows>, control: &Control,
) -> Result<(Vec<usize>, SmoSolution)> {
    let examples: Vec<usize> = pos.iter().chain(neg).copied().collect();
    let np = pos.len();
    let y: Vec<f64> = (0..examples.len()).map(|t| if t < np { 1.0 } else { -1.0 }).collect();
    let lo: Vec<f64> = examples.iter().zip(&y).map(|(&e, &s)| (bound[e] * s).min(0.0)).collect();
    let hi: Vec<f64> = examples.iter().zip(&y).map(|(&e, &s)| (bound[e] * s).max(0.0)).collect();
    let mut q = ExampleQ::new(engine, examples.clone(), cache_bytes).split(Split::over(team));
    if let Some(rows) = class_rows {
        q = q.segmented(rows);
    }
    let sol = match formulation {
        Formulation::C => {
            let problem = DualProblem { p: &y, lo: &lo, hi: &hi, equality: Equality::Total };
            params.solve(team, &mut q, &problem, Start::Zero, control)?
        }
        Formulation::Nu(nu) => {
            // Each class holds nu/2 of the total weight; no linear term.
            let half = nu_total(examples.iter().map(|&e| bound[e]), nu) / 2.0;
            let positive_part = fill_to(pos.iter().map(|&e| bound[e]), half);
            let negative_part = fill_to(neg.iter().map(|&e| bound[e]), half);
            let alpha: Vec<f64> = positive_part.into_iter().chain(negative_part.into_iter().map(|a| -a)).collect();
            let positive: Vec<bool> = (0..examples.len()).map(|t| t < np).collect();
            let zero = vec![0.0; examples.len()];
            let problem = DualProblem { p: &zero, lo: &lo, hi: &hi, equality: Equality::PerSign(&positive) };
            let start = Start::At { alpha: &alpha, gradient: None, gbar: None };
            let mut sol = params.solve(team, &mut q, &problem, start, control)?;
            // The margin the solution found is -r: dividing by it gives the C-SVC solution with
            // C = 1 / margin (Chang and Lin 2001), which is the model LIBSVM keeps.
            let margin = -sol.r;
            // (times the reciprocal, as LIBSVM scales: the same bits)
            let scale = 1.0 / margin;
            for a in &mut sol.alpha {
                *a *= scale;
            }
            sol.bias /= margin;
            sol.objective /= margin * margin;
            sol
        }
    };
    Ok((examples, sol))
}

/// Platt's sigmoid for one pair, fitted on 5-fold cross-validated decision values.
fn pair_sigmoid(
    team: &Team, engine: &KernelEngine, pos: &[usize], neg: &[usize], bound: &[f64], formulation: Formulation,
    params: &SvmParams, cache_bytes: usize, class_rows: Option<&ClassRows>, control: &Control, seed: u64,
) -> Result<(f64, f64)> {
    let examples: Vec<usize> = pos.iter().chain(neg).copied().collect();
    let m = examples.len();
    let positive: Vec<bool> = (0..m).map(|t| t < pos.len()).collect();
    let mut order: Vec<usize> = (0..m).collect();
    Rng::new(seed).shuffle(&mut order);
    let folds = 5.min(m);
    let mut dec = vec![0.0; m];
    for f in 0..folds {
        let (start, end) = (f * m / folds, (f + 1) * m / folds);
        let test = &order[start..end];
        let train = order[..start].iter().chain(&order[end..]);
        let (mut tp, mut tn) = (Vec::new(), Vec::new());
        for &t in train {
            if positive[t] {
                tp.push(examples[t])
            } else {
                tn.push(examples[t])
            }
        }
        if tp.is_empty() || tn.is_empty() {
            let v = if tn.is_empty() && !tp.is_empty() { 1.0 } else { -1.0 };
            for &t in test {
                dec[t] = v;
            }
            continue;
        }
        let (ex, sol) =
            solve_binary(team, engine, &tp, &tn, bound, formulation, params, cache_bytes, class_rows, control)?;
        let (sv, coef): (Vec<usize>, Vec<f64>) =
            ex.iter().zip(&sol.alpha).filter(|(_, &a)| a != 0.0).map(|(&e, &a)| (e, a)).unzip();
        let mut k = vec![0.0f64; sv.len()];
        for &t in test {
            engine.row(examples[t], &sv, &mut k);
            dec[t] = k.iter().zip(&coef).map(|(a, b)| a * b).sum::<f64>() + sol.bias;
        }
    }
    Ok(fit_sigmoid(&dec, &positive))
}

/// How many of `problems` problems are solved at once on the current rayon pool.
fn concurrent(problems: usize) -> usize {
    problems.clamp(1, rayon::current_num_threads().max(1))
}

/// Budget for each of `problems` problems solved concurrently on the current rayon pool.
fn share_of_cache(total: usize, problems: usize) -> usize {
    total / concurrent(problems)
}

/// The rows over each example's own class that the pairs of a one-vs-one fit share (see
/// `ClassRows`), within what the pairs leave of `budget` bytes: the pairs solved at once keep
/// their caches of `cache` bytes, each holding at most its whole matrix, so that a pair's rows are
/// kept (and asked for) as without the shared rows. None for a single pair, for a kernel of a
/// given matrix or computed outside (nothing to save, or its own way of computing), where the
/// engine computes rows by blocks (a pair's row from its own packed examples costs less than
/// gathering the shared part and computing the rest: letter's 325 pairs took twice the time),
/// or if no class fits.
fn shared_class_rows<'c>(
    engine: &KernelEngine, y: &'c [usize], members: &'c [Vec<usize>], pairs: usize, budget: usize, cache: usize,
) -> Option<ClassRows<'c>> {
    if pairs < 2 || !engine.spec().reads_features() || engine.blocked() {
        return None;
    }
    let mut sizes: Vec<usize> = members.iter().map(Vec::len).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let largest_pair = sizes[0] + sizes[1];
    let pair_bytes = cache.min(largest_pair * largest_pair * std::mem::size_of::<f32>());
    let rows = ClassRows::new(y, members, budget.saturating_sub(concurrent(pairs) * pair_bytes));
    rows.any_kept().then_some(rows)
}

/// C-SVC, one-vs-one. `y` holds class indices 0..n_classes; `sample_c` is C times the example's
/// weight (class_weight and sample_weight folded in).
pub fn train_svc(
    x: &Matrix, y: &[usize], n_classes: usize, sample_c: &[f64], params: &SvmParams, control: &Control,
) -> Result<SvcFit> {
    train_classifier(x, y, n_classes, sample_c, Formulation::C, params, control)
}

/// nu-SVC, one-vs-one: each pair's problem has nu in (0, 1] in place of C, the lower bound on
/// the fraction of support vectors and upper bound on that of margin errors (Schoelkopf et al.
/// 2000), as LIBSVM poses it. `sample_weight` bounds each example's coefficient (LIBSVM's C_i =
/// W_i; class weights do not enter nu-SVC). A pair whose classes weigh n1 and n2 needs
/// nu (n1 + n2) / 2 <= min(n1, n2): otherwise "specified nu is infeasible".
pub fn train_nu_svc(
    x: &Matrix, y: &[usize], n_classes: usize, sample_weight: &[f64], nu: f64, params: &SvmParams, control: &Control,
) -> Result<SvcFit> {
    check_nu(nu)?;
    train_classifier(x, y, n_classes, sample_weight, Formulation::Nu(nu), params, control)
}

fn check_nu(nu: f64) -> Result<()> {
    if nu > 0.0 && nu <= 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!("nu must be in (0, 1], got {nu}")))
    }
}

fn train_classifier(
    x: &Matrix, y: &[usize], n_classes: usize, bound: &[f64], formulation: Formulation, params: &SvmParams,
    control: &Control,
) -> Result<SvcFit> {
    let sample_c = bound;
    params.validate()?;
    check_inputs(x, y.len(), sample_c)?;
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_classes];
    for (i, &c) in y.iter().enumerate() {
        if c >= n_classes {
            return Err(Error::InvalidData(format!("class index {c} of example {i} is not below {n_classes}")));
        }
        members[c].push(i);
    }
    if n_classes < 2 || members.iter().any(|m| m.is_empty()) {
        return Err(Error::InvalidData("classification needs at least two classes with examples".into()));
    }
    if let Formulation::Nu(nu) = formulation {
        let weight: Vec<f64> = members.iter().map(|m| m.iter().map(|&e| bound[e]).sum()).collect();
        for a in 0..n_classes {
            for b in a + 1..n_classes {
                if nu * (weight[a] + weight[b]) / 2.0 > weight[a].min(weight[b]) {
                    return Err(Error::InvalidParameter(format!(
                        "specified nu is infeasible for the classes {a} and {b} (class indices): nu (n1 + n2) / 2 = \
                         {} exceeds min(n1, n2) = {}, where n1 and n2 are their total weights",
                        nu * (weight[a] + weight[b]) / 2.0,
                        weight[a].min(weight[b])
                    )));
                }
            }
        }
    }
    let engine = KernelEngine::within(*x, params.kernel.clone(), params.cache_bytes)?;
    // a pair's (support, solution) and its Platt sigmoid (A, B)
    type PairFit = ((Vec<usize>, SmoSolution), (f64, f64));
    let pairs: Vec<(usize, usize)> = (0..n_classes).flat_map(|a| (a + 1..n_classes).map(move |b| (a, b))).collect();
    // The engine's internal copies count against the cache budget: memory stays within
    // data + cache_bytes + O(n).
    let budget = params.cache_bytes.saturating_sub(engine.extra_bytes());
    let cache = share_of_cache(budget, pairs.len());
    // Each example's kernel with its own class is computed once for all the pairs of its class,
    // where the budget allows.
    let class_rows = shared_class_rows(&engine, y, &members, pairs.len(), budget, cache);
    let class_rows = class_rows.as_ref();
    control.plan(pairs.len() as u64);
    let solve_pair = |team: &Team, p: usize, (a, b): (usize, usize)| -> Result<PairFit> {
        let (pos, neg) = (&members[a], &members[b]);
        let fit = solve_binary(team, &engine, pos, neg, sample_c, formulation, params, cache, class_rows, control)?;
        let sig = if params.probability {
            let seed = params.seed.wrapping_add(p as u64);
            pair_sigmoid(team, &engine, pos, neg, sample_c, formulation, params, cache, class_rows, control, seed)?
        } else {
            (0.0, 0.0)
        };
        control.problem_done();
        Ok((fit, sig))
    };
    // One pair has every core, through a team; several are solved concurrently, one per thread.
    let solved: Vec<Result<PairFit>> = if pairs.len() == 1 {
        vec![with_team(threads_for(y.len()), |team| solve_pair(team, 0, pairs[0]))]
    } else {
        pairs.par_iter().enumerate().map(|(p, &pair)| solve_pair(&SOLO, p, pair)).collect()
    };
    if let Some(e) = engine.failure() {
        return Err(e);
    }
    let solved = solved.into_iter().collect::<Result<Vec<_>>>()?;

    let n = x.rows();
    let mut is_sv = vec![false; n];
    for ((ex, sol), _) in &solved {
        for (&e, &a) in ex.iter().zip(&sol.alpha) {
            if a != 0.0 {
                is_sv[e] = true;
            }
        }
    }
    let mut out = SvcFit { n_classes, ..Default::default() };
    let mut position = vec![usize::MAX; n];
    for m in &members {
        let before = out.support.len();
        for &e in m.iter().filter(|&&e| is_sv[e]) {
            position[e] = out.support.len();
            out.support.push(e);
        }
        out.n_support.push(out.support.len() - before);
    }
    let nsv = out.support.len();
    out.dual_coef = vec![0.0; (n_classes - 1) * nsv];
    for (&(a, b), ((ex, sol), (pa, pb))) in pairs.iter().zip(&solved) {
        for (&e, &alpha) in ex.iter().zip(&sol.alpha) {
            if alpha != 0.0 {
                let row = if y[e] == a { b - 1 } else { a };
                out.dual_coef[row * nsv + position[e]] = alpha;
            }
        }
        out.intercept.push(sol.bias);
        out.objective.push(sol.objective);
        out.n_iter.push(sol.iterations);
        out.converged.push(sol.converged);
        if params.probability {
            out.prob_a.push(*pa);
            out.prob_b.push(*pb);
        }
    }
    out.kernel_evals = engine.evals();
    Ok(out)
}

/// epsilon-SVR as the 2L-variable signed problem: alpha+ in [0, C_i] with linear term y_i - eps,
/// alpha- in [-C_i, 0] with linear term y_i + eps; the two are selected independently.
pub fn train_svr(
    x: &Matrix, y: &[f64], sample_c: &[f64], epsilon: f64, params: &SvmParams, control: &Control,
) -> Result<SvrFit> {
    if !(epsilon >= 0.0 && epsilon.is_finite()) {
        return Err(Error::InvalidParameter("epsilon must be non-negative".into()));
    }
    train_regression(x, y, sample_c, Tube::Epsilon(epsilon), params, control)
}

/// nu-SVR (Schoelkopf et al. 2000): the tube's half-width is found, nu in (0, 1] bounding the
/// fraction of examples outside it from above and that of support vectors from below. The
/// 2L-variable problem of epsilon-SVR with linear term y_i for both halves and the sums of alpha+
/// and of alpha- each fixed at C nu sum(w) / 2 in magnitude (`sample_c` = C w), as LIBSVM poses it.
pub fn train_nu_svr(
    x: &Matrix, y: &[f64], sample_c: &[f64], nu: f64, params: &SvmParams, control: &Control,
) -> Result<SvrFit> {
    check_nu(nu)?;
    train_regression(x, y, sample_c, Tube::Nu(nu), params, control)
}

/// The width of a regression's tube: given, or found with a nu.
#[derive(Clone, Copy, Debug)]
enum Tube {
    Epsilon(f64),
    Nu(f64),
}

fn train_regression(
    x: &Matrix, y: &[f64], sample_c: &[f64], tube: Tube, params: &SvmParams, control: &Control,
) -> Result<SvrFit> {
    params.validate()?;
    control.plan(1);
    check_inputs(x, y.len(), sample_c)?;
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return Err(Error::InvalidData(format!("target of example {i} is NaN or infinite")));
    }
    let l = y.len();
    let engine = KernelEngine::within(*x, params.kernel.clone(), params.cache_bytes)?;
    let cache = params.cache_bytes.saturating_sub(engine.extra_bytes());
    let epsilon = if let Tube::Epsilon(e) = tube { e } else { 0.0 };
    let p: Vec<f64> = y.iter().map(|v| v - epsilon).chain(y.iter().map(|v| v + epsilon)).collect();
    let lo: Vec<f64> = (0..2 * l).map(|v| if v < l { 0.0 } else { -sample_c[v - l] }).collect();
    let hi: Vec<f64> = (0..2 * l).map(|v| if v < l { sample_c[v] } else { 0.0 }).collect();
    let (positive, alpha0) = match tube {
        Tube::Epsilon(_) => (Vec::new(), Vec::new()),
        Tube::Nu(nu) => {
            // alpha+_i = -alpha-_i, each half holding C nu sum(w) / 2: feasible for both sums
            let half = fill_to(sample_c.iter().copied(), nu_total(sample_c.iter().copied(), nu) / 2.0);
            let alpha = half.iter().copied().chain(half.iter().map(|a| -a)).collect();
            ((0..2 * l).map(|v| v < l).collect(), alpha)
        }
    };
    let (equality, start) = match tube {
        Tube::Epsilon(_) => (Equality::Total, Start::Zero),
        Tube::Nu(_) => (Equality::PerSign(&positive), Start::At { alpha: &alpha0, gradient: None, gbar: None }),
    };
    let problem = DualProblem { p: &p, lo: &lo, hi: &hi, equality };
    let sol = solve_whole(&engine, l, Variables::TwoPerExample, cache, &problem, start, params, control)?;
    Ok(SvrFit::from_pairs(&sol, l, engine.evals()))
}

/// The one-class SVM (Schoelkopf et al. 2001): the smallest region holding all but a fraction
/// nu in (0, 1] of the weighted examples, f(x) = sum coef K(x, x_k) - rho, positive inside. The
/// dual min 1/2 a'Ka with 0 <= a_i <= w_i and sum a = nu sum(w), started as LIBSVM starts it
/// (the first examples at their bound). Needs at least two examples.
pub fn train_one_class(
    x: &Matrix, sample_weight: &[f64], nu: f64, params: &SvmParams, control: &Control,
) -> Result<SvrFit> {
    params.validate()?;
    check_nu(nu)?;
    control.plan(1);
    check_inputs(x, x.rows(), sample_weight)?;
    let l = x.rows();
    let total: f64 = sample_weight.iter().sum();
    if l < 2 || !(total > 0.0) {
        return Err(Error::InvalidData(format!(
            "a one-class SVM needs at least two examples of positive weight; got {l} rows of total weight {total}"
        )));
    }
    let engine = KernelEngine::within(*x, params.kernel.clone(), params.cache_bytes)?;
    let cache = params.cache_bytes.saturating_sub(engine.extra_bytes());
    let alpha = fill_to(sample_weight.iter().copied(), nu_total(sample_weight.iter().copied(), nu));
    let (zero, lo) = (vec![0.0; l], vec![0.0; l]);
    let problem = DualProblem { p: &zero, lo: &lo, hi: sample_weight, equality: Equality::Total };
    let start = Start::At { alpha: &alpha, gradient: None, gbar: None };
    let sol = solve_whole(&engine, l, Variables::OnePerExample, cache, &problem, start, params, control)?;
    Ok(SvrFit::from_coefficients(&sol, sol.alpha.iter().copied(), engine.evals()))
}

/// nu times the sum of the bounds, summed term by term as LIBSVM sums it: the start, and so the
/// whole path, is then LIBSVM's to the last bit.
fn nu_total(bounds: impl Iterator<Item = f64>, nu: f64) -> f64 {
    bounds.map(|bound| bound * nu).sum()
}

/// LIBSVM's feasible start of the nu problems: the coefficients at their bounds from the first
/// on, until they sum to `total` (the last one partly), the rest zero.
fn fill_to(bounds: impl Iterator<Item = f64>, total: f64) -> Vec<f64> {
    let mut left = total;
    bounds
        .map(|bound| {
            let a = bound.min(left);
            left -= a;
            a
        })
        .collect()
}

/// How a problem over the engine's `l` examples has its variables.
#[derive(Clone, Copy)]
enum Variables {
    /// One per example (`ExampleQ`): the one-class SVM.
    OnePerExample,
    /// alpha+ and alpha- per example (`PairedQ`): regression.
    TwoPerExample,
}

/// Solves one problem over all `l` examples with every core (its passes and kernel rows split
/// over a team), and checks the kernel engine.
fn solve_whole(
    engine: &KernelEngine, l: usize, variables: Variables, cache: usize, problem: &DualProblem, start: Start,
    params: &SvmParams, control: &Control,
) -> Result<SmoSolution> {
    let examples = || (0..l).collect::<Vec<usize>>();
    let sol = with_team(threads_for(problem.p.len()), |team| match variables {
        Variables::OnePerExample => {
            let mut q = ExampleQ::new(engine, examples(), cache).split(Split::over(team));
            params.solve(team, &mut q, problem, start, control)
        }
        Variables::TwoPerExample => {
            let mut q = PairedQ::new(engine, examples(), cache).split(Split::over(team));
            params.solve(team, &mut q, problem, start, control)
        }
    });
    if let Some(e) = engine.failure() {
        return Err(e);
    }
    control.problem_done();
    sol
}

impl SvrFit {
    /// The regression read off the 2L-variable solution: coef_i = alpha+_i + alpha-_i.
    fn from_pairs(sol: &SmoSolution, l: usize, kernel_evals: u64) -> Self {
        Self::from_coefficients(sol, (0..l).map(|e| sol.alpha[e] + sol.alpha[e + l]), kernel_evals)
    }

    /// The expansion of one output over the examples' coefficients `coef` (the nonzero ones are
    /// its support vectors), with the solution's bias and counts.
    fn from_coefficients(sol: &SmoSolution, coef: impl Iterator<Item = f64>, kernel_evals: u64) -> Self {
        let (support, coef) = coef.enumerate().filter(|&(_, c)| c != 0.0).unzip();
        SvrFit {
            support,
            coef,
            intercept: sol.bias,
            objective: sol.objective,
            n_iter: sol.iterations,
            converged: sol.converged,
            kernel_evals,
        }
    }
}

impl LibsvmModel {
    /// A classifier fitted on `x`, with `labels[c]` the label of class index c.
    pub fn from_svc(fit: &SvcFit, x: &Matrix, kernel: KernelSpec, labels: Vec<i64>) -> Self {
        LibsvmModel {
            svm_type: SvmType::CSvc,
            labels,
            n_support: fit.n_support.clone(),
            rho: fit.intercept.iter().map(|b| -b).collect(),
            prob_a: fit.prob_a.clone(),
            prob_b: fit.prob_b.clone(),
            sv_coef: fit.dual_coef.clone(),
            sv: if kernel.is_precomputed() { CsrMatrix::new() } else { CsrMatrix::gather(x, &fit.support) },
            sv_indices: precomputed_indices(&kernel, &fit.support),
            kernel,
        }
    }

    /// A regressor fitted on `x`: its support vectors gathered from `x` (only their indices for a
    /// precomputed kernel), rho the negated intercept.
    pub fn from_svr(fit: &SvrFit, x: &Matrix, kernel: KernelSpec) -> Self {
        LibsvmModel {
            svm_type: SvmType::EpsilonSvr,
            labels: Vec::new(),
            n_support: Vec::new(),
            rho: vec![-fit.intercept],
            prob_a: Vec::new(),
            prob_b: Vec::new(),
            sv_coef: fit.coef.clone(),
            sv: if kernel.is_precomputed() { CsrMatrix::new() } else { CsrMatrix::gather(x, &fit.support) },
            sv_indices: precomputed_indices(&kernel, &fit.support),
            kernel,
        }
    }
}

/// The training indices of the support vectors, which a model of a precomputed kernel keeps in
/// place of their features; none for the other kernels.
fn precomputed_indices(kernel: &KernelSpec, support: &[usize]) -> Vec<usize> {
    if kernel.is_precomputed() {
        support.to_vec()
    } else {
        Vec::new()
    }
}
