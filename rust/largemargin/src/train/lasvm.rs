//! Training online kernel classifiers over the shared kernel engine: binary problems (one-vs-one
//! pairs or one-vs-rest for multiclass) solved in parallel, each with its share of the kernel-cache budget, by LaSVM or
//! by a baseline (the Huller, the kernel perceptron family).

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::{KernelEngine, KernelSpec};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::runtime::team::{threads_for, with_team, Team, SOLO};
use crate::solver::online::huller::Huller;
use crate::solver::online::lasvm::{LaSvm, LaSvmParams, LaSvmStats, Oracle, SelectionStrategy};
use crate::solver::online::perceptron::{KernelPerceptron, PerceptronRule};
use crate::solver::smo::Selection;

/// How `train_lasvm` solves every problem: the kernel, LaSVM's constants, the passes and the
/// finishing step.
#[derive(Clone, Debug)]
pub struct LaSvmTrainParams {
    /// The kernel, shared by all problems through one engine.
    pub kernel: KernelSpec,
    /// tau: REPROCESS's violation threshold and the finishing step's stopping gap; positive.
    pub tol: f64,
    /// Online passes over the data (LaSVM x1, x2, ...).
    pub epochs: usize,
    /// At most this many online iterations (PROCESS + REPROCESS) over all passes.
    pub max_iter: Option<u64>,
    /// Run the finishing step (SMO on the expansion set) after the passes.
    pub finishing: bool,
    /// Working-set rule of the finishing step.
    pub finishing_selection: Selection,
    /// Shrinking in the finishing step.
    pub finishing_shrinking: bool,
    /// Examples of each class PROCESSed before the online pass (not with a warm start).
    pub seed_per_class: usize,
    /// The kernel-cache budget of the whole fit, in bytes: the engine's copies are charged to it
    /// and the rest is split between the problems solved at once.
    pub cache_bytes: usize,
    /// Seeds the orders of the passes; problem p uses `seed + p`.
    pub seed: u64,
}

impl Default for LaSvmTrainParams {
    fn default() -> Self {
        LaSvmTrainParams {
            kernel: KernelSpec::Rbf { gamma: 1.0 },
            tol: 1e-3,
            epochs: 1,
            max_iter: None,
            finishing: true,
            finishing_selection: Selection::SecondOrder,
            finishing_shrinking: false,
            seed_per_class: 5,
            cache_bytes: crate::cache::DEFAULT_BUDGET,
            seed: 0,
        }
    }
}

/// One binary problem's solution: `f(x) = sum_k coef[k] K(x, x_support[k]) + bias`.
#[derive(Clone, Debug, Default)]
pub struct BinaryFit {
    /// Row indices, in the training data, of the support vectors, increasing.
    pub support: Vec<usize>,
    /// Each support vector's coefficient in f, signed by its class.
    pub coef: Vec<f64>,
    /// The bias b of f.
    pub bias: f64,
    /// LaSVM's g_max - g_min over its expansion set at the end; NaN for the baselines.
    pub gap: f64,
    /// The dual objective reached; NaN for the baselines.
    pub objective: f64,
    /// The problem's counters (for a baseline, only `processed` and `inserted`, its updates).
    pub stats: LaSvmStats,
}

/// The binary problems of one online fit, in the order of their label vectors.
#[derive(Clone, Debug, Default)]
pub struct OnlineFit {
    /// One solution per label vector.
    pub problems: Vec<BinaryFit>,
    /// Kernel values computed over the whole fit, all problems together.
    pub kernel_evals: u64,
}

/// A warm start for one problem: the coefficients of the data's first `alpha.len()` rows, which
/// form the initial expansion set; the online pass then visits only the rows after them.
pub type WarmStart = Vec<f64>;

/// Makes problem p's example-selection strategy.
pub type StrategyMaker<'s> = dyn Fn(usize) -> Box<dyn SelectionStrategy> + Sync + 's;
/// Makes problem p's oracle, which labels the examples chosen without a label (+1 / -1).
pub type OracleMaker<'o> = dyn Fn(usize) -> Box<dyn Oracle + 'o> + Sync + 'o;

/// Solves one binary problem per label vector (+1/-1, NaN where unknown, 0 where the example is
/// not part of the problem, as in a one-vs-one pair) with LaSVM, in parallel. Examples without a
/// label are labelled by `oracle` when chosen; an oracle's 0 takes the example out of the problem.
pub fn train_lasvm(
    x: &Matrix, labels: &[Vec<f64>], sample_c: &[f64], params: &LaSvmTrainParams, warm: Option<&[WarmStart]>,
    strategy: &StrategyMaker, oracle: Option<&OracleMaker>, control: &Control,
) -> Result<OnlineFit> {
    let n = x.rows();
    if sample_c.len() != n || labels.iter().any(|l| l.len() != n) {
        return Err(Error::InvalidData(format!("{n} examples but labels or weights of another length")));
    }
    if warm.is_some_and(|w| w.len() != labels.len() || w.iter().any(|a| a.len() > n)) {
        return Err(Error::InvalidData("one warm start per problem, no longer than the data".into()));
    }
    if params.epochs == 0 && !params.finishing && warm.is_none() {
        return Err(Error::InvalidParameter("epochs must be positive".into()));
    }
    control.plan(labels.len() as u64);
    solve_problems(x, labels.len(), &params.kernel, params.cache_bytes, |engine, p, budget, team| {
        // The rows labelled 0 take no part in this problem (a one-vs-one pair's other classes):
        // the problem is the subset of the others, over the same engine.
        let members: Vec<usize> = (0..n).filter(|&i| labels[p][i] != 0.0).collect();
        let m = members.len();
        let y: Vec<f64> = members.iter().map(|&i| labels[p][i]).collect();
        let c: Vec<f64> = members.iter().map(|&i| sample_c[i]).collect();
        // warm starts cover the data's first rows, so their members are the subset's first ones
        let warm_p: Option<Vec<f64>> =
            warm.map(|w| members.iter().take_while(|&&i| i < w[p].len()).map(|&i| w[p][i]).collect());
        let problem = LaSvmParams { tol: params.tol, seed_per_class: params.seed_per_class, cache_bytes: budget };
        let mut svm = LaSvm::new(engine, members.clone(), &y, &c, problem)?.on_team(team);
        let mut rng = Rng::new(params.seed.wrapping_add(p as u64));
        let first_new = match &warm_p {
            Some(w) => {
                svm.warm_start(w.len(), w)?;
                w.len()
            }
            None => 0,
        };
        let mut order: Vec<usize> = (first_new..m).collect();
        rng.shuffle(&mut order);
        if warm.is_none() {
            svm.seed(&order)?;
        }
        let mut select = strategy(p);
        let mut ask = oracle.map(|make| SubsetOracle { inner: make(p), members: &members });
        let mut left = params.max_iter;
        for epoch in 0..params.epochs {
            if left == Some(0) {
                svm.stats.stopped_by_max_iter = true; // epochs left, no budget
                break;
            }
            let taken = svm.online_pass(
                &order,
                select.as_mut(),
                &mut rng,
                ask.as_mut().map(|a| a as &mut dyn Oracle),
                left,
                control,
            )?;
            left = left.map(|l| l.saturating_sub(taken));
            if left == Some(0) && epoch + 1 == params.epochs && (taken as usize) < order.len() {
                svm.stats.stopped_by_max_iter = true; // the last pass itself was cut
            }
            rng.shuffle(&mut order);
        }
        if params.finishing {
            svm.finish(params.finishing_selection, params.finishing_shrinking, control)?;
        }
        control.problem_done();
        let (support, coef) = svm.support().into_iter().map(|(k, a)| (members[k], a)).unzip();
        Ok(BinaryFit {
            support,
            coef,
            bias: svm.bias(),
            gap: svm.gap(),
            objective: svm.objective(),
            stats: svm.stats.clone(),
        })
    })
}

/// An oracle asked about a problem's k-th member, answering for the data row it stands for.
struct SubsetOracle<'m, 'o> {
    inner: Box<dyn Oracle + 'o>,
    members: &'m [usize],
}

impl Oracle for SubsetOracle<'_, '_> {
    fn label(&mut self, k: usize) -> Result<f64> {
        self.inner.label(self.members[k])
    }
}

/// The online baselines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Baseline {
    /// The Huller: an online hard-margin SVM tracking the nearest points of the classes' hulls.
    Huller,
    /// A kernel perceptron with the given update rule.
    Perceptron(PerceptronRule),
}

/// A baseline as its name gives it: the perceptron rules' settings come apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaselineKind {
    /// `Baseline::Huller`.
    Huller,
    /// `PerceptronRule::Perceptron`.
    Perceptron,
    /// `PerceptronRule::Averaged`.
    Averaged,
    /// `PerceptronRule::PassiveAggressive`.
    PassiveAggressive,
    /// `PerceptronRule::Budget`.
    Budget,
}
crate::error::option_names!(BaselineKind, "online algorithm", {
    Huller => "huller",
    Perceptron => "perceptron",
    Averaged => "averaged",
    PassiveAggressive => "pa",
    Budget => "budget",
});

impl BaselineKind {
    /// The baseline, with `c` for `PassiveAggressive`, `beta` and `budget` for `Budget` (unread
    /// otherwise).
    pub fn with(self, c: f64, beta: f64, budget: usize) -> Baseline {
        match self {
            BaselineKind::Huller => Baseline::Huller,
            BaselineKind::Perceptron => Baseline::Perceptron(PerceptronRule::Perceptron),
            BaselineKind::Averaged => Baseline::Perceptron(PerceptronRule::Averaged),
            BaselineKind::PassiveAggressive => Baseline::Perceptron(PerceptronRule::PassiveAggressive { c }),
            BaselineKind::Budget => Baseline::Perceptron(PerceptronRule::Budget { beta, size: budget }),
        }
    }
}

/// Solves one binary problem per label vector (+1/-1) with a baseline, `epochs` random-order
/// passes each, in parallel.
pub fn train_baseline(
    x: &Matrix, labels: &[Vec<f64>], kernel: &KernelSpec, baseline: Baseline, epochs: usize, cache_bytes: usize,
    seed: u64, control: &Control,
) -> Result<OnlineFit> {
    let n = x.rows();
    if labels.iter().any(|l| l.len() != n) {
        return Err(Error::InvalidData(format!("{n} examples but labels of another length")));
    }
    if epochs == 0 {
        return Err(Error::InvalidParameter("epochs must be positive".into()));
    }
    control.plan(labels.len() as u64);
    solve_problems(x, labels.len(), kernel, cache_bytes, |engine, p, budget, _team| {
        let mut rng = Rng::new(seed.wrapping_add(p as u64));
        let mut order: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut order);
        let (expansion, bias, updates) = match baseline {
            Baseline::Huller => {
                let mut h = Huller::new(engine, (0..n).collect(), &labels[p], budget)?;
                h.start(&order, 5)?;
                for _ in 0..epochs {
                    h.epoch(&order, &mut rng, control)?;
                    rng.shuffle(&mut order);
                }
                let (e, b) = h.expansion();
                (e, b, h.updates)
            }
            Baseline::Perceptron(rule) => {
                let mut k = KernelPerceptron::new(engine, (0..n).collect(), &labels[p], rule, budget)?;
                for _ in 0..epochs {
                    k.epoch(&order, control)?;
                    rng.shuffle(&mut order);
                }
                (k.expansion(), 0.0, k.mistakes)
            }
        };
        control.problem_done();
        let (support, coef) = expansion.into_iter().unzip();
        let stats = LaSvmStats { processed: (epochs * n) as u64, inserted: updates, ..Default::default() };
        Ok(BinaryFit { support, coef, bias, gap: f64::NAN, objective: f64::NAN, stats })
    })
}

/// The harness every online trainer shares: one engine over the data, the cache budget split
/// between the problems solved at once, problems in parallel (one problem alone gets a team of
/// every thread, which a solver may use), an external kernel's failure first.
fn solve_problems(
    x: &Matrix, problems: usize, kernel: &KernelSpec, cache_bytes: usize,
    solve: impl Fn(&KernelEngine, usize, usize, &Team) -> Result<BinaryFit> + Sync,
) -> Result<OnlineFit> {
    if x.rows() == 0 {
        return Err(Error::InvalidData("no examples".into()));
    }
    x.check_finite()?;
    let engine = KernelEngine::within(*x, kernel.clone(), cache_bytes)?;
    let at_once = problems.clamp(1, rayon::current_num_threads().max(1));
    let budget = cache_bytes.saturating_sub(engine.extra_bytes()) / at_once;
    let solved: Vec<Result<BinaryFit>> = if problems == 1 {
        vec![with_team(threads_for(x.rows()), |team| solve(&engine, 0, budget, team))]
    } else {
        (0..problems).into_par_iter().map(|p| solve(&engine, p, budget, &SOLO)).collect()
    };
    if let Some(e) = engine.failure() {
        return Err(e);
    }
    let problems = solved.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(OnlineFit { problems, kernel_evals: engine.evals() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;
    use crate::solver::online::lasvm::{ActiveSelection, AutoActiveSelection, GradientSelection, RandomSelection};
    use crate::train::svm::{train_svc, SvmParams};

    fn blobs(n: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
        let mut rng = Rng::new(seed);
        let mut x = Vec::with_capacity(2 * n);
        let mut y = Vec::with_capacity(n);
        for i in 0..n {
            let c = i % 2;
            let centre = if c == 0 { -0.7 } else { 0.7 };
            for _ in 0..2 {
                let u: f64 = (0..6).map(|_| rng.below(1000) as f64 / 1000.0).sum::<f64>() - 3.0; // ~N(0, 0.5)
                x.push(centre + u);
            }
            y.push(c);
        }
        (x, y)
    }

    /// One pass and the finishing step come close to SMO's dual; a few passes reach it (to tau),
    /// with the KKT conditions holding over the whole training set.
    #[test]
    fn lasvm_with_finishing_reaches_the_smo_solution() {
        let (xs, y) = blobs(600, 1);
        let x = Matrix::Dense64(DenseView::new(&xs, 600, 2).unwrap());
        let kernel = KernelSpec::Rbf { gamma: 0.5 };
        let c = vec![10.0; 600];
        let control = Control::new();
        let smo =
            train_svc(&x, &y, 2, &c, &SvmParams { kernel: kernel.clone(), tol: 1e-4, ..Default::default() }, &control)
                .unwrap();
        let labels = vec![y.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect::<Vec<f64>>()];
        let one = LaSvmTrainParams { kernel: kernel.clone(), tol: 1e-4, ..Default::default() };
        let params = LaSvmTrainParams { epochs: 4, ..one.clone() };
        let makers: [&(dyn Fn(usize) -> Box<dyn SelectionStrategy> + Sync); 4] = [
            &|_| Box::new(RandomSelection),
            &|_| Box::new(GradientSelection { candidates: 50 }),
            &|_| Box::new(ActiveSelection { candidates: 50 }),
            &|_| Box::new(AutoActiveSelection { candidates: 100, wanted: 5 }),
        ];
        for (m, make) in makers.iter().enumerate() {
            let x1 = train_lasvm(&x, &labels, &c, &one, None, *make, None, &control).unwrap().problems[0].objective;
            assert!(x1 <= smo.objective[0] * (1.0 + 1e-6), "strategy {m}: one pass {x1} above the optimum");
            let fit = train_lasvm(&x, &labels, &c, &params, None, *make, None, &control).unwrap();
            let p = &fit.problems[0];
            if m == 3 {
                // AUTOACTIVE stops when no candidate lies in the margin band: a solution on fewer
                // examples, with a lower dual and fewer support vectors.
                assert!(p.objective <= smo.objective[0] * (1.0 + 1e-6) && p.objective > 0.8 * smo.objective[0]);
                assert!(p.support.len() < smo.support.len());
                continue;
            }
            assert!(x1 > 0.95 * smo.objective[0], "strategy {m}: one pass {x1}");
            let rel = (p.objective - smo.objective[0]).abs() / smo.objective[0];
            assert!(rel < 1e-4, "strategy {m}: objective {} vs SMO {}", p.objective, smo.objective[0]);
            assert!(p.gap <= 1e-4 + 1e-12, "strategy {m}: gap {}", p.gap);
            // KKT over all examples: y f(x) >= 1 - tau where alpha = 0, <= 1 + tau at the upper bound.
            let engine = KernelEngine::new(x, kernel.clone()).unwrap();
            let mut is_sv = vec![0.0; 600];
            for (&s, &a) in p.support.iter().zip(&p.coef) {
                is_sv[s] = a;
            }
            for i in 0..600 {
                let f: f64 = p.support.iter().zip(&p.coef).map(|(&s, &a)| a * engine.eval(i, s)).sum::<f64>() + p.bias;
                let yf = labels[0][i] * f;
                let a = is_sv[i].abs();
                if a == 0.0 {
                    assert!(yf >= 1.0 - 2e-3, "strategy {m}: example {i} violates (alpha 0, yf {yf})");
                } else if a >= 10.0 {
                    assert!(yf <= 1.0 + 2e-3, "strategy {m}: example {i} violates (alpha C, yf {yf})");
                }
            }
        }
    }

    /// A problem whose labels are 0 on some rows (a one-vs-one pair) is the problem on the other
    /// rows alone: the same solution, support indices in the whole data's numbering.
    #[test]
    fn rows_labelled_zero_are_left_out() {
        let (xs, y) = blobs(600, 4);
        let x = Matrix::Dense64(DenseView::new(&xs, 600, 2).unwrap());
        let kept: Vec<usize> = (0..600).filter(|i| i % 3 != 0).collect();
        let labels: Vec<f64> = (0..600)
            .map(|i| {
                if i % 3 == 0 {
                    0.0
                } else if y[i] == 1 {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        let sub: Vec<f64> = kept.iter().flat_map(|&i| xs[2 * i..2 * i + 2].to_vec()).collect();
        let xsub = Matrix::Dense64(DenseView::new(&sub, kept.len(), 2).unwrap());
        let ysub: Vec<f64> = kept.iter().map(|&i| labels[i]).collect();
        let params = LaSvmTrainParams { kernel: KernelSpec::Rbf { gamma: 0.5 }, ..Default::default() };
        let random: &(dyn Fn(usize) -> Box<dyn SelectionStrategy> + Sync) = &|_| Box::new(RandomSelection);
        let control = Control::new();
        let whole = train_lasvm(&x, &[labels], &vec![1.0; 600], &params, None, random, None, &control).unwrap();
        let alone = train_lasvm(&xsub, &[ysub], &vec![1.0; kept.len()], &params, None, random, None, &control).unwrap();
        let (w, a) = (&whole.problems[0], &alone.problems[0]);
        assert_eq!(w.support, a.support.iter().map(|&k| kept[k]).collect::<Vec<_>>());
        assert_eq!(w.coef, a.coef);
        assert_eq!(w.bias, a.bias);
    }

    /// Without finishing, one pass is close; a warm start from its solution over new data keeps
    /// the old support vectors and only visits the new rows.
    #[test]
    fn one_pass_is_close_and_warm_starts_continue() {
        let (xs, y) = blobs(800, 2);
        let x = Matrix::Dense64(DenseView::new(&xs, 800, 2).unwrap());
        let labels: Vec<f64> = y.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect();
        let c = vec![1.0; 800];
        let control = Control::new();
        let params =
            LaSvmTrainParams { kernel: KernelSpec::Rbf { gamma: 0.5 }, finishing: false, ..Default::default() };
        let random: &(dyn Fn(usize) -> Box<dyn SelectionStrategy> + Sync) = &|_| Box::new(RandomSelection);
        let full = train_lasvm(
            &x,
            std::slice::from_ref(&labels),
            &c,
            &LaSvmTrainParams { finishing: true, ..params.clone() },
            None,
            random,
            None,
            &control,
        )
        .unwrap();
        let one = train_lasvm(&x, std::slice::from_ref(&labels), &c, &params, None, random, None, &control).unwrap();
        let (o1, of) = (one.problems[0].objective, full.problems[0].objective);
        // The optimum over every example (SMO to 1e-7) bounds them all. (Finishing optimises over
        // the expansion set the pass kept: the continued run, over another set, may end above it.)
        let smo = SvmParams { kernel: KernelSpec::Rbf { gamma: 0.5 }, tol: 1e-7, ..Default::default() };
        let optimum = train_svc(&x, &y, 2, &c, &smo, &control).unwrap().objective[0];
        assert!(o1 <= optimum + 1e-9 && o1 > 0.97 * of, "one pass {o1} vs finished {of}, optimum {optimum}");

        // first half, then the second half warm-started from the first's support vectors
        let half = 400;
        let xh = Matrix::Dense64(DenseView::new(&xs[..2 * half], half, 2).unwrap());
        let first =
            train_lasvm(&xh, &[labels[..half].to_vec()], &c[..half], &params, None, random, None, &control).unwrap();
        let sv = &first.problems[0].support;
        let mut rows: Vec<usize> = sv.clone();
        rows.extend(half..800);
        let xs2: Vec<f64> = rows.iter().flat_map(|&r| xs[2 * r..2 * r + 2].to_vec()).collect();
        let y2: Vec<f64> = rows.iter().map(|&r| labels[r]).collect();
        let x2 = Matrix::Dense64(DenseView::new(&xs2, rows.len(), 2).unwrap());
        let warm = vec![first.problems[0].coef.clone()];
        let cont =
            train_lasvm(&x2, &[y2], &vec![1.0; rows.len()], &params, Some(&warm), random, None, &control).unwrap();
        let oc = cont.problems[0].objective;
        assert!(oc > 0.95 * of && oc <= optimum + 1e-9, "continued {oc} vs one-shot finished {of}, optimum {optimum}");
        assert!(cont.problems[0].stats.processed <= 400, "only the new rows are visited");
    }

    /// Active learning: with no label given, ACTIVE selection asks the oracle for the label of
    /// each example it picks, once, and `max_iter` bounds the questions.
    #[test]
    fn an_oracle_labels_what_active_selection_picks() {
        use crate::solver::online::lasvm::{ActiveSelection, Oracle};
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (xs, y) = blobs(600, 6);
        let x = Matrix::Dense64(DenseView::new(&xs, 600, 2).unwrap());
        let truth: Vec<f64> = y.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect();
        struct Asked<'t> {
            truth: &'t [f64],
            calls: &'t AtomicUsize,
            seen: Vec<bool>,
        }
        impl Oracle for Asked<'_> {
            fn label(&mut self, e: usize) -> Result<f64> {
                assert!(!self.seen[e], "example {e} asked twice");
                self.seen[e] = true;
                self.calls.fetch_add(1, Ordering::Relaxed);
                Ok(self.truth[e])
            }
        }
        let calls = AtomicUsize::new(0);
        let make =
            |_: usize| Box::new(Asked { truth: &truth, calls: &calls, seen: vec![false; 600] }) as Box<dyn Oracle>;
        let active: &StrategyMaker = &|_| Box::new(ActiveSelection { candidates: 20 });
        let params =
            LaSvmTrainParams { kernel: KernelSpec::Rbf { gamma: 0.5 }, max_iter: Some(80), ..Default::default() };
        let unknown = vec![vec![f64::NAN; 600]];
        let fit =
            train_lasvm(&x, &unknown, &vec![1.0; 600], &params, None, active, Some(&make), &Control::new()).unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 80, "one question per step");
        let p = &fit.problems[0];
        let errors = |p: &BinaryFit| (0..600).filter(|&i| truth[i] * decision(&x, &params.kernel, p, i) <= 0.0).count();
        // all 600 labels, one pass
        let random: &StrategyMaker = &|_| Box::new(RandomSelection);
        let full = train_lasvm(
            &x,
            std::slice::from_ref(&truth),
            &vec![1.0; 600],
            &LaSvmTrainParams { max_iter: None, ..params.clone() },
            None,
            random,
            None,
            &Control::new(),
        )
        .unwrap();
        let (e80, e600) = (errors(p), errors(&full.problems[0]));
        assert!(e80 <= e600 + 15, "{e80} training errors from 80 labels, {e600} from all");
        // without an oracle, an unlabelled example chosen is an error
        let err = train_lasvm(&x, &unknown, &vec![1.0; 600], &params, None, active, None, &Control::new());
        assert!(err.is_err());
    }

    fn separable(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let (xs, y) = blobs(n, seed);
        // pull the two classes apart: centres at -2.1 and +2.1, spread about 0.5
        let xs: Vec<f64> = xs.iter().enumerate().map(|(i, &v)| v + if y[i / 2] == 1 { 1.4 } else { -1.4 }).collect();
        (xs, y.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect())
    }

    fn decision(x: &Matrix, kernel: &KernelSpec, p: &BinaryFit, i: usize) -> f64 {
        let engine = KernelEngine::new(*x, kernel.clone()).unwrap();
        p.support.iter().zip(&p.coef).map(|(&s, &a)| a * engine.eval(i, s)).sum::<f64>() + p.bias
    }

    /// On separable data the Huller converges to the hard-margin SVM: its decision function is
    /// SMO's (large C) up to a positive factor.
    #[test]
    fn the_huller_finds_the_hard_margin_svm() {
        let (xs, y) = separable(400, 3);
        let x = Matrix::Dense64(DenseView::new(&xs, 400, 2).unwrap());
        let kernel = KernelSpec::Rbf { gamma: 0.2 };
        let control = Control::new();
        let classes: Vec<usize> = y.iter().map(|&v| (v > 0.0) as usize).collect();
        let smo = train_svc(
            &x,
            &classes,
            2,
            &vec![1e6; 400],
            &SvmParams { kernel: kernel.clone(), tol: 1e-6, ..Default::default() },
            &control,
        )
        .unwrap();
        let fit =
            train_baseline(&x, std::slice::from_ref(&y), &kernel, Baseline::Huller, 20, 1 << 24, 1, &control).unwrap();
        let h = &fit.problems[0];
        // SMO's decision (LIBSVM sign: positive means class index 0, here y = -1)
        let engine = KernelEngine::new(x, kernel.clone()).unwrap();
        let smo_f = |i: usize| {
            -(smo.support.iter().zip(&smo.dual_coef).map(|(&s, &a)| a * engine.eval(i, s)).sum::<f64>()
                + smo.intercept[0])
        };
        let (mut fs, mut hs) = (Vec::new(), Vec::new());
        for i in 0..400 {
            fs.push(smo_f(i));
            hs.push(decision(&x, &kernel, h, i));
            assert!(y[i] * hs[i] > 0.0, "example {i} misclassified by the Huller");
        }
        let scale = fs.iter().zip(&hs).map(|(a, b)| a * b).sum::<f64>() / hs.iter().map(|b| b * b).sum::<f64>();
        let worst = fs.iter().zip(&hs).map(|(a, b)| (a - scale * b).abs()).fold(0.0, f64::max);
        assert!(scale > 0.0 && worst < 0.05, "scale {scale}, largest difference {worst}");
    }

    #[test]
    fn the_perceptron_family_learns_separable_data() {
        let (xs, y) = separable(400, 4);
        let x = Matrix::Dense64(DenseView::new(&xs, 400, 2).unwrap());
        let kernel = KernelSpec::Rbf { gamma: 0.2 };
        let control = Control::new();
        for rule in [
            PerceptronRule::Perceptron,
            PerceptronRule::Averaged,
            PerceptronRule::PassiveAggressive { c: 1.0 },
            PerceptronRule::Budget { beta: 0.0, size: 20 },
        ] {
            let fit = train_baseline(
                &x,
                std::slice::from_ref(&y),
                &kernel,
                Baseline::Perceptron(rule),
                3,
                1 << 24,
                2,
                &control,
            )
            .unwrap();
            let p = &fit.problems[0];
            let errors = (0..400).filter(|&i| y[i] * decision(&x, &kernel, p, i) <= 0.0).count();
            assert!(errors <= 4, "{rule:?}: {errors} training errors");
            if let PerceptronRule::Budget { size, .. } = rule {
                assert!(p.support.len() <= size);
            }
            if rule == PerceptronRule::Perceptron {
                assert!(p.coef.iter().all(|a| a.abs().fract() == 0.0), "perceptron coefficients are label sums");
            }
        }
    }
}
