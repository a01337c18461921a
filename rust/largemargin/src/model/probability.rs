//! Probability estimates for SVMs: Platt's sigmoid fitted on cross-validated decision values
//! (with the Newton method and target smoothing of Lin, Lin and Weng), pairwise coupling of
//! one-vs-one probabilities into class probabilities (Wu, Lin and Weng, method 2), and the
//! one-class SVM's density bins (Que and Lin, as LIBSVM 3.3 and later store them).

/// Fits P(y = +1 | f) = 1 / (1 + exp(A f + B)). `positive[i]` tells the class of `dec[i]`.
pub fn fit_sigmoid(dec: &[f64], positive: &[bool]) -> (f64, f64) {
    let n_pos = positive.iter().filter(|&&p| p).count() as f64;
    let n_neg = dec.len() as f64 - n_pos;
    let hi_t = (n_pos + 1.0) / (n_pos + 2.0);
    let lo_t = 1.0 / (n_neg + 2.0);
    let target: Vec<f64> = positive.iter().map(|&p| if p { hi_t } else { lo_t }).collect();
    let objective = |a: f64, b: f64| -> f64 {
        dec.iter()
            .zip(&target)
            .map(|(&f, &t)| {
                let z = f * a + b;
                if z >= 0.0 {
                    t * z + (-z).exp().ln_1p()
                } else {
                    (t - 1.0) * z + z.exp().ln_1p()
                }
            })
            .sum()
    };
    let (mut a, mut b) = (0.0, ((n_neg + 1.0) / (n_pos + 1.0)).ln());
    let mut fval = objective(a, b);
    const SIGMA: f64 = 1e-12;
    for _ in 0..100 {
        let (mut h11, mut h22, mut h21, mut g1, mut g2) = (SIGMA, SIGMA, 0.0, 0.0, 0.0);
        for (&f, &t) in dec.iter().zip(&target) {
            let z = f * a + b;
            let (p, q) = if z >= 0.0 {
                let e = (-z).exp();
                (e / (1.0 + e), 1.0 / (1.0 + e))
            } else {
                let e = z.exp();
                (1.0 / (1.0 + e), e / (1.0 + e))
            };
            let d2 = p * q;
            h11 += f * f * d2;
            h22 += d2;
            h21 += f * d2;
            let d1 = t - p;
            g1 += f * d1;
            g2 += d1;
        }
        if g1.abs() < 1e-5 && g2.abs() < 1e-5 {
            break;
        }
        let det = h11 * h22 - h21 * h21;
        let da = -(h22 * g1 - h21 * g2) / det;
        let db = -(-h21 * g1 + h11 * g2) / det;
        let gd = g1 * da + g2 * db;
        let mut step = 1.0;
        while step >= 1e-10 {
            let (na, nb) = (a + step * da, b + step * db);
            let nf = objective(na, nb);
            if nf < fval + 1e-4 * step * gd {
                a = na;
                b = nb;
                fval = nf;
                break;
            }
            step /= 2.0;
        }
        if step < 1e-10 {
            break;
        }
    }
    (a, b)
}

/// P(y = +1 | f) under the fitted sigmoid, computed without overflow.
pub fn sigmoid_predict(f: f64, a: f64, b: f64) -> f64 {
    let z = f * a + b;
    if z >= 0.0 {
        let e = (-z).exp();
        e / (1.0 + e)
    } else {
        1.0 / (1.0 + z.exp())
    }
}

/// Class probabilities from pairwise ones: `r[i * k + j]` = P(class i | class i or j).
pub fn couple(r: &[f64], k: usize) -> Vec<f64> {
    let mut q = vec![0.0; k * k];
    for t in 0..k {
        for j in 0..k {
            if j != t {
                q[t * k + t] += r[j * k + t] * r[j * k + t];
                q[t * k + j] = -r[j * k + t] * r[t * k + j];
            }
        }
    }
    let mut p = vec![1.0 / k as f64; k];
    let mut qp = vec![0.0; k];
    let max_iter = 100.max(k);
    for _ in 0..max_iter {
        let mut pqp = 0.0;
        for t in 0..k {
            qp[t] = (0..k).map(|j| q[t * k + j] * p[j]).sum();
            pqp += p[t] * qp[t];
        }
        let max_err = qp.iter().map(|v| (v - pqp).abs()).fold(0.0, f64::max);
        if max_err < 0.005 / k as f64 {
            break;
        }
        for t in 0..k {
            let diff = (-qp[t] + pqp) / q[t * k + t];
            p[t] += diff;
            let s = 1.0 + diff;
            pqp = (pqp + diff * (diff * q[t * k + t] + 2.0 * qp[t])) / (s * s);
            for j in 0..k {
                qp[j] = (qp[j] + diff * q[t * k + j]) / s;
                p[j] /= s;
            }
        }
    }
    p
}

/// How many density marks a one-class model's probability estimate has (LIBSVM's fixed ten).
pub const DENSITY_MARKS: usize = 10;

/// The density marks of a one-class SVM with probability estimates, from its decision values on
/// its own training rows (sum alpha K - rho, finite, in any order): what LIBSVM writes as
/// `prob_density_marks` and `LibsvmModel::prob_a` holds for one-class.
///
/// The sorted values are split at zero; each side is cut into five bins holding as many rows
/// each (the outlier side by the values below zero, the normal side by those at or above it),
/// and each mark is the midpoint of two neighbouring bin edges, zero being the middle edge.
/// None when either side has fewer than five values: LIBSVM then keeps no probability model
/// (and warns), and so should the caller.
pub fn one_class_density_marks(decision_values: &[f64]) -> Option<Vec<f64>> {
    let mut sorted = decision_values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let half = DENSITY_MARKS / 2;
    let below = sorted.partition_point(|&v| v < 0.0);
    let above = sorted.len() - below;
    if below < half || above < half {
        return None;
    }
    // the 11 bin edges: the lower end of each outlier bin, zero, the upper end of each normal bin
    let mut edges = Vec::with_capacity(DENSITY_MARKS + 1);
    edges.extend((0..half).map(|i| sorted[i * below / half]));
    edges.push(0.0);
    edges.extend((1..=half).map(|i| sorted[below - 1 + i * above / half]));
    Some(edges.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect())
}

/// The probability that a row with decision value `dec` is normal (not an outlier), from a
/// one-class model's `DENSITY_MARKS` marks, as LIBSVM's one-class probability reads them: 0.001
/// below the first mark, 0.999 above the last, else i / 10 for the first mark i (from the
/// second) above `dec`.
pub fn one_class_probability(marks: &[f64], dec: f64) -> f64 {
    debug_assert_eq!(marks.len(), DENSITY_MARKS);
    if dec < marks[0] {
        return 0.001;
    }
    if dec > marks[DENSITY_MARKS - 1] {
        return 0.999;
    }
    // a value equal to the last mark reaches no bin and reads 0, as in LIBSVM: kept so that
    // our probabilities are LIBSVM's on every row
    (1..DENSITY_MARKS).find(|&i| dec < marks[i]).map_or(0.0, |i| i as f64 / DENSITY_MARKS as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_separates() {
        let dec: Vec<f64> = (-50..50).map(|i| i as f64 / 10.0).collect();
        let pos: Vec<bool> = dec.iter().map(|&f| f > 0.0).collect();
        let (a, b) = fit_sigmoid(&dec, &pos);
        assert!(a < 0.0);
        assert!(sigmoid_predict(3.0, a, b) > 0.9 && sigmoid_predict(-3.0, a, b) < 0.1);
        assert!(b.abs() < 0.5);
    }

    #[test]
    fn coupling_is_a_distribution_and_consistent() {
        // pairwise probabilities generated by p = (0.5, 0.3, 0.2)
        let p = [0.5, 0.3, 0.2];
        let mut r = vec![0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                if i != j {
                    r[i * 3 + j] = p[i] / (p[i] + p[j]);
                }
            }
        }
        let q = couple(&r, 3);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        for i in 0..3 {
            assert!((q[i] - p[i]).abs() < 1e-3, "{q:?}");
        }
    }

    #[test]
    fn density_marks_bin_each_side_of_zero() {
        // 10 values below zero (-10..-1) and 20 at or above it (0..19)
        let dec: Vec<f64> = (-10..20).rev().map(f64::from).collect();
        let marks = one_class_density_marks(&dec).unwrap();
        // edges: -10, -8, -6, -4, -2 | 0 | 3, 7, 11, 15, 19
        assert_eq!(marks, vec![-9.0, -7.0, -5.0, -3.0, -1.0, 1.5, 5.0, 9.0, 13.0, 17.0]);
        assert_eq!(one_class_probability(&marks, -9.5), 0.001);
        assert_eq!(one_class_probability(&marks, 17.5), 0.999);
        assert_eq!(one_class_probability(&marks, -9.0), 0.1);
        assert_eq!(one_class_probability(&marks, 0.0), 0.5);
        assert_eq!(one_class_probability(&marks, 1.5), 0.6);
        assert_eq!(one_class_probability(&marks, 16.9), 0.9);
        assert_eq!(one_class_probability(&marks, 17.0), 0.0); // LIBSVM's edge case
    }

    #[test]
    fn too_few_values_on_a_side_give_no_marks() {
        let four_below: Vec<f64> = (-4..20).map(f64::from).collect();
        assert_eq!(one_class_density_marks(&four_below), None);
        let four_above: Vec<f64> = (-20..4).map(f64::from).collect();
        assert_eq!(one_class_density_marks(&four_above), None);
        let all_below = [-1.0; 30];
        assert_eq!(one_class_density_marks(&all_below), None);
        assert_eq!(one_class_density_marks(&[]), None);
        let five_each: Vec<f64> = (-5..5).map(f64::from).collect();
        assert_eq!(one_class_density_marks(&five_each).unwrap().len(), DENSITY_MARKS);
    }
}
