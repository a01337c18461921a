//! The primal of the L2-loss linear SVM and SVR by a trust-region Newton method (Lin, Weng and
//! Keerthi, JMLR 2008; the TRON of LIBLINEAR, which scikit-learn's `dual=False` runs):
//!
//!   min_w 1/2 |w|^2 + sum_i C_i loss(<w, (x_i, bias)>),
//!
//! the loss max(0, 1 - y_i f)^2 (classification) or max(0, |f - y_i| - epsilon)^2 (regression):
//! both are once differentiable with a generalised Hessian I + 2 X_A' C_A X_A over the examples
//! A whose loss is not flat. Each iteration solves the Newton system by conjugate gradients
//! within the trust region and accepts the step if the objective falls enough.
//!
//! Every pass over the data (the margins Xw, the products X'u and the Hessian's X_A'(C X_A v)) is
//! split into fixed blocks of rows run in parallel on the rayon pool; a block's part of X'u is
//! summed into its own vector and the blocks' vectors are added in block order, so the result
//! does not depend on the number of threads: one binary problem runs on every core, the model
//! the same for every `n_jobs`.

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::runtime::control::Control;
use crate::solver::dcd::{row_add, row_dot, DcdOutcome};

/// The loss of the primal problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrimalLoss {
    /// max(0, 1 - y f)^2, labels +1/-1.
    SquaredHinge,
    /// max(0, |f - y| - epsilon)^2.
    SquaredEpsilonInsensitive {
        /// The tube's half-width, nonnegative.
        epsilon: f64,
    },
}

/// Rows per block of a parallel pass without accumulators: enough to amortise a hand-off.
const BLOCK_ROWS: usize = 4096;
/// The blocks of a pass computing X'u: each sums into its own weight vector, so they are few
/// (their vectors are zeroed and added every pass), but more than the cores, for balance. A
/// fixed count, not one per thread: the sum is the same on any number of threads.
const SUM_BLOCKS: usize = 16;

/// The problem's data and the state of the current iterate's pass.
struct Primal<'a> {
    x: &'a Matrix<'a>,
    y: &'a [f64],
    c: &'a [f64],
    loss: PrimalLoss,
    bias: f64,
    /// Row ranges of the blocks, and each block's own accumulator for X'u.
    blocks: Vec<(usize, usize)>,
    partial: Vec<Vec<f64>>,
    /// Per example: 2 C_i where its loss is curved at the current iterate, else 0.
    curvature: Vec<f64>,
}

impl<'a> Primal<'a> {
    fn new(x: &'a Matrix<'a>, y: &'a [f64], c: &'a [f64], loss: PrimalLoss, bias: f64) -> Self {
        let n = x.rows();
        let count = SUM_BLOCKS.min(n.div_ceil(1024)).max(1);
        let blocks: Vec<(usize, usize)> = (0..count).map(|b| (b * n / count, (b + 1) * n / count)).collect();
        let partial = vec![Vec::new(); blocks.len()];
        Primal { x, y, c, loss, bias, blocks, partial, curvature: vec![0.0; n] }
    }

    /// `out[i] = <w, x_i>` for every row, in parallel.
    fn margins(&self, w: &[f64], out: &mut [f64], control: &Control) -> Result<()> {
        out.par_chunks_mut(BLOCK_ROWS).enumerate().try_for_each(|(b, chunk)| {
            control.poll()?;
            for (k, o) in chunk.iter_mut().enumerate() {
                *o = row_dot(w, Query::row(self.x, b * BLOCK_ROWS + k), self.bias);
            }
            Ok(())
        })
    }

    /// `out = v + X' u` over the rows where `u` is nonzero, the blocks summed in order.
    fn add_transposed(&mut self, v: &[f64], u: &[f64], out: &mut [f64], control: &Control) -> Result<()> {
        let (x, bias, d) = (self.x, self.bias, v.len());
        self.partial.par_iter_mut().zip(&self.blocks).try_for_each(|(acc, &(start, end))| {
            control.poll()?;
            acc.clear();
            acc.resize(d, 0.0);
            for i in start..end {
                if u[i] != 0.0 {
                    row_add(acc, u[i], Query::row(x, i), bias);
                }
            }
            Ok::<_, Error>(())
        })?;
        out.copy_from_slice(v);
        // (feature slices summed in parallel; each entry adds the blocks in their order)
        let partial = &self.partial;
        out.par_chunks_mut(4096).enumerate().for_each(|(k, slice)| {
            for acc in partial {
                for (o, a) in slice.iter_mut().zip(&acc[k * 4096..]) {
                    *o += a;
                }
            }
        });
        Ok(())
    }

    /// The objective at w from its margins z; sets each example's curvature for the Hessian and
    /// writes the loss's derivative per example into `u` (for the gradient w + X'u).
    fn evaluate(&mut self, w: &[f64], z: &[f64], u: &mut [f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..z.len() {
            let c = self.c[i];
            let residual = match self.loss {
                // the loss is (1 - y z)^2 below margin 1: derivative 2 C y (y z - 1)... in z
                PrimalLoss::SquaredHinge => {
                    let m = 1.0 - self.y[i] * z[i];
                    if m > 0.0 {
                        -self.y[i] * m
                    } else {
                        0.0
                    }
                }
                PrimalLoss::SquaredEpsilonInsensitive { epsilon } => {
                    let r = z[i] - self.y[i];
                    if r > epsilon {
                        r - epsilon
                    } else if r < -epsilon {
                        r + epsilon
                    } else {
                        0.0
                    }
                }
            };
            let curved = residual != 0.0 && c > 0.0;
            total += c * residual * residual;
            u[i] = 2.0 * c * residual;
            self.curvature[i] = if curved { 2.0 * c } else { 0.0 };
        }
        0.5 * dot(w, w) + total
    }

    /// `out = v + X_A' (C_A X_A v)`: the generalised Hessian times v.
    fn hessian_times(&mut self, v: &[f64], xv: &mut [f64], out: &mut [f64], control: &Control) -> Result<()> {
        let curvature = &self.curvature;
        let (x, bias) = (self.x, self.bias);
        xv.par_chunks_mut(BLOCK_ROWS).enumerate().try_for_each(|(b, chunk)| {
            control.poll()?;
            for (k, o) in chunk.iter_mut().enumerate() {
                let i = b * BLOCK_ROWS + k;
                *o = if curvature[i] != 0.0 { curvature[i] * row_dot(v, Query::row(x, i), bias) } else { 0.0 };
            }
            Ok::<_, Error>(())
        })?;
        let xv = &*xv;
        self.add_transposed(v, xv, out, control)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += a * x);
}

/// The trust region's rules (Lin and Moré 1999, as LIBLINEAR sets them): a step is accepted
/// when the actual decrease is above ETA0 of the predicted one; the region shrinks or grows by
/// the SIGMAs according to how good the prediction was.
const ETA: [f64; 3] = [1e-4, 0.25, 0.75];
const SIGMA: [f64; 3] = [0.25, 0.5, 4.0];

/// Solves the primal from w = 0 until |gradient| <= `tol` |gradient at 0|, at most `max_iter`
/// Newton iterations. `w` is `x.cols() + 1` long (the bias feature's weight last); `c` holds each
/// example's C (0: left out), `y` the labels (+1/-1) or targets.
#[allow(clippy::too_many_arguments)]
pub fn solve_primal(
    x: &Matrix, y: &[f64], c: &[f64], loss: PrimalLoss, bias: f64, tol: f64, max_iter: usize, w: &mut [f64],
    control: &Control,
) -> Result<DcdOutcome> {
    crate::solver::dcd::check_problem(x, y.len(), c, bias)?;
    if !(tol.is_finite() && tol > 0.0) || max_iter == 0 {
        return Err(Error::InvalidParameter(format!(
            "tol must be positive and max_iter at least 1 (got {tol}, {max_iter})"
        )));
    }
    let (n, d) = (x.rows(), x.cols() + 1);
    assert_eq!(w.len(), d);
    w.fill(0.0);
    let mut problem = Primal::new(x, y, c, loss, bias);
    let (mut z, mut u, mut xv) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let (mut g, mut s, mut r, mut dir, mut hd, mut w_new) =
        (vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    problem.margins(w, &mut z, control)?;
    let mut f = problem.evaluate(w, &z, &mut u);
    problem.add_transposed(w, &u, &mut g, control)?;
    let g0 = dot(&g, &g).sqrt();
    let mut delta = g0;
    let mut iterations = 0;
    let mut gnorm = g0;
    while gnorm > tol * g0 {
        if iterations >= max_iter {
            return Ok(DcdOutcome { iterations, converged: false });
        }
        // conjugate gradients on H s = -g inside |s| <= delta
        s.fill(0.0);
        r.iter_mut().zip(&g).for_each(|(r, g)| *r = -g);
        dir.copy_from_slice(&r);
        let cg_tol = 0.1 * gnorm;
        let mut rtr = dot(&r, &r);
        loop {
            control.poll()?;
            if rtr.sqrt() <= cg_tol {
                break;
            }
            problem.hessian_times(&dir, &mut xv, &mut hd, control)?;
            let alpha = rtr / dot(&dir, &hd);
            axpy(alpha, &dir, &mut s);
            if dot(&s, &s).sqrt() > delta {
                // back to where the direction crosses the region's boundary
                axpy(-alpha, &dir, &mut s);
                let (std, sts, dtd) = (dot(&s, &dir), dot(&s, &s), dot(&dir, &dir));
                let room = delta * delta - sts;
                let rad = (std * std + dtd * room).sqrt();
                let alpha = if std >= 0.0 { room / (std + rad) } else { (rad - std) / dtd };
                axpy(alpha, &dir, &mut s);
                axpy(-alpha, &hd, &mut r);
                break;
            }
            axpy(-alpha, &hd, &mut r);
            let rtr_new = dot(&r, &r);
            let beta = rtr_new / rtr;
            dir.iter_mut().zip(&r).for_each(|(d, r)| *d = beta * *d + r);
            rtr = rtr_new;
        }
        w_new.copy_from_slice(w);
        axpy(1.0, &s, &mut w_new);
        let gs = dot(&g, &s);
        let predicted = -0.5 * (gs - dot(&s, &r));
        problem.margins(&w_new, &mut z, control)?;
        let f_new = problem.evaluate(&w_new, &z, &mut u);
        let actual = f - f_new;
        let snorm = dot(&s, &s).sqrt();
        if iterations == 0 {
            delta = delta.min(snorm);
        }
        // the minimiser of the quadratic interpolating f along s, as a fraction of the step
        let alpha = if f_new - f - gs <= 0.0 { SIGMA[2] } else { SIGMA[0].max(-0.5 * (gs / (f_new - f - gs))) };
        delta = if actual < ETA[0] * predicted {
            (alpha.max(SIGMA[0]) * snorm).min(SIGMA[1] * delta)
        } else if actual < ETA[1] * predicted {
            (SIGMA[0] * delta).max((alpha * snorm).min(SIGMA[1] * delta))
        } else if actual < ETA[2] * predicted {
            (SIGMA[0] * delta).max((alpha * snorm).min(SIGMA[2] * delta))
        } else {
            delta.max((alpha * snorm).min(SIGMA[2] * delta))
        };
        if actual > ETA[0] * predicted {
            iterations += 1;
            control.add_iterations(1);
            w.copy_from_slice(&w_new);
            f = f_new;
            problem.add_transposed(w, &u, &mut g, control)?;
            gnorm = dot(&g, &g).sqrt();
        } else {
            // rejected: the curvature of the kept iterate is needed again
            problem.margins(w, &mut z, control)?;
            f = problem.evaluate(w, &z, &mut u);
        }
        if actual.abs() <= 1e-12 * f.abs() && predicted.abs() <= 1e-12 * f.abs() {
            // no progress left to make in floating point
            return Ok(DcdOutcome { iterations, converged: gnorm <= tol * g0 });
        }
    }
    Ok(DcdOutcome { iterations, converged: true })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{CsrMatrix, DenseView};
    use crate::runtime::rng::Rng;
    use crate::solver::dcd::svc::svc_primal;
    use crate::solver::dcd::svr::svr_primal;
    use crate::solver::dcd::{solve_svc, solve_svr, DcdParams, SvcLoss, SvrLoss};

    #[test]
    fn the_primal_optimum_is_the_dual_one_whatever_the_threads() {
        let (n, d) = (5000, 6);
        let mut rng = Rng::new(1);
        let xs: Vec<f64> = (0..n * d).map(|_| rng.below(2001) as f64 / 1000.0 - 1.0).collect();
        let dense = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
        let csr = CsrMatrix::gather(&dense, &(0..n).collect::<Vec<_>>());
        let labels: Vec<f64> = xs
            .chunks(d)
            .map(|r| if r[0] - r[1] + 0.3 * r[2] + 0.1 + 0.3 * (r[3] * 7.0).sin() > 0.0 { 1.0 } else { -1.0 })
            .collect();
        let targets: Vec<f64> = xs.chunks(d).map(|r| 2.0 * r[0] - r[1] + 0.5 + 0.3 * (r[4] * 5.0).sin()).collect();
        let c: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
        let norms = dense.squared_norms();
        for (loss, y) in
            [(PrimalLoss::SquaredHinge, &labels), (PrimalLoss::SquaredEpsilonInsensitive { epsilon: 0.1 }, &targets)]
        {
            let (mut wd, mut a) = (vec![0.0; d + 1], vec![0.0; n]);
            let params = DcdParams { tol: 1e-8, max_iter: 100_000, seed: 0 };
            let (reference, dual_objective) = match loss {
                PrimalLoss::SquaredHinge => {
                    solve_svc(
                        &dense,
                        y,
                        &c,
                        SvcLoss::SquaredHinge,
                        1.0,
                        &norms,
                        &params,
                        &mut wd,
                        &mut a,
                        &Control::new(),
                    )
                    .unwrap();
                    (wd.clone(), svc_primal(&dense, y, &c, SvcLoss::SquaredHinge, 1.0, &wd))
                }
                PrimalLoss::SquaredEpsilonInsensitive { epsilon } => {
                    let l = SvrLoss::SquaredEpsilonInsensitive;
                    let p = DcdParams { tol: 1e-10, ..params };
                    solve_svr(&dense, y, &c, l, epsilon, 1.0, &norms, &p, &mut wd, &mut a, &Control::new()).unwrap();
                    (wd.clone(), svr_primal(&dense, y, &c, l, epsilon, 1.0, &wd))
                }
            };
            let mut fits = Vec::new();
            for (threads, x) in [(1, dense), (2, dense), (2, csr.view())] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let mut w = vec![0.0; d + 1];
                let out =
                    pool.install(|| solve_primal(&x, y, &c, loss, 1.0, 1e-8, 1000, &mut w, &Control::new())).unwrap();
                assert!(out.converged && out.iterations < 100, "{loss:?}: {out:?}");
                let objective = match loss {
                    PrimalLoss::SquaredHinge => svc_primal(&x, y, &c, SvcLoss::SquaredHinge, 1.0, &w),
                    PrimalLoss::SquaredEpsilonInsensitive { epsilon } => {
                        svr_primal(&x, y, &c, SvrLoss::SquaredEpsilonInsensitive, epsilon, 1.0, &w)
                    }
                };
                assert!(
                    (objective - dual_objective).abs() <= 1e-7 * dual_objective,
                    "{loss:?}: {objective} {dual_objective}"
                );
                assert!(w.iter().zip(&reference).all(|(a, b)| (a - b).abs() < 1e-4), "{loss:?}: {w:?} {reference:?}");
                fits.push(w);
            }
            // the same blocks summed in the same order on one thread or two
            assert_eq!(fits[0], fits[1], "{loss:?}");
        }
    }
}
