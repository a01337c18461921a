//! The one-hidden-layer MLP of Collobert's thesis, chapter 7: f(x) = b + sum_n w_n tanh(v_n . x +
//! d_n) for targets +-1, with the mean squared error, the cross-entropy log(1 + exp(-y f)) or the
//! squared error through a tanh output 1/2 (y - tanh f)^2, trained by plain stochastic gradient or
//! by a block-diagonal second-order method.
//!
//! The second-order method follows the chapter's argument: the Hessian's blocks between
//! different hidden units are Q''(f) w_i w_j h'_i h'_j x x^T, which vanish as training proceeds
//! for the cross-entropy and the tanh output (not for the plain MSE), so each hidden unit, and the
//! output layer, is its own Newton problem. Each block is its Gauss-Newton matrix, estimated
//! once per epoch on a sample: for the output layer E[Q'' h h^T] over (h, 1); for unit n the
//! Kronecker-factored E[Q'' (w_n h'_n)^2] E[x x^T] over (x, 1), the input second moment shared by
//! all units (its inverse computed once), so that preconditioning a unit's rank-one gradient
//! delta_n (x, 1) costs one product with that inverse per example. Every block is damped by
//! `damping` times its mean diagonal (the units' curvatures by `damping` times the largest; the
//! curvature blocks never by less than `damping` times `CURVATURE_FLOOR`).

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::mlp::hidden::{check_labels, train_epochs, EpochFit, EpochStats, HiddenLayer};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;

/// The loss Q(f, y) the network is trained on, for a label y of +-1 and the output f.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    /// 1/2 (y - f)^2
    Mse,
    /// log(1 + exp(-y f))
    CrossEntropy,
    /// 1/2 (y - tanh f)^2
    TanhMse,
}

crate::error::option_names!(Criterion, "criterion", {
    Mse => "mse",
    CrossEntropy => "cross_entropy",
    TanhMse => "tanh_mse",
});

impl Criterion {
    /// Q(f, y).
    pub fn loss(&self, f: f64, y: f64) -> f64 {
        match self {
            Criterion::Mse => 0.5 * (y - f) * (y - f),
            Criterion::CrossEntropy => softplus(-y * f),
            Criterion::TanhMse => {
                let z = f.tanh();
                0.5 * (y - z) * (y - z)
            }
        }
    }
    /// dQ/df.
    pub fn dloss(&self, f: f64, y: f64) -> f64 {
        match self {
            Criterion::Mse => f - y,
            Criterion::CrossEntropy => -y * sigmoid(-y * f),
            Criterion::TanhMse => {
                let z = f.tanh();
                -(y - z) * (1.0 - z * z)
            }
        }
    }
    /// The Gauss-Newton curvature of Q in f (non-negative).
    pub fn curvature(&self, f: f64, y: f64) -> f64 {
        match self {
            Criterion::Mse => 1.0,
            Criterion::CrossEntropy => {
                let p = sigmoid(y * f);
                p * (1.0 - p)
            }
            Criterion::TanhMse => {
                let z = f.tanh();
                (1.0 - z * z) * (1.0 - z * z)
            }
        }
    }
}

fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        t.exp() / (1.0 + t.exp())
    }
}

fn softplus(t: f64) -> f64 {
    if t > 30.0 {
        t
    } else {
        t.exp().ln_1p()
    }
}

/// How the weights move after each example.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Optimizer {
    /// Plain stochastic gradient at a constant learning rate.
    Sgd,
    /// The block-diagonal Gauss-Newton steps, the blocks re-estimated each epoch on `sample`
    /// examples and damped by `damping` times their mean diagonal.
    BlockNewton {
        /// The damping factor; positive.
        damping: f64,
        /// Examples drawn from the epoch's order to estimate the blocks; positive.
        sample: usize,
    },
}

/// An optimizer as its name gives it: `BlockNewton`'s settings come apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizerKind {
    /// `Optimizer::Sgd`.
    Sgd,
    /// `Optimizer::BlockNewton`.
    BlockNewton,
}
crate::error::option_names!(OptimizerKind, "optimizer", { Sgd => "sgd", BlockNewton => "block_newton" });

impl OptimizerKind {
    /// The optimizer, with `damping` and `sample` for `BlockNewton` (unread for `Sgd`).
    pub fn with(self, damping: f64, sample: usize) -> Optimizer {
        match self {
            OptimizerKind::Sgd => Optimizer::Sgd,
            OptimizerKind::BlockNewton => Optimizer::BlockNewton { damping, sample },
        }
    }
}

/// The network f(x) = b + sum_n w_n tanh(v_n . x + d_n).
#[derive(Clone, Debug)]
pub struct Network {
    /// The hidden units' v_n and d_n.
    pub layer: HiddenLayer,
    /// The output weights w_n, one per hidden unit.
    pub w: Vec<f64>,
    /// The output bias b.
    pub b: f64,
}

/// What `train_network` trains: the network's size, its criterion and optimiser, the epochs.
#[derive(Clone, Debug)]
pub struct NetworkParams {
    /// Number of tanh hidden units.
    pub hidden: usize,
    /// The loss minimised.
    pub criterion: Criterion,
    /// Plain or second-order steps.
    pub optimizer: Optimizer,
    /// The constant step size, applied to the gradient or to the preconditioned step; positive.
    pub learning_rate: f64,
    /// The most epochs run.
    pub max_epochs: usize,
    /// With a validation set, epochs without a lower validation error before training stops.
    pub patience: usize,
    /// Seeds the initial weights, the epochs' orders and the second-order samples.
    pub seed: u64,
}

/// A trained network with its per-epoch curves.
pub type NetworkFit = EpochFit<Network>;

/// Most input features the second-order method takes (its input block is dense).
pub const MAX_NEWTON_INPUTS: usize = 4096;

/// The inverse blocks of one epoch of second-order steps.
struct Blocks {
    /// (E[(x,1)(x,1)^T] + damping)^-1, (d+1) x (d+1) row-major.
    inputs: Vec<f64>,
    /// Per unit: 1 / (E[Q'' (w_n h'_n)^2] + damping).
    units: Vec<f64>,
    /// (E[Q'' (h,1)(h,1)^T] + damping)^-1, (N+1) x (N+1).
    output: Vec<f64>,
}

impl Network {
    /// A network over `inputs` features: hidden layer as `HiddenLayer::new` draws it, output
    /// weights uniform in +-1/sqrt(hidden), bias zero.
    pub fn new(inputs: usize, hidden: usize, seed: u64) -> Result<Self> {
        let layer = HiddenLayer::new(inputs, hidden, seed)?;
        // output weights small and random: zero ones would give every unit the same zero gradient
        let mut rng = Rng::new(seed ^ 0x5851_f42d_4c95_7f2d);
        let scale = 1.0 / (hidden as f64).sqrt();
        let w =
            (0..hidden).map(|_| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale).collect();
        Ok(Network { layer, w, b: 0.0 })
    }

    /// Hidden activations of one row into `h`; returns f.
    #[inline(always)]
    fn forward(&self, q: &Query, h: &mut [f64]) -> f64 {
        self.layer.pre_activations(q, h);
        let mut f = self.b;
        for (hn, wn) in h.iter_mut().zip(&self.w) {
            *hn = hn.tanh();
            f += wn * *hn;
        }
        f
    }

    /// f(x) for every row of `x`, rows in parallel; `x` may not have more features than the
    /// network has inputs.
    pub fn decision(&self, x: &Matrix) -> Result<Vec<f64>> {
        self.layer.check()?;
        self.layer.check_input(x)?;
        if self.w.len() != self.layer.hidden {
            return Err(Error::InvalidData("the output weights do not fit the hidden layer".into()));
        }
        Ok((0..x.rows())
            .into_par_iter()
            .map_init(|| vec![0.0; self.layer.hidden], |h, i| self.forward(&Query::row(x, i), h))
            .collect())
    }

    /// One pass over `order`: per example, the gradient of Q(f(x), y), preconditioned by the
    /// blocks when given.
    fn epoch(
        &mut self, x: &Matrix, y: &[f64], order: &[usize], criterion: Criterion, lr: f64, blocks: Option<&Blocks>,
        control: &Control,
    ) -> Result<EpochStats> {
        let (nh, d) = (self.layer.hidden, self.layer.inputs);
        let (mut h, mut delta, mut grad_o, mut step_o, mut u, mut coef) =
            (vec![0.0; nh], vec![0.0; nh], vec![0.0; nh + 1], vec![0.0; nh + 1], vec![0.0; d + 1], vec![0.0; nh]);
        let (mut loss, mut wrong) = (0.0, 0usize);
        for &i in order {
            control.poll()?;
            let q = Query::row(x, i);
            let f = self.forward(&q, &mut h);
            loss += criterion.loss(f, y[i]);
            if f * y[i] <= 0.0 {
                wrong += 1;
            }
            let g = criterion.dloss(f, y[i]);
            if g == 0.0 {
                continue;
            }
            for n in 0..nh {
                delta[n] = g * self.w[n] * (1.0 - h[n] * h[n]);
            }
            match blocks {
                None => {
                    for n in 0..nh {
                        self.w[n] -= lr * g * h[n];
                    }
                    self.b -= lr * g;
                    for n in 0..nh {
                        coef[n] = -lr * delta[n];
                        self.layer.d[n] += coef[n];
                    }
                    self.layer.add_row(&q, &coef);
                }
                Some(bk) => {
                    grad_o[..nh].iter_mut().zip(&h).for_each(|(o, hn)| *o = g * hn);
                    grad_o[nh] = g;
                    mat_vec(&bk.output, &grad_o, &mut step_o);
                    for n in 0..nh {
                        self.w[n] -= lr * step_o[n];
                    }
                    self.b -= lr * step_o[nh];
                    // u = A^-1 (x, 1): the columns of the nonzero features, and the last one
                    u.copy_from_slice(&bk.inputs[d * (d + 1)..]);
                    q.for_each_nonzero(|j, v| {
                        for (uk, a) in u.iter_mut().zip(&bk.inputs[j * (d + 1)..(j + 1) * (d + 1)]) {
                            *uk += v * a;
                        }
                    });
                    for n in 0..nh {
                        coef[n] = -lr * delta[n] * bk.units[n];
                        self.layer.d[n] += coef[n] * u[d];
                    }
                    self.layer.add_dense(&u[..d], &coef);
                }
            }
        }
        let n = order.len().max(1) as f64;
        Ok((loss / n, wrong as f64 / n, order.len() as u64))
    }

    /// The damped Gauss-Newton blocks at the current weights, estimated on `rows`.
    fn blocks(&self, x: &Matrix, y: &[f64], rows: &[usize], criterion: Criterion, damping: f64) -> Result<Blocks> {
        let (nh, d) = (self.layer.hidden, self.layer.inputs);
        let s = rows.len().max(1) as f64;
        // sums over the sample, accumulated per thread
        let init = || (vec![0.0; (d + 1) * (d + 1)], vec![0.0; nh], vec![0.0; (nh + 1) * (nh + 1)], vec![0.0; nh + 1]);
        let (mut a, mut c, mut bo, _) = rows
            .par_iter()
            .fold(init, |(mut a, mut c, mut bo, mut h), &i| {
                let q = Query::row(x, i);
                let f = self.forward(&q, &mut h[..nh]);
                let k = criterion.curvature(f, y[i]);
                h[nh] = 1.0;
                let mut xt: Vec<(usize, f64)> = Vec::new();
                q.for_each_nonzero(|j, v| xt.push((j, v)));
                xt.push((d, 1.0));
                for &(j, vj) in &xt {
                    for &(l, vl) in &xt {
                        a[j * (d + 1) + l] += vj * vl;
                    }
                }
                for n in 0..nh {
                    let t = self.w[n] * (1.0 - h[n] * h[n]);
                    c[n] += k * t * t;
                }
                for r in 0..=nh {
                    let kr = k * h[r];
                    for (o, hc) in bo[r * (nh + 1)..(r + 1) * (nh + 1)].iter_mut().zip(&h) {
                        *o += kr * hc;
                    }
                }
                (a, c, bo, h)
            })
            .reduce(init, |mut p, q| {
                p.0.iter_mut().zip(&q.0).for_each(|(a, b)| *a += b);
                p.1.iter_mut().zip(&q.1).for_each(|(a, b)| *a += b);
                p.2.iter_mut().zip(&q.2).for_each(|(a, b)| *a += b);
                p
            });
        for v in a.iter_mut().chain(c.iter_mut()).chain(bo.iter_mut()) {
            *v /= s;
        }
        // (damped by the largest unit's curvature: a unit almost always saturated has a tiny
        // mean curvature and the rare large gradient, which its own scale would blow up)
        let top_c = c.iter().cloned().fold(0.0, f64::max);
        let units = c.iter().map(|v| 1.0 / (v + damping * top_c.max(CURVATURE_FLOOR))).collect();
        Ok(Blocks {
            inputs: damped_inverse(a, d + 1, damping, 0.0)?,
            units,
            output: damped_inverse(bo, nh + 1, damping, CURVATURE_FLOOR)?,
        })
    }
}

fn mat_vec(m: &[f64], v: &[f64], out: &mut [f64]) {
    let n = v.len();
    for (o, row) in out.iter_mut().zip(m.chunks(n)) {
        *o = row.iter().zip(v).map(|(a, b)| a * b).sum();
    }
}

/// The least scale the damping of a curvature block (output layer, units) takes: once the model
/// is confident, the cross-entropy's Q'' = p (1 - p) is near zero on almost every example, and a
/// block damped only relative to itself would turn the next mistake's gradient into a huge step.
const CURVATURE_FLOOR: f64 = 0.01;

/// (M + damping * max(mean(diag M), floor) I)^-1 of a symmetric positive semi-definite n x n
/// matrix, by Cholesky.
fn damped_inverse(mut m: Vec<f64>, n: usize, damping: f64, floor: f64) -> Result<Vec<f64>> {
    let mean = (0..n).map(|i| m[i * n + i]).sum::<f64>() / n as f64;
    let add = damping * if mean > 0.0 { mean.max(floor) } else { 1.0 };
    for i in 0..n {
        m[i * n + i] += add;
    }
    // Cholesky: m = L L^T, L in the lower triangle
    for j in 0..n {
        let mut s = m[j * n + j];
        for k in 0..j {
            s -= m[j * n + k] * m[j * n + k];
        }
        if !(s > 0.0) {
            return Err(Error::InvalidParameter(
                "a second-order block is not positive definite: raise the damping".into(),
            ));
        }
        let l = s.sqrt();
        m[j * n + j] = l;
        for i in j + 1..n {
            let mut t = m[i * n + j];
            for k in 0..j {
                t -= m[i * n + k] * m[j * n + k];
            }
            m[i * n + j] = t / l;
        }
    }
    // the inverse column by column: solve L L^T x = e_c
    let mut inv = vec![0.0; n * n];
    let mut z = vec![0.0; n];
    for c in 0..n {
        for i in 0..n {
            let mut t = if i == c { 1.0 } else { 0.0 };
            for k in 0..i {
                t -= m[i * n + k] * z[k];
            }
            z[i] = t / m[i * n + i];
        }
        for i in (0..n).rev() {
            let mut t = z[i];
            for k in i + 1..n {
                t -= m[k * n + i] * inv[k * n + c];
            }
            inv[i * n + c] = t / m[i * n + i];
        }
    }
    Ok(inv)
}

/// Trains the network on labels +-1 (early stopping as in `hidden::train_epochs`).
pub fn train_network(
    x: &Matrix, y: &[f64], validation: Option<(&Matrix, &[f64])>, params: &NetworkParams, control: &Control,
) -> Result<NetworkFit> {
    check_labels(x, y)?;
    x.check_finite()?;
    if !(params.learning_rate > 0.0 && params.learning_rate.is_finite()) {
        return Err(Error::InvalidParameter("the learning rate must be positive".into()));
    }
    if let Optimizer::BlockNewton { damping, sample } = params.optimizer {
        if !(damping > 0.0 && damping.is_finite()) || sample == 0 {
            return Err(Error::InvalidParameter("the second-order damping and sample size must be positive".into()));
        }
        // the input block is dense, (d + 1)^2
        if x.cols() > MAX_NEWTON_INPUTS {
            return Err(Error::InvalidParameter(format!(
                "the block-diagonal second-order method keeps a dense block over the inputs: at most {MAX_NEWTON_INPUTS} features, got {}",
                x.cols()
            )));
        }
    }
    let model = Network::new(x.cols(), params.hidden, params.seed)?;
    let mut rng = Rng::new(params.seed ^ 0x2545_f491_4f6c_dd1d);
    train_epochs(
        model,
        x.rows(),
        validation,
        params.max_epochs,
        params.patience,
        params.seed,
        control,
        |m, order, ctl| {
            let blocks = match params.optimizer {
                Optimizer::Sgd => None,
                Optimizer::BlockNewton { damping, sample } => {
                    let mut rows: Vec<usize> = order.to_vec();
                    rng.shuffle(&mut rows);
                    rows.truncate(sample);
                    Some(m.blocks(x, y, &rows, params.criterion, damping)?)
                }
            };
            m.epoch(x, y, order, params.criterion, params.learning_rate, blocks.as_ref(), ctl)
        },
        |m, xv| m.decision(xv),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DenseView;

    #[test]
    fn criteria_derivatives_match_finite_differences() {
        for c in [Criterion::Mse, Criterion::CrossEntropy, Criterion::TanhMse] {
            for (f, y) in [(0.3, 1.0), (-1.2, 1.0), (2.0, -1.0)] {
                let num = (c.loss(f + 1e-6, y) - c.loss(f - 1e-6, y)) / 2e-6;
                assert!((num - c.dloss(f, y)).abs() < 1e-6, "{c:?} {f} {y}");
                assert!(c.curvature(f, y) >= 0.0);
            }
        }
        // the cross-entropy's curvature is its exact second derivative
        let c = Criterion::CrossEntropy;
        let num = (c.dloss(0.7 + 1e-6, 1.0) - c.dloss(0.7 - 1e-6, 1.0)) / 2e-6;
        assert!((num - c.curvature(0.7, 1.0)).abs() < 1e-6);
    }

    #[test]
    fn damped_inverse_inverts() {
        let m = vec![4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
        let inv = damped_inverse(m.clone(), 3, 1e-12, 0.0).unwrap();
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|k| m[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!((v - if i == j { 1.0 } else { 0.0 }).abs() < 1e-9);
            }
        }
    }

    /// On a nonlinear problem whose inputs have very different scales (what the input block
    /// undoes), both optimizers learn; the second-order steps reach the training error plain SGD
    /// ends with in fewer epochs.
    #[test]
    fn block_newton_needs_fewer_epochs() {
        let mut rng = Rng::new(3);
        let n = 2000;
        let xs: Vec<f64> = (0..2 * n)
            .map(|k| {
                ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * if k % 2 == 0 { 10.0 } else { 0.1 }
            })
            .collect();
        let y: Vec<f64> = (0..n).map(|i| if xs[2 * i] * xs[2 * i + 1] > 0.0 { 1.0 } else { -1.0 }).collect();
        let x = Matrix::Dense64(DenseView::new(&xs, n, 2).unwrap());
        for seed in 1..=3 {
            let fit = |optimizer, lr| {
                let p = NetworkParams {
                    hidden: 10,
                    criterion: Criterion::CrossEntropy,
                    optimizer,
                    learning_rate: lr,
                    max_epochs: 30,
                    patience: 30,
                    seed,
                };
                train_network(&x, &y, None, &p, &Control::new()).unwrap()
            };
            let sgd = fit(Optimizer::Sgd, 0.01);
            let newton = fit(Optimizer::BlockNewton { damping: 0.1, sample: 1000 }, 0.005);
            let target = *sgd.train_error.last().unwrap();
            assert!(target < 0.45, "{:?}", sgd.train_error);
            let first = |e: &[f64]| e.iter().position(|&v| v <= target).map(|p| p + 1).unwrap_or(usize::MAX);
            assert!(
                first(&newton.train_error) < first(&sgd.train_error) / 2,
                "seed {seed}: {:?} vs {:?}",
                newton.train_error,
                sgd.train_error
            );
        }
    }
}
