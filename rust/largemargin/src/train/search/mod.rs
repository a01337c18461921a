//! Cross-validated search over C and the other settings of C-SVC and epsilon-SVR (kernel, class
//! weights, epsilon), sharing what independent fits would each compute again:
//! - kernel rows: each chain's own cache lasts along its Cs; and for one kernel, the kernel
//!   between two examples is the same in every fold, so when a kernel's rows over the full data
//!   (per class pair for one-vs-one) fit most of the budget they live in one `SharedRows` cache
//!   that every fold's solver reads, each gathering its own variables' entries;
//! - solutions: along increasing C each problem starts from the last solution, its coefficients
//!   scaled to the new box (alpha seeding) and its gradient updated without a kernel row
//!   (g = p - Q alpha is affine in alpha);
//! - evaluation: the kernel between an eval row and a support vector is computed once per fold,
//!   for every C and every pair, or read from the cached rows.
//!
//! The (setting, fold) chains run on the rayon pool, two folds of one kernel side by side so that
//! they share their rows. The results do not depend on the number of threads nor on the cache.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use crate::cache::shared_rows::{RowStats, SharedRows};
use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::{KernelEngine, KernelSpec, Split};
use crate::runtime::control::Control;
use crate::runtime::team::SOLO;
use crate::solver::qmatrix::{ExampleQ, PairedQ, Prefix, QMatrix, SharedSource};
use crate::solver::smo::{self, DualProblem, Equality, Selection, SmoParams};

use warm::Warm;

/// What is learnt: class indices 0..n_classes (one-vs-one C-SVC) or real targets (epsilon-SVR).
#[derive(Clone, Copy, Debug)]
pub enum SearchTask<'y> {
    /// One-vs-one C-SVC over the class pairs.
    Classification {
        /// The class index of every example, below `n_classes`.
        y: &'y [usize],
        /// Number of classes.
        n_classes: usize,
    },
    /// Epsilon-SVR.
    Regression {
        /// The target of every example.
        y: &'y [f64],
    },
}

/// One setting of everything but C, with the values of C to try along it. What a fit derives
/// from its training data (gamma = "scale", balanced class weights) may differ between folds.
#[derive(Clone, Debug)]
pub struct SearchSetting {
    /// The kernel of each fold (one entry: every fold's), an index into `cross_validate`'s kernels.
    pub kernels: Vec<usize>,
    /// Class weights of each fold (one entry: every fold's), one per class; an example's C is C
    /// times its class weight times its sample weight. Ignored for regression.
    pub class_weight: Vec<Vec<f64>>,
    /// Values of C, strictly increasing.
    pub cs: Vec<f64>,
    /// epsilon of epsilon-SVR (ignored for classification).
    pub epsilon: f64,
}

impl SearchSetting {
    fn kernel(&self, fold: usize) -> usize {
        self.kernels[if self.kernels.len() == 1 { 0 } else { fold }]
    }
    /// Per-example weight on fold `fold` (sample weight times class weight).
    fn weight(&self, task: &SearchTask, sample_weight: &[f64], fold: usize, e: usize) -> f64 {
        match task {
            SearchTask::Classification { y, .. } => {
                let cw = &self.class_weight[if self.class_weight.len() == 1 { 0 } else { fold }];
                sample_weight[e] * cw[y[e]]
            }
            SearchTask::Regression { .. } => sample_weight[e],
        }
    }
}

/// A fold: the examples trained on (in the order a fit would see them) and those scored.
#[derive(Clone, Debug)]
pub struct SearchFold {
    /// Row indices of the examples the fold's models are trained on.
    pub train: Vec<usize>,
    /// Row indices of the examples they are scored on.
    pub eval: Vec<usize>,
}

/// The solver's settings for every fit of a search, and what is kept of each.
#[derive(Clone, Debug)]
pub struct SearchParams {
    /// SMO's stopping tolerance on the maximal violation.
    pub tol: f64,
    /// Whether SMO shrinks.
    pub shrinking: bool,
    /// SMO's iteration limit per problem (None: its safety cap only).
    pub max_iter: Option<u64>,
    /// SMO's working-set rule.
    pub selection: Selection,
    /// Bytes per worker thread for the shared kernel rows, the engines' copies and the evaluation
    /// buffers together: a search on k threads holds what k independent fits running side by
    /// side would hold (each with its own cache of this size).
    pub cache_bytes: usize,
    /// How each C after the first starts.
    pub warm_start: WarmStart,
    /// More than two classes: keep every model's one-vs-rest scores on its eval rows (n_classes
    /// values a row, for scorers that read them); else only the classes voted.
    pub ovr_scores: bool,
}

/// Where the problem for the next (larger) C starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarmStart {
    /// From zero, as an independent fit.
    Cold,
    /// From the last solution as it is (still feasible: the box grew). Its gradient is unchanged
    /// and no variable sits at a nonzero bound.
    Keep,
    /// From the last solution scaled by the ratio of the Cs (DeCoste and Wagstaff's alpha
    /// seeding): the variables at C stay at C.
    Scale,
    /// `Keep` or `Scale`, whichever starts at the higher dual objective.
    Auto,
}

crate::error::option_names!(WarmStart, "warm start", { Auto => "auto", Keep => "keep", Scale => "scale", Cold => "cold" });

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            tol: 1e-3,
            shrinking: true,
            max_iter: None,
            selection: Selection::SecondOrder,
            cache_bytes: crate::cache::DEFAULT_BUDGET,
            warm_start: WarmStart::Auto,
            ovr_scores: true,
        }
    }
}

/// The model of one (setting, fold, C) scored on the fold's eval rows.
#[derive(Clone, Debug, Default)]
pub struct SearchPoint {
    /// Per eval row: one value (two classes: LIBSVM's sign, positive for class 0; regression: the
    /// prediction), or for more classes `n_classes` one-vs-rest scores (votes plus a confidence
    /// below one half, as a one-vs-one model's `decision_function` gives them), row-major; for
    /// more classes, empty unless `SearchParams::ovr_scores`.
    pub decision: Vec<f64>,
    /// More than two classes: the class each eval row is voted into (ties to the lowest index).
    pub predicted: Vec<usize>,
    /// SMO iterations, summed over the class pairs.
    pub n_iter: u64,
    /// Distinct training examples that are a support vector of any class pair.
    pub n_support: usize,
    /// SMO met the tolerance on every problem of this model (each class pair's).
    pub converged: bool,
    /// Seconds spent solving this model's problems, summed over the class pairs.
    pub fit_seconds: f64,
    /// Seconds of scoring the fold's eval rows, shared equally between the fold's values of C.
    pub score_seconds: f64,
}

/// Everything a search computed: a scored model per grid point, and what the kernel cost.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// Setting-major, then fold, then C (in the setting's order).
    pub points: Vec<SearchPoint>,
    /// Kernel values computed, summed over the kernels' engines.
    pub kernel_evals: u64,
    /// How often the shared kernel rows were found cached, and how often computed.
    pub rows: RowStats,
}

/// A solved problem at one C: its support vectors (example indices), their coefficients (signed,
/// positive for the pair's first class) and its bias: decision = sum_s coef_s K(sv_s, x) + bias.
struct Sparse {
    sv: Vec<usize>,
    coef: Vec<f64>,
    bias: f64,
}

/// Scores every (setting, fold, C) of the grid. `kernels` are the distinct kernels the settings
/// point at; each gets one engine over `x` and its rows in the shared cache.
pub fn cross_validate(
    x: &Matrix, task: SearchTask, sample_weight: &[f64], kernels: &[KernelSpec], settings: &[SearchSetting],
    folds: &[SearchFold], params: &SearchParams, control: &Control,
) -> Result<SearchResult> {
    let n = x.rows();
    let problem = Problem::new(n, task, sample_weight)?;
    check_plan(&problem, kernels, settings, folds, params)?;
    for (f, fold) in folds.iter().enumerate() {
        problem.check_fold(f, fold, settings)?;
    }
    x.check_finite()?;
    let chains = settings.len() * folds.len();
    let workers = rayon::current_num_threads().clamp(1, chains.max(1));
    // The engines' copies and the evaluation tiles come out of the budget; the rows get the rest.
    // The budget is per worker: with one cache for the k independent fits that k threads run
    // side by side, the running chains' own rows were too few at large C (adult, 8,000 rows,
    // C = 1000: gathering from the shared rows made two workers slower than one).
    let budget = params.cache_bytes.saturating_mul(workers);
    let eval_bytes = (budget / 8 / workers).clamp(1 << 20, 32 << 20);
    let per_engine = budget / kernels.len().max(1);
    let engines: Vec<KernelEngine> =
        kernels.iter().map(|k| KernelEngine::within(*x, k.clone(), per_engine)).collect::<Result<_>>()?;
    let extra: usize = engines.iter().map(KernelEngine::extra_bytes).sum();
    let row_bytes = budget.saturating_sub(extra + workers * eval_bytes);
    // Shared rows pay when one kernel's rows over its domains fit the shared part of the budget:
    // then a fifth goes to the running chains' own rows, the rest to the rows they all share
    // (measured on adult, ijcnn1 and letter: a tenth to a half local, a fifth was best on all).
    // Else a row is evicted before another fold asks for it, and each costs a domain's length
    // where the fold needs its own (adult, 16,000 rows: as many kernel values as independent
    // fits, 1.3x their time): every chain then keeps its own rows only, as an independent fit.
    let matrix_bytes: usize = problem.domains.iter().map(|d| d.len().saturating_mul(d.len()).saturating_mul(4)).sum();
    let share = matrix_bytes <= row_bytes / 5 * 4;
    let local_bytes = if share { row_bytes / 5 / workers } else { row_bytes / workers };
    let longest = problem.domains.iter().map(Vec::len).max().unwrap_or(0);
    let shared_bytes = if share { row_bytes - local_bytes * workers } else { 0 };
    let rows = SharedRows::new(kernels.len() * problem.domains.len(), shared_bytes).with_row_len(longest);
    let plan = Plan {
        problem: &problem,
        engines: &engines,
        rows: &rows,
        settings,
        folds,
        params,
        eval_bytes,
        local_bytes,
        share,
    };

    let next = AtomicUsize::new(0);
    let done: Vec<Mutex<Option<Vec<SearchPoint>>>> = (0..chains).map(|_| Mutex::new(None)).collect();
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    (0..workers).into_par_iter().for_each(|_| loop {
        let c = next.fetch_add(1, Ordering::Relaxed);
        if c >= chains || control.should_stop() {
            break;
        }
        match plan.chain(c / folds.len(), c % folds.len(), control) {
            Ok(points) => *done[c].lock().unwrap_or_else(|p| p.into_inner()) = Some(points),
            Err(e) => {
                failure.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                control.request_stop();
                break;
            }
        }
    });
    if let Some(e) = engines.iter().find_map(KernelEngine::failure) {
        return Err(e);
    }
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut points = Vec::new();
    for d in done {
        points.extend(d.into_inner().unwrap_or_else(|p| p.into_inner()).ok_or(Error::Interrupted)?);
    }
    Ok(SearchResult { points, kernel_evals: engines.iter().map(KernelEngine::evals).sum(), rows: rows.stats() })
}

fn check_plan(
    problem: &Problem, kernels: &[KernelSpec], settings: &[SearchSetting], folds: &[SearchFold], params: &SearchParams,
) -> Result<()> {
    let n = problem.n;
    let per_fold = |len: usize| len == 1 || len == folds.len();
    let bad = |m: String| Err(Error::InvalidParameter(m));
    if !(params.tol > 0.0 && params.tol.is_finite()) {
        return bad("tol must be positive".into());
    }
    for k in kernels {
        k.validate()?;
        if matches!(k, KernelSpec::External(_)) {
            return bad("a cross-validated search needs a kernel the native engine computes".into());
        }
    }
    for (s, set) in settings.iter().enumerate() {
        if !per_fold(set.kernels.len()) || set.kernels.iter().any(|&k| k >= kernels.len()) {
            return bad(format!("setting {s} needs one kernel, or one per fold, of the {} given", kernels.len()));
        }
        if let SearchTask::Classification { n_classes, .. } = problem.task {
            if !per_fold(set.class_weight.len()) || set.class_weight.iter().any(|w| w.len() != n_classes) {
                return bad(format!("setting {s} needs {n_classes} class weights, for every fold or each"));
            }
            if set.class_weight.iter().flatten().any(|w| !(w.is_finite() && *w >= 0.0)) {
                return bad(format!("setting {s}: class weights must be non-negative and finite"));
            }
        }
        if set.cs.is_empty() || set.cs.iter().any(|c| !(c.is_finite() && *c > 0.0)) {
            return bad(format!("setting {s}: every C must be positive and finite"));
        }
        if set.cs.windows(2).any(|w| w[0] >= w[1]) {
            return bad(format!("setting {s}: the values of C must increase"));
        }
        if !(set.epsilon >= 0.0 && set.epsilon.is_finite()) {
            return bad(format!("setting {s}: epsilon must be non-negative"));
        }
    }
    if folds.is_empty() {
        return bad("no folds".into());
    }
    for (f, fold) in folds.iter().enumerate() {
        if fold.train.is_empty() {
            return Err(Error::InvalidData(format!("fold {f} has no training examples")));
        }
        if let Some(&i) = fold.train.iter().chain(&fold.eval).find(|&&i| i >= n) {
            return Err(Error::InvalidData(format!("fold {f} names example {i}, the data has {n}")));
        }
    }
    Ok(())
}

/// The data side: the class pairs (one for two classes, none for regression) and, per pair, its
/// domain: the examples of its two classes, ascending (all examples for regression).
struct Problem<'y> {
    task: SearchTask<'y>,
    sample_weight: &'y [f64],
    pairs: Vec<(usize, usize)>,
    domains: Vec<Vec<usize>>,
    n: usize,
}

impl<'y> Problem<'y> {
    fn new(n: usize, task: SearchTask<'y>, sample_weight: &'y [f64]) -> Result<Self> {
        if sample_weight.len() != n {
            return Err(Error::InvalidData(format!("X has {n} rows but {} sample weights", sample_weight.len())));
        }
        if let Some(i) = sample_weight.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(Error::InvalidData(format!("the weight of example {i} is negative or not finite")));
        }
        match task {
            SearchTask::Regression { y } => {
                if y.len() != n {
                    return Err(Error::InvalidData(format!("X has {n} rows but y has {}", y.len())));
                }
                if let Some(i) = y.iter().position(|v| !v.is_finite()) {
                    return Err(Error::InvalidData(format!("target of example {i} is NaN or infinite")));
                }
                Ok(Problem { task, sample_weight, pairs: Vec::new(), domains: vec![(0..n).collect()], n })
            }
            SearchTask::Classification { y, n_classes } => {
                if y.len() != n {
                    return Err(Error::InvalidData(format!("X has {n} rows but y has {}", y.len())));
                }
                if n_classes < 2 {
                    return Err(Error::InvalidData("classification needs at least two classes".into()));
                }
                if let Some(i) = y.iter().position(|&c| c >= n_classes) {
                    return Err(Error::InvalidData(format!(
                        "class index {} of example {i} is not below {n_classes}",
                        y[i]
                    )));
                }
                let pairs: Vec<(usize, usize)> =
                    (0..n_classes).flat_map(|a| (a + 1..n_classes).map(move |b| (a, b))).collect();
                let domains =
                    pairs.iter().map(|&(a, b)| (0..n).filter(|&i| y[i] == a || y[i] == b).collect()).collect();
                Ok(Problem { task, sample_weight, pairs, domains, n })
            }
        }
    }

    fn check_fold(&self, f: usize, fold: &SearchFold, settings: &[SearchSetting]) -> Result<()> {
        if let SearchTask::Classification { y, n_classes } = self.task {
            for s in settings {
                let mut weighted = vec![false; n_classes];
                for &i in &fold.train {
                    weighted[y[i]] |= s.weight(&self.task, self.sample_weight, f, i) > 0.0;
                }
                if let Some(c) = weighted.iter().position(|w| !w) {
                    return Err(Error::InvalidData(format!(
                        "class {c} has no training example of positive weight in fold {f}"
                    )));
                }
            }
        }
        Ok(())
    }
}

struct Plan<'p, 'a> {
    problem: &'p Problem<'p>,
    engines: &'p [KernelEngine<'a>],
    rows: &'p SharedRows,
    settings: &'p [SearchSetting],
    folds: &'p [SearchFold],
    params: &'p SearchParams,
    eval_bytes: usize,
    /// Budget of each chain's own cache of rows.
    local_bytes: usize,
    /// Whether the chains read the shared rows (else each keeps its own only).
    share: bool,
}

impl Plan<'_, '_> {
    fn smo(&self) -> SmoParams {
        let p = self.params;
        SmoParams {
            tol: p.tol,
            shrinking: p.shrinking,
            max_iter: p.max_iter,
            selection: p.selection,
            ..Default::default()
        }
    }

    /// Every C of setting `s` on fold `f`: the problems solved along C, then scored.
    fn chain(&self, s: usize, f: usize, control: &Control) -> Result<Vec<SearchPoint>> {
        let set = &self.settings[s];
        let fold = &self.folds[f];
        let cs = &set.cs;
        let mut points: Vec<SearchPoint> =
            cs.iter().map(|_| SearchPoint { converged: true, ..Default::default() }).collect();
        // solutions[c][problem]
        let mut solutions: Vec<Vec<Sparse>> = cs.iter().map(|_| Vec::new()).collect();
        let problems = self.problem.pairs.len().max(1);
        let kernel = set.kernel(f);
        let engine = &self.engines[kernel];
        for pair in 0..problems {
            let domain = &self.problem.domains[pair];
            let examples = self.examples(pair, fold);
            let positions: Vec<usize> = examples
                .iter()
                .map(|e| domain.binary_search(e).expect("a problem's examples are in its domain"))
                .collect();
            let source =
                SharedSource { rows: self.rows, domain: kernel * self.problem.domains.len() + pair, members: domain };
            let fresh = || -> Box<dyn QMatrix + '_> {
                let own = self.local_bytes;
                match (self.problem.task, self.share) {
                    (SearchTask::Regression { .. }, true) => {
                        Box::new(PairedQ::new(engine, examples.clone(), own).shared(source, positions.clone()))
                    }
                    (SearchTask::Regression { .. }, false) => Box::new(PairedQ::new(engine, examples.clone(), own)),
                    (SearchTask::Classification { .. }, true) => {
                        Box::new(ExampleQ::new(engine, examples.clone(), own).shared(source, positions.clone()))
                    }
                    (SearchTask::Classification { .. }, false) => {
                        Box::new(ExampleQ::new(engine, examples.clone(), own))
                    }
                }
            };
            // one matrix for every C: its own cache of rows (in its order) lasts along the chain;
            // `order[t]` is the variable now at its position t (the solver reorders it)
            let mut q = fresh();
            let weight: Vec<f64> =
                examples.iter().map(|&e| set.weight(&self.problem.task, self.problem.sample_weight, f, e)).collect();
            let (p, sign) = self.linear_term(pair, &examples, set.epsilon);
            let mut order: Vec<usize> = (0..p.len()).collect();
            let mut warm: Option<Warm> = None;
            for (ci, &c) in cs.iter().enumerate() {
                let (lo, hi): (Vec<f64>, Vec<f64>) = sign
                    .iter()
                    .zip(weight.iter().cycle())
                    .map(|(&sg, &w)| {
                        let b = c * w * sg;
                        (b.min(0.0), b.max(0.0))
                    })
                    .unzip();
                let started = Instant::now();
                if ci > 0 && self.params.warm_start == WarmStart::Cold {
                    // in the order an independent fit sees: the same solution to the bit
                    q = fresh();
                    order.sort_unstable();
                }
                let (alpha0, gradient0, gbar0) = match &warm {
                    Some(w) => w.start(self.params.warm_start, &p, &lo, &hi, c),
                    None => (vec![0.0; p.len()], p.clone(), Some(vec![0.0; p.len()])),
                };
                // the solver takes its vectors in the matrix's current order
                let into = |v: &[f64]| order.iter().map(|&o| v[o]).collect::<Vec<f64>>();
                let gbar0 = gbar0.as_deref().map(into);
                let mut view = Prefix::new(q.as_mut(), order.len());
                // (in the matrix's order under their own names: `Warm` keeps the problem's order)
                let (p_now, lo_now, hi_now) = (into(&p), into(&lo), into(&hi));
                let problem = DualProblem { p: &p_now, lo: &lo_now, hi: &hi_now, equality: Equality::Total };
                let (alpha0, gradient0) = (into(&alpha0), into(&gradient0));
                let start = smo::Start::At { alpha: &alpha0, gradient: Some(&gradient0), gbar: gbar0.as_deref() };
                let sol = smo::solve(&SOLO, &mut view, &problem, start, &self.smo(), control)?;
                let back = |v: &[f64]| {
                    let mut out = vec![0.0; v.len()];
                    for (&o, &x) in order.iter().zip(v) {
                        out[o] = x;
                    }
                    out
                };
                let (alpha, gradient, gbar) = (back(&sol.alpha), back(&sol.gradient), back(&sol.gbar));
                order = view.origin.iter().map(|&o| order[o]).collect();
                control.problem_done();
                let point = &mut points[ci];
                point.fit_seconds += started.elapsed().as_secs_f64();
                point.n_iter += sol.iterations;
                point.converged &= sol.converged;
                solutions[ci].push(sparse(&alpha, sol.bias, &examples));
                warm = Some(Warm { alpha, gradient, gbar, lo, hi, c });
            }
        }
        self.score(kernel, fold, &solutions, &mut points, control)?;
        Ok(points)
    }

    /// A problem's examples in the order a fit on the fold would order its variables: the
    /// pair's first class then its second, each in the fold's order (regression: the fold's).
    fn examples(&self, pair: usize, fold: &SearchFold) -> Vec<usize> {
        match self.problem.task {
            SearchTask::Regression { .. } => fold.train.clone(),
            SearchTask::Classification { y, .. } => {
                let (a, b) = self.problem.pairs[pair];
                let first = fold.train.iter().copied().filter(|&e| y[e] == a);
                first.chain(fold.train.iter().copied().filter(|&e| y[e] == b)).collect()
            }
        }
    }

    /// The linear term p of the signed dual and the sign of each variable's box.
    fn linear_term(&self, pair: usize, examples: &[usize], epsilon: f64) -> (Vec<f64>, Vec<f64>) {
        match self.problem.task {
            SearchTask::Regression { y } => {
                let p =
                    examples.iter().map(|&e| y[e] - epsilon).chain(examples.iter().map(|&e| y[e] + epsilon)).collect();
                let l = examples.len();
                (p, (0..2 * l).map(|v| if v < l { 1.0 } else { -1.0 }).collect())
            }
            SearchTask::Classification { y, .. } => {
                let a = self.problem.pairs[pair].0;
                let s: Vec<f64> = examples.iter().map(|&e| if y[e] == a { 1.0 } else { -1.0 }).collect();
                (s.clone(), s)
            }
        }
    }

    /// Decision values of every C's model on the fold's eval rows, a tile of rows at a time: the
    /// kernel between the tile and every support vector of any C is computed once (or read from a
    /// cached row over all examples) and each model reads it.
    fn score(
        &self, kernel: usize, fold: &SearchFold, solutions: &[Vec<Sparse>], points: &mut [SearchPoint],
        control: &Control,
    ) -> Result<()> {
        let started = Instant::now();
        let engine = &self.engines[kernel];
        let mut all: Vec<usize> = solutions.iter().flatten().flat_map(|s| s.sv.iter().copied()).collect();
        all.sort_unstable();
        all.dedup();
        // per model, where its support vectors are in `all`
        let at: Vec<Vec<Vec<usize>>> = solutions
            .iter()
            .map(|models| {
                models.iter().map(|m| m.sv.iter().map(|e| all.binary_search(e).expect("listed")).collect()).collect()
            })
            .collect();
        for (point, models) in points.iter_mut().zip(solutions) {
            let mut sv: Vec<usize> = models.iter().flat_map(|m| m.sv.iter().copied()).collect();
            sv.sort_unstable();
            sv.dedup();
            point.n_support = sv.len();
        }
        let classes = match self.problem.task {
            SearchTask::Classification { n_classes, .. } if n_classes > 2 => n_classes,
            _ => 0,
        };
        let m = fold.eval.len();
        let width = if classes > 0 { classes } else { 1 };
        let ovr = classes == 0 || self.params.ovr_scores;
        for point in points.iter_mut() {
            point.decision = vec![0.0; if ovr { m * width } else { 0 }];
            if classes > 0 {
                point.predicted = vec![0; m];
            }
        }
        // the cached rows cover the eval rows when the domain is every example
        let whole = self.problem.domains[0].len() == self.problem.n;
        let domain_id = kernel * self.problem.domains.len();
        let tile = (self.eval_bytes / (4 * all.len().max(1))).clamp(16, m.max(16));
        let mut k = vec![0.0f32; tile * all.len()];
        let mut dec = vec![0.0f64; tile];
        let mut votes = vec![0u32; tile * width];
        let mut conf = vec![0.0f64; tile * width];
        for (t0, rows) in fold.eval.chunks(tile).enumerate().map(|(b, r)| (b * tile, r)) {
            control.poll()?;
            let len = rows.len();
            for (s, &e) in all.iter().enumerate() {
                let out = &mut k[s * len..(s + 1) * len];
                match whole.then(|| self.rows.get(domain_id, e)).flatten() {
                    Some(row) => {
                        for (o, &r) in out.iter_mut().zip(rows) {
                            *o = row[r];
                        }
                    }
                    None => engine.row_split(e, rows, out, Split::Serial),
                }
            }
            for ((point, models), at) in points.iter_mut().zip(solutions).zip(&at) {
                votes[..len * width].fill(0);
                conf[..len * width].fill(0.0);
                for (p, (model, at)) in models.iter().zip(at).enumerate() {
                    let dec = &mut dec[..len];
                    decide(model, at, &k, len, dec);
                    if classes == 0 {
                        point.decision[t0..t0 + len].copy_from_slice(dec);
                        continue;
                    }
                    let (a, b) = self.problem.pairs[p];
                    for (t, &d) in dec.iter().enumerate() {
                        let winner = if d > 0.0 { a } else { b };
                        votes[t * width + winner] += 1;
                        conf[t * width + a] += d;
                        conf[t * width + b] -= d;
                    }
                }
                for t in (0..len).filter(|_| classes > 0) {
                    let v = &votes[t * width..(t + 1) * width];
                    let c = &conf[t * width..(t + 1) * width];
                    // most votes, the lowest class among equals
                    let best = (0..classes).fold(0, |best, j| if v[j] > v[best] { j } else { best });
                    point.predicted[t0 + t] = best;
                    for j in (0..classes).filter(|_| ovr) {
                        point.decision[(t0 + t) * width + j] = v[j] as f64 + c[j] / (3.0 * (c[j].abs() + 1.0));
                    }
                }
            }
        }
        let each = started.elapsed().as_secs_f64() / points.len().max(1) as f64;
        for point in points.iter_mut() {
            point.score_seconds = each;
        }
        Ok(())
    }
}

/// `dec[t] = sum_s coef_s K(sv_s, row_t) + bias` over a tile of `len` rows; `k` holds the tile's
/// kernel values, `len` per vector, the model's vectors at `at`.
fn decide(model: &Sparse, at: &[usize], k: &[f32], len: usize, dec: &mut [f64]) {
    dec.fill(model.bias);
    for (&s, &coef) in at.iter().zip(&model.coef) {
        for (d, &kv) in dec.iter_mut().zip(&k[s * len..(s + 1) * len]) {
            *d += coef * kv as f64;
        }
    }
}

/// The support vectors of a solution over `examples` (twice as many variables for regression:
/// an example's coefficient is alpha+ + alpha-).
fn sparse(alpha: &[f64], bias: f64, examples: &[usize]) -> Sparse {
    let l = examples.len();
    let coef_of = |t: usize| if alpha.len() == 2 * l { alpha[t] + alpha[t + l] } else { alpha[t] };
    let (sv, coef) = (0..l).map(|t| (examples[t], coef_of(t))).filter(|&(_, c)| c != 0.0).unzip();
    Sparse { sv, coef, bias }
}

#[cfg(test)]
mod tests;
mod warm;
