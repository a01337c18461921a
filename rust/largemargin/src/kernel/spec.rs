//! Which kernel: the built-in kernels with their parameters, their names, their checks.

use std::sync::Arc;

use super::{Composite, ExternalKernel};
use crate::error::{Error, Result};

/// Which kernel, with its parameters (LIBSVM's conventions).
#[derive(Clone, Debug)]
pub enum KernelSpec {
    /// <x, x'>
    Linear,
    /// (gamma <x, x'> + coef0)^degree
    Poly {
        /// The exponent.
        degree: u32,
        /// The scale of the dot product; positive.
        gamma: f64,
        /// The constant added before raising to the power; finite.
        coef0: f64,
    },
    /// exp(-gamma ||x - x'||^2)
    Rbf {
        /// The factor on the squared distance (larger: a narrower kernel); positive.
        gamma: f64,
    },
    /// tanh(gamma <x, x'> + coef0)
    Sigmoid {
        /// The scale of the dot product; positive.
        gamma: f64,
        /// The constant added inside tanh; finite.
        coef0: f64,
    },
    /// The data is the kernel matrix itself: K(i, j) = X[i, j].
    Precomputed,
    /// A weighted sum of products of the kernels above.
    Composite(Arc<Composite>),
    /// Computed outside the engine on the training examples, which it knows by index; the data
    /// matrix given to the engine only fixes their number.
    External(Arc<dyn ExternalKernel>),
}

impl PartialEq for KernelSpec {
    fn eq(&self, other: &Self) -> bool {
        use KernelSpec::*;
        match (self, other) {
            (Linear, Linear) | (Precomputed, Precomputed) => true,
            (Poly { degree: a, gamma: b, coef0: c }, Poly { degree: x, gamma: y, coef0: z }) => (a, b, c) == (x, y, z),
            (Rbf { gamma: a }, Rbf { gamma: b }) => a == b,
            (Sigmoid { gamma: a, coef0: b }, Sigmoid { gamma: x, coef0: y }) => (a, b) == (x, y),
            (Composite(a), Composite(b)) => a == b,
            (External(a), External(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl KernelSpec {
    /// Rejects parameters outside their domain: gamma not positive and finite, coef0 not finite,
    /// or an invalid composed kernel.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::InvalidParameter(m.to_string()));
        match *self {
            KernelSpec::Rbf { gamma } if !(gamma > 0.0 && gamma.is_finite()) => bad("gamma must be positive"),
            KernelSpec::Poly { gamma, coef0, .. } | KernelSpec::Sigmoid { gamma, coef0 }
                if !(gamma > 0.0 && gamma.is_finite() && coef0.is_finite()) =>
            {
                bad("gamma must be positive and coef0 finite")
            }
            KernelSpec::Composite(ref c) => c.validate(),
            _ => Ok(()),
        }
    }
    /// Whether the kernel is a transform of the squared distance (rather than the dot product).
    pub(super) fn uses_distance(&self) -> bool {
        matches!(self, KernelSpec::Rbf { .. })
    }
    /// Whether computing the kernel needs the squared norms of the rows.
    pub fn needs_norms(&self) -> bool {
        match self {
            KernelSpec::Composite(c) => c.uses_distance(),
            k => k.uses_distance(),
        }
    }
    /// Whether the engine computes from the features (not from a given matrix or an outside party).
    pub(super) fn reads_features(&self) -> bool {
        !matches!(self, KernelSpec::Precomputed | KernelSpec::External(_))
    }
    /// Whether the data given is the kernel matrix itself.
    pub fn is_precomputed(&self) -> bool {
        matches!(self, KernelSpec::Precomputed)
    }
    /// A short name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            KernelSpec::Linear => "linear",
            KernelSpec::Poly { .. } => "poly",
            KernelSpec::Rbf { .. } => "rbf",
            KernelSpec::Sigmoid { .. } => "sigmoid",
            KernelSpec::Precomputed => "precomputed",
            KernelSpec::Composite(_) => "composite",
            KernelSpec::External(_) => "external",
        }
    }
    /// LIBSVM's name for the kernel_type field of a model file; composed and external kernels have none.
    pub fn libsvm_name(&self) -> Option<&'static str> {
        match self {
            KernelSpec::Linear => Some("linear"),
            KernelSpec::Poly { .. } => Some("polynomial"),
            KernelSpec::Rbf { .. } => Some("rbf"),
            KernelSpec::Sigmoid { .. } => Some("sigmoid"),
            KernelSpec::Precomputed => Some("precomputed"),
            KernelSpec::Composite(_) | KernelSpec::External(_) => None,
        }
    }
}
