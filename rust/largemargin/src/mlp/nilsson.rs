//! Nilsson's Phi-machine as an MLP: a hidden layer of tanh units with random weights, fixed, and
//! the output layer f(x) = b + w . Phi(x) trained by the margin perceptron (Collobert and Bengio,
//! Algorithm 1: an example with y f(x) <= 1 moves w by lr y Phi(x) and b by lr y), early stopping
//! controlling the margin. The perceptron analogue of a kernel SVM with a fixed feature map.

use rayon::prelude::*;

use crate::control::Control;
use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::mlp::hidden::{check_labels, train_epochs, EpochFit, EpochStats, HiddenLayer};

#[derive(Clone, Debug)]
pub struct NilssonMlp {
    /// The fixed random feature map Phi(x) = tanh(v_i . x + d_i).
    pub layer: HiddenLayer,
    pub w: Vec<f64>,
    pub b: f64,
}

#[derive(Clone, Debug)]
pub struct NilssonParams {
    pub hidden: usize,
    pub learning_rate: f64,
    pub max_epochs: usize,
    pub patience: usize,
    pub seed: u64,
}

pub type NilssonFit = EpochFit<NilssonMlp>;

impl NilssonMlp {
    /// Phi of every row, row-major (rows x hidden), rows in parallel.
    pub fn features(&self, x: &Matrix) -> Result<Vec<f32>> {
        self.layer.check()?;
        self.layer.check_input(x)?;
        let h = self.layer.hidden;
        let mut out = vec![0.0f32; x.rows() * h];
        out.par_chunks_mut(h.max(1)).enumerate().for_each_init(|| vec![0.0; h], |z, (i, row)| {
            self.layer.pre_activations(&Query::row(x, i), z);
            for (o, v) in row.iter_mut().zip(z.iter()) {
                *o = v.tanh() as f32;
            }
        });
        Ok(out)
    }

    fn output(&self, phi: &[f32]) -> f64 {
        self.b + self.w.iter().zip(phi).map(|(w, p)| w * *p as f64).sum::<f64>()
    }

    pub fn decision(&self, x: &Matrix) -> Result<Vec<f64>> {
        let h = self.layer.hidden;
        let phi = self.features(x)?;
        Ok(phi.par_chunks(h.max(1)).map(|p| self.output(p)).collect())
    }

    fn epoch(&mut self, phi: &[f32], y: &[f64], order: &[usize], lr: f64, control: &Control) -> Result<EpochStats> {
        let h = self.layer.hidden;
        let (mut loss, mut wrong, mut updates) = (0.0, 0usize, 0u64);
        for &i in order {
            control.poll()?;
            let p = &phi[i * h..(i + 1) * h];
            let margin = y[i] * self.output(p);
            if margin <= 0.0 {
                wrong += 1;
            }
            if margin > 1.0 {
                continue;
            }
            loss += 1.0 - margin;
            updates += 1;
            let a = lr * y[i];
            for (w, v) in self.w.iter_mut().zip(p) {
                *w += a * *v as f64;
            }
            self.b += a;
        }
        let n = order.len().max(1) as f64;
        Ok((loss / n, wrong as f64 / n, updates))
    }
}

/// Draws the hidden layer from `seed`, computes Phi on the training rows once, and trains the
/// output layer by the margin perceptron for up to `max_epochs` epochs (early stopping as in
/// `hidden::train_epochs`).
pub fn train_nilsson(
    x: &Matrix,
    y: &[f64],
    validation: Option<(&Matrix, &[f64])>,
    params: &NilssonParams,
    control: &Control,
) -> Result<NilssonFit> {
    check_labels(x, y)?;
    if !(params.learning_rate > 0.0 && params.learning_rate.is_finite()) {
        return Err(Error::InvalidParameter("the learning rate must be positive".into()));
    }
    let model = NilssonMlp { layer: HiddenLayer::new(x.cols(), params.hidden, params.seed)?, w: vec![0.0; params.hidden], b: 0.0 };
    let phi = model.features(x)?;
    train_epochs(model, x.rows(), validation, params.max_epochs, params.patience, params.seed, control,
                 |m, order, ctl| m.epoch(&phi, y, order, params.learning_rate, ctl), |m, xv| m.decision(xv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;

    /// The output layer is the margin perceptron on Phi: one update by hand.
    #[test]
    fn one_update_by_hand() {
        let layer = HiddenLayer::from_unit_major(2, 1, &[1.0, -2.0], vec![0.0, 0.5]).unwrap();
        let mut m = NilssonMlp { layer, w: vec![0.0, 0.0], b: 0.0 };
        let xs = [0.5];
        let x = Matrix::Dense64(DenseView::new(&xs, 1, 1).unwrap());
        let phi = m.features(&x).unwrap();
        assert!((phi[0] as f64 - 0.5f64.tanh()).abs() < 1e-7 && (phi[1] as f64 - (-0.5f64).tanh()).abs() < 1e-7);
        let (loss, _, updates) = m.epoch(&phi, &[1.0], &[0], 0.1, &Control::new()).unwrap();
        assert_eq!(updates, 1);
        assert!((loss - 1.0).abs() < 1e-12);
        assert!((m.w[0] - 0.1 * phi[0] as f64).abs() < 1e-12 && (m.b - 0.1).abs() < 1e-12);
    }
}
