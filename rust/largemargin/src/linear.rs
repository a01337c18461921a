//! Training linear models by SGD over the data's binary problems (one-vs-rest for multiclass),
//! the problems in parallel: epochs over a per-epoch random order (or the data's order), each
//! model's optimiser state kept so that training can continue (partial_fit).

use rayon::prelude::*;

use crate::control::Control;
use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::solver::loss::Loss;
use crate::solver::sgd::{primal, LinearModel, SgdParams};

#[derive(Clone, Debug)]
pub struct LinearConfig {
    pub params: SgdParams,
    pub epochs: usize,
    /// A new random order each epoch (else the data's order: pre-shuffled data, as the thesis
    /// timed its passes).
    pub shuffle: bool,
    pub seed: u64,
}

/// One binary problem: labels +1/-1, and the weight of each class (class_weight) by which
/// the examples' sample weights are multiplied.
pub struct Problem<'a> {
    pub y: &'a [f64],
    pub positive_weight: f64,
    pub negative_weight: f64,
}

/// What a fit reports per problem.
#[derive(Clone, Debug)]
pub struct LinearFit {
    pub primal: f64,
    pub training_error: f64,
}

/// `epochs` passes of SGD for each problem, continuing each model from its state; then the
/// primal objective and training error of each. Returns those and the seconds the passes took
/// (the evaluation pass excluded).
pub fn train_linear(
    x: &Matrix,
    problems: &[Problem],
    sample_weight: &[f64],
    models: &mut [LinearModel],
    loss: &dyn Loss,
    config: &LinearConfig,
    control: &Control,
) -> Result<(Vec<LinearFit>, f64)> {
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
    config.params.validate()?;
    x.check_finite()?;
    // (made again for the evaluation: holding every problem's weights at once would take n x problems)
    let weights = |problem: &Problem| -> Vec<f64> {
        problem
            .y
            .iter()
            .zip(sample_weight)
            .map(|(&y, &s)| s * if y > 0.0 { problem.positive_weight } else { problem.negative_weight })
            .collect()
    };
    let started = std::time::Instant::now();
    models
        .par_iter_mut()
        .zip(problems.par_iter())
        .enumerate()
        .try_for_each(|(k, (model, problem))| {
            let c = weights(problem);
            let mut order: Vec<usize> = (0..n).collect();
            for _ in 0..config.epochs {
                if config.shuffle {
                    // seeded by the examples seen so far: a continued fit draws new orders
                    Rng::new(config.seed ^ (k as u64).rotate_left(32) ^ model.t as u64).shuffle(&mut order);
                }
                model.epoch(x, problem.y, &c, &order, loss, &config.params, control)?;
                if !(model.bias.is_finite() && model.w.iter().all(|v| v.is_finite())) {
                    return Err(Error::InvalidParameter(format!(
                        "SGD diverged on problem {k} after {} examples (the weights overflowed): \
                         use a larger t0 or alpha, or scale the features",
                        model.t
                    )));
                }
            }
            control.problem_done();
            Ok::<(), Error>(())
        })?;
    let seconds = started.elapsed().as_secs_f64();
    let fits = models
        .par_iter()
        .zip(problems.par_iter())
        .map(|(model, problem)| {
            let (primal, training_error) = primal(model, x, problem.y, &weights(problem), loss, config.params.lambda);
            LinearFit { primal, training_error }
        })
        .collect();
    Ok((fits, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;
    use crate::solver::loss::MarginLoss;
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
        let config = LinearConfig {
            params: SgdParams { algorithm: Algorithm::SgdQn2009, lambda: 1e-3, t0: 1e2, skip: 16, fit_bias: true, ..Default::default() },
            epochs: 3,
            shuffle: true,
            seed: 7,
        };
        let fit = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut models = vec![LinearModel::new(3), LinearModel::new(3)];
            let out = pool.install(|| {
                train_linear(&x, &problems, &vec![1.0; n], &mut models, &MarginLoss::Hinge, &config, &Control::new())
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
        train_linear(&x, &unweighted, &vec![1.0; n], &mut plain, &MarginLoss::Hinge, &config, &Control::new()).unwrap();
        let missed = |m: &LinearModel| (0..n).filter(|&i| y2[i] > 0.0 && m.decision(&x, i) <= 0.0).count();
        assert!(missed(&one[1]) <= missed(&plain[0]));
        let bad = [Problem { y: &[0.5; 600], positive_weight: 1.0, negative_weight: 1.0 }];
        let err = train_linear(&x, &bad, &vec![1.0; n], &mut plain, &MarginLoss::Hinge, &config, &Control::new());
        assert!(err.unwrap_err().to_string().contains("+1 or -1"));
    }
}
