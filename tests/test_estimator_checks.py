"""scikit-learn's own estimator checks. The expected failures are exactly the ones scikit-learn
declares for its own SVC and SVR: at a finite tolerance tol, C * 2 on one example is not bit-for-bit
the same optimisation path as the example written twice (for LaSVM and the SGD solvers, not even
the same order of examples: scikit-learn declares the same for its SGDClassifier)."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import largemargin as lm

SAME_AS_SKLEARN = {
    "check_sample_weight_equivalence_on_dense_data": "sample_weight is not equivalent to removing/repeating samples.",
    "check_sample_weight_equivalence_on_sparse_data": "sample_weight is not equivalent to removing/repeating samples.",
}


@parametrize_with_checks(
    [lm.SVC(), lm.SVR(), lm.LaSVM(), lm.Huller(), lm.KernelPerceptron(), lm.LinearSGD(), lm.MarginPerceptron()],
    # (the baselines take no sample_weight at all)
    expected_failed_checks=lambda est: SAME_AS_SKLEARN,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
