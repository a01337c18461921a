//! What a linear SGD fit measures around its passes: the primal objective and training error,
//! and the choice of t0 (the step's offset) by trying candidates on a sample, as Bottou's SGD
//! code does.

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::Query;
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::solver::sgd::loss::Loss;
use crate::solver::sgd::{LinearModel, SgdParams};

/// The primal objective lambda/2 |w|^2 + 1/n sum_i c_i loss(f(x_i), y_i) and the training error
/// (the fraction of examples with y f(x) <= 0). The data term is summed by blocks of examples,
/// then over the blocks in order: the blocks of a built-in loss run in parallel on the current
/// rayon pool, with the same sum on any number of threads (a Python loss takes them in turn).
pub fn primal(model: &LinearModel, x: &Matrix, y: &[f64], c: &[f64], loss: &dyn Loss, lambda: f64) -> (f64, f64) {
    let n = x.rows();
    let block = |b: usize| {
        let (mut total, mut wrong) = (0.0, 0usize);
        for_each_loss(
            b * PRIMAL_BLOCK..n.min((b + 1) * PRIMAL_BLOCK),
            |i| model.decision(x, i),
            y,
            loss,
            |i, f, l| {
                total += c[i] * l;
                wrong += (y[i] * f <= 0.0) as usize;
            },
        );
        (total, wrong)
    };
    let blocks = n.div_ceil(PRIMAL_BLOCK);
    let parts: Vec<(f64, usize)> = if loss.as_margin().is_some() {
        (0..blocks).into_par_iter().map(block).collect()
    } else {
        (0..blocks).map(block).collect()
    };
    let (total, wrong) = parts.iter().fold((0.0, 0usize), |(t, w), &(bt, bw)| (t + bt, w + bw));
    let norm = model.norm2();
    (0.5 * lambda * norm + total / n.max(1) as f64, wrong as f64 / n.max(1) as f64)
}

/// Examples per block of `primal`'s sum.
const PRIMAL_BLOCK: usize = 16 * LOSS_BLOCK;

/// Examples per `Loss::losses` call where the objective's data term is summed.
const LOSS_BLOCK: usize = 1024;

/// visit(i, f_i, loss(f_i, y_i)) for each example i of `rows`, f_i = decision(i), in order, the
/// loss asked a block of examples at a time.
fn for_each_loss(
    rows: impl Iterator<Item = usize>, decision: impl Fn(usize) -> f64, y: &[f64], loss: &dyn Loss,
    mut visit: impl FnMut(usize, f64, f64),
) {
    let (mut idx, mut f, mut labels) = (Vec::new(), Vec::new(), Vec::new());
    let mut out = vec![0.0; LOSS_BLOCK];
    let mut rows = rows.peekable();
    while rows.peek().is_some() {
        idx.clear();
        f.clear();
        labels.clear();
        for i in rows.by_ref().take(LOSS_BLOCK) {
            idx.push(i);
            f.push(decision(i));
            labels.push(y[i]);
        }
        let out = &mut out[..idx.len()];
        loss.losses(&f, &labels, out);
        for k in 0..idx.len() {
            visit(idx[k], f[k], out[k]);
        }
    }
}

/// The largest slope of a loss's derivative over a unit change of the decision value (the
/// margin's scale), over f in [-10, 10] and y = +-1: 1 for the hinge (its unit jump) and the
/// squared hinge, 2 for the modified Huber, 0.245 for the log loss (the secant over a unit change
/// around 0, below its slope 1/4 there). Measured by secants, so
/// that a loss of any kind (a plugin's, a Python object) gets one without declaring it.
pub fn loss_curvature(loss: &dyn Loss) -> f64 {
    let mut largest = 0.0f64;
    for y in [-1.0, 1.0] {
        for k in 0..=80 {
            let f = -10.0 + 0.25 * k as f64;
            let slope = (loss.dloss(f + 1.0, y) - loss.dloss(f, y)).abs();
            if slope.is_finite() {
                largest = largest.max(slope);
            }
        }
    }
    largest
}

/// The smallest t0 whose steps are stable by construction: a step of size eta on example i
/// moves that example's own decision value by eta c_i (|x_i|^2 + bias_rate) times the change of
/// the loss's derivative, so with eta c_i (|x_i|^2 + bias_rate) curvature <= 1 no step
/// overshoots (for the squared hinge each step is then a contraction, as constant-step SGD on
/// least squares at 1/R^2: Bach and Moulines 2013). Every schedule here starts at its largest
/// step 1/(lambda t0) and never exceeds it: t0 >= curvature max_i c_i (|x_i|^2 + bias_rate) / lambda.
/// `c` should hold each example's largest weight over the problems that share t0 (class weights
/// included). The same pass checks the data: a NaN or an infinity is refused, naming its row.
pub fn stable_t0(x: &Matrix, c: &[f64], loss: &dyn Loss, p: &SgdParams) -> Result<f64> {
    let bias = if p.fit_bias { p.bias_rate } else { 0.0 };
    // (a pass over the whole data: in parallel, a maximum being the same in any order; a row
    // holding a NaN or an infinity has a norm that is not finite, and so has one too large)
    let (largest, overflow) = (0..x.rows())
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| {
            let norm = squared_norm(Query::row(x, i));
            (c[i] * (norm + bias), !norm.is_finite())
        })
        .reduce(|| (0.0, false), |(a, p), (b, q)| (a.max(b), p || q));
    if overflow {
        x.check_finite()?;
    }
    let floor = loss_curvature(loss) * largest / p.lambda;
    Ok(if floor.is_finite() { floor } else { 0.0 })
}

/// |x|^2 with four running sums (one would wait on every addition).
fn squared_norm(x: Query) -> f64 {
    fn sum<T: crate::data::Real>(v: &[T]) -> f64 {
        let mut acc = [0.0f64; 4];
        let chunks = v.chunks_exact(4);
        let tail: f64 = chunks.remainder().iter().map(|x| x.to_f64() * x.to_f64()).sum();
        for c in chunks {
            for k in 0..4 {
                acc[k] += c[k].to_f64() * c[k].to_f64();
            }
        }
        (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
    }
    match x {
        Query::D32(v) | Query::S32(_, v) => sum(v),
        Query::D64(v) | Query::S64(_, v) => sum(v),
    }
}

/// The thesis' choice of t0: one pass over a random tenth of the data (at least 1,000 examples
/// when there are that many, at most `T0_SAMPLE_MAX`, as Bottou's SGD code tries its steps on a
/// bounded sample: on large data the search would otherwise cost about a pass per candidate) for
/// each candidate, keeping the t0 whose pass ends at the lowest
/// primal on that subset. Candidates below `stable_t0` (with the weights `bound_weight`) are
/// replaced by it: one pass over a small subset does not show a divergence that takes more
/// passes (iris: t0 = 1000 diverges in the second pass over 112 examples).
pub fn choose_t0(
    x: &Matrix, y: &[f64], c: &[f64], bound_weight: &[f64], loss: &dyn Loss, p: &SgdParams, candidates: &[f64],
    seed: u64, control: &Control,
) -> Result<f64> {
    if bound_weight.len() != x.rows() {
        return Err(Error::InvalidData("one bound weight per example".into()));
    }
    let floor = stable_t0(x, bound_weight, loss, p)?;
    let mut stable: Vec<f64> = candidates.iter().copied().filter(|&t0| t0 > floor).collect();
    if floor > 0.0 {
        stable.insert(0, floor);
    }
    let candidates = &stable[..];
    let n = x.rows();
    let mut rng = Rng::new(seed);
    let mut subset: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut subset);
    subset.truncate((n / 10).max(n.min(1000)).min(T0_SAMPLE_MAX));
    let value = |t0: f64| -> Result<f64> {
        let q = SgdParams { t0, ..p.clone() };
        let mut m = LinearModel::new(x.cols());
        m.epoch(x, y, c, &subset, loss, &q, control)?;
        let norm = m.norm2();
        let mut data = 0.0;
        for_each_loss(subset.iter().copied(), |i| m.decision(x, i), y, loss, |i, _, l| data += c[i] * l);
        Ok(0.5 * p.lambda * norm + data / subset.len().max(1) as f64)
    };
    // a pass that ends above the zero model's primal has diverged, or is about to
    let mut zero = 0.0;
    for_each_loss(subset.iter().copied(), |_| 0.0, y, loss, |i, _, l| zero += c[i] * l);
    zero /= subset.len().max(1) as f64;
    // the candidates' passes are independent: in parallel for a built-in loss (a Python loss
    // takes them in turn), the best taken in the candidates' order
    let values: Vec<Result<f64>> = if loss.as_margin().is_some() {
        candidates.par_iter().map(|&t0| value(t0)).collect()
    } else {
        candidates.iter().map(|&t0| value(t0)).collect()
    };
    let mut best = (f64::INFINITY, f64::NAN);
    for (&t0, v) in candidates.iter().zip(values) {
        let v = v?;
        if v.is_finite() && v < zero && v < best.0 {
            best = (v, t0);
        }
    }
    // every candidate diverged (large weights or features, an unbounded loss): more careful ones
    let mut t0 = candidates.iter().copied().fold(p.t0, f64::max);
    while !best.0.is_finite() && t0 < 1e16 {
        t0 *= 10.0;
        let v = value(t0)?;
        if v.is_finite() && v < zero {
            best = (v, t0);
        }
    }
    Ok(if best.0.is_finite() { best.1 } else { t0 })
}

/// The largest sample `choose_t0` tries its candidates on (a tenth of 50,000 examples).
pub const T0_SAMPLE_MAX: usize = 5000;

/// The candidates of `choose_t0`: powers of ten from 1 to 1e8.
pub fn t0_candidates() -> Vec<f64> {
    (0..=8).map(|k| 10f64.powi(k)).collect()
}
