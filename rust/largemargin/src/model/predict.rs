//! Decision functions of fitted kernel expansions. Test rows are processed in parallel tiles;
//! each tile computes its block of kernel values against all support vectors, then every
//! output (one, or one per class pair) is read off that block.

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::{KernelEngine, KernelSpec, Query};
use crate::runtime::control::Control;

/// Test rows per parallel task.
const TILE: usize = 16;

/// A fitted expansion f(x) = sum_s coef_s K(x, sv_s) + b: one-vs-one (LIBSVM's layout), or
/// independent outputs sharing the support vectors (one output, or one per one-vs-rest problem).
#[derive(Clone)]
pub struct Expansion<'a> {
    /// The kernel K the model was trained with.
    pub kernel: KernelSpec,
    /// Support vectors; for a precomputed kernel, unused (`sv_columns` index the test matrix).
    pub sv: Matrix<'a>,
    /// Which columns of the kernel the vectors are: 0..n_sv, or training indices if precomputed.
    pub sv_columns: &'a [usize],
    /// Per-class counts of support vectors (one-vs-one); empty (or two entries) means independent
    /// outputs, as many as intercepts.
    pub n_support: &'a [usize],
    /// Independent outputs: outputs x n_sv. One-vs-one: (n_classes - 1) x n_sv, LIBSVM layout.
    pub coef: &'a [f64],
    /// b of each output (LIBSVM's -rho): one per class pair, or one per independent output.
    pub intercept: &'a [f64],
}

impl Expansion<'_> {
    fn n_classes(&self) -> usize {
        self.n_support.len()
    }
    fn one_vs_one(&self) -> bool {
        self.n_classes() > 2
    }
    /// Decision values per test row: k (k - 1) / 2 for one-vs-one over k > 2 classes, else one per
    /// intercept (at least one).
    pub fn n_outputs(&self) -> usize {
        let k = self.n_classes();
        if self.one_vs_one() {
            k * (k - 1) / 2
        } else {
            self.intercept.len().max(1)
        }
    }

    fn check(&self, x: &Matrix) -> Result<()> {
        let nsv = self.sv_columns.len();
        let k = self.n_classes();
        let rows = if self.one_vs_one() { k - 1 } else { self.n_outputs() };
        if self.coef.len() != rows * nsv || self.intercept.len() != self.n_outputs() {
            return Err(Error::InvalidData("model coefficients have inconsistent sizes".into()));
        }
        if k > 0 && self.n_support.iter().sum::<usize>() != nsv {
            return Err(Error::InvalidData("n_support does not add up to the support vectors".into()));
        }
        match self.kernel {
            KernelSpec::Precomputed => {
                if self.sv_columns.iter().any(|&c| c >= x.cols()) {
                    return Err(Error::InvalidData(format!(
                        "precomputed kernel has {} columns, fewer than the training examples",
                        x.cols()
                    )));
                }
            }
            _ => {
                if x.cols() != self.sv.cols() {
                    return Err(Error::InvalidData(format!(
                        "X has {} features, the model expects {}",
                        x.cols(),
                        self.sv.cols()
                    )));
                }
                if self.sv_columns.iter().any(|&c| c >= self.sv.rows()) {
                    return Err(Error::InvalidData("support vector index out of range".into()));
                }
            }
        }
        x.check_finite()
    }

    /// Decision values, m x n_outputs row-major.
    pub fn decision(&self, x: &Matrix) -> Result<Vec<f64>> {
        self.decision_with(x, &Control::new())
    }

    /// `decision`, stopping between tiles of rows once `control` asks (a prediction over many
    /// rows and support vectors can take minutes).
    pub fn decision_with(&self, x: &Matrix, control: &Control) -> Result<Vec<f64>> {
        self.check(x)?;
        let m = x.rows();
        let nout = self.n_outputs();
        let nsv = self.sv_columns.len();
        let dist = self.kernel.needs_norms();
        // `check` saw every support vector column once: the queries need not
        let engine = KernelEngine::over(self.sv, self.kernel.clone())?;
        let mut out = vec![0.0; m * nout];
        let k = self.n_classes();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(self.n_support.iter().scan(0, |s, &c| {
                *s += c;
                Some(*s)
            }))
            .collect();
        out.par_chunks_mut(TILE * nout).enumerate().try_for_each(|(tile, o)| -> Result<()> {
            control.poll()?;
            let mut kv = vec![0.0f64; nsv];
            for (r, orow) in o.chunks_mut(nout).enumerate() {
                let t = tile * TILE + r;
                let q = Query::row(x, t);
                let qs = if dist { q.squared_norm() } else { 0.0 };
                if !qs.is_finite() {
                    return Err(crate::kernel::overflowing_norm(t));
                }
                engine.query_checked_columns(&q, qs, self.sv_columns, &mut kv)?;
                if !self.one_vs_one() {
                    for (o, v) in orow.iter_mut().enumerate() {
                        *v = dot(&self.coef[o * nsv..(o + 1) * nsv], &kv) + self.intercept[o];
                    }
                    continue;
                }
                let mut p = 0;
                for a in 0..k {
                    for b in a + 1..k {
                        let (ra, rb) = (starts[a]..starts[a + 1], starts[b]..starts[b + 1]);
                        let ca = &self.coef[(b - 1) * nsv..b * nsv];
                        let cb = &self.coef[a * nsv..(a + 1) * nsv];
                        orow[p] = dot(&ca[ra.clone()], &kv[ra]) + dot(&cb[rb.clone()], &kv[rb]) + self.intercept[p];
                        p += 1;
                    }
                }
            }
            Ok(())
        })?;
        if let Some(e) = engine.failure() {
            return Err(e);
        }
        if let Some(p) = out.iter().position(|v| !v.is_finite()) {
            return Err(Error::InvalidData(format!(
                "the decision value for row {} is {}: the kernel overflows on this input (a high degree or large \
                 gamma times large feature values)",
                p / nout.max(1),
                out[p]
            )));
        }
        Ok(out)
    }
}

/// Coefficients times kernel values, with eight partial sums so the loop vectorises (one-vs-one
/// models spend most of their prediction here: every vector takes part in n_classes - 1 pairs).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}
