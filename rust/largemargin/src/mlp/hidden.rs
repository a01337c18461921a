//! The hidden layer the margin MLPs share: N units v_i . x + d_i over any row layout, with weights
//! drawn uniform in +-init_scale/sqrt(inputs), init_scale 1 by default (zero weights would keep
//! every unit identical), and the epoch driver with early stopping that trains them.

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;

/// `hidden` linear units over `inputs` features, before any activation: unit n computes
/// v_n . x + d_n.
#[derive(Clone, Debug)]
pub struct HiddenLayer {
    /// Features per input row.
    pub inputs: usize,
    /// Number of units.
    pub hidden: usize,
    /// Weights input-major: v[j * hidden + n] is unit n's weight on input j, so that a row's
    /// pre-activations, and an update of every unit along the row, run over the units in
    /// contiguous memory (one vector operation per nonzero input). Single precision, as the
    /// linear SGD's.
    pub v: Vec<f32>,
    /// The units' biases d_n, one per unit.
    pub d: Vec<f64>,
}

impl HiddenLayer {
    /// A layer drawn with `with_scale` at init_scale 1.
    pub fn new(inputs: usize, hidden: usize, seed: u64) -> Result<Self> {
        Self::with_scale(inputs, hidden, 1.0, seed)
    }

    /// Weights and biases uniform in +-init_scale/sqrt(inputs).
    pub fn with_scale(inputs: usize, hidden: usize, init_scale: f64, seed: u64) -> Result<Self> {
        if inputs == 0 || hidden == 0 {
            return Err(Error::InvalidParameter(format!(
                "an MLP needs inputs and hidden units, got {inputs} and {hidden}"
            )));
        }
        if !(init_scale > 0.0 && init_scale.is_finite()) {
            return Err(Error::InvalidParameter(format!("the initialisation scale must be positive and finite (zero weights would keep every unit identical), got {init_scale}")));
        }
        let mut rng = Rng::new(seed);
        let scale = init_scale / (inputs as f64).sqrt();
        let mut uniform = || ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale;
        let v = (0..hidden * inputs).map(|_| uniform() as f32).collect();
        let d = (0..hidden).map(|_| uniform()).collect();
        Ok(HiddenLayer { inputs, hidden, v, d })
    }

    /// Checks that `v` and `d` have the lengths `inputs` and `hidden` call for (weights received
    /// from outside).
    pub fn check(&self) -> Result<()> {
        if self.v.len() != self.hidden * self.inputs || self.d.len() != self.hidden {
            return Err(Error::InvalidData("the hidden layer's weights do not fit together".into()));
        }
        Ok(())
    }

    /// v_n . x + d_n for every unit n of one row.
    #[inline(always)]
    pub fn pre_activations(&self, q: &Query, z: &mut [f64]) {
        let h = self.hidden;
        z.copy_from_slice(&self.d);
        q.for_each_nonzero(|j, x| {
            for (zn, &w) in z.iter_mut().zip(&self.v[j * h..(j + 1) * h]) {
                *zn += x * w as f64;
            }
        });
    }

    /// v_n += coef_n x for every unit n (d untouched).
    #[inline(always)]
    pub fn add_row(&mut self, q: &Query, coef: &[f64]) {
        let h = self.hidden;
        q.for_each_nonzero(|j, x| {
            for (w, &c) in self.v[j * h..(j + 1) * h].iter_mut().zip(coef) {
                *w += (x * c) as f32;
            }
        });
    }

    /// v_n += coef_n u for every unit n, u dense over the inputs.
    #[inline(always)]
    pub fn add_dense(&mut self, u: &[f64], coef: &[f64]) {
        let h = self.hidden;
        for (j, &x) in u.iter().enumerate().take(self.inputs) {
            if x != 0.0 {
                for (w, &c) in self.v[j * h..(j + 1) * h].iter_mut().zip(coef) {
                    *w += (x * c) as f32;
                }
            }
        }
    }

    /// The weights unit-major, (hidden x inputs) row-major, as estimators publish them.
    pub fn unit_major(&self) -> Vec<f32> {
        let (h, d) = (self.hidden, self.inputs);
        (0..h).flat_map(|n| (0..d).map(move |j| self.v[j * h + n])).collect()
    }

    /// A layer from unit-major weights (hidden x inputs).
    pub fn from_unit_major(hidden: usize, inputs: usize, weights: &[f32], d: Vec<f64>) -> Result<Self> {
        if weights.len() != hidden * inputs || d.len() != hidden {
            return Err(Error::InvalidData("the hidden layer's weights do not fit together".into()));
        }
        let v = (0..inputs).flat_map(|j| (0..hidden).map(move |n| weights[n * inputs + j])).collect();
        Ok(HiddenLayer { inputs, hidden, v, d })
    }

    /// Rows the layer can read: no more features than it has inputs (a narrower sparse matrix
    /// only omits trailing zeros), finite values.
    pub fn check_input(&self, x: &Matrix) -> Result<()> {
        if x.cols() > self.inputs {
            return Err(Error::InvalidData(format!("X has {} features, the model expects {}", x.cols(), self.inputs)));
        }
        x.check_finite()
    }
}

/// What one epoch measured, before each example's update: mean loss, training error (y f <= 0),
/// updates.
pub type EpochStats = (f64, f64, u64);

/// A model trained by epochs, and its curves (one entry per epoch).
#[derive(Clone, Debug)]
pub struct EpochFit<M> {
    /// The model of `best_epoch`.
    pub model: M,
    /// Epoch whose weights were kept (1-based).
    pub best_epoch: usize,
    /// Epochs run, early stops included.
    pub epochs: usize,
    /// Mean training loss of each epoch, each example measured before its own update.
    pub train_loss: Vec<f64>,
    /// Fraction of examples with y f(x) <= 0 in each epoch, measured as `train_loss` is.
    pub train_error: Vec<f64>,
    /// Examples that moved the weights in each epoch.
    pub updates: Vec<u64>,
    /// Validation error after each epoch (empty without a validation set).
    pub validation_error: Vec<f64>,
}

impl<M> EpochFit<M> {
    /// The same fit with its kept model mapped (the curves unchanged).
    pub fn map_model<N>(self, f: impl FnOnce(M) -> N) -> EpochFit<N> {
        EpochFit {
            model: f(self.model),
            best_epoch: self.best_epoch,
            epochs: self.epochs,
            train_loss: self.train_loss,
            train_error: self.train_error,
            updates: self.updates,
            validation_error: self.validation_error,
        }
    }
}

fn error_rate(f: &[f64], y: &[f64]) -> f64 {
    f.iter().zip(y).filter(|(f, y)| **f * **y <= 0.0).count() as f64 / y.len().max(1) as f64
}

/// Checks labels +-1 against the rows.
pub fn check_labels(x: &Matrix, y: &[f64]) -> Result<()> {
    if x.rows() == 0 || y.len() != x.rows() {
        return Err(Error::InvalidData(format!("X has {} rows and y {} labels", x.rows(), y.len())));
    }
    if y.iter().any(|&v| v != 1.0 && v != -1.0) {
        return Err(Error::InvalidData("labels must be -1 or +1".into()));
    }
    Ok(())
}

/// Runs `epoch` over a seeded random order of `rows` examples up to `max_epochs` times. With a
/// validation set, keeps the model of lowest validation error and stops after `patience` epochs
/// without improvement; otherwise keeps the last. Stops early when an epoch makes no update.
pub fn train_epochs<M: Clone>(
    mut model: M, rows: usize, validation: Option<(&Matrix, &[f64])>, max_epochs: usize, patience: usize, seed: u64,
    control: &Control, mut epoch: impl FnMut(&mut M, &[usize], &Control) -> Result<EpochStats>,
    decision: impl Fn(&M, &Matrix) -> Result<Vec<f64>>,
) -> Result<EpochFit<M>> {
    let mut rng = Rng::new(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut order: Vec<usize> = (0..rows).collect();
    let mut fit = EpochFit {
        model: model.clone(),
        best_epoch: 0,
        epochs: 0,
        train_loss: Vec::new(),
        train_error: Vec::new(),
        updates: Vec::new(),
        validation_error: Vec::new(),
    };
    let mut best = f64::INFINITY;
    for e in 1..=max_epochs {
        rng.shuffle(&mut order);
        let (loss, err, updates) = epoch(&mut model, &order, control)?;
        if !loss.is_finite() {
            return Err(Error::InvalidParameter("the MLP diverged (NaN): lower its learning rate".into()));
        }
        fit.train_loss.push(loss);
        fit.train_error.push(err);
        fit.updates.push(updates);
        fit.epochs = e;
        match validation {
            Some((xv, yv)) => {
                let v = error_rate(&decision(&model, xv)?, yv);
                fit.validation_error.push(v);
                if v < best {
                    best = v;
                    fit.best_epoch = e;
                    fit.model = model.clone();
                } else if e - fit.best_epoch >= patience {
                    break;
                }
            }
            None => {
                fit.best_epoch = e;
                fit.model = model.clone();
            }
        }
        if updates == 0 {
            break; // every example beyond the margin: nothing left to move
        }
    }
    Ok(fit)
}
