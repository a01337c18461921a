//! Crammer and Singer's multiclass linear SVM by the sequential dual method (Keerthi,
//! Sundararajan, Chang, Hsieh and Lin, KDD 2008), LIBLINEAR's `-s 4`:
//!
//!   min_alpha 1/2 sum_m |w_m|^2 + sum_i sum_m e_im alpha_im,   w_m = sum_i alpha_im (x_i, bias),
//!   sum_m alpha_im = 0,  alpha_im <= C_i [m = y_i],
//!
//! e_im = 1 for m != y_i and 0 for m = y_i. Each step solves one example's sub-problem over all
//! its (active) classes exactly: the variables are min(bound, (beta - B_m) / A) for the one beta
//! that makes them sum to zero, found by sorting. Shrinking is per (example, class): a class at
//! its bound whose gradient is below every free one's leaves the example's set, an example with
//! one class left leaves the pass; the shrinking threshold halves towards `tol` each time the
//! passes meet it, and the rule is last checked on every variable.

use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::solver::dcd::{check_problem, ActiveSet, DcdOutcome, DcdParams, Rows};

/// `scores[m] += sum_j w[j k + m] x_ij` over the row and its bias feature (w feature-major,
/// `k = scores.len()` classes).
#[inline(always)]
fn add_scores<R: Rows>(w: &[f64], x: &R, i: usize, bias: f64, scores: &mut [f64]) {
    let k = scores.len();
    let d = w.len() / k - 1;
    x.for_each_nonzero(i, |j, v| {
        debug_assert!(j < d);
        for (s, w) in scores.iter_mut().zip(&w[j * k..(j + 1) * k]) {
            *s += w * v;
        }
    });
    for (s, w) in scores.iter_mut().zip(&w[d * k..]) {
        *s += w * bias;
    }
}

/// `w[j k + m] += delta_m x_ij` for the classes (m, delta_m) that moved.
#[inline(always)]
fn add_deltas<R: Rows>(w: &mut [f64], k: usize, x: &R, i: usize, bias: f64, moved: &[(usize, f64)]) {
    let d = w.len() / k - 1;
    x.for_each_nonzero(i, |j, v| {
        for &(m, delta) in moved {
            w[j * k + m] += delta * v;
        }
    });
    for &(m, delta) in moved {
        w[d * k + m] += delta * bias;
    }
}

/// The sub-problem of one example: min 1/2 A |alpha|^2 + b' alpha subject to sum alpha = -fixed
/// and alpha_p <= bound_p, where `fixed` is C when the true class is not among the variables
/// (it sits at its bound C). Writes the solution into `out`.
fn solve_sub_problem(a: f64, b: &[f64], bound: &[f64], c: f64, sorted: &mut Vec<f64>, out: &mut [f64]) {
    // alpha_p = (min(t_p, beta) - b_p) / A with t_p = b_p + A bound_p; summing to the constraint
    // gives sum_p max(t_p - beta, 0) = A C in both cases, solved over the t_p in decreasing order
    sorted.clear();
    sorted.extend(b.iter().zip(bound).map(|(b, u)| b + a * u));
    sorted.sort_unstable_by(|p, q| q.total_cmp(p));
    let mut above = sorted[0] - a * c; // r beta for the r largest t_p taken so far
    let mut r = 1;
    while r < sorted.len() && above < r as f64 * sorted[r] {
        above += sorted[r];
        r += 1;
    }
    let beta = above / r as f64;
    for ((o, b), u) in out.iter_mut().zip(b).zip(bound) {
        *o = ((beta - b) / a).min(*u);
    }
}

/// Solves the dual for class indices `y` (below `k`) with per-example C `c`, from alpha = 0.
/// `w` (`(x.cols() + 1) k` long, feature-major: entry j k + m is class m's weight of feature
/// j, the bias feature's last) ends as the primal solution; `alpha` (n k long, example-major) as
/// the dual one.
#[allow(clippy::too_many_arguments)]
pub fn solve_crammer_singer<R: Rows>(
    x: &R, y: &[usize], k: usize, c: &[f64], bias: f64, sq_norms: &[f64], params: &DcdParams, w: &mut [f64],
    alpha: &mut [f64], control: &Control,
) -> Result<DcdOutcome> {
    check_problem(x, y.len(), c, bias)?;
    params.validate()?;
    if k < 2 || y.iter().any(|&m| m >= k) {
        return Err(Error::InvalidData(format!("Crammer-Singer needs class indices below {k} (at least 2 classes)")));
    }
    let n = x.rows();
    assert!(w.len() == (x.cols() + 1) * k && alpha.len() == n * k && sq_norms.len() == n);
    w.fill(0.0);
    alpha.fill(0.0);
    // per example: its classes, the first `class_count[i]` of them active
    let mut classes: Vec<u32> = (0..n).flat_map(|_| 0..k as u32).collect();
    let mut class_count = vec![k; n];
    let mut active = ActiveSet::new((0..n).filter(|&i| c[i] > 0.0 && sq_norms[i] + bias * bias > 0.0).collect());
    let mut rng = Rng::new(params.seed);
    let (mut scores, mut g, mut b, mut bound) = (vec![0.0; k], vec![0.0; k], vec![0.0; k], vec![0.0; k]);
    let (mut next, mut sorted, mut moved) = (vec![0.0; k], Vec::with_capacity(k), Vec::with_capacity(k));
    let mut shrink_at = (10.0 * params.tol).max(1.0);
    let mut from_whole = true;
    let mut iterations = 0;
    while iterations < params.max_iter {
        active.shuffle(&mut rng);
        let mut spread_max = f64::NEG_INFINITY;
        let mut s = 0;
        while s < active.len() {
            control.poll()?;
            let i = active.at(s);
            let a = sq_norms[i] + bias * bias;
            let (yi, ci) = (y[i], c[i]);
            let order = &mut classes[i * k..(i + 1) * k];
            let al = &mut alpha[i * k..(i + 1) * k];
            let mut count = class_count[i];
            scores.fill(0.0);
            add_scores(w, x, i, bias, &mut scores);
            for p in 0..count {
                let m = order[p] as usize;
                g[p] = scores[m] + if m == yi { 0.0 } else { 1.0 };
            }
            // optimal when no gradient exceeds the smallest among the variables below their bound
            let (mut g_min, mut g_max) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in 0..count {
                let m = order[p] as usize;
                let below = if m == yi { al[m] < ci } else { al[m] < 0.0 };
                if below {
                    g_min = g_min.min(g[p]);
                }
                g_max = g_max.max(g[p]);
            }
            let mut p = 0;
            while p < count {
                let m = order[p] as usize;
                let at_bound = al[m] == if m == yi { ci } else { 0.0 };
                if at_bound && g[p] < g_min {
                    count -= 1;
                    order.swap(p, count);
                    g.swap(p, count);
                } else {
                    p += 1;
                }
            }
            class_count[i] = count;
            if count <= 1 {
                active.shrink(s);
                continue;
            }
            s += 1;
            if g_max - g_min <= 1e-12 {
                continue;
            }
            spread_max = spread_max.max(g_max - g_min);
            for p in 0..count {
                let m = order[p] as usize;
                b[p] = g[p] - a * al[m];
                bound[p] = if m == yi { ci } else { 0.0 };
            }
            solve_sub_problem(a, &b[..count], &bound[..count], ci, &mut sorted, &mut next[..count]);
            moved.clear();
            for p in 0..count {
                let m = order[p] as usize;
                let delta = next[p] - al[m];
                al[m] = next[p];
                if delta.abs() >= 1e-12 {
                    moved.push((m, delta));
                }
            }
            if !moved.is_empty() {
                add_deltas(w, k, x, i, bias, &moved);
            }
        }
        iterations += 1;
        control.add_iterations(1);
        if spread_max < shrink_at {
            if spread_max < params.tol && from_whole {
                return Ok(DcdOutcome { iterations, converged: true });
            }
            // every example and class back, the threshold halved towards tol
            active.restore();
            class_count.fill(k);
            shrink_at = (shrink_at / 2.0).max(params.tol);
            from_whole = true;
        } else {
            from_whole = false;
        }
    }
    Ok(DcdOutcome { iterations, converged: false })
}

/// The primal 1/2 sum_m |w_m|^2 + sum_i C_i max_m (e_im + <w_m - w_yi, (x_i, bias)>), w
/// feature-major as `solve_crammer_singer` leaves it.
pub fn crammer_singer_primal(x: &impl Rows, y: &[usize], k: usize, c: &[f64], bias: f64, w: &[f64]) -> f64 {
    let norm: f64 = w.iter().map(|v| v * v).sum();
    let mut scores = vec![0.0; k];
    let mut losses = 0.0;
    for i in 0..x.rows() {
        scores.fill(0.0);
        add_scores(w, x, i, bias, &mut scores);
        let worst = (0..k).map(|m| if m == y[i] { 0.0 } else { 1.0 + scores[m] - scores[y[i]] }).fold(0.0, f64::max);
        losses += c[i] * worst;
    }
    0.5 * norm + losses
}

/// The dual objective, negated to compare with the primal: -1/2 sum_m |w_m|^2 - sum e_im alpha_im.
pub fn crammer_singer_dual(y: &[usize], k: usize, alpha: &[f64], w: &[f64]) -> f64 {
    let norm: f64 = w.iter().map(|v| v * v).sum();
    let linear: f64 = (0..y.len()).map(|i| (0..k).filter(|&m| m != y[i]).map(|m| alpha[i * k + m]).sum::<f64>()).sum();
    -0.5 * norm - linear
}

/// Every class's score of one row, w feature-major (for the tests).
#[cfg(test)]
pub(super) fn tests_scores(w: &[f64], x: &crate::data::Matrix, i: usize, bias: f64, scores: &mut [f64]) {
    add_scores(w, x, i, bias, scores)
}
