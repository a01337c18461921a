//! The solvers' inner loops over a kernel row (float32 entries), built for AVX2+FMA when the
//! processor has them: the crate itself targets baseline x86-64, where these loops run two lanes
//! instead of four.

/// `up -= lambda * row`, `down += lambda * row` (a step moving weight between two classes or
/// two variables: both gradient columns change by the step's kernel row). The columns are
/// float32 like the row: the pass is bound by memory traffic, which this nearly halves.
pub fn transfer(lambda: f64, row: &[f32], up: &mut [f32], down: &mut [f32]) {
    #[inline(always)]
    fn body(lambda: f64, row: &[f32], up: &mut [f32], down: &mut [f32]) {
        let lambda = lambda as f32;
        for ((a, b), &k) in up.iter_mut().zip(down.iter_mut()).zip(row) {
            let d = lambda * k;
            *a -= d;
            *b += d;
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2(lambda: f64, row: &[f32], up: &mut [f32], down: &mut [f32]) {
            body(lambda, row, up, down)
        }
        if has_avx2_fma() {
            // SAFETY: the features were detected.
            return unsafe { avx2(lambda, row, up, down) };
        }
    }
    body(lambda, row, up, down)
}

/// `out[c] += sum_q row[q] * coef[q * k + c]` (float64 accumulators) for the `k = out.len()`
/// columns of a row-major coefficient table: every class score of one example at once.
pub fn scores(row: &[f32], coef: &[f64], out: &mut [f64]) {
    #[inline(always)]
    fn body(row: &[f32], coef: &[f64], out: &mut [f64]) {
        let k = out.len();
        for (&kv, c) in row.iter().zip(coef.chunks_exact(k)) {
            let kv = kv as f64;
            for (o, b) in out.iter_mut().zip(c) {
                *o += kv * b;
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2(row: &[f32], coef: &[f64], out: &mut [f64]) {
            body(row, coef, out)
        }
        if has_avx2_fma() {
            // SAFETY: the features were detected.
            return unsafe { avx2(row, coef, out) };
        }
    }
    body(row, coef, out)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_and_scores_match_plain_loops() {
        let row: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin()).collect();
        let (mut up, mut down) = (vec![1.0f32; 37], vec![-1.0f32; 37]);
        transfer(0.5, &row, &mut up, &mut down);
        for q in 0..37 {
            assert!((up[q] - (1.0 - 0.5 * row[q])).abs() < 1e-7);
            assert!((down[q] - (-1.0 + 0.5 * row[q])).abs() < 1e-7);
        }
        let k = 5;
        let coef: Vec<f64> = (0..37 * k).map(|i| (i as f64 * 0.11).cos()).collect();
        let mut out = vec![0.0; k];
        scores(&row, &coef, &mut out);
        for c in 0..k {
            let want: f64 = (0..37).map(|q| row[q] as f64 * coef[q * k + c]).sum();
            assert!((out[c] - want).abs() < 1e-12);
        }
    }
}
