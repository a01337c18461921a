//! The Nilsson MLP (Collobert's thesis, Algorithm 8.3; Nilsson 1965, after Ridgway 1962): a
//! committee of N sign units, N odd, f(x) = sum_n sign(v_n . x + a_n), with no output weights and
//! no output bias. An example the committee misclassifies (y f(x) <= 0) moves the
//! (|f(x)| + 1) / 2 units that vote wrong and are closest to it (smallest |v_n . x + a_n|) by
//! lr * y * (x, 1): the fewest units whose flip would set the vote right. It is to the simple MLP
//! what the perceptron is to the margin perceptron: no margin (beta = 0) and sign units instead of
//! hard tanh. The weights start random (zero weights would keep every unit identical), and
//! early stopping on a validation set is the termination criterion.

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::mlp::hidden::{check_labels, train_epochs, EpochFit, EpochStats, HiddenLayer};
use crate::runtime::control::Control;

/// The committee f(x) = sum_n sign(v_n . x + a_n).
#[derive(Clone, Debug)]
pub struct NilssonMlp {
    /// The sign units' weights v_n and biases a_n (the layer's `d`).
    pub layer: HiddenLayer,
}

/// What `train_nilsson` trains: the committee's size, its steps and the epochs.
#[derive(Clone, Debug)]
pub struct NilssonParams {
    /// Units in the committee; odd, so that the vote is never a tie.
    pub hidden: usize,
    /// The constant step lr by which a moved unit goes along y (x, 1); positive.
    pub learning_rate: f64,
    /// The most epochs run.
    pub max_epochs: usize,
    /// Stop after this many epochs without a better validation error (with a validation set).
    pub patience: usize,
    /// Seeds the initial weights and the epochs' orders.
    pub seed: u64,
    /// Initial weights and biases uniform in +-init_scale/sqrt(inputs).
    pub init_scale: f64,
}

/// A trained committee with its per-epoch curves.
pub type NilssonFit = EpochFit<NilssonMlp>;

/// A unit's vote: +1 for a positive pre-activation, -1 otherwise.
#[inline(always)]
fn sign(z: f64) -> f64 {
    if z > 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// sum_n sign(z_n): an odd integer when N is odd.
fn vote(z: &[f64]) -> f64 {
    z.iter().map(|&v| sign(v)).sum()
}

impl NilssonMlp {
    /// A committee of `hidden` units over `inputs` features drawn as `HiddenLayer::with_scale`
    /// draws them; an error if `hidden` is even.
    pub fn new(inputs: usize, hidden: usize, init_scale: f64, seed: u64) -> Result<Self> {
        if hidden & 1 == 0 {
            return Err(Error::InvalidParameter(format!(
                "the Nilsson MLP's committee needs an odd number of hidden units (so that its vote is never a tie), got {hidden}"
            )));
        }
        Ok(NilssonMlp { layer: HiddenLayer::with_scale(inputs, hidden, init_scale, seed)? })
    }

    /// The committee's vote f(x), an odd integer, plus sum_n z_n / (2 sum_n |z_n|), a term in
    /// [-1/2, 1/2] with the vote's sign whenever it reaches +-1/2: the sign is the vote's, and
    /// among equal votes (one-vs-rest classes) the units' summed pre-activations, scale-free,
    /// break the tie.
    pub fn decision(&self, x: &Matrix) -> Result<Vec<f64>> {
        self.layer.check()?;
        self.layer.check_input(x)?;
        Ok((0..x.rows())
            .into_par_iter()
            .map_init(
                || vec![0.0; self.layer.hidden],
                |z, i| {
                    self.layer.pre_activations(&Query::row(x, i), z);
                    let (sum, abs) = z.iter().fold((0.0, 0.0), |(s, a), &v| (s + v, a + v.abs()));
                    vote(z) + if abs > 0.0 { 0.5 * sum / abs } else { 0.0 }
                },
            )
            .collect())
    }

    /// One pass over `order` (Algorithm 8.3). The loss reported is the mean number of units an
    /// example needed to move, (1 - y f)_+ / 2.
    fn epoch(&mut self, x: &Matrix, y: &[f64], order: &[usize], lr: f64, control: &Control) -> Result<EpochStats> {
        let h = self.layer.hidden;
        let mut z = vec![0.0; h];
        let mut wrong_units: Vec<usize> = Vec::with_capacity(h);
        let (mut moved, mut wrong, mut updates) = (0.0, 0usize, 0u64);
        for &i in order {
            control.poll()?;
            let q = Query::row(x, i);
            self.layer.pre_activations(&q, &mut z);
            let f = vote(&z);
            if y[i] * f > 0.0 {
                continue;
            }
            wrong += 1;
            updates += 1;
            // y f <= 0 and f odd: (|f| + 1) / 2 of the (N + |f|) / 2 wrong units must flip.
            let need = (f.abs() as usize).div_ceil(2);
            wrong_units.clear();
            wrong_units.extend((0..h).filter(|&n| y[i] * z[n] <= 0.0));
            if wrong_units.len() > need {
                wrong_units.select_nth_unstable_by(need - 1, |&a, &b| z[a].abs().total_cmp(&z[b].abs()));
                wrong_units.truncate(need);
            }
            moved += wrong_units.len() as f64;
            let step = lr * y[i];
            let v = &mut self.layer.v;
            q.for_each_nonzero(|j, xj| {
                let row = &mut v[j * h..(j + 1) * h];
                let delta = (step * xj) as f32;
                for &n in &wrong_units {
                    row[n] += delta;
                }
            });
            for &n in &wrong_units {
                self.layer.d[n] += step;
            }
        }
        let n = order.len().max(1) as f64;
        Ok((moved / n, wrong as f64 / n, updates))
    }
}

/// Draws the committee from `seed` and trains it by Algorithm 8.3 for up to `max_epochs` epochs
/// (early stopping as in `hidden::train_epochs`; an epoch without a mistake ends the fit).
pub fn train_nilsson(
    x: &Matrix, y: &[f64], validation: Option<(&Matrix, &[f64])>, params: &NilssonParams, control: &Control,
) -> Result<NilssonFit> {
    check_labels(x, y)?;
    if !(params.learning_rate > 0.0 && params.learning_rate.is_finite()) {
        return Err(Error::InvalidParameter("the learning rate must be positive".into()));
    }
    let model = NilssonMlp::new(x.cols(), params.hidden, params.init_scale, params.seed)?;
    model.layer.check_input(x)?;
    train_epochs(
        model,
        x.rows(),
        validation,
        params.max_epochs,
        params.patience,
        params.seed,
        control,
        |m, order, ctl| m.epoch(x, y, order, params.learning_rate, ctl),
        |m, xv| m.decision(xv),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;

    fn dense(xs: &[f64], rows: usize, cols: usize) -> Matrix<'_> {
        Matrix::Dense64(DenseView::new(xs, rows, cols).unwrap())
    }

    /// Five units, one example: four vote wrong, f = -3, so the two wrong units closest to the
    /// example move, and nothing else.
    #[test]
    fn moves_the_closest_wrong_units_by_hand() {
        // one input; pre-activations z_n = v_n * 1 + a_n = 0.5, -0.1, -2.0, -0.3, -0.05
        let layer = HiddenLayer::from_unit_major(5, 1, &[0.0; 5], vec![0.5, -0.1, -2.0, -0.3, -0.05]).unwrap();
        let mut m = NilssonMlp { layer };
        let xs = [1.0];
        let x = dense(&xs, 1, 1);
        let (loss, err, updates) = m.epoch(&x, &[1.0], &[0], 0.25, &Control::new()).unwrap();
        assert_eq!((updates, err), (1, 1.0));
        assert!((loss - 2.0).abs() < 1e-12, "two units moved");
        let moved: Vec<f32> = m.layer.unit_major();
        assert_eq!(moved, vec![0.0, 0.25, 0.0, 0.0, 0.25]);
        let d = &m.layer.d;
        let expect = [0.5, 0.15, -2.0, -0.3, 0.2];
        for (a, b) in d.iter().zip(expect) {
            assert!((a - b).abs() < 1e-12, "{d:?}");
        }
        // the vote is now right (3 of 5 positive), so a second pass moves nothing
        let (_, err, updates) = m.epoch(&x, &[1.0], &[0], 0.25, &Control::new()).unwrap();
        assert_eq!((updates, err), (0, 0.0));
    }

    #[test]
    fn an_even_committee_is_refused() {
        let xs = [1.0, -1.0];
        let x = dense(&xs, 2, 1);
        let params =
            NilssonParams { hidden: 4, learning_rate: 0.1, max_epochs: 3, patience: 3, seed: 0, init_scale: 1.0 };
        let err = train_nilsson(&x, &[1.0, -1.0], None, &params, &Control::new()).unwrap_err();
        assert!(err.to_string().contains("odd"), "{err}");
    }

    /// XOR, which no single sign unit separates: the committee fits it, and its decisions carry
    /// the vote's sign.
    #[test]
    fn fits_xor() {
        let mut xs = Vec::new();
        let mut y = Vec::new();
        let mut rng = crate::runtime::rng::Rng::new(7);
        for _ in 0..400 {
            let a = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
            let b = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
            if a.abs() < 0.1 || b.abs() < 0.1 {
                continue;
            }
            xs.extend([a * 2.0, b * 2.0]);
            y.push(if a * b > 0.0 { 1.0 } else { -1.0 });
        }
        let n = y.len();
        let x = dense(&xs, n, 2);
        let params =
            NilssonParams { hidden: 21, learning_rate: 0.05, max_epochs: 300, patience: 300, seed: 3, init_scale: 1.0 };
        let fit = train_nilsson(&x, &y, None, &params, &Control::new()).unwrap();
        let f = fit.model.decision(&x).unwrap();
        let errors = f.iter().zip(&y).filter(|(f, y)| **f * **y <= 0.0).count();
        assert!(errors * 20 < n, "{errors} of {n} wrong");
        // the vote of 21 units is odd, and the tie-break term stays within 1/2 of it
        assert!(f.iter().all(|v| v.abs() >= 0.5 && v.abs() <= 21.5), "{f:?}");
    }
}
