//! The local gater's density model P(x | k): a Gaussian mixture with diagonal covariances,
//! trained by EM on the expert's subset. (The thesis writes full covariances; diagonal ones keep
//! EM linear in the dimension and well conditioned on the binary features of Forest.)

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;

const LOG_2PI: f64 = 1.837_877_066_409_345_5;

/// A mixture of Gaussians with diagonal covariances over `dims` features: one expert's P(x | k).
#[derive(Clone, Debug, PartialEq)]
pub struct DiagonalGmm {
    /// Features per row.
    pub dims: usize,
    /// Mixing weights P(n), one per component.
    pub weights: Vec<f64>,
    /// Means and variances, row-major (components, dims).
    pub means: Vec<f64>,
    /// The variance of every feature in every component, shaped as `means`; the variance floor
    /// of `train` is included, so each is positive.
    pub variances: Vec<f64>,
}

/// Sufficient statistics of one E-step: responsibilities summed, and the responsibility-weighted
/// sums of x and x^2, with the log-likelihood.
struct Moments {
    mass: Vec<f64>,
    sum: Vec<f64>,
    squares: Vec<f64>,
    log_likelihood: f64,
}

impl Moments {
    fn zeros(g: usize, d: usize) -> Self {
        Moments { mass: vec![0.0; g], sum: vec![0.0; g * d], squares: vec![0.0; g * d], log_likelihood: 0.0 }
    }
    fn add(mut self, other: Moments) -> Self {
        for (a, b) in self.mass.iter_mut().zip(other.mass) {
            *a += b;
        }
        for (a, b) in self.sum.iter_mut().zip(other.sum) {
            *a += b;
        }
        for (a, b) in self.squares.iter_mut().zip(other.squares) {
            *a += b;
        }
        self.log_likelihood += other.log_likelihood;
        self
    }
}

impl DiagonalGmm {
    /// EM from `components` distinct random rows as means and the data's variance per feature;
    /// at most `iterations` rounds, stopping when the mean log-likelihood gains less than `tol`.
    /// `variance_floor` is added to every variance (binary features would otherwise collapse).
    pub fn train(
        x: &[f64], dims: usize, components: usize, iterations: usize, tol: f64, variance_floor: f64, seed: u64,
        control: &Control,
    ) -> Result<Self> {
        if dims == 0 || x.len() % dims != 0 {
            return Err(Error::InvalidData(format!("the data must have {dims} columns")));
        }
        let n = x.len() / dims;
        if components == 0 || n < components {
            return Err(Error::InvalidData(format!("{components} Gaussians need at least as many examples, got {n}")));
        }
        if !(variance_floor > 0.0) {
            return Err(Error::InvalidParameter(format!("the variance floor must be positive, got {variance_floor}")));
        }
        if x.iter().any(|v| !v.is_finite()) {
            return Err(Error::InvalidData("the data contain NaN or infinity".into()));
        }
        let mut rng = Rng::new(seed);
        let mut rows: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut rows);
        let mut mean = vec![0.0; dims];
        let mut var = vec![0.0; dims];
        for row in x.chunks(dims) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v / n as f64;
            }
        }
        for row in x.chunks(dims) {
            for ((s, v), m) in var.iter_mut().zip(row).zip(&mean) {
                *s += (v - m) * (v - m) / n as f64;
            }
        }
        let mut gmm = DiagonalGmm {
            dims,
            weights: vec![1.0 / components as f64; components],
            means: rows[..components].iter().flat_map(|&r| x[r * dims..(r + 1) * dims].iter().copied()).collect(),
            variances: (0..components).flat_map(|_| var.iter().map(|v| v + variance_floor)).collect(),
        };
        let mut last = f64::NEG_INFINITY;
        for _ in 0..iterations {
            control.poll()?;
            let m = gmm.moments(x);
            let ll = m.log_likelihood / n as f64;
            gmm.maximise(&m, n, variance_floor, x, &mut rng);
            if ll - last < tol {
                break;
            }
            last = ll;
        }
        Ok(gmm)
    }

    fn components(&self) -> usize {
        self.weights.len()
    }

    /// Per component: log P(n) - 1/2 sum log(2 pi var), and 1/var.
    fn prepared(&self) -> (Vec<f64>, Vec<f64>) {
        let d = self.dims;
        let constant = (0..self.components())
            .map(|g| {
                let logdet: f64 = self.variances[g * d..(g + 1) * d].iter().map(|v| v.ln()).sum();
                self.weights[g].max(1e-300).ln() - 0.5 * (logdet + d as f64 * LOG_2PI)
            })
            .collect();
        (constant, self.variances.iter().map(|v| 1.0 / v).collect())
    }

    /// log P(n) + log N(x; mu_n, var_n) for each component, into `out`.
    fn joint(&self, row: &[f64], constant: &[f64], inverse: &[f64], out: &mut [f64]) {
        let d = self.dims;
        for (g, o) in out.iter_mut().enumerate() {
            let mu = &self.means[g * d..(g + 1) * d];
            let inv = &inverse[g * d..(g + 1) * d];
            let q: f64 = row.iter().zip(mu).zip(inv).map(|((x, m), i)| (x - m) * (x - m) * i).sum();
            *o = constant[g] - 0.5 * q;
        }
    }

    fn moments(&self, x: &[f64]) -> Moments {
        let (g, d) = (self.components(), self.dims);
        let (constant, inverse) = self.prepared();
        x.par_chunks(d * 256)
            .map(|block| {
                let mut m = Moments::zeros(g, d);
                let mut joint = vec![0.0; g];
                for row in block.chunks(d) {
                    self.joint(row, &constant, &inverse, &mut joint);
                    let log_p = log_sum_exp(&joint);
                    m.log_likelihood += log_p;
                    for c in 0..g {
                        let r = (joint[c] - log_p).exp();
                        if r < 1e-12 {
                            continue;
                        }
                        m.mass[c] += r;
                        for ((s, q), v) in
                            m.sum[c * d..(c + 1) * d].iter_mut().zip(&mut m.squares[c * d..(c + 1) * d]).zip(row)
                        {
                            *s += r * v;
                            *q += r * v * v;
                        }
                    }
                }
                m
            })
            .reduce(|| Moments::zeros(g, d), Moments::add)
    }

    /// The M-step; a component left without mass restarts on a random row.
    fn maximise(&mut self, m: &Moments, n: usize, floor: f64, x: &[f64], rng: &mut Rng) {
        let d = self.dims;
        for c in 0..self.components() {
            let mass = m.mass[c];
            if mass < 1e-8 * n as f64 {
                let r = rng.below(n);
                self.means[c * d..(c + 1) * d].copy_from_slice(&x[r * d..(r + 1) * d]);
                self.weights[c] = 1.0 / n as f64;
                continue;
            }
            self.weights[c] = mass / n as f64;
            for j in 0..d {
                let mu = m.sum[c * d + j] / mass;
                self.means[c * d + j] = mu;
                self.variances[c * d + j] = (m.squares[c * d + j] / mass - mu * mu).max(0.0) + floor;
            }
        }
        let total: f64 = self.weights.iter().sum();
        self.weights.iter_mut().for_each(|w| *w /= total);
    }

    /// log P(x) of every row, in parallel.
    pub fn log_density(&self, x: &[f64]) -> Result<Vec<f64>> {
        let d = self.dims;
        let g = self.components();
        if g == 0
            || self.means.len() != g * d
            || self.variances.len() != g * d
            || self.variances.iter().any(|v| !(*v > 0.0))
        {
            return Err(Error::InvalidData("the Gaussian mixture's parameters do not fit together".into()));
        }
        if x.len() % d != 0 {
            return Err(Error::InvalidData(format!("the data must have {d} columns")));
        }
        let (constant, inverse) = self.prepared();
        Ok(x.par_chunks(d)
            .map_init(
                || vec![0.0; g],
                |joint, row| {
                    self.joint(row, &constant, &inverse, joint);
                    log_sum_exp(joint)
                },
            )
            .collect())
    }
}

/// log sum_i exp(v_i), without overflow.
fn log_sum_exp(v: &[f64]) -> f64 {
    let top = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    top + v.iter().map(|a| (a - top).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_gaussian_is_the_sample_moments() {
        let x = [1.0, 2.0, 3.0, 6.0, 5.0, 1.0];
        let g = DiagonalGmm::train(&x, 2, 1, 5, 1e-9, 1e-6, 0, &Control::new()).unwrap();
        assert!((g.means[0] - 3.0).abs() < 1e-12 && (g.means[1] - 3.0).abs() < 1e-12);
        assert!((g.variances[0] - (8.0 / 3.0 + 1e-6)).abs() < 1e-9);
        let ld = g.log_density(&[3.0, 3.0]).unwrap()[0];
        let expect = -0.5 * (g.variances[0].ln() + g.variances[1].ln() + 2.0 * LOG_2PI);
        assert!((ld - expect).abs() < 1e-12);
    }

    #[test]
    fn separates_two_clusters() {
        let mut rng = Rng::new(4);
        let mut x = Vec::new();
        for i in 0..400 {
            let c = if i % 2 == 0 { -5.0 } else { 5.0 };
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            x.push(c + u);
        }
        let g = DiagonalGmm::train(&x, 1, 2, 100, 1e-10, 1e-6, 1, &Control::new()).unwrap();
        let mut means = g.means.clone();
        means.sort_by(f64::total_cmp);
        assert!((means[0] + 5.0).abs() < 0.1 && (means[1] - 5.0).abs() < 0.1, "{means:?}");
        assert!((g.weights[0] - 0.5).abs() < 0.05);
        let ld = g.log_density(&[5.0, 0.0]).unwrap();
        assert!(ld[0] > ld[1] + 5.0);
    }

    #[test]
    fn too_few_rows_or_bad_floor() {
        assert!(DiagonalGmm::train(&[1.0, 2.0], 1, 3, 5, 1e-6, 1e-3, 0, &Control::new()).is_err());
        assert!(DiagonalGmm::train(&[1.0, 2.0], 1, 1, 5, 1e-6, 0.0, 0, &Control::new()).is_err());
        assert!(DiagonalGmm::train(&[1.0, f64::NAN], 1, 1, 5, 1e-6, 1e-3, 0, &Control::new()).is_err());
    }
}
