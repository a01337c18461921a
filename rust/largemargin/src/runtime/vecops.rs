//! The solvers' inner loops over a kernel row (float32 entries), built for AVX2+FMA when the
//! processor has them: the crate itself targets baseline x86-64, where these loops run two lanes
//! instead of four. Every CPU-feature check of the crate goes through this module, and every
//! function built twice is defined by `avx2_fma!`.

/// Defines a function whose body is compiled twice, for baseline x86-64 and with AVX2+FMA
/// enabled, and runs the second build where the processor has those features. Arguments are
/// `name: Type` (methods become free functions taking the receiver as an argument); generic
/// parameters are `Name: Bound`. An optional leading `[flag]` names a `bool` the body may read:
/// true in the AVX2+FMA build, to choose fused multiply-adds (a slow library call elsewhere).
macro_rules! avx2_fma {
    ([$fma:ident] $(#[$m:meta])* $vis:vis fn $name:ident $(<$($g:ident : $b:path),+>)?
     ($($a:ident : $t:ty),* $(,)?) $(-> $r:ty)? $body:block) => {
        $(#[$m])*
        $vis fn $name $(<$($g: $b),+>)? ($($a: $t),*) $(-> $r)? {
            #[inline(always)]
            fn body $(<$($g: $b),+>)? ($fma: bool, $($a: $t),*) $(-> $r)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                unsafe fn avx2 $(<$($g: $b),+>)? ($($a: $t),*) $(-> $r)? {
                    body(true, $($a),*)
                }
                if $crate::runtime::vecops::has_avx2_fma() {
                    // SAFETY: the processor has the features (just detected).
                    return unsafe { avx2($($a),*) };
                }
            }
            body(false, $($a),*)
        }
    };
    ($(#[$m:meta])* $vis:vis fn $($rest:tt)*) => {
        $crate::runtime::vecops::avx2_fma! { [_fma] $(#[$m])* $vis fn $($rest)* }
    };
}
pub(crate) use avx2_fma;

avx2_fma! {
    /// `up -= lambda * row`, `down += lambda * row` (a step moving weight between two classes or
    /// two variables: both gradient columns change by the step's kernel row). The columns are
    /// float32 like the row: the pass is bound by memory traffic, which this nearly halves.
    pub fn transfer(lambda: f64, row: &[f32], up: &mut [f32], down: &mut [f32]) {
        let lambda = lambda as f32;
        for ((a, b), &k) in up.iter_mut().zip(down.iter_mut()).zip(row) {
            let d = lambda * k;
            *a -= d;
            *b += d;
        }
    }
}

avx2_fma! {
    /// `out[c] += sum_q row[q] * coef[q * k + c]` (float64 accumulators) for the `k = out.len()`
    /// columns of a row-major coefficient table: every class score of one example at once.
    pub fn scores(row: &[f32], coef: &[f64], out: &mut [f64]) {
        let k = out.len();
        for (&kv, c) in row.iter().zip(coef.chunks_exact(k)) {
            let kv = kv as f64;
            for (o, b) in out.iter_mut().zip(c) {
                *o += kv * b;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// For hand-written AVX2 loops (no fused multiply-adds in them).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// A hint to bring the cache line of `p` in; any address is allowed (it is never dereferenced).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// `prefetch` for every cache line `s` touches, its last one included.
#[inline(always)]
pub(crate) fn prefetch_lines<T>(s: &[T]) {
    let (start, bytes) = (s.as_ptr() as usize, std::mem::size_of_val(s));
    let mut line = start & !63;
    while line < start + bytes {
        prefetch(line as *const u8);
        line += 64;
    }
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
