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
//! Every pass over the data (the objective with its gradient w + X'u, the Hessian's product
//! v + X_A'(C X_A v)) reads each row once and is split into a fixed number of blocks of rows run
//! in parallel on the rayon pool; a block sums its part of X'u into its own vector and the blocks'
//! vectors are added in block order, so the result does not depend on the number of threads: one
//! binary problem runs on every core, the model the same for every `n_jobs`. (The gradient at a
//! trial point comes with its objective, in the same pass: trial points are nearly always
//! accepted.)

use rayon::prelude::*;

use crate::error::{Error, Result};

use crate::kernel::dense_dot as dot;
use crate::runtime::control::Control;
use crate::solver::dcd::{DcdOutcome, Rows};

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

/// The blocks of a pass: each sums its rows' part of X'u into its own weight vector, so they are
/// few (their vectors are zeroed and added every pass), but more than the cores, for balance,
/// and at least `MIN_BLOCK_ROWS` rows each. A fixed count, not one per thread: the sums are the
/// same on any number of threads.
const BLOCKS: usize = 16;
const MIN_BLOCK_ROWS: usize = 512;

/// A block of consecutive rows and what a pass leaves in it.
struct Block {
    start: usize,
    end: usize,
    /// Its rows' part of X'u (or of the Hessian's product).
    acc: Vec<f64>,
    /// Its rows' part of the loss.
    loss: f64,
    /// Its rows whose loss is curved at the current iterate, with their curvature 2 C_i: the
    /// Hessian's products read only these.
    curved: Vec<(usize, f64)>,
}

/// The problem's data and the state of the current iterate.
struct Primal<'a, R> {
    x: &'a R,
    y: &'a [f64],
    c: &'a [f64],
    loss: PrimalLoss,
    bias: f64,
    blocks: Vec<Block>,
}

impl<'a, R: Rows> Primal<'a, R> {
    fn new(x: &'a R, y: &'a [f64], c: &'a [f64], loss: PrimalLoss, bias: f64) -> Self {
        let n = x.rows();
        let count = BLOCKS.min(n / MIN_BLOCK_ROWS).max(1);
        let blocks = (0..count)
            .map(|b| {
                let (start, end) = (b * n / count, (b + 1) * n / count);
                Block { start, end, acc: Vec::new(), loss: 0.0, curved: Vec::new() }
            })
            .collect();
        Primal { x, y, c, loss, bias, blocks }
    }

    /// The loss's derivative in f at example i's decision value f, halved and without C: the
    /// residual r with loss = r^2 (0 where the loss is flat).
    #[inline(always)]
    fn residual(&self, i: usize, f: f64) -> f64 {
        match self.loss {
            PrimalLoss::SquaredHinge => {
                let m = 1.0 - self.y[i] * f;
                if m > 0.0 {
                    -self.y[i] * m
                } else {
                    0.0
                }
            }
            PrimalLoss::SquaredEpsilonInsensitive { epsilon } => {
                let r = f - self.y[i];
                if r > epsilon {
                    r - epsilon
                } else if r < -epsilon {
                    r + epsilon
                } else {
                    0.0
                }
            }
        }
    }

    /// One pass at w: the objective, the gradient `g = w + X'u` (u_i = 2 C_i r_i) and each row's
    /// curvature for the Hessian. Each row is read once: its decision value, then its part of X'u.
    fn evaluate(&mut self, w: &[f64], g: &mut [f64], control: &Control) -> Result<f64> {
        let mut blocks = std::mem::take(&mut self.blocks);
        let this = &*self;
        let (x, bias, d) = (this.x, this.bias, w.len());
        blocks.par_iter_mut().try_for_each(|block| {
            control.poll()?;
            block.acc.clear();
            block.acc.resize(d, 0.0);
            block.loss = 0.0;
            block.curved.clear();
            for i in block.start..block.end {
                let c = this.c[i];
                let r = if c > 0.0 { this.residual(i, x.dot(i, w, bias)) } else { 0.0 };
                if r != 0.0 {
                    block.curved.push((i, 2.0 * c));
                    block.loss += c * r * r;
                    x.add(i, 2.0 * c * r, &mut block.acc, bias);
                }
            }
            Ok::<_, Error>(())
        })?;
        self.blocks = blocks;
        let loss: f64 = self.blocks.iter().map(|b| b.loss).sum();
        self.sum_into(w, g);
        Ok(0.5 * dot(w, w) + loss)
    }

    /// `out = v + X_A' (C_A X_A v)`: the generalised Hessian times v, each row read once.
    fn hessian_times(&mut self, v: &[f64], out: &mut [f64], control: &Control) -> Result<()> {
        let (x, bias, d) = (self.x, self.bias, v.len());
        self.blocks.par_iter_mut().try_for_each(|block| {
            control.poll()?;
            block.acc.clear();
            block.acc.resize(d, 0.0);
            for &(i, curvature) in &block.curved {
                x.add(i, curvature * x.dot(i, v, bias), &mut block.acc, bias);
            }
            Ok::<_, Error>(())
        })?;
        self.sum_into(v, out);
        Ok(())
    }

    /// `out = v + the blocks' accumulators`, added in block order (feature slices in parallel).
    fn sum_into(&self, v: &[f64], out: &mut [f64]) {
        const SLICE: usize = 4096;
        out.copy_from_slice(v);
        let blocks = &self.blocks;
        out.par_chunks_mut(SLICE).enumerate().for_each(|(k, slice)| {
            for block in blocks {
                for (o, a) in slice.iter_mut().zip(&block.acc[k * SLICE..]) {
                    *o += a;
                }
            }
        });
    }
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
pub fn solve_primal<R: Rows>(
    x: &R, y: &[f64], c: &[f64], loss: PrimalLoss, bias: f64, tol: f64, max_iter: usize, w: &mut [f64],
    control: &Control,
) -> Result<DcdOutcome> {
    crate::solver::dcd::check_problem(x, y.len(), c, bias)?;
    if !(tol.is_finite() && tol > 0.0) || max_iter == 0 {
        return Err(Error::InvalidParameter(format!(
            "tol must be positive and max_iter at least 1 (got {tol}, {max_iter})"
        )));
    }
    let d = x.cols() + 1;
    assert_eq!(w.len(), d);
    w.fill(0.0);
    let mut problem = Primal::new(x, y, c, loss, bias);
    let (mut g, mut g_new, mut s, mut r, mut dir, mut hd, mut w_new) =
        (vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    let mut f = problem.evaluate(w, &mut g, control)?;
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
            problem.hessian_times(&dir, &mut hd, control)?;
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
        // (the gradient at w_new comes with its objective, in the same pass: kept if accepted)
        let f_new = problem.evaluate(&w_new, &mut g_new, control)?;
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
            std::mem::swap(&mut g, &mut g_new);
            gnorm = dot(&g, &g).sqrt();
        } else {
            // rejected: the curvature of the kept iterate is needed again
            f = problem.evaluate(w, &mut g, control)?;
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
    use crate::data::{CsrMatrix, DenseView, Matrix};
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
