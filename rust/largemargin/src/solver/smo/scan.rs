//! The working-set selection's scans over the active variables: the largest gradient that may
//! increase (`scan_up`), the smallest that may decrease with the first- or second-order choice of
//! j, each split over a team with the sequential tie rules, and built four positions at a time
//! for AVX2 so that they choose exactly what a one-at-a-time scan would.

use super::{Up, TAU};
use crate::runtime::team::Team;

/// max g over variables whose status has the bit `up` (they may increase, in the set scanned),
/// and the last position holding it. Panics if `status` is shorter than `g` (the solver keeps one
/// of each per variable).
pub(super) fn scan_up(g: &[f64], status: &[u8], up: u8) -> Option<(f64, usize)> {
    assert!(status.len() >= g.len(), "a status per gradient entry");
    #[cfg(target_arch = "x86_64")]
    {
        if crate::runtime::vecops::has_avx2() {
            // SAFETY: the feature was just detected.
            return unsafe { avx2::scan_up(g, status, up) };
        }
    }
    scan_up_from(g, status, up, 0, f64::NEG_INFINITY, usize::MAX)
}

/// `scan_up` over positions from..len, continuing from the best (v, i) found before.
pub(super) fn scan_up_from(
    g: &[f64], status: &[u8], up: u8, from: usize, mut v: f64, mut i: usize,
) -> Option<(f64, usize)> {
    for t in from..g.len() {
        if status[t] & up != 0 && g[t] >= v {
            v = g[t];
            i = t;
        }
    }
    (i != usize::MAX).then_some((v, i))
}

/// min g over variables whose status has the bit `down`, and the last position holding it.
pub(super) fn scan_down_first_order(g: &[f64], status: &[u8], down: u8) -> (f64, usize) {
    let (mut v, mut j) = (f64::INFINITY, usize::MAX);
    for t in 0..g.len() {
        if status[t] & down != 0 && g[t] <= v {
            v = g[t];
            j = t;
        }
    }
    (v, j)
}

/// Over variables whose status has the bit `down`: min g (for the stopping test), and Fan, Chen and
/// Lin's j, the last position minimising -(gmax - g_t)^2 / (Q_ii + Q_tt - 2 Q_it) among those with
/// g_t < gmax, with that minimum. Panics if `status`, `qd` or `qi` is shorter than `g`.
pub(super) fn scan_down_second_order(
    g: &[f64], status: &[u8], down: u8, qd: &[f64], qi: &[f32], gmax: f64, qdi: f64,
) -> (f64, f64, usize) {
    assert!(status.len() >= g.len() && qd.len() >= g.len() && qi.len() >= g.len(), "an entry per gradient entry");
    #[cfg(target_arch = "x86_64")]
    {
        if crate::runtime::vecops::has_avx2() {
            // SAFETY: the feature was just detected.
            return unsafe { avx2::scan_down_second_order(g, status, down, qd, qi, gmax, qdi) };
        }
    }
    let start = (f64::INFINITY, f64::INFINITY, usize::MAX);
    scan_down_second_order_from(g, status, down, qd, qi, gmax, qdi, 0, start)
}

/// `scan_down_second_order` over from..len, continuing from (gmin, best objective, j).
pub(super) fn scan_down_second_order_from(
    g: &[f64], status: &[u8], down: u8, qd: &[f64], qi: &[f32], gmax: f64, qdi: f64, from: usize,
    (mut gmin, mut best, mut j): (f64, f64, usize),
) -> (f64, f64, usize) {
    for t in from..g.len() {
        if status[t] & down == 0 {
            continue;
        }
        if g[t] < gmin {
            gmin = g[t];
        }
        let b = gmax - g[t];
        if b > 0.0 {
            let a = qdi + qd[t] - 2.0 * qi[t] as f64;
            let a = if a > 0.0 { a } else { TAU };
            let obj = -(b * b) / a;
            if obj <= best {
                best = obj;
                j = t;
            }
        }
    }
    (gmin, best, j)
}

/// `scan_up` split over a team: each member scans a contiguous part, and the parts are merged in
/// order with the sequential tie rule (the last position wins), so the choice is the same.
pub(super) fn team_scan_up(team: &Team, g: &[f64], status: &[u8], up: u8) -> Up {
    merge_up(team.map(g.len(), &|r| scan_up(&g[r.clone()], &status[r.clone()], up).map(|(v, i)| (v, i + r.start))))
}

/// The parts' `scan_up` results, in order, merged with the sequential tie rule.
pub(super) fn merge_up(found: Vec<Up>) -> Up {
    let mut best: Up = None;
    for (v, i) in found.into_iter().flatten() {
        if best.is_none_or(|(b, _)| v >= b) {
            best = Some((v, i));
        }
    }
    best
}

/// `scan_down_second_order` split over a team, merged as `team_scan_up` is: (min g, best, j).
pub(super) fn team_scan_down_second_order(
    team: &Team, g: &[f64], status: &[u8], down: u8, qd: &[f64], qi: &[f32], gmax: f64, qdi: f64,
) -> (f64, f64, usize) {
    let found = team.map(g.len(), &|r| {
        let (gmin, best, j) =
            scan_down_second_order(&g[r.clone()], &status[r.clone()], down, &qd[r.clone()], &qi[r.clone()], gmax, qdi);
        (gmin, best, if j == usize::MAX { j } else { j + r.start })
    });
    let (mut gmin, mut best, mut j) = (f64::INFINITY, f64::INFINITY, usize::MAX);
    for (pg, pb, pj) in found {
        if pg < gmin {
            gmin = pg;
        }
        if pj != usize::MAX && pb <= best {
            best = pb;
            j = pj;
        }
    }
    (gmin, best, j)
}

/// The two selection scans four positions at a time: each lane keeps its own running best, the
/// lanes are merged with the sequential scan's tie rule (the last position wins), and the tail
/// is finished by the sequential scan, so the choice is exactly the sequential one. The vector
/// part stops at the shortest slice it reads, so it stays in bounds whatever their lengths.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{scan_down_second_order_from, scan_up_from, TAU};

    /// All-ones lanes where status[t + k] has `bit`.
    ///
    /// # Safety
    /// `t + 4 <= status.len()`, and the processor has AVX2.
    #[inline(always)]
    unsafe fn has(status: &[u8], t: usize, bit: u8) -> __m256d {
        debug_assert!(t + 4 <= status.len());
        // SAFETY: status[t..t + 4] is inside the slice (the contract); an unaligned read of 4 bytes.
        let four = unsafe { (status.as_ptr().add(t) as *const i32).read_unaligned() };
        // SAFETY: register operations only; the processor has AVX2 (the contract).
        unsafe {
            let s = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(four));
            let b = _mm256_set1_epi64x(bit as i64);
            _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(s, b), b))
        }
    }

    /// Four running bests with the positions that hold them, advancing four positions a step.
    /// Its methods are unsafe for one reason: the processor must have AVX2.
    struct Lanes {
        best: __m256d,
        arg: __m256i,
        idx: __m256i,
    }

    impl Lanes {
        #[inline(always)]
        unsafe fn new(start: f64) -> Self {
            // SAFETY: register operations only; AVX2 is the caller's promise.
            unsafe {
                Lanes { best: _mm256_set1_pd(start), arg: _mm256_set1_epi64x(-1), idx: _mm256_setr_epi64x(0, 1, 2, 3) }
            }
        }
        /// Keeps `value` (and the current positions) in the lanes where `take` is set, then steps.
        #[inline(always)]
        unsafe fn keep(&mut self, value: __m256d, take: __m256d) {
            // SAFETY: register operations only; AVX2 is the caller's promise.
            unsafe {
                self.best = _mm256_blendv_pd(self.best, value, take);
                let arg = _mm256_blendv_pd(_mm256_castsi256_pd(self.arg), _mm256_castsi256_pd(self.idx), take);
                self.arg = _mm256_castpd_si256(arg);
                self.idx = _mm256_add_epi64(self.idx, _mm256_set1_epi64x(4));
            }
        }
        /// Best lane by `better`, ties to the larger position; (start, usize::MAX) if no lane has one.
        #[inline(always)]
        unsafe fn merge(&self, start: f64, better: impl Fn(f64, f64) -> bool) -> (f64, usize) {
            let mut v = [0.0f64; 4];
            let mut i = [0i64; 4];
            // SAFETY: each store writes 32 bytes into a 4-lane array of 8-byte lanes, unaligned
            // stores allowed; AVX2 is the caller's promise.
            unsafe {
                _mm256_storeu_pd(v.as_mut_ptr(), self.best);
                _mm256_storeu_si256(i.as_mut_ptr() as *mut __m256i, self.arg);
            }
            let (mut bv, mut bi) = (start, usize::MAX);
            for k in 0..4 {
                if i[k] < 0 {
                    continue;
                }
                let ik = i[k] as usize;
                if bi == usize::MAX || better(v[k], bv) || (v[k] == bv && ik > bi) {
                    bv = v[k];
                    bi = ik;
                }
            }
            (bv, bi)
        }
    }

    /// # Safety
    /// The processor has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn scan_up(g: &[f64], status: &[u8], bit: u8) -> Option<(f64, usize)> {
        let full = g.len().min(status.len()) / 4 * 4;
        // SAFETY: AVX2 is the caller's promise (so for the other `lanes` calls).
        let mut lanes = unsafe { Lanes::new(f64::NEG_INFINITY) };
        let mut t = 0;
        while t < full {
            // SAFETY: t + 4 <= full <= g.len() and status.len(); AVX2 is the caller's promise.
            let (vg, up) = unsafe { (_mm256_loadu_pd(g.as_ptr().add(t)), has(status, t, bit)) };
            let take = _mm256_and_pd(up, _mm256_cmp_pd::<_CMP_GE_OQ>(vg, lanes.best));
            // SAFETY: as for `Lanes::new`.
            unsafe { lanes.keep(vg, take) };
            t += 4;
        }
        // SAFETY: as for `Lanes::new`.
        let (v, i) = unsafe { lanes.merge(f64::NEG_INFINITY, |a, b| a > b) };
        scan_up_from(g, status, bit, full, v, i)
    }

    /// # Safety
    /// The processor has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn scan_down_second_order(
        g: &[f64], status: &[u8], bit: u8, qd: &[f64], qi: &[f32], gmax: f64, qdi: f64,
    ) -> (f64, f64, usize) {
        let full = g.len().min(status.len()).min(qd.len()).min(qi.len()) / 4 * 4;
        let (vgmax, vqdi, vtau) = (_mm256_set1_pd(gmax), _mm256_set1_pd(qdi), _mm256_set1_pd(TAU));
        let (zero, two, sign) = (_mm256_setzero_pd(), _mm256_set1_pd(2.0), _mm256_set1_pd(-0.0));
        let mut gmin = _mm256_set1_pd(f64::INFINITY);
        // SAFETY: AVX2 is the caller's promise (so for the other `lanes` calls).
        let mut lanes = unsafe { Lanes::new(f64::INFINITY) };
        let mut t = 0;
        while t < full {
            // SAFETY: t + 4 <= full, no longer than any of the four slices; AVX2 is the caller's promise.
            let (vg, down, q, vqd) = unsafe {
                (
                    _mm256_loadu_pd(g.as_ptr().add(t)),
                    has(status, t, bit),
                    _mm256_cvtps_pd(_mm_loadu_ps(qi.as_ptr().add(t))),
                    _mm256_loadu_pd(qd.as_ptr().add(t)),
                )
            };
            gmin = _mm256_blendv_pd(gmin, _mm256_min_pd(gmin, vg), down);
            let b = _mm256_sub_pd(vgmax, vg);
            let a = _mm256_sub_pd(_mm256_add_pd(vqdi, vqd), _mm256_mul_pd(two, q));
            let a = _mm256_blendv_pd(vtau, a, _mm256_cmp_pd::<_CMP_GT_OQ>(a, zero));
            let obj = _mm256_div_pd(_mm256_xor_pd(_mm256_mul_pd(b, b), sign), a);
            let take = _mm256_and_pd(
                _mm256_and_pd(down, _mm256_cmp_pd::<_CMP_GT_OQ>(b, zero)),
                _mm256_cmp_pd::<_CMP_LE_OQ>(obj, lanes.best),
            );
            // SAFETY: as for `Lanes::new`.
            unsafe { lanes.keep(obj, take) };
            t += 4;
        }
        let mut gmins = [0.0f64; 4];
        // SAFETY: 32 bytes stored into a 4-lane f64 array, unaligned stores allowed.
        unsafe { _mm256_storeu_pd(gmins.as_mut_ptr(), gmin) };
        let low = gmins.iter().copied().fold(f64::INFINITY, f64::min);
        // SAFETY: as for `Lanes::new`.
        let (obj, j) = unsafe { lanes.merge(f64::INFINITY, |a, b| a < b) };
        scan_down_second_order_from(g, status, bit, qd, qi, gmax, qdi, full, (low, obj, j))
    }
}
