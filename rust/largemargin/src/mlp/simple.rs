//! The very simple MLP of Collobert and Bengio ("Links between perceptrons, MLPs and SVMs",
//! Algorithm 2): f(x) = b + sum_i h(v_i . x + d_i), h the hard tanh, no output weights, trained by
//! stochastic gradient on the beta-hinge |beta - y f(x)|_+. An example inside the margin moves
//! the hidden units whose pre-activation lies in h's linear zone, by lr * y * (x, 1), and the bias
//! by lr * y. The hidden-space margin is fixed (2 beta / sqrt(N)); the norms of the v_i, and
//! so the input-space margin, are controlled by the learning rate and by early stopping on a
//! validation set, which keeps the weights of the epoch with the lowest validation error.

use rayon::prelude::*;

use crate::control::Control;
use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::rng::Rng;
use crate::solver::sgd::Example;

#[derive(Clone, Debug)]
pub struct SimpleMlp {
    pub inputs: usize,
    pub hidden: usize,
    /// Hidden weights, row-major (hidden x inputs), single precision as the linear SGD's.
    pub v: Vec<f32>,
    pub d: Vec<f64>,
    pub b: f64,
}

#[derive(Clone, Debug)]
pub struct SimpleMlpParams {
    pub hidden: usize,
    /// The margin target of the hinge |beta - y f|_+.
    pub beta: f64,
    /// lr_t = learning_rate / (1 + decay * t), t counting examples seen.
    pub learning_rate: f64,
    pub decay: f64,
    pub max_epochs: usize,
    /// Stop after this many epochs without a better validation error (with a validation set).
    pub patience: usize,
    pub seed: u64,
}

impl Default for SimpleMlpParams {
    fn default() -> Self {
        SimpleMlpParams { hidden: 50, beta: 1.0, learning_rate: 0.01, decay: 0.0, max_epochs: 50, patience: 5, seed: 0 }
    }
}

/// A trained model and its training curves (one entry per epoch).
#[derive(Clone, Debug)]
pub struct SimpleMlpFit {
    pub model: SimpleMlp,
    /// Epoch whose weights were kept (1-based).
    pub best_epoch: usize,
    pub epochs: usize,
    /// Mean beta-hinge on the training set, measured while training.
    pub train_loss: Vec<f64>,
    /// Fraction of training examples with y f <= 0, measured while training.
    pub train_error: Vec<f64>,
    /// Updates (examples inside the margin) per epoch.
    pub updates: Vec<u64>,
    /// Validation error after each epoch (empty without a validation set).
    pub validation_error: Vec<f64>,
}

fn hard_tanh(z: f64) -> f64 {
    z.clamp(-1.0, 1.0)
}

impl SimpleMlp {
    /// v_i and d_i uniform in +-1/sqrt(inputs) (zero weights would keep every unit identical).
    pub fn new(inputs: usize, hidden: usize, seed: u64) -> Result<Self> {
        if inputs == 0 || hidden == 0 {
            return Err(Error::InvalidParameter(format!("a simple MLP needs inputs and hidden units, got {inputs} and {hidden}")));
        }
        let mut rng = Rng::new(seed);
        let scale = 1.0 / (inputs as f64).sqrt();
        let mut uniform = || ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale;
        let v = (0..hidden * inputs).map(|_| uniform() as f32).collect();
        let d = (0..hidden).map(|_| uniform()).collect();
        Ok(SimpleMlp { inputs, hidden, v, d, b: 0.0 })
    }

    fn unit(&self, i: usize) -> &[f32] {
        &self.v[i * self.inputs..(i + 1) * self.inputs]
    }

    /// Pre-activations of every hidden unit for one row.
    #[inline(always)]
    fn pre_activations(&self, q: &Query, z: &mut [f64]) {
        for (i, zi) in z.iter_mut().enumerate() {
            *zi = q.dot(self.unit(i)) + self.d[i];
        }
    }

    fn output(&self, z: &[f64]) -> f64 {
        self.b + z.iter().map(|&v| hard_tanh(v)).sum::<f64>()
    }

    /// f(x) for every row, rows in parallel.
    pub fn decision(&self, x: &Matrix) -> Result<Vec<f64>> {
        if x.cols() > self.inputs {
            return Err(Error::InvalidData(format!("X has {} features, the model expects {}", x.cols(), self.inputs)));
        }
        x.check_finite()?;
        Ok((0..x.rows()).into_par_iter().map_init(|| vec![0.0; self.hidden], |z, i| {
            self.pre_activations(&Query::row(x, i), z);
            self.output(z)
        }).collect())
    }

    /// One pass over `order` (Algorithm 2); returns (mean hinge, training error, updates),
    /// measured before each example's update. Compiled for AVX2/FMA where the processor has them
    /// (the hidden units' dot products and updates are the whole cost).
    fn epoch(&mut self, x: &Matrix, y: &[f64], order: &[usize], params: &SimpleMlpParams, t: &mut f64,
             control: &Control) -> Result<(f64, f64, u64)> {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2,fma")]
            unsafe fn avx2(m: &mut SimpleMlp, x: &Matrix, y: &[f64], order: &[usize], params: &SimpleMlpParams,
                           t: &mut f64, control: &Control) -> Result<(f64, f64, u64)> {
                m.epoch_body(x, y, order, params, t, control)
            }
            if crate::vecops::has_avx2_fma() {
                // SAFETY: the features were detected.
                return unsafe { avx2(self, x, y, order, params, t, control) };
            }
        }
        self.epoch_body(x, y, order, params, t, control)
    }

    #[inline(always)]
    fn epoch_body(&mut self, x: &Matrix, y: &[f64], order: &[usize], params: &SimpleMlpParams, t: &mut f64,
                  control: &Control) -> Result<(f64, f64, u64)> {
        let mut z = vec![0.0; self.hidden];
        let (mut loss, mut wrong, mut updates) = (0.0, 0usize, 0u64);
        for (step, &i) in order.iter().enumerate() {
            if step % 4096 == 0 && control.should_stop() {
                return Err(Error::Interrupted);
            }
            let q = Query::row(x, i);
            self.pre_activations(&q, &mut z);
            let margin = y[i] * self.output(&z);
            if margin <= 0.0 {
                wrong += 1;
            }
            if margin > params.beta {
                continue;
            }
            loss += params.beta - margin;
            updates += 1;
            let a = params.learning_rate / (1.0 + params.decay * *t) * y[i];
            *t += 1.0;
            // h' = 1 inside [-1, 1], the end points included
            for (u, &zu) in z.iter().enumerate() {
                if zu.abs() <= 1.0 {
                    let w = &mut self.v[u * self.inputs..(u + 1) * self.inputs];
                    q.add_to(w, a);
                    self.d[u] += a;
                }
            }
            self.b += a;
        }
        let n = order.len().max(1) as f64;
        Ok((loss / n, wrong as f64 / n, updates))
    }
}

fn error_rate(model: &SimpleMlp, x: &Matrix, y: &[f64]) -> Result<f64> {
    let f = model.decision(x)?;
    Ok(f.iter().zip(y).filter(|(f, y)| **f * **y <= 0.0).count() as f64 / y.len().max(1) as f64)
}

/// Trains a simple MLP on labels +-1 for up to `max_epochs` epochs in a seeded random order; with
/// a validation set, keeps the epoch of lowest validation error and stops after `patience`
/// epochs without improvement. `warm` continues from a model.
pub fn train_simple_mlp(
    x: &Matrix,
    y: &[f64],
    validation: Option<(&Matrix, &[f64])>,
    params: &SimpleMlpParams,
    warm: Option<SimpleMlp>,
    control: &Control,
) -> Result<SimpleMlpFit> {
    if x.rows() == 0 || y.len() != x.rows() {
        return Err(Error::InvalidData(format!("X has {} rows and y {} labels", x.rows(), y.len())));
    }
    if y.iter().any(|&v| v != 1.0 && v != -1.0) {
        return Err(Error::InvalidData("labels must be -1 or +1".into()));
    }
    if !(params.learning_rate > 0.0 && params.learning_rate.is_finite()) || !(params.decay >= 0.0) {
        return Err(Error::InvalidParameter("the learning rate must be positive and the decay non-negative".into()));
    }
    if !(params.beta > 0.0 && params.beta.is_finite()) {
        return Err(Error::InvalidParameter(format!("beta must be positive, got {}", params.beta)));
    }
    x.check_finite()?;
    let mut model = match warm {
        Some(m) if m.inputs == x.cols() => m,
        Some(m) => {
            return Err(Error::InvalidData(format!("X has {} features, the model {}", x.cols(), m.inputs)));
        }
        None => SimpleMlp::new(x.cols(), params.hidden, params.seed)?,
    };
    let mut rng = Rng::new(params.seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut order: Vec<usize> = (0..x.rows()).collect();
    let mut fit = SimpleMlpFit {
        model: model.clone(),
        best_epoch: 0,
        epochs: 0,
        train_loss: Vec::new(),
        train_error: Vec::new(),
        updates: Vec::new(),
        validation_error: Vec::new(),
    };
    let mut best = f64::INFINITY;
    let mut t = 0.0;
    for epoch in 1..=params.max_epochs {
        rng.shuffle(&mut order);
        let (loss, err, updates) = model.epoch(x, y, &order, params, &mut t, control)?;
        if !loss.is_finite() || model.b.is_nan() {
            return Err(Error::InvalidParameter("the simple MLP diverged (NaN): lower its learning rate".into()));
        }
        fit.train_loss.push(loss);
        fit.train_error.push(err);
        fit.updates.push(updates);
        fit.epochs = epoch;
        match validation {
            Some((xv, yv)) => {
                let e = error_rate(&model, xv, yv)?;
                fit.validation_error.push(e);
                if e < best {
                    best = e;
                    fit.best_epoch = epoch;
                    fit.model = model.clone();
                } else if epoch - fit.best_epoch >= params.patience {
                    break;
                }
            }
            None => {
                fit.best_epoch = epoch;
                fit.model = model.clone();
            }
        }
        if updates == 0 {
            break; // every example beyond the margin: nothing left to move
        }
    }
    Ok(fit)
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
        let params = SimpleMlpParams { hidden: 3, beta: 0.5, learning_rate: 0.1, max_epochs: 2000, ..Default::default() };
        let fit = train_simple_mlp(&x, &y, None, &params, None, &Control::new()).unwrap();
        assert_eq!(*fit.updates.last().unwrap(), 0, "{:?}", &fit.updates[fit.updates.len().saturating_sub(5)..]);
        let f = fit.model.decision(&x).unwrap();
        assert!(f.iter().zip(&y).all(|(f, y)| f * y > 0.5));
    }

    /// One step by hand: the units in the linear zone and the bias move by lr * y * (x, 1).
    #[test]
    fn one_update_by_hand() {
        let mut m = SimpleMlp { inputs: 2, hidden: 2, v: vec![0.5, 0.0, 3.0, 0.0], d: vec![0.0, 0.0], b: 0.0 };
        let xs = [1.0, 2.0];
        let x = Matrix::Dense64(DenseView::new(&xs, 1, 2).unwrap());
        let params = SimpleMlpParams { beta: 1.0, learning_rate: 0.1, ..Default::default() };
        let (loss, err, updates) = m.epoch(&x, &[-1.0], &[0], &params, &mut 0.0, &Control::new()).unwrap();
        // z = (0.5, 3.0): f = 0 + 0.5 + 1 = 1.5, y f = -1.5 <= beta
        assert_eq!((updates, err), (1, 1.0));
        assert!((loss - 2.5).abs() < 1e-12);
        assert_eq!(m.v, vec![0.4f32, -0.2, 3.0, 0.0]); // unit 1 saturated: unchanged
        assert_eq!(m.d, vec![-0.1, 0.0]);
        assert!((m.b + 0.1).abs() < 1e-12);
    }
}
