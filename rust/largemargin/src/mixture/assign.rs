//! The reassignment step: each example goes to the expert it prefers most among those not yet full.

use crate::error::{Error, Result};

/// Assigns every example to an expert. `preference` is row-major (n, k): higher is preferred
/// (the global gater's g_k(x), or the local gater's log P(k | x, y)). Examples are taken in
/// `order`; each goes to its most preferred expert holding fewer than `cap` examples, ties going
/// to the lower expert index. Returns the expert of every example.
pub fn assign_capped(preference: &[f64], n: usize, k: usize, cap: usize, order: &[usize]) -> Result<Vec<usize>> {
    if k == 0 || preference.len() != n * k {
        return Err(Error::InvalidData(format!("preferences must be {n} x {k}, got {} values", preference.len())));
    }
    if cap.checked_mul(k).is_none_or(|total| total < n) {
        return Err(Error::InvalidParameter(format!(
            "a cap of {cap} examples per expert cannot hold {n} examples in {k} experts"
        )));
    }
    if order.len() != n || order.iter().any(|&i| i >= n) {
        return Err(Error::InvalidData(format!("the order must be a permutation of 0..{n}")));
    }
    if let Some(bad) = preference.iter().position(|v| v.is_nan()) {
        return Err(Error::InvalidData(format!("the preference of example {} for expert {} is NaN", bad / k, bad % k)));
    }
    let mut held = vec![0usize; k];
    let mut expert = vec![usize::MAX; n];
    let mut ranked: Vec<usize> = (0..k).collect();
    for &i in order {
        if expert[i] != usize::MAX {
            return Err(Error::InvalidData(format!("example {i} appears twice in the order")));
        }
        let row = &preference[i * k..(i + 1) * k];
        ranked.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
        // the cap guarantees a free expert: n examples, k * cap >= n places
        let chosen = *ranked.iter().find(|&&e| held[e] < cap).expect("a free expert");
        held[chosen] += 1;
        expert[i] = chosen;
    }
    Ok(expert)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preferred_expert_until_full() {
        // all three prefer expert 1; the cap of 2 sends the third, by order, to its second choice
        let pref = [0.1, 0.9, 0.0, 0.2, 0.8, 0.0, 0.3, 0.7, 0.5];
        assert_eq!(assign_capped(&pref, 3, 3, 2, &[0, 1, 2]).unwrap(), vec![1, 1, 2]);
        assert_eq!(assign_capped(&pref, 3, 3, 2, &[2, 1, 0]).unwrap(), vec![0, 1, 1]);
        assert_eq!(assign_capped(&pref, 3, 3, 1, &[0, 1, 2]).unwrap(), vec![1, 0, 2]);
    }

    #[test]
    fn impossible_caps_and_bad_orders_are_errors() {
        let pref = [0.0; 6];
        assert!(assign_capped(&pref, 3, 2, 1, &[0, 1, 2]).is_err());
        assert!(assign_capped(&pref, 3, 2, 2, &[0, 0, 2]).is_err());
        assert!(assign_capped(&pref, 3, 2, 2, &[0, 1]).is_err());
        assert!(assign_capped(&[f64::NAN; 6], 3, 2, 2, &[0, 1, 2]).is_err());
        // ties go to the lower index
        assert_eq!(assign_capped(&pref, 3, 2, 2, &[0, 1, 2]).unwrap(), vec![0, 0, 1]);
    }
}
