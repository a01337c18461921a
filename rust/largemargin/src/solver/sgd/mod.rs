//! Linear SVMs by stochastic gradient (Bordes, Bottou, Gallinari 2009; Bordes 2010, PhD thesis, chapter 3; Collobert-Bengio sections
//! A.4-A.5), over any `Loss`:
//!
//! - `Sgd`: plain first-order SGD, w <- w - eta (lambda w + dloss x), O(d) per example;
//! - `SvmSgd2`: the pattern step touches only the nonzeros of x, and the regulariser is applied
//!   as one multiplicative step every `skip` examples (skip = 16 / density);
//! - `SgdQn2009`: SVMSGD2 with a diagonal rescaling B of the steps, re-estimated every `skip`
//!   examples from a secant on the same example (the thesis' version: B starts at 1/lambda, is
//!   kept above 1e-2/lambda and is a leaky average with weight 2/r, r starting at t0/skip; the
//!   steps are B/(t + t0));
//! - `SgdQn`: SGD-QN as its authors corrected it (JMLR 2010 erratum): the steps are a diagonal
//!   D whose inverse accumulates the secant curvature, 1/D_j <- 1/D_j + (t - t_last) r_j from
//!   D_j = 1/(lambda t0), r_j = lambda + (d - d') x_j / (w_j - w'_j) measured on the example after
//!   each regularisation step at the current and the pre-regularisation weights w' (d, d' that
//!   example's loss derivatives there), clipped to [0.1 lambda, 100 lambda];
//! - `Asgd`: averaged SGD (module `asgd`): plain SGD steps eta0 / (1 + lambda eta0 t)^0.75,
//!   eta0 = 1/(lambda t0), the model the average of the iterates from `average_start` on;
//! - `MarginPerceptron`: Collobert and Bengio's perceptron on the unregularised hinge, w += rate y x
//!   whenever y f(x) <= 1, its margin controlled by the rate and early stopping.
//!
//! The step size is 1/(lambda (t + t0)), t counting examples since the start (across epochs and
//! calls), or a constant `rate` (SGD with weight decay lambda, as in Collobert and Bengio). Weights
//! are dense float32, as the thesis measured them (a sparse w costs 10x on RCV1); examples are
//! dense or sparse rows of any `Matrix`.

pub mod asgd;
mod example;
pub mod loss;
mod staging;
mod store;
pub mod t0;

use crate::data::{CsrView, Matrix};
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::runtime::control::Control;
use crate::runtime::team::{Team, SOLO};
use crate::runtime::vecops::{avx2_fma, prefetch_lines};
use crate::solver::sgd::asgd::Averaged;
use crate::solver::sgd::loss::Loss;
use crate::solver::sgd::staging::{staged_pass, Gathered, Value};

pub(crate) use crate::solver::sgd::example::Example;
pub use crate::solver::sgd::store::Store;
pub use crate::solver::sgd::t0::{choose_t0, loss_curvature, primal, stable_t0, t0_candidates};

/// Which stochastic gradient method updates the weights (see the module's list).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Algorithm {
    /// Plain first-order SGD, every weight decayed at every example: O(d) per example.
    Sgd,
    /// SVMSGD2: steps on the nonzeros of x, the regulariser applied every `skip` examples.
    SvmSgd2,
    /// SGD-QN as corrected in its authors' JMLR 2010 erratum: per-feature steps from the
    /// accumulated secant curvature.
    SgdQn,
    /// SGD-QN as the thesis gives it: SVMSGD2 with a diagonal rescaling B re-estimated every
    /// `skip` examples.
    SgdQn2009,
    /// Averaged SGD: the model is the average of the iterates from `average_start` on.
    Asgd,
    /// Collobert and Bengio's margin perceptron on the unregularised hinge, at a constant rate.
    MarginPerceptron,
}

crate::error::option_names!(Algorithm, "SGD algorithm", {
    Sgd => "sgd",
    SvmSgd2 => "svmsgd2",
    SgdQn => "sgdqn",
    SgdQn2009 => "sgdqn2009",
    Asgd => "asgd",
    MarginPerceptron => "margin_perceptron",
});

/// The method and its step sizes.
#[derive(Clone, Debug)]
pub struct SgdParams {
    /// The method.
    pub algorithm: Algorithm,
    /// The regularisation lambda (weight decay; C = 1/(n lambda) for the hinge loss).
    pub lambda: f64,
    /// t0 of the step size 1/(lambda (t + t0)).
    pub t0: f64,
    /// A constant step size instead (SGD with weight decay, the margin perceptron's rate).
    pub rate: Option<f64>,
    /// Examples between two regularisation steps (SVMSGD2, SGD-QN).
    pub skip: u64,
    /// Whether the bias b is learnt; otherwise it keeps its value (0 for a new model).
    pub fit_bias: bool,
    /// The bias is not regularised: its step is this fraction of the weights' (the margin
    /// perceptron's is the same step: 1).
    pub bias_rate: f64,
    /// ASGD: the examples seen before the iterates start being averaged.
    pub average_start: f64,
}

impl Default for SgdParams {
    fn default() -> Self {
        SgdParams {
            algorithm: Algorithm::SvmSgd2,
            lambda: 1e-4,
            t0: 1e4,
            rate: None,
            skip: 16,
            fit_bias: false,
            bias_rate: 0.01,
            average_start: 0.0,
        }
    }
}

impl SgdParams {
    /// Rejects values outside their domain: lambda not positive (0 is allowed for the margin
    /// perceptron), t0 or a rate not positive, a constant rate for SGD-QN or none for the margin
    /// perceptron, a zero skip, a negative bias rate or averaging start.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str| Err(Error::InvalidParameter(what.into()));
        let needs_lambda = self.algorithm != Algorithm::MarginPerceptron;
        if !(self.lambda.is_finite() && (self.lambda > 0.0 || !needs_lambda && self.lambda >= 0.0)) {
            return bad("lambda (alpha) must be positive");
        }
        if !(self.t0.is_finite() && self.t0 > 0.0) {
            return bad("t0 must be positive");
        }
        if self.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return bad("the learning rate must be positive");
        }
        if self.algorithm == Algorithm::MarginPerceptron && self.rate.is_none() {
            return bad("the margin perceptron needs a learning rate");
        }
        if matches!(self.algorithm, Algorithm::SgdQn | Algorithm::SgdQn2009) && self.rate.is_some() {
            return bad("SGD-QN sets its own step sizes: no constant learning rate");
        }
        if self.skip == 0 {
            return bad("skip must be positive");
        }
        if !(self.bias_rate.is_finite() && self.bias_rate >= 0.0) {
            return bad("the bias rate must be nonnegative");
        }
        if !(self.average_start.is_finite() && self.average_start >= 0.0) {
            return bad("the averaging start must be a nonnegative number of examples");
        }
        Ok(())
    }
}

/// The skip of SVMSGD2 and SGD-QN for data of this density (fraction of nonzero features):
/// the regularisation step, O(d), then costs about as much as the skip pattern steps between two.
pub fn skip_for(x: &Matrix) -> u64 {
    let nnz = match x {
        Matrix::Csr32(m) => Some(m.indices().len()),
        Matrix::Csr64(m) => Some(m.indices().len()),
        _ => None,
    };
    skip_for_density(x.rows(), x.cols(), nnz)
}

/// `skip_for` from the shape and the stored entries (None: dense).
pub fn skip_for_density(rows: usize, cols: usize, nnz: Option<usize>) -> u64 {
    let cells = (rows as f64) * (cols.max(1) as f64);
    let density = nnz.map_or(1.0, |z| z as f64 / cells.max(1.0));
    (16.0 / density.max(1e-12)).round().clamp(1.0, 1e9) as u64
}

/// A linear model and the state of its optimiser: training can stop and continue (partial_fit)
/// exactly where it was, unless `release` dropped that state.
///
/// The model's weights are `w` (float32) for every algorithm but ASGD, whose weights are the
/// average of its iterates (float64, in `averaged`); `release` moves either to `average`, so that
/// a finished model is `average` and the bias.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearModel<'w> {
    /// The weights of f(x) = <w, x> + b, one per feature, dense f32 (empty once released, or for
    /// ASGD, which keeps its weights in `averaged`).
    pub w: Vec<f32>,
    /// The bias b (ASGD: the averaged bias).
    pub bias: f64,
    /// Examples seen, the t of the step size.
    pub t: f64,
    /// Examples until the next regularisation step.
    pub count: u64,
    /// SGD-QN's diagonal rescaling B (empty for the other algorithms until SGD-QN runs).
    pub scale: Vec<f32>,
    /// SGD-QN 2009: the leaky-average counter; SGD-QN: the t of the last re-estimation.
    pub r: f64,
    /// SGD-QN: the next pattern step re-estimates B.
    pub update_scale: bool,
    /// SGD-QN: w before the last regularisation step (the secant's other end).
    pub previous: Vec<f32>,
    /// ASGD's iterate and implicit average.
    pub averaged: Averaged,
    /// A released model's weights in float64 (empty, or a row of the caller's output, before).
    pub average: Store<'w>,
}

impl LinearModel<'static> {
    /// A zero model over `d` features.
    pub fn new(d: usize) -> Self {
        LinearModel::zero(d, Store::default())
    }
}

impl<'w> LinearModel<'w> {
    /// A zero model over `d` features whose weights, once released, go to `average` (empty, or
    /// `d` zeros: a row of the caller's output).
    pub fn zero(d: usize, average: Store<'w>) -> Self {
        LinearModel {
            // (never written by ASGD: its zero pages are never made resident)
            w: vec![0.0; d],
            bias: 0.0,
            t: 0.0,
            count: 0,
            scale: Vec::new(),
            r: 0.0,
            update_scale: false,
            previous: Vec::new(),
            averaged: Averaged::default(),
            average,
        }
    }

    /// The number of features.
    pub fn dim(&self) -> usize {
        if !self.w.is_empty() {
            self.w.len()
        } else if !self.averaged.ua.is_empty() {
            self.averaged.ua.len()
        } else {
            self.average.len()
        }
    }

    /// f(x_i); x may not be wider than the model.
    pub fn decision(&self, x: &Matrix, i: usize) -> f64 {
        assert!(x.cols() <= self.dim(), "{} features for a model of {}", x.cols(), self.dim());
        let q = Query::row(x, i);
        if !self.averaged.ua.is_empty() {
            self.averaged.model_dot(q) + self.bias
        } else if self.w.is_empty() {
            let mut s = 0.0;
            q.for_each_nonzero(|j, v| s += self.average[j] * v);
            s + self.bias
        } else {
            q.dot(&self.w) + self.bias
        }
    }

    /// The model's weights in float64.
    pub fn weights(&self) -> Vec<f64> {
        if !self.averaged.ua.is_empty() {
            let mut out = Vec::with_capacity(self.dim());
            self.averaged.for_each_weight(|v| out.push(v));
            out
        } else if self.w.is_empty() {
            self.average.to_vec()
        } else {
            self.w.iter().map(|&v| v as f64).collect()
        }
    }

    /// |w|^2 of the model's weights.
    pub fn norm2(&self) -> f64 {
        if !self.averaged.ua.is_empty() {
            let mut sum = 0.0;
            self.averaged.for_each_weight(|v| sum += v * v);
            sum
        } else if self.w.is_empty() {
            self.average.iter().map(|v| v * v).sum()
        } else {
            self.w.iter().map(|&v| v as f64 * v as f64).sum()
        }
    }

    /// Whether the model's weights and bias are all finite.
    pub fn is_finite(&self) -> bool {
        let finite = if !self.averaged.ua.is_empty() {
            let mut all = true;
            self.averaged.for_each_weight(|v| all &= v.is_finite());
            all
        } else if self.w.is_empty() {
            self.average.iter().all(|v| v.is_finite())
        } else {
            self.w.iter().all(|v| v.is_finite())
        };
        finite && self.bias.is_finite()
    }

    /// ASGD: the average folded into its explicit form (O(d); the state continues as it was, to
    /// rounding), what the model is evaluated and returned as. Nothing for the other algorithms.
    pub fn settle(&mut self) {
        if !self.averaged.ua.is_empty() {
            self.averaged.settle();
        }
    }

    /// The model's weights into `average` as float64 and the optimiser's per-feature state
    /// dropped (all of it with `keep_state` false; with it, what a continued fit cannot rebuild
    /// from the weights: ASGD's iterate and average, SGD-QN's rescaling and its secant's other
    /// end). The model predicts the same; a continued fit starts again from it.
    pub fn release(&mut self, keep_state: bool) {
        let d = self.dim();
        if self.average.len() != d {
            self.average = Store::Owned(vec![0.0; d]);
        }
        if !self.averaged.ua.is_empty() {
            if keep_state {
                self.settle();
                let average = &mut self.average;
                let mut k = 0;
                self.averaged.for_each_weight(|v| {
                    average[k] = v;
                    k += 1;
                });
            } else {
                self.averaged.settle_into(&mut self.average);
            }
        } else if !self.w.is_empty() {
            self.average.iter_mut().zip(&self.w).for_each(|(a, &w)| *a = w as f64);
        }
        self.w = Vec::new();
        if !keep_state {
            self.averaged = Averaged::default();
            self.scale = Vec::new();
            self.previous = Vec::new();
        }
    }

    /// One pass over the examples `order` of x with labels y (+1/-1) and weights c.
    pub fn epoch(
        &mut self, x: &Matrix, y: &[f64], c: &[f64], order: &[usize], loss: &dyn Loss, p: &SgdParams, control: &Control,
    ) -> Result<()> {
        self.epoch_on(&SOLO, x, y, c, order, loss, p, control)
    }

    /// `epoch` with a team: with two members or more, a shuffled pass over sparse rows has the
    /// rows staged ahead by a helper (`staging`). The same model on any team.
    pub fn epoch_on(
        &mut self, team: &Team, x: &Matrix, y: &[f64], c: &[f64], order: &[usize], loss: &dyn Loss, p: &SgdParams,
        control: &Control,
    ) -> Result<()> {
        p.validate()?;
        if x.cols() > self.dim() {
            return Err(Error::InvalidData(format!("{} features for a model of {}", x.cols(), self.dim())));
        }
        if y.len() != x.rows() || c.len() != x.rows() {
            return Err(Error::InvalidData("one label and one weight per example".into()));
        }
        if let Some(&i) = order.iter().find(|&&i| i >= x.rows()) {
            return Err(Error::InvalidData(format!("example {i} of {}", x.rows())));
        }
        let d = self.dim();
        if p.algorithm != Algorithm::Asgd && (self.w.is_empty() || !self.averaged.ua.is_empty()) {
            // a released model trained on: its weights back in float32 (exact when they came from there)
            self.w = self.weights().iter().map(|&v| v as f32).collect();
            self.averaged = Averaged::default();
        }
        match p.algorithm {
            Algorithm::SgdQn2009 if self.scale.len() != d => {
                // B starts as first-order SGD's lambda^-1
                self.scale = vec![(1.0 / p.lambda) as f32; d];
                self.r = p.t0 / p.skip as f64;
            }
            Algorithm::SgdQn if self.scale.len() != d || self.previous.len() != d => {
                // the steps start as first-order SGD's 1/(lambda (t + t0))
                self.scale = vec![(1.0 / (p.lambda * (self.t + p.t0))) as f32; d];
                self.previous = self.w.clone();
                self.r = self.t;
            }
            Algorithm::Asgd if self.averaged.ua.len() != d => {
                // the iterate starts at the model's weights, the averaging anew
                self.averaged = if self.w.is_empty() {
                    Averaged::new(self.average.iter().copied(), self.bias)
                } else {
                    Averaged::new(self.w.iter().map(|&v| v as f64), self.bias)
                };
                // (the float32 weights play no part)
                self.w = Vec::new();
            }
            _ => {}
        }
        if self.count == 0 {
            self.count = p.skip;
        }
        // (rows in storage order stream by themselves; a shuffled order is staged or prefetched)
        let shuffled = order.windows(2).any(|k| k[1] != k[0] + 1);
        let staged = team.size() >= 2 && shuffled;
        match x {
            Matrix::Csr32(m) if staged => self.staged_epoch(team, m, y, c, order, loss, p, control),
            Matrix::Csr64(m) if staged => self.staged_epoch(team, m, y, c, order, loss, p, control),
            _ => self.blocks(x, y, c, order, shuffled, loss, p, control),
        }
    }

    /// The steps over `order` a block at a time, polling `control` between blocks.
    fn blocks(
        &mut self, x: &Matrix, y: &[f64], c: &[f64], order: &[usize], shuffled: bool, loss: &dyn Loss, p: &SgdParams,
        control: &Control,
    ) -> Result<()> {
        let mut outcome = Ok(());
        let mut examples = Vec::with_capacity(BLOCK);
        for block in order.chunks(BLOCK) {
            // every row's bounds, label and weight first: in a shuffled order each is a miss, and
            // taken in a loop of their own they are fetched together, not one per step
            examples.clear();
            examples.extend(block.iter().map(|&i| (Query::row(x, i), y[i], c[i])));
            self.steps_fast(&examples, shuffled, loss, p);
            control.add_iterations(block.len() as u64);
            outcome = control.poll();
            if outcome.is_err() {
                break;
            }
        }
        outcome
    }

    /// The steps over a shuffled `order` of sparse rows staged ahead by the team's helper,
    /// polling `control` about every `BLOCK` examples.
    fn staged_epoch<T: Value>(
        &mut self, team: &Team, x: &CsrView<T>, y: &[f64], c: &[f64], order: &[usize], loss: &dyn Loss, p: &SgdParams,
        control: &Control,
    ) -> Result<()> {
        let (mut outcome, mut unpolled) = (Ok(()), 0);
        staged_pass(team, x, y, c, order, &mut |examples| self.steps_fast(examples, true, loss, p), &mut |len| {
            unpolled += len;
            if unpolled >= BLOCK {
                control.add_iterations(std::mem::take(&mut unpolled) as u64);
                outcome = control.poll();
            }
            outcome.is_ok()
        });
        control.add_iterations(unpolled as u64);
        outcome
    }

    /// `steps` on `examples`, built for AVX2+FMA when the processor has them, with a built-in
    /// loss called directly.
    fn steps_fast(&mut self, examples: &[Gathered<'_>], shuffled: bool, loss: &dyn Loss, p: &SgdParams) {
        steps_fast(self, examples, shuffled, loss, p)
    }

    /// One step per example, the model's counters kept in locals meanwhile.
    #[inline(always)]
    fn steps<L: Loss + ?Sized, const PREFETCH: bool>(&mut self, examples: &[Gathered<'_>], loss: &L, p: &SgdParams) {
        if p.algorithm == Algorithm::Asgd {
            return self.averaged_steps::<L, PREFETCH>(examples, loss, p);
        }
        let (mut t, mut count, mut bias, mut r, mut update_scale) =
            (self.t, self.count, self.bias, self.r, self.update_scale);
        let (w, scale, previous) = (&mut self.w[..], &mut self.scale[..], &mut self.previous[..]);
        for (k, &(x, y, c)) in examples.iter().enumerate() {
            if PREFETCH {
                // a step takes less time than a row's trip from memory: ask for it a few
                // examples ahead (the hardware cannot guess a shuffled order)
                prefetch_ahead(examples, k);
            }
            let f = x.dot(w) + bias;
            let eta = p.rate.unwrap_or_else(|| 1.0 / (p.lambda * (t + p.t0)));
            let d = match p.algorithm {
                // the perceptron's update fires on the margin itself (y f <= 1), with slope -1
                Algorithm::MarginPerceptron => {
                    if y * f <= 1.0 {
                        -c * y
                    } else {
                        0.0
                    }
                }
                _ => c * loss.dloss(f, y),
            };
            match p.algorithm {
                Algorithm::Sgd => {
                    scale_by(w, 1.0 - eta * p.lambda);
                    if d != 0.0 {
                        x.add_to(w, -eta * d);
                    }
                }
                Algorithm::SvmSgd2 => {
                    if d != 0.0 {
                        x.add_to(w, -eta * d);
                    }
                    count -= 1;
                    if count == 0 {
                        count = p.skip;
                        scale_by(w, decay(p.skip, eta * p.lambda));
                    }
                }
                Algorithm::SgdQn => {
                    if update_scale {
                        update_scale = false;
                        let d_before = c * loss.dloss(x.dot(previous) + bias, y);
                        if d_before != d {
                            secant(scale, previous, w, x, d - d_before, t + 1.0 - r, p.lambda);
                            r = t + 1.0;
                        }
                    }
                    count -= 1;
                    if count == 0 {
                        count = p.skip;
                        previous.copy_from_slice(w);
                        decay_scaled(w, scale, p.skip, p.lambda);
                        update_scale = true;
                    }
                    if d != 0.0 {
                        x.add_scaled_to(w, -d, scale);
                    }
                }
                Algorithm::SgdQn2009 => {
                    let a = -d / (t + p.t0);
                    if d != 0.0 {
                        x.add_scaled_to(w, a, scale);
                    }
                    if update_scale {
                        update_scale = false;
                        let d_new = c * loss.dloss(x.dot(w) + bias, y);
                        rescale(scale, r, x, a, d_new - d, p.lambda);
                        r += 1.0;
                    }
                    count -= 1;
                    if count == 0 {
                        count = p.skip;
                        decay_scaled(w, scale, p.skip, p.lambda / (t + p.t0));
                        update_scale = true;
                    }
                }
                Algorithm::MarginPerceptron => {
                    // with weight decay, Collobert and Bengio's (19): w <- (1 - rate mu) w + rate y x
                    if p.lambda > 0.0 {
                        scale_by(w, 1.0 - eta * p.lambda);
                    }
                    if d != 0.0 {
                        x.add_to(w, -eta * d);
                    }
                }
                Algorithm::Asgd => unreachable!("averaged_steps"),
            }
            if p.fit_bias && d != 0.0 {
                bias -= eta * p.bias_rate * d;
            }
            t += 1.0;
        }
        (self.t, self.count, self.bias, self.r, self.update_scale) = (t, count, bias, r, update_scale);
    }

    /// ASGD's steps: the iterate and the average in `averaged`, `bias` the averaged bias.
    #[inline(always)]
    fn averaged_steps<L: Loss + ?Sized, const PREFETCH: bool>(
        &mut self, examples: &[Gathered<'_>], loss: &L, p: &SgdParams,
    ) {
        let (mut t, mut bias) = (self.t, self.bias);
        let eta0 = 1.0 / (p.lambda * p.t0);
        let m = &mut self.averaged;
        for (k, &(x, y, c)) in examples.iter().enumerate() {
            if PREFETCH {
                prefetch_ahead(examples, k);
            }
            let d = c * loss.dloss(m.decision(x), y);
            // Xu (2011): eta0 (1 + lambda eta0 t)^-3/4
            // (b^3/4 as sqrt(b) sqrt(sqrt(b)): a step costs a fraction of a powf)
            let eta = p.rate.unwrap_or_else(|| {
                let b = 1.0 + p.lambda * eta0 * t;
                let root = b.sqrt();
                eta0 / (root * root.sqrt())
            });
            let bias_step = if p.fit_bias { eta * p.bias_rate } else { 0.0 };
            bias = m.step(x, d, eta, p.lambda, bias_step, t >= p.average_start, bias);
            t += 1.0;
        }
        (self.t, self.bias) = (t, bias);
    }
}

/// SGD-QN's re-estimation (the corrected form): the secant ratio r_j of the example's primal
/// term between the pre-regularisation weights and now, lambda + dloss_change x_j / (w_j - w'_j)
/// (lambda where x_j = 0, and where w_j did not move: no curvature seen beyond the
/// regulariser's), clipped to [0.1, 100] lambda, accumulates harmonically: 1/B_j += dt r_j.
fn secant(scale: &mut [f32], previous: &[f32], w: &[f32], x: Query, dloss_change: f64, dt: f64, lambda: f64) {
    let (lo, hi) = (0.1 * lambda, 100.0 * lambda);
    let mut touched = Vec::new();
    x.for_each_nonzero(|j, xj| {
        let dw = w[j] as f64 - previous[j] as f64;
        let ratio = if dw != 0.0 { (lambda + dloss_change * xj / dw).clamp(lo, hi) } else { lambda };
        touched.push((j, 1.0 / (1.0 / scale[j] as f64 + dt * ratio)));
    });
    let k = (dt * lambda) as f32;
    scale.iter_mut().for_each(|b| *b = 1.0 / (1.0 / *b + k));
    for (j, b) in touched {
        scale[j] = b as f32;
    }
}

/// SGD-QN's re-estimation of B from the secant of the example just used: the step moved w
/// by dw_i = a B_i x_i, and the gradient of this example's term of the primal moved by
/// p_i = lambda dw_i + (dloss' - dloss) x_i. B_i becomes a leaky average of dw_i / p_i
/// (lambda^-1 where x_i = 0, by continuity, or where nothing moved), kept above 1e-2/lambda;
/// r counts the re-estimations.
fn rescale(scale: &mut [f32], r: f64, x: Query, a: f64, dloss_change: f64, lambda: f64) {
    let inverse = 1.0 / lambda;
    // (the weight 2/r is capped at 1 so that the average stays between its terms)
    let k = (2.0 / r).min(1.0);
    let mut touched = Vec::new();
    x.for_each_nonzero(|i, xi| {
        let b = scale[i] as f64;
        let dw = a * b * xi;
        let p = lambda * dw + dloss_change * xi;
        let ratio = if p != 0.0 && dw != 0.0 { dw / p } else { inverse };
        touched.push((i, (b + k * (ratio - b)).max(1e-2 * inverse)));
    });
    for b in scale.iter_mut() {
        *b += (k * (inverse - *b as f64)) as f32;
    }
    for (i, b) in touched {
        scale[i] = b as f32;
    }
}

/// Examples per block of a pass (between two polls of the control).
const BLOCK: usize = 4096;

/// How many examples ahead `steps` asks for rows.
const PREFETCH_AHEAD: usize = 4;

/// Before step k: ask for the row of the example `PREFETCH_AHEAD` steps ahead (a hint only).
#[inline(always)]
fn prefetch_ahead(examples: &[Gathered<'_>], k: usize) {
    if let Some(&(row, _, _)) = examples.get(k + PREFETCH_AHEAD) {
        match row {
            Query::D32(v) => prefetch_lines(v),
            Query::D64(v) => prefetch_lines(v),
            Query::S32(j, v) => {
                prefetch_lines(j);
                prefetch_lines(v)
            }
            Query::S64(j, v) => {
                prefetch_lines(j);
                prefetch_lines(v)
            }
        }
    }
}

const LINEAR_DECAY_FLOOR: f64 = 0.8;

/// The factor 1 - k (skip steps of lambda eta folded into one), or (1 - step)^skip when that
/// factor would fall below 0.8 (early steps are large): a decay never flips or zeroes w.
#[inline]
fn decay(skip: u64, step: f64) -> f64 {
    let one = 1.0 - skip as f64 * step;
    if one >= LINEAR_DECAY_FLOOR {
        one
    } else {
        (1.0 - step.min(1.0)).powf(skip as f64)
    }
}

/// w_i *= decay(skip, base B_i): the linear factor on every coordinate (vectorised) when all
/// are in its range, which is all but the first few steps.
fn decay_scaled(w: &mut [f32], scale: &[f32], skip: u64, base: f64) {
    let largest = scale.iter().fold(0f32, |m, &b| m.max(b)) as f64;
    if 1.0 - skip as f64 * base * largest >= LINEAR_DECAY_FLOOR {
        let k = (skip as f64 * base) as f32;
        w.iter_mut().zip(scale).for_each(|(w, &b)| *w *= 1.0 - k * b);
    } else {
        w.iter_mut().zip(scale).for_each(|(w, &b)| *w *= decay(skip, base * b as f64) as f32);
    }
}

fn scale_by(w: &mut [f32], factor: f64) {
    let f = factor as f32;
    for v in w.iter_mut() {
        *v *= f;
    }
}

avx2_fma! {
    /// `LinearModel::steps` on `block` with the loss's margin form where it has one; rows in
    /// storage order stream by themselves, a shuffled order gets prefetching.
    fn steps_fast(m: &mut LinearModel, examples: &[Gathered<'_>], shuffled: bool, loss: &dyn Loss, p: &SgdParams) {
        match (loss.as_margin(), shuffled) {
            (Some(l), false) => m.steps::<_, false>(examples, &l, p),
            (Some(l), true) => m.steps::<_, true>(examples, &l, p),
            (None, false) => m.steps::<_, false>(examples, loss, p),
            (None, true) => m.steps::<_, true>(examples, loss, p),
        }
    }
}

#[cfg(test)]
mod tests;
