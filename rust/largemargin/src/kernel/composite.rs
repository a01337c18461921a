//! Kernels composed of built-in ones — sums, products and positive scalings, such as
//! `RBF(0.1) + 0.5 * Linear()` — computed entirely by the engine.
//!
//! Any such expression expands into a weighted sum of products of built-in kernels, which is the
//! one form the engine evaluates: every factor is a transform of the same dot product (or of the
//! squared distance derived from it and the norms), so a composite costs one pass over the data
//! like a built-in kernel, plus one cheap transform per distinct factor (a factor appearing in
//! several terms, as expanding a product of sums makes it, is computed once).

use std::cell::RefCell;

use super::{transform_block, KernelSpec, BLOCK};
use crate::error::{Error, Result};

/// weight * product of `factors` (an empty product is 1: a constant term).
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// The coefficient of the product; `validate` only requires it to be finite.
    pub weight: f64,
    /// The built-in kernels multiplied together (linear, poly, rbf or sigmoid only).
    pub factors: Vec<KernelSpec>,
}

/// sum of terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Composite {
    terms: Vec<Term>,
    /// The distinct factors, and each term's factors as indices into them.
    distinct: Vec<KernelSpec>,
    term_factors: Vec<Vec<usize>>,
}

thread_local! {
    /// One block of values per distinct factor.
    static FACTOR_VALUES: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

impl Composite {
    /// The sum of `terms`, with repeated factors found once; an error if `validate` fails.
    pub fn new(terms: Vec<Term>) -> Result<Self> {
        let mut distinct: Vec<KernelSpec> = Vec::new();
        let term_factors = terms
            .iter()
            .map(|t| {
                t.factors
                    .iter()
                    .map(|f| match distinct.iter().position(|d| d == f) {
                        Some(k) => k,
                        None => {
                            distinct.push(f.clone());
                            distinct.len() - 1
                        }
                    })
                    .collect()
            })
            .collect();
        let c = Composite { terms, distinct, term_factors };
        c.validate()?;
        Ok(c)
    }

    /// The terms as given to `new`.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// Rejects an empty sum, a weight that is not finite, a factor that is not a built-in
    /// feature kernel, and any factor whose own parameters are invalid.
    pub fn validate(&self) -> Result<()> {
        if self.terms.is_empty() {
            return Err(Error::InvalidParameter("a composed kernel needs at least one term".into()));
        }
        for t in &self.terms {
            if !t.weight.is_finite() {
                return Err(Error::InvalidParameter(format!("composed kernel weight {} is not finite", t.weight)));
            }
            for f in &t.factors {
                match f {
                    KernelSpec::Linear
                    | KernelSpec::Poly { .. }
                    | KernelSpec::Rbf { .. }
                    | KernelSpec::Sigmoid { .. } => f.validate()?,
                    other => {
                        return Err(Error::InvalidParameter(format!(
                            "a composed kernel is built from linear, poly, rbf and sigmoid kernels, not {}",
                            other.name()
                        )))
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether some factor needs squared distances (and so the norms of the rows).
    pub fn uses_distance(&self) -> bool {
        self.terms.iter().flat_map(|t| &t.factors).any(|f| f.uses_distance())
    }

    /// out[k] = sum_t w_t prod_f f(dot[k], dist[k]) for one block; `dist` is empty when no factor
    /// needs it.
    pub(super) fn block(&self, dot: &[f64], dist: &[f64], out: &mut [f64]) {
        let n = dot.len();
        debug_assert!(n <= BLOCK);
        FACTOR_VALUES.with(|cell| {
            let mut values = cell.borrow_mut();
            values.resize(self.distinct.len() * BLOCK, 0.0);
            for (f, v) in self.distinct.iter().zip(values.chunks_mut(BLOCK)) {
                transform_block(f, if f.uses_distance() { dist } else { dot }, &mut v[..n]);
            }
            out.fill(0.0);
            let mut prod = [0.0f64; BLOCK];
            let prod = &mut prod[..n];
            for (t, factors) in self.terms.iter().zip(&self.term_factors) {
                match factors[..] {
                    [] => out.iter_mut().for_each(|o| *o += t.weight),
                    [f] => {
                        let v = &values[f * BLOCK..f * BLOCK + n];
                        out.iter_mut().zip(v).for_each(|(o, &x)| *o += t.weight * x);
                    }
                    _ => {
                        prod.fill(t.weight);
                        for &f in factors {
                            let v = &values[f * BLOCK..f * BLOCK + n];
                            prod.iter_mut().zip(v).for_each(|(p, &x)| *p *= x);
                        }
                        out.iter_mut().zip(prod.iter()).for_each(|(o, &p)| *o += p);
                    }
                }
            }
        });
    }
}
