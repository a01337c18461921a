//! The very simple MLP of Collobert and Bengio ("Links between perceptrons, MLPs and SVMs",
//! Algorithm 2): f(x) = b + sum_i h(v_i . x + d_i), h the hard tanh, no output weights, trained by
//! stochastic gradient on the beta-hinge |beta - y f(x)|_+. An example inside the margin moves
//! the hidden units whose pre-activation lies in h's linear zone, by lr * y * (x, 1), and the bias
//! by lr * y. The hidden-space margin is fixed (2 beta / sqrt(N)); the norms of the v_i, and
//! so the input-space margin, are controlled by the learning rate and by early stopping on a
//! validation set, which keeps the weights of the epoch with the lowest validation error.

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::mlp::hidden::{check_labels, train_epochs, EpochFit, EpochStats, HiddenLayer};
use crate::runtime::control::Control;
use crate::runtime::vecops::avx2_fma;

/// The network f(x) = b + sum_i hardtanh(v_i . x + d_i).
#[derive(Clone, Debug)]
pub struct SimpleMlp {
    /// The hidden units' v_i and d_i.
    pub layer: HiddenLayer,
    /// The output bias b.
    pub b: f64,
}

/// What `train_simple_mlp` trains: the network's size, the hinge's margin, the steps and epochs.
#[derive(Clone, Debug)]
pub struct SimpleMlpParams {
    /// Number of hard-tanh hidden units (ignored when training continues from a model).
    pub hidden: usize,
    /// The margin target of the hinge |beta - y f|_+.
    pub beta: f64,
    /// lr_t = learning_rate / (1 + decay * t), t counting updates.
    pub learning_rate: f64,
    /// The decay of the step with the updates made; nonnegative (0: a constant step).
    pub decay: f64,
    /// The most epochs run.
    pub max_epochs: usize,
    /// Stop after this many epochs without a better validation error (with a validation set).
    pub patience: usize,
    /// Seeds the initial weights and the epochs' orders.
    pub seed: u64,
    /// Publish (and validate) the average of the weights over each epoch's steps rather than
    /// their last value.
    pub average: bool,
    /// Initial weights and biases uniform in +-init_scale/sqrt(inputs).
    pub init_scale: f64,
}

impl Default for SimpleMlpParams {
    fn default() -> Self {
        SimpleMlpParams {
            hidden: 50,
            beta: 1.0,
            learning_rate: 0.01,
            decay: 0.0,
            max_epochs: 50,
            patience: 5,
            seed: 0,
            average: false,
            init_scale: 1.0,
        }
    }
}

/// A trained simple MLP with its per-epoch curves.
pub type SimpleMlpFit = EpochFit<SimpleMlp>;

/// The running sums behind the averaged weights: with w_s the weights after step s of T and
/// Delta_s the change at step s, the mean of w_1..w_T is w_T - U / T, U = sum_s (s - 1) Delta_s,
/// so an update costs the same sparse pass again instead of a dense sum at every step.
#[derive(Clone, Debug, Default)]
struct StepAverage {
    v: Vec<f64>,
    d: Vec<f64>,
    b: f64,
    steps: f64,
}

impl StepAverage {
    fn reset(&mut self, m: &SimpleMlp) {
        self.v.clear();
        self.v.resize(m.layer.v.len(), 0.0);
        self.d.clear();
        self.d.resize(m.layer.hidden, 0.0);
        self.b = 0.0;
        self.steps = 0.0;
    }

    /// U += s Delta for the update Delta = (coef x, coef, a).
    #[inline(always)]
    fn add(&mut self, q: &Query, coef: &[f64], a: f64, s: f64, h: usize) {
        q.for_each_nonzero(|j, x| {
            let xs = x * s;
            for (u, &c) in self.v[j * h..(j + 1) * h].iter_mut().zip(coef) {
                *u += xs * c;
            }
        });
        for (u, &c) in self.d.iter_mut().zip(coef) {
            *u += s * c;
        }
        self.b += s * a;
    }

    fn mean(&self, m: &SimpleMlp) -> SimpleMlp {
        let mut out = m.clone();
        if self.steps > 0.0 {
            let t = self.steps;
            for (w, &u) in out.layer.v.iter_mut().zip(&self.v) {
                *w = (*w as f64 - u / t) as f32;
            }
            for (w, &u) in out.layer.d.iter_mut().zip(&self.d) {
                *w -= u / t;
            }
            out.b -= self.b / t;
        }
        out
    }
}

fn hard_tanh(z: f64) -> f64 {
    z.clamp(-1.0, 1.0)
}

impl SimpleMlp {
    /// A network of `hidden` units over `inputs` features drawn as `HiddenLayer::with_scale`
    /// draws them, bias zero.
    pub fn new(inputs: usize, hidden: usize, init_scale: f64, seed: u64) -> Result<Self> {
        Ok(SimpleMlp { layer: HiddenLayer::with_scale(inputs, hidden, init_scale, seed)?, b: 0.0 })
    }

    fn output(&self, z: &[f64]) -> f64 {
        self.b + z.iter().map(|&v| hard_tanh(v)).sum::<f64>()
    }

    /// f(x) for every row, rows in parallel.
    pub fn decision(&self, x: &Matrix) -> Result<Vec<f64>> {
        self.layer.check()?;
        self.layer.check_input(x)?;
        Ok((0..x.rows())
            .into_par_iter()
            .map_init(
                || vec![0.0; self.layer.hidden],
                |z, i| {
                    self.layer.pre_activations(&Query::row(x, i), z);
                    self.output(z)
                },
            )
            .collect())
    }

    /// One pass over `order` (Algorithm 2). Compiled for AVX2/FMA where the processor has them
    /// (the hidden units' dot products and updates are the whole cost).
    fn epoch(
        &mut self, x: &Matrix, y: &[f64], order: &[usize], params: &SimpleMlpParams, t: &mut f64,
        avg: Option<&mut StepAverage>, control: &Control,
    ) -> Result<EpochStats> {
        epoch_fast(self, x, y, order, params, t, avg, control)
    }

    #[inline(always)]
    fn epoch_body(
        &mut self, x: &Matrix, y: &[f64], order: &[usize], params: &SimpleMlpParams, t: &mut f64,
        mut avg: Option<&mut StepAverage>, control: &Control,
    ) -> Result<EpochStats> {
        let mut z = vec![0.0; self.layer.hidden];
        let mut coef = vec![0.0; self.layer.hidden];
        let (mut loss, mut wrong, mut updates) = (0.0, 0usize, 0u64);
        for &i in order {
            control.poll()?;
            let q = Query::row(x, i);
            self.layer.pre_activations(&q, &mut z);
            let margin = y[i] * self.output(&z);
            if margin <= 0.0 {
                wrong += 1;
            }
            // the weights of this step enter the average after its update: s - 1 steps before it
            let before = avg.as_deref_mut().map(|a| {
                a.steps += 1.0;
                a.steps - 1.0
            });
            if margin > params.beta {
                continue;
            }
            loss += params.beta - margin;
            updates += 1;
            let a = params.learning_rate / (1.0 + params.decay * *t) * y[i];
            *t += 1.0;
            // h' = 1 inside [-1, 1], the end points included
            for ((c, &zu), dn) in coef.iter_mut().zip(&z).zip(self.layer.d.iter_mut()) {
                *c = if zu.abs() <= 1.0 { a } else { 0.0 };
                *dn += *c;
            }
            self.layer.add_row(&q, &coef);
            self.b += a;
            if let (Some(avg), Some(s)) = (avg.as_deref_mut(), before) {
                if s > 0.0 {
                    avg.add(&q, &coef, a, s, self.layer.hidden);
                }
            }
        }
        let n = order.len().max(1) as f64;
        Ok((loss / n, wrong as f64 / n, updates))
    }
}

/// Trains a simple MLP on labels +-1 for up to `max_epochs` epochs in a seeded random order; with
/// a validation set, keeps the epoch of lowest validation error and stops after `patience`
/// epochs without improvement. `warm` continues from a model.
pub fn train_simple_mlp(
    x: &Matrix, y: &[f64], validation: Option<(&Matrix, &[f64])>, params: &SimpleMlpParams, warm: Option<SimpleMlp>,
    control: &Control,
) -> Result<SimpleMlpFit> {
    check_labels(x, y)?;
    if !(params.learning_rate > 0.0 && params.learning_rate.is_finite() && params.decay >= 0.0) {
        return Err(Error::InvalidParameter("the learning rate must be positive and the decay non-negative".into()));
    }
    if !(params.beta > 0.0 && params.beta.is_finite()) {
        return Err(Error::InvalidParameter(format!("beta must be positive, got {}", params.beta)));
    }
    x.check_finite()?;
    let model = match warm {
        Some(m) if m.layer.inputs == x.cols() => m,
        Some(m) => {
            return Err(Error::InvalidData(format!("X has {} features, the model {}", x.cols(), m.layer.inputs)))
        }
        None => SimpleMlp::new(x.cols(), params.hidden, params.init_scale, params.seed)?,
    };
    let mut t = 0.0;
    if !params.average {
        return train_epochs(
            model,
            x.rows(),
            validation,
            params.max_epochs,
            params.patience,
            params.seed,
            control,
            |m, order, ctl| m.epoch(x, y, order, params, &mut t, None, ctl),
            |m, xv| m.decision(xv),
        );
    }
    // The model trained by epochs carries its running sums, restarted each epoch (an average over
    // the whole run, tried on adult, was no better); the published model is their mean.
    let fit = train_epochs(
        (model, StepAverage::default()),
        x.rows(),
        validation,
        params.max_epochs,
        params.patience,
        params.seed,
        control,
        |(m, a), order, ctl| {
            a.reset(m);
            m.epoch(x, y, order, params, &mut t, Some(a), ctl)
        },
        |(m, a), xv| a.mean(m).decision(xv),
    )?;
    Ok(fit.map_model(|(m, a)| a.mean(&m)))
}

avx2_fma! {
    /// `SimpleMlp::epoch_body`, built for AVX2+FMA when the processor has them.
    fn epoch_fast(m: &mut SimpleMlp, x: &Matrix, y: &[f64], order: &[usize], params: &SimpleMlpParams, t: &mut f64,
                  avg: Option<&mut StepAverage>, control: &Control) -> Result<EpochStats> {
        m.epoch_body(x, y, order, params, t, avg, control)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;

    /// With one hidden unit the model is a margin perceptron on (x, 1) through a hard tanh: on
    /// separable 1-D data it ends with every example beyond the margin.
    #[test]
    fn separates_a_line() {
        let xs: Vec<f64> = (0..40).map(|i| i as f64 / 20.0 - 1.0).collect();
        let y: Vec<f64> = xs.iter().map(|&v| if v > 0.1 { 1.0 } else { -1.0 }).collect();
        let x = Matrix::Dense64(DenseView::new(&xs, 40, 1).unwrap());
        let params =
            SimpleMlpParams { hidden: 3, beta: 0.5, learning_rate: 0.1, max_epochs: 2000, ..Default::default() };
        let fit = train_simple_mlp(&x, &y, None, &params, None, &Control::new()).unwrap();
        assert_eq!(*fit.updates.last().unwrap(), 0, "{:?}", &fit.updates[fit.updates.len().saturating_sub(5)..]);
        let f = fit.model.decision(&x).unwrap();
        assert!(f.iter().zip(&y).all(|(f, y)| f * y > 0.5));
    }

    /// One step by hand: the units in the linear zone and the bias move by lr * y * (x, 1).
    #[test]
    fn one_update_by_hand() {
        let layer = HiddenLayer::from_unit_major(2, 2, &[0.5, 0.0, 3.0, 0.0], vec![0.0, 0.0]).unwrap();
        let mut m = SimpleMlp { layer, b: 0.0 };
        let xs = [1.0, 2.0];
        let x = Matrix::Dense64(DenseView::new(&xs, 1, 2).unwrap());
        let params = SimpleMlpParams { beta: 1.0, learning_rate: 0.1, ..Default::default() };
        let (loss, err, updates) = m.epoch(&x, &[-1.0], &[0], &params, &mut 0.0, None, &Control::new()).unwrap();
        // z = (0.5, 3.0): f = 0 + 0.5 + 1 = 1.5, y f = -1.5 <= beta
        assert_eq!((updates, err), (1, 1.0));
        assert!((loss - 2.5).abs() < 1e-12);
        assert_eq!(m.layer.unit_major(), vec![0.4f32, -0.2, 3.0, 0.0]); // unit 1 saturated: unchanged
        assert_eq!(m.layer.d, vec![-0.1, 0.0]);
        assert!((m.b + 0.1).abs() < 1e-12);
    }

    /// The running sums give the plain mean of the weights after each step: checked against the
    /// dense mean taken one example at a time.
    #[test]
    fn step_average_is_the_mean_of_the_iterates() {
        let n = 30;
        let xs: Vec<f64> = (0..n * 3).map(|k| ((k * 37 % 11) as f64 - 5.0) / 4.0).collect();
        let y: Vec<f64> = (0..n).map(|i| if (i * 7) % 3 == 0 { 1.0 } else { -1.0 }).collect();
        let x = Matrix::Dense64(DenseView::new(&xs, n, 3).unwrap());
        let params = SimpleMlpParams { hidden: 4, beta: 2.0, learning_rate: 0.05, ..Default::default() };
        let mut m = SimpleMlp::new(3, 4, 1.0, 7).unwrap();
        let mut avg = StepAverage::default();
        avg.reset(&m);
        let (mut sum_v, mut sum_d, mut sum_b) = (vec![0.0f64; m.layer.v.len()], vec![0.0; 4], 0.0);
        let mut t = 0.0;
        let mut updates = 0;
        for i in 0..n {
            updates += m.epoch(&x, &y, &[i], &params, &mut t, Some(&mut avg), &Control::new()).unwrap().2;
            sum_v.iter_mut().zip(&m.layer.v).for_each(|(s, &w)| *s += w as f64);
            sum_d.iter_mut().zip(&m.layer.d).for_each(|(s, &w)| *s += w);
            sum_b += m.b;
        }
        assert!(updates > 5, "too few updates to test anything: {updates}");
        let mean = avg.mean(&m);
        for (a, s) in mean.layer.v.iter().zip(&sum_v) {
            assert!((*a as f64 - s / n as f64).abs() < 1e-5, "{a} vs {}", s / n as f64);
        }
        for (a, s) in mean.layer.d.iter().zip(&sum_d) {
            assert!((a - s / n as f64).abs() < 1e-9);
        }
        assert!((mean.b - sum_b / n as f64).abs() < 1e-9);
    }

    #[test]
    fn init_scale_bounds_the_initial_weights() {
        let m = SimpleMlp::new(16, 8, 0.2, 3).unwrap();
        let bound = 0.2 / 4.0;
        assert!(m.layer.v.iter().all(|&w| (w as f64).abs() <= bound + 1e-7));
        assert!(m.layer.v.iter().any(|&w| (w as f64).abs() > bound / 2.0));
        assert!(SimpleMlp::new(16, 8, 0.0, 3).is_err());
        assert!(SimpleMlp::new(16, 8, f64::NAN, 3).is_err());
    }
}
