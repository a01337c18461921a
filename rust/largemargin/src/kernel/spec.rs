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

/// A built-in kernel as its name gives it (a kernel option, a model file's kernel_type): the
/// parameters come apart.
/// Declared in LIBSVM's order: `ALL[t]` is svm-train's `-t t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelKind {
    /// `KernelSpec::Linear`.
    Linear,
    /// `KernelSpec::Poly`.
    Poly,
    /// `KernelSpec::Rbf`.
    Rbf,
    /// `KernelSpec::Sigmoid`.
    Sigmoid,
    /// `KernelSpec::Precomputed`.
    Precomputed,
}
crate::error::option_names!(KernelKind, "kernel", {
    Linear => "linear",
    Poly => "poly" | "polynomial",
    Rbf => "rbf",
    Sigmoid => "sigmoid",
    Precomputed => "precomputed",
});

impl KernelKind {
    /// LIBSVM's name, the kernel_type of a model file ("polynomial" for `Poly`).
    pub fn libsvm_name(self) -> &'static str {
        match self {
            KernelKind::Poly => "polynomial",
            k => k.name(),
        }
    }
    /// The kind whose LIBSVM name this is.
    pub fn from_libsvm_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.libsvm_name() == name)
    }
    /// The kernel with its parameters; those it does not take are unread.
    pub fn with(self, gamma: f64, coef0: f64, degree: u32) -> KernelSpec {
        match self {
            KernelKind::Linear => KernelSpec::Linear,
            KernelKind::Poly => KernelSpec::Poly { degree, gamma, coef0 },
            KernelKind::Rbf => KernelSpec::Rbf { gamma },
            KernelKind::Sigmoid => KernelSpec::Sigmoid { gamma, coef0 },
            KernelKind::Precomputed => KernelSpec::Precomputed,
        }
    }
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
    pub(crate) fn reads_features(&self) -> bool {
        !matches!(self, KernelSpec::Precomputed | KernelSpec::External(_))
    }
    /// Whether the data given is the kernel matrix itself.
    pub fn is_precomputed(&self) -> bool {
        matches!(self, KernelSpec::Precomputed)
    }
    /// The built-in kernel this is, parameters apart; None for composed and external kernels.
    pub fn kind(&self) -> Option<KernelKind> {
        Some(match self {
            KernelSpec::Linear => KernelKind::Linear,
            KernelSpec::Poly { .. } => KernelKind::Poly,
            KernelSpec::Rbf { .. } => KernelKind::Rbf,
            KernelSpec::Sigmoid { .. } => KernelKind::Sigmoid,
            KernelSpec::Precomputed => KernelKind::Precomputed,
            KernelSpec::Composite(_) | KernelSpec::External(_) => return None,
        })
    }
    /// A short name for messages.
    pub fn name(&self) -> &'static str {
        match (self, self.kind()) {
            (_, Some(kind)) => kind.name(),
            (KernelSpec::External(_), None) => "external",
            (_, None) => "composite",
        }
    }
    /// LIBSVM's name for the kernel_type field of a model file; composed and external kernels have none.
    pub fn libsvm_name(&self) -> Option<&'static str> {
        self.kind().map(KernelKind::libsvm_name)
    }
}
