//! Training linear models by SGD over the data's binary problems (one-vs-rest for multiclass),
//! the problems in parallel: epochs over a per-epoch random order (or the data's order), each
//! model's optimiser state kept so that training can continue (partial_fit), each problem's passes
//! stopped, if asked, once its objective stops improving.

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::runtime::team::{threads_for, with_team};
use crate::solver::sgd::loss::Loss;
use crate::solver::sgd::{choose_t0, primal, t0_candidates, LinearModel, SgdParams};

/// How `train_linear` runs every problem: the SGD algorithm, the passes, their order and when
/// they stop.
#[derive(Clone, Debug)]
pub struct LinearParams {
    /// The algorithm and its step sizes, the same for every problem.
    pub sgd: SgdParams,
    /// Passes over the data per problem: exactly this many without `stop`, at most with it.
    pub epochs: usize,
    /// A new random order each epoch (else the data's order: pre-shuffled data, as the thesis
    /// timed its passes).
    pub shuffle: bool,
    /// Seeds the shuffles, mixed with the problem's index and the examples its model has seen.
    pub seed: u64,
    /// Stop each problem's passes early once its objective stops improving (`epochs` the cap);
    /// None: always `epochs` passes.
    pub stop: Option<Stopping>,
}

/// The stopping rule: after each pass the primal of the model as it is returned (ASGD's
/// average, not the iterate) is evaluated (one pass without updates); a pass that does not
/// lower the best value so far by more than `tol` times the zero model's primal counts as no
/// change, and `n_iter_no_change` of them in a row stop that problem. (The zero model's value,
/// the weighted mean loss at margin 0, is the problem's scale: relative to the objective itself,
/// a separable problem, whose objective falls towards 0 as 1/passes, never met tol.)
#[derive(Clone, Copy, Debug)]
pub struct Stopping {
    /// The least improvement that counts, as a fraction of the zero model's primal; nonnegative.
    pub tol: f64,
    /// How many passes in a row without such an improvement stop a problem; positive.
    pub n_iter_no_change: usize,
}

impl Stopping {
    /// Rejects a `tol` that is negative or not finite, and an `n_iter_no_change` of 0.
    pub fn validate(&self) -> Result<()> {
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return Err(Error::InvalidParameter("tol must be a nonnegative number".into()));
        }
        if self.n_iter_no_change == 0 {
            return Err(Error::InvalidParameter("n_iter_no_change must be positive".into()));
        }
        Ok(())
    }
}

/// One binary problem: labels +1/-1, and the weight of each class (class_weight) by which
/// the examples' sample weights are multiplied.
pub struct Problem<'a> {
    /// One label per example, +1 or -1.
    pub y: &'a [f64],
    /// The class weight of the examples labelled +1.
    pub positive_weight: f64,
    /// The class weight of the examples labelled -1.
    pub negative_weight: f64,
}

impl Problem<'_> {
    /// Each example's weight in this problem: its sample weight times its class's weight.
    pub fn weights(&self, sample_weight: &[f64]) -> Vec<f64> {
        self.y
            .iter()
            .zip(sample_weight)
            .map(|(&y, &s)| s * if y > 0.0 { self.positive_weight } else { self.negative_weight })
            .collect()
    }
}

/// The thesis' t0 for a fit of these problems (`choose_t0` with `t0_candidates`): tried on the
/// first problem, the step bounded by each example's largest weight over all of them, so that
/// one t0 is stable for every problem. `params.t0` is ignored.
pub fn choose_linear_t0(
    x: &Matrix, problems: &[Problem], sample_weight: &[f64], loss: &dyn Loss, params: &SgdParams, seed: u64,
    control: &Control,
) -> Result<f64> {
    let n = x.rows();
    let Some(first) = problems.first() else {
        return Err(Error::InvalidData("no problem to choose t0 for".into()));
    };
    if sample_weight.len() != n || problems.iter().any(|p| p.y.len() != n) {
        return Err(Error::InvalidData(format!("{n} examples but labels or weights of another count")));
    }
    let c = first.weights(sample_weight);
    let mut bound = None;
    for problem in &problems[1..] {
        let bound = bound.get_or_insert_with(|| c.clone());
        bound.iter_mut().zip(problem.weights(sample_weight)).for_each(|(b, w)| *b = b.max(w));
    }
    // ASGD's choice averages as the fit will (from the start by default): the last iterate of
    // steps as large as averaging tolerates is noisy, and judged alone it made the choice
    // depend on the sample (1e6 instead of the floor 2e4 for some seeds, 9 test points lost)
    let p = SgdParams { t0: 1.0, rate: None, ..params.clone() };
    // (the data is checked for NaN and infinity on the way, by `stable_t0`)
    choose_t0(x, first.y, &c, bound.as_deref().unwrap_or(&c), loss, &p, &t0_candidates(), seed, control)
}

/// What a fit reports per problem.
#[derive(Clone, Debug)]
pub struct LinearFit {
    /// The primal objective lambda/2 |w|^2 + 1/n sum_i c_i loss(f(x_i), y_i) of the model as
    /// returned, c_i the example's weight in the problem.
    pub primal: f64,
    /// The fraction of examples with y f(x) <= 0, unweighted.
    pub training_error: f64,
    /// The passes run.
    pub epochs: usize,
    /// The stopping rule was met (false without one, or when the cap came first).
    pub converged: bool,
}

/// `epochs` passes of SGD for each problem (fewer where `params.stop` stops it), continuing each
/// model from its state; then the primal objective and training error of each. t0 is chosen
/// first by `choose_linear_t0` (its sample drawn with `choose_t0_seed`) when a seed is given,
/// `params.sgd.t0` otherwise; the inputs are checked once for both. Returns the fits, the
/// seconds the passes took (the stopping rule's evaluations included, the final evaluation pass
/// excluded), and t0.
///
/// Each model is released as its problem ends (`LinearModel::release`): its weights in float64
/// in its `average` (give it a row of an output matrix to have them there), its optimiser's
/// per-feature state kept only with `keep_state`. At most the running problems' state is then
/// held at once: on 10^7 features and 10 classes, the output and two iterates.
#[allow(clippy::too_many_arguments)]
pub fn train_linear(
    x: &Matrix, problems: &[Problem], sample_weight: &[f64], models: &mut [LinearModel<'_>], loss: &dyn Loss,
    params: &LinearParams, choose_t0_seed: Option<u64>, keep_state: bool, control: &Control,
) -> Result<(Vec<LinearFit>, f64, f64)> {
    let n = x.rows();
    if n == 0 {
        return Err(Error::InvalidData("no examples".into()));
    }
    if models.len() != problems.len() || sample_weight.len() != n || problems.iter().any(|p| p.y.len() != n) {
        return Err(Error::InvalidData(format!("{n} examples but labels, weights or models of another count")));
    }
    if let Some(p) = problems.iter().position(|p| p.y.iter().any(|&v| v != 1.0 && v != -1.0)) {
        return Err(Error::InvalidData(format!("labels of problem {p} are not +1 or -1")));
    }
    params.sgd.validate()?;
    if let Some(stop) = &params.stop {
        stop.validate()?;
    }
    let params = &match choose_t0_seed {
        Some(seed) => {
            let t0 = choose_linear_t0(x, problems, sample_weight, loss, &params.sgd, seed, control)?;
            LinearParams { sgd: SgdParams { t0, ..params.sgd.clone() }, ..params.clone() }
        }
        None => {
            x.check_finite()?;
            params.clone()
        }
    };
    // (made again for the evaluation: holding every problem's weights at once would take n x problems)
    let weights = |problem: &Problem| problem.weights(sample_weight);
    let started = std::time::Instant::now();
    // per problem: passes run, and the last evaluation when the stopping rule made one
    // one problem: its passes on a team, which stages the rows of a shuffled pass ahead (several:
    // the problems themselves in parallel)
    let threads = if problems.len() == 1 { threads_for(n) } else { 1 };
    control.plan(problems.len() as u64);
    let runs: Vec<(usize, Option<LinearFit>)> = with_team(threads, |team| {
        models
            .par_iter_mut()
            .zip(problems.par_iter())
            .enumerate()
            .map(|(k, (model, problem))| {
                let c = weights(problem);
                let mut order: Vec<usize> = (0..n).collect();
                let (mut best, mut unchanged, mut last) = (f64::INFINITY, 0usize, None);
                // the zero model's primal, the rule's scale (after the first pass: a loss's own
                // errors surface from its first step, as without the rule)
                let mut scale = None;
                for epoch in 0..params.epochs {
                    if params.shuffle {
                        // seeded by the examples seen so far: a continued fit draws new orders
                        Rng::new(params.seed ^ (k as u64).rotate_left(32) ^ model.t as u64).shuffle(&mut order);
                    }
                    model.epoch_on(team, x, problem.y, &c, &order, loss, &params.sgd, control)?;
                    // (the model evaluated as it will be returned)
                    model.settle();
                    if !model.is_finite() {
                        return Err(Error::InvalidParameter(format!(
                            "SGD diverged on problem {k} after {} examples (the weights overflowed): \
                         use a larger t0 or alpha, or scale the features",
                            model.t
                        )));
                    }
                    if let Some(stop) = &params.stop {
                        let (value, error) = primal(model, x, problem.y, &c, loss, params.sgd.lambda);
                        let scale = *scale.get_or_insert_with(|| {
                            let mut at_zero = vec![0.0; n];
                            loss.losses(&vec![0.0; n], problem.y, &mut at_zero);
                            at_zero.iter().zip(&c).map(|(l, c)| c * l).sum::<f64>() / n as f64
                        });
                        unchanged = if value > best - stop.tol * scale { unchanged + 1 } else { 0 };
                        best = best.min(value);
                        let converged = unchanged >= stop.n_iter_no_change;
                        last = Some(LinearFit { primal: value, training_error: error, epochs: epoch + 1, converged });
                        if converged {
                            break;
                        }
                    }
                }
                model.release(keep_state);
                control.problem_done();
                Ok::<_, Error>((last.as_ref().map_or(params.epochs, |f| f.epochs), last))
            })
            .collect::<Result<_>>()
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let fits = models
        .par_iter()
        .zip(problems.par_iter())
        .zip(runs)
        .map(|((model, problem), (epochs, last))| {
            last.unwrap_or_else(|| {
                let (primal, training_error) = primal(model, x, problem.y, &weights(problem), loss, params.sgd.lambda);
                LinearFit { primal, training_error, epochs, converged: false }
            })
        })
        .collect();
    Ok((fits, seconds, params.sgd.t0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;
    use crate::solver::sgd::loss::MarginLoss;
    use crate::solver::sgd::Algorithm;

    #[test]
    fn problems_are_independent_of_threads_and_weights_count() {
        let n = 600;
        let mut rng = Rng::new(1);
        let xs: Vec<f64> = (0..n * 3).map(|_| rng.below(2000) as f64 / 1000.0 - 1.0).collect();
        let x = Matrix::Dense64(DenseView::new(&xs, n, 3).unwrap());
        let y1: Vec<f64> = (0..n).map(|i| if xs[3 * i] > 0.0 { 1.0 } else { -1.0 }).collect();
        let y2: Vec<f64> = (0..n).map(|i| if xs[3 * i + 1] > 0.2 { 1.0 } else { -1.0 }).collect();
        let problems = [
            Problem { y: &y1, positive_weight: 1.0, negative_weight: 1.0 },
            Problem { y: &y2, positive_weight: 5.0, negative_weight: 1.0 },
        ];
        let params = LinearParams {
            sgd: SgdParams {
                algorithm: Algorithm::SgdQn2009,
                lambda: 1e-3,
                t0: 1e2,
                skip: 16,
                fit_bias: true,
                ..Default::default()
            },
            epochs: 3,
            shuffle: true,
            seed: 7,
            stop: None,
        };
        let fit = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut models = vec![LinearModel::new(3), LinearModel::new(3)];
            let out = pool.install(|| {
                train_linear(
                    &x,
                    &problems,
                    &vec![1.0; n],
                    &mut models,
                    &MarginLoss::Hinge,
                    &params,
                    None,
                    true,
                    &Control::new(),
                )
            });
            (models, out.unwrap().0)
        };
        let (one, fits) = fit(1);
        let (two, _) = fit(2);
        assert_eq!(one, two);
        assert!(fits[0].training_error < 0.05, "{:?}", fits[0]);
        // the positive class weighted 5x: fewer positives misclassified than without weights
        let unweighted = [Problem { y: &y2, positive_weight: 1.0, negative_weight: 1.0 }];
        let mut plain = vec![LinearModel::new(3)];
        train_linear(
            &x,
            &unweighted,
            &vec![1.0; n],
            &mut plain,
            &MarginLoss::Hinge,
            &params,
            None,
            true,
            &Control::new(),
        )
        .unwrap();
        let missed = |m: &LinearModel| (0..n).filter(|&i| y2[i] > 0.0 && m.decision(&x, i) <= 0.0).count();
        assert!(missed(&one[1]) <= missed(&plain[0]));
        let bad = [Problem { y: &[0.5; 600], positive_weight: 1.0, negative_weight: 1.0 }];
        let err =
            train_linear(&x, &bad, &vec![1.0; n], &mut plain, &MarginLoss::Hinge, &params, None, true, &Control::new());
        assert!(err.unwrap_err().to_string().contains("+1 or -1"));
    }

    /// The stopping rule ends an easy problem's passes well before the cap, its last objective
    /// the one returned; with tol 0 and a long patience it runs to the cap, not converged; and
    /// without a rule every problem runs all the passes.
    #[test]
    fn passes_stop_once_the_objective_stops_improving() {
        let n = 400;
        let mut rng = Rng::new(3);
        let xs: Vec<f64> = (0..n * 2).map(|_| rng.below(2000) as f64 / 1000.0 - 1.0).collect();
        let x = Matrix::Dense64(DenseView::new(&xs, n, 2).unwrap());
        let y: Vec<f64> = (0..n).map(|i| if xs[2 * i] + 0.3 * xs[2 * i + 1] > 0.0 { 1.0 } else { -1.0 }).collect();
        let problems = [Problem { y: &y, positive_weight: 1.0, negative_weight: 1.0 }];
        let fit = |stop: Option<Stopping>| {
            let params = LinearParams {
                sgd: SgdParams {
                    algorithm: Algorithm::Asgd,
                    lambda: 1e-3,
                    t0: 1e3,
                    fit_bias: true,
                    bias_rate: 1.0,
                    ..Default::default()
                },
                epochs: 500,
                shuffle: true,
                seed: 1,
                stop,
            };
            let mut models = vec![LinearModel::new(2)];
            let fits = train_linear(
                &x,
                &problems,
                &vec![1.0; n],
                &mut models,
                &MarginLoss::SquaredHinge,
                &params,
                None,
                true,
                &Control::new(),
            )
            .unwrap()
            .0;
            (models.remove(0), fits[0].clone())
        };
        let (model, early) = fit(Some(Stopping { tol: 1e-3, n_iter_no_change: 5 }));
        assert!(early.converged && early.epochs < 100, "{early:?}");
        assert_eq!(model.t, (early.epochs * n) as f64);
        let (direct, _) = primal(&model, &x, &y, &vec![1.0; n], &MarginLoss::SquaredHinge, 1e-3);
        assert_eq!(direct, early.primal);
        let (_, capped) = fit(Some(Stopping { tol: 0.0, n_iter_no_change: 501 }));
        assert!(!capped.converged && capped.epochs == 500, "{capped:?}");
        let (_, all) = fit(None);
        assert!(!all.converged && all.epochs == 500, "{all:?}");
        // and the stopped model's objective is near the one of all 500 passes (2.2% above it here)
        assert!(early.primal <= all.primal * 1.05, "{} against {}", early.primal, all.primal);
        let bad = LinearParams {
            sgd: SgdParams::default(),
            epochs: 1,
            shuffle: false,
            seed: 0,
            stop: Some(Stopping { tol: -1.0, n_iter_no_change: 1 }),
        };
        let err = train_linear(
            &x,
            &problems,
            &vec![1.0; n],
            &mut [LinearModel::new(2)],
            &MarginLoss::Hinge,
            &bad,
            None,
            true,
            &Control::new(),
        );
        assert!(err.unwrap_err().to_string().contains("tol"));
    }
}
