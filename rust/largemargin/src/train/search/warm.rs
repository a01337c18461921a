//! Warm starts along increasing C: the last solution kept as it is, or scaled to the new box
//! (DeCoste and Wagstaff's alpha seeding), its gradient updated without a kernel row.

use super::WarmStart;

/// A solver's start: alpha, the gradient p - Q alpha, and its bound part if known.
pub(super) type Start = (Vec<f64>, Vec<f64>, Option<Vec<f64>>);

/// The state a problem carries from one C to the next: alpha, gradient and its bound part, in
/// the problem's variable order, with the bounds they were for.
pub(super) struct Warm {
    pub(super) alpha: Vec<f64>,
    pub(super) gradient: Vec<f64>,
    pub(super) gbar: Vec<f64>,
    pub(super) lo: Vec<f64>,
    pub(super) hi: Vec<f64>,
    pub(super) c: f64,
}

impl Warm {
    /// The start for C = `c` (bounds `lo`, `hi`) as `mode` says: (alpha, gradient, its bound part
    /// if known).
    pub(super) fn start(&self, mode: WarmStart, p: &[f64], lo: &[f64], hi: &[f64], c: f64) -> Start {
        match mode {
            WarmStart::Keep => self.kept(lo, hi),
            WarmStart::Scale => self.rescaled(p, lo, hi, c),
            WarmStart::Auto => {
                let (kept, scaled) = (self.kept(lo, hi), self.rescaled(p, lo, hi, c));
                // the dual objective, up to its factor 1/2: sum_t a_t (p_t + g_t)
                let dual = |(a, g, _): &Start| a.iter().zip(p).zip(g).map(|((a, p), g)| a * (p + g)).sum::<f64>();
                if dual(&scaled) > dual(&kept) {
                    scaled
                } else {
                    kept
                }
            }
            WarmStart::Cold => (vec![0.0; p.len()], p.to_vec(), Some(vec![0.0; p.len()])),
        }
    }

    /// The last solution as the start for a wider box `lo`, `hi`.
    fn kept(&self, lo: &[f64], hi: &[f64]) -> Start {
        let alpha: Vec<f64> = self.alpha.iter().zip(lo.iter().zip(hi)).map(|(&a, (&l, &h))| a.clamp(l, h)).collect();
        // gbar sums a_s Q_st over the variables at a nonzero bound: those at the old C are inside
        // the grown box, so there are none (else the solver computes it)
        let at_bound = alpha.iter().zip(lo.iter().zip(hi)).any(|(&a, (&l, &h))| a != 0.0 && (a == l || a == h));
        let gbar = (!at_bound).then(|| vec![0.0; alpha.len()]);
        (alpha, self.gradient.clone(), gbar)
    }

    /// The start for C = `c` with bounds `lo`, `hi`: alpha scaled by c / c_old (at a bound: the
    /// new bound), the gradient p - Q alpha and its bound part updated to match.
    fn rescaled(&self, p: &[f64], lo: &[f64], hi: &[f64], c: f64) -> Start {
        let r = c / self.c;
        let alpha = (0..p.len())
            .map(|t| {
                let a = self.alpha[t];
                if a == self.hi[t] {
                    hi[t]
                } else if a == self.lo[t] {
                    lo[t]
                } else {
                    (a * r).clamp(lo[t], hi[t])
                }
            })
            .collect();
        let gradient = p.iter().zip(&self.gradient).map(|(&pt, &g)| (1.0 - r) * pt + r * g).collect();
        let gbar = self.gbar.iter().map(|&g| r * g).collect();
        (alpha, gradient, Some(gbar))
    }
}
