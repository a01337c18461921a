//! Kernels computed outside the engine — by a Python plugin, say — on a fixed set of examples the
//! engine knows only by index. They are asked for whole row segments, never single values, so a
//! slow foreign call is paid once per segment.

use std::fmt;

/// A kernel over examples 0..len() held by someone else.
pub trait ExternalKernel: Send + Sync {
    /// A name for messages.
    fn name(&self) -> String;
    /// Number of examples.
    fn len(&self) -> usize;
    /// Whether the kernel holds no examples.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `out[k] = K(x_i, x_cols[k])`, or K(x_i, x_k) for every example when `cols` is None.
    /// A failure is reported as a message; the engine keeps the first one and stops using the kernel.
    fn row(&self, i: usize, cols: Option<&[usize]>, out: &mut [f64]) -> Result<(), String>;
    /// K(x_i, x_i) for every example.
    fn diagonal(&self) -> Result<Vec<f64>, String>;
}

impl fmt::Debug for dyn ExternalKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ExternalKernel({})", self.name())
    }
}
