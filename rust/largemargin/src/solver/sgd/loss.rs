//! Losses of the linear SGD solvers, as functions of the decision value f and the label y in
//! {-1, +1} (the plugin hook's convention): the primal is
//!
//!   P(w, b) = lambda/2 |w|^2 + 1/n sum_i weight_i loss(f(x_i), y_i),   f(x) = <w, x> + b.
//!
//! The built-ins are margin losses l(y f) (Bordes 2010, PhD thesis, chapter 3); `dloss` is the derivative
//! in f, y l'(y f).

/// A loss with its derivative in the decision value.
pub trait Loss: Send + Sync {
    /// loss(f, y) for the decision value f and the label y (+1 or -1).
    fn loss(&self, f: f64, y: f64) -> f64;
    /// d loss / d f.
    fn dloss(&self, f: f64, y: f64) -> f64;
    /// `out[k] = loss(f[k], y[k])` for a block of examples (where the objective is summed: a
    /// Python loss answers a whole block in one call).
    fn losses(&self, f: &[f64], y: &[f64], out: &mut [f64]) {
        for ((o, &f), &y) in out.iter_mut().zip(f).zip(y) {
            *o = self.loss(f, y);
        }
    }
    /// The built-in margin loss this is, if it is one (the solvers then call it without an
    /// indirection on every example).
    fn as_margin(&self) -> Option<MarginLoss> {
        None
    }
}

/// The built-in margin losses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MarginLoss {
    /// max(0, 1 - m)
    Hinge,
    /// 1/2 max(0, 1 - m)^2 (the thesis' chapter 3 loss)
    SquaredHinge,
    /// log(1 + exp(-m))
    Log,
    /// max(0, 1 - m)^2 for m >= -1, else -4 m (Zhang 2004, as scikit-learn's "modified_huber")
    ModifiedHuber,
}

crate::error::option_names!(MarginLoss, "loss", {
    Hinge => "hinge",
    SquaredHinge => "squared_hinge",
    Log => "log_loss" | "log",
    ModifiedHuber => "modified_huber",
});

impl MarginLoss {
    /// The loss of a scikit-learn loss name ("hinge", "squared_hinge", "log_loss" or "log",
    /// "modified_huber"); None for any other name (`str::parse` says which names it takes).
    pub fn from_name(name: &str) -> Option<Self> {
        name.parse().ok()
    }
    /// l(m).
    #[inline(always)]
    pub fn of_margin(&self, m: f64) -> f64 {
        match self {
            MarginLoss::Hinge => (1.0 - m).max(0.0),
            MarginLoss::SquaredHinge => 0.5 * (1.0 - m).max(0.0).powi(2),
            // log(1 + e^-m) without overflow on either side
            MarginLoss::Log => {
                if m > 0.0 {
                    (-m).exp().ln_1p()
                } else {
                    -m + m.exp().ln_1p()
                }
            }
            MarginLoss::ModifiedHuber => {
                if m >= -1.0 {
                    (1.0 - m).max(0.0).powi(2)
                } else {
                    -4.0 * m
                }
            }
        }
    }
    /// l'(m) (never positive).
    #[inline(always)]
    pub fn slope(&self, m: f64) -> f64 {
        match self {
            MarginLoss::Hinge => {
                if m < 1.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            MarginLoss::SquaredHinge => -(1.0 - m).max(0.0),
            MarginLoss::Log => {
                // -1 / (1 + e^m), computed on the side that does not overflow
                if m > 0.0 {
                    let e = (-m).exp();
                    -e / (1.0 + e)
                } else {
                    -1.0 / (1.0 + m.exp())
                }
            }
            MarginLoss::ModifiedHuber => {
                if m >= 1.0 {
                    0.0
                } else if m >= -1.0 {
                    -2.0 * (1.0 - m)
                } else {
                    -4.0
                }
            }
        }
    }
}

impl Loss for MarginLoss {
    #[inline(always)]
    fn loss(&self, f: f64, y: f64) -> f64 {
        self.of_margin(y * f)
    }
    #[inline(always)]
    fn dloss(&self, f: f64, y: f64) -> f64 {
        y * self.slope(y * f)
    }
    fn as_margin(&self) -> Option<MarginLoss> {
        Some(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each derivative is the loss's, by central differences, on both sides of every kink.
    #[test]
    fn derivatives_match_the_losses() {
        for loss in [MarginLoss::Hinge, MarginLoss::SquaredHinge, MarginLoss::Log, MarginLoss::ModifiedHuber] {
            for y in [-1.0, 1.0] {
                for f in [-40.0, -3.0, -1.3, -0.5, 0.0, 0.2, 0.7, 1.6, 5.0, 40.0] {
                    let h = 1e-6;
                    let numeric = (loss.loss(f + h, y) - loss.loss(f - h, y)) / (2.0 * h);
                    let d = loss.dloss(f, y);
                    assert!((numeric - d).abs() < 1e-5, "{loss:?} f={f} y={y}: {d} vs {numeric}");
                    assert!(loss.loss(f, y) >= 0.0 && loss.loss(f, y).is_finite());
                }
            }
        }
        assert_eq!(MarginLoss::Log.of_margin(-800.0), 800.0);
        assert_eq!(MarginLoss::Log.of_margin(800.0), 0.0);
    }
}
