//! From bases to kernel values: each built-in kernel as a map over a block of dot products or
//! squared distances.

use super::primitives::{exp_poly, powi, Store};
use super::KernelSpec;
use crate::runtime::vecops::avx2_fma;

/// out = kernel(base) with the kernel chosen once per block, so each loop is a plain map that
/// the compiler vectorises.
#[inline(always)]
fn apply_transform<S: Store, const FMA: bool>(spec: &KernelSpec, base: &[f64], out: &mut [S]) {
    match *spec {
        KernelSpec::Linear | KernelSpec::Precomputed => {
            for (o, &v) in out.iter_mut().zip(base) {
                *o = S::from_f64(v);
            }
        }
        KernelSpec::Rbf { gamma } => {
            for (o, &v) in out.iter_mut().zip(base) {
                *o = S::from_f64(exp_poly::<FMA>(-gamma * v.max(0.0)));
            }
        }
        KernelSpec::Poly { degree, gamma, coef0 } => {
            for (o, &v) in out.iter_mut().zip(base) {
                *o = S::from_f64(powi(gamma * v + coef0, degree));
            }
        }
        KernelSpec::Sigmoid { gamma, coef0 } => {
            for (o, &v) in out.iter_mut().zip(base) {
                *o = S::from_f64((gamma * v + coef0).tanh());
            }
        }
        KernelSpec::Composite(_) | KernelSpec::External(_) => unreachable!("not a transform of one base"),
    }
}

avx2_fma! {
    [fma]
    /// `apply_transform` with the AVX2+FMA build when the processor has it.
    pub(crate) fn transform_block<S: Store>(spec: &KernelSpec, base: &[f64], out: &mut [S]) {
        if fma {
            apply_transform::<S, true>(spec, base, out)
        } else {
            apply_transform::<S, false>(spec, base, out)
        }
    }
}
