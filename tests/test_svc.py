"""SVC against scikit-learn's LIBSVM on the same data, and against the optimality conditions."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from helpers.kernels import rbf
from sklearn.svm import SVC as SkSVC

import largemargin as lm


def binary_dual(model, X, y_signed, C, gamma):
    """Dual objective and KKT violation of a binary model from its public attributes."""
    alpha = np.zeros(X.shape[0])
    coef = model.dual_coef_.toarray() if sp.issparse(model.dual_coef_) else model.dual_coef_
    alpha[model.support_] = coef[0]  # signed: positive for classes_[1]
    K = rbf(X, X, gamma)
    g = y_signed - K @ alpha
    D = alpha @ y_signed - 0.5 * alpha @ K @ alpha
    A, B = np.minimum(0, C * y_signed), np.maximum(0, C * y_signed)
    up, down = alpha < B - 1e-12, alpha > A + 1e-12
    violation = g[up].max() - g[down].min()
    return D, violation, alpha


@pytest.mark.parametrize("sparse", [False, True])
def test_binary_parity_and_kkt(adult_small, sparse):
    Xtr, ytr, Xte, yte = adult_small
    if not sparse:
        Xtr, Xte = Xtr.toarray(), Xte.toarray()
    C, gamma = 10.0, 0.05
    ours = lm.SVC(C=C, gamma=gamma).fit(Xtr, ytr)
    ref = SkSVC(C=C, gamma=gamma).fit(Xtr, ytr)
    assert abs(len(ours.support_) - len(ref.support_)) <= 0.01 * len(ref.support_)
    assert np.mean(ours.predict(Xte) != ref.predict(Xte)) <= 0.002
    np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(Xte), atol=5e-3)
    y_signed = np.where(ytr == ours.classes_[1], 1.0, -1.0)
    D, violation, alpha = binary_dual(ours, Xtr, y_signed, C, gamma)
    D_ref, _, _ = binary_dual(ref, Xtr, y_signed, C, gamma)
    assert violation < 1e-3 + 1e-9  # tol-optimal
    assert abs(alpha.sum()) < 1e-8  # equality constraint
    assert abs(D - D_ref) <= 1e-3 * abs(D_ref)
    assert abs(D - ours.objective_[0]) <= 1e-6 * abs(D)
    assert ours.n_kernel_evals_ > 0 and ours.fit_time_ > 0


def test_multiclass_parity(digits):
    Xtr, ytr, Xte, yte = digits
    ours = lm.SVC(C=10, gamma=0.05).fit(Xtr, ytr)
    ref = SkSVC(C=10, gamma=0.05).fit(Xtr, ytr)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    # coefficients of a tol=1e-3 solution agree to about tol relative to C
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=2e-2)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=5e-3)
    np.testing.assert_array_equal(ours.predict(Xte), ref.predict(Xte))
    for shape in ("ovo", "ovr"):
        ours.decision_function_shape = ref.decision_function_shape = shape
        np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(Xte), atol=5e-3)
    assert len(ours.objective_) == 45


@pytest.mark.parametrize("kernel", ["linear", "poly", "sigmoid"])
def test_other_kernels_match(digits, kernel):
    Xtr, ytr, Xte, _ = digits
    y = (ytr >= 5).astype(int)
    kw = dict(kernel=kernel, C=1.0, gamma=0.02, coef0=0.5 if kernel != "sigmoid" else -0.5, degree=3)
    ours, ref = lm.SVC(**kw).fit(Xtr, y), SkSVC(**kw).fit(Xtr, y)
    assert abs(len(ours.support_) - len(ref.support_)) <= max(2, 0.01 * len(ref.support_))
    np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(Xte), atol=1e-2)


def test_float32_and_sparse_give_the_same_model(digits):
    Xtr, ytr, Xte, _ = digits
    a = lm.SVC(C=10, gamma=0.05).fit(Xtr, ytr)
    b = lm.SVC(C=10, gamma=0.05).fit(sp.csr_matrix(Xtr), ytr)
    c = lm.SVC(C=10, gamma=0.05).fit(Xtr.astype(np.float32), ytr)
    np.testing.assert_allclose(a.decision_function(Xte), b.decision_function(Xte), atol=1e-6)
    np.testing.assert_allclose(a.decision_function(Xte), c.decision_function(Xte), atol=1e-3)
    assert c.support_vectors_.dtype == np.float32


def test_weights_match_libsvm(digits):
    Xtr, ytr, Xte, _ = digits
    rng = np.random.RandomState(0)
    sw = rng.uniform(0.2, 3.0, len(ytr))
    cw = {0: 3.0, 1: 0.5}
    y = (ytr >= 5).astype(int)
    ours = lm.SVC(C=2, gamma=0.05, class_weight=cw).fit(Xtr, y, sample_weight=sw)
    ref = SkSVC(C=2, gamma=0.05, class_weight=cw).fit(Xtr, y, sample_weight=sw)
    np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(Xte), atol=5e-3)
    bal = lm.SVC(class_weight="balanced").fit(Xtr, y)
    np.testing.assert_allclose(bal.class_weight_, SkSVC(class_weight="balanced").fit(Xtr, y).class_weight_)


def test_precomputed_and_callable_kernels(digits):
    Xtr, ytr, Xte, _ = digits
    y = (ytr % 2).astype(int)
    base = lm.SVC(C=5, gamma=0.05).fit(Xtr, y)
    pre = lm.SVC(C=5, kernel="precomputed").fit(rbf(Xtr, Xtr, 0.05), y)
    np.testing.assert_array_equal(base.support_, pre.support_)
    np.testing.assert_allclose(base.decision_function(Xte), pre.decision_function(rbf(Xte, Xtr, 0.05)), atol=1e-4)
    call = lm.SVC(C=5, kernel=lambda A, B: rbf(A, B, 0.05)).fit(Xtr, y)
    np.testing.assert_allclose(base.decision_function(Xte), call.decision_function(Xte), atol=1e-4)


def test_probability(digits):
    Xtr, ytr, Xte, yte = digits
    m = lm.SVC(C=10, gamma=0.05, probability=True, random_state=0).fit(Xtr, ytr)
    p = m.predict_proba(Xte)
    np.testing.assert_allclose(p.sum(1), 1.0, atol=1e-6)
    assert np.mean(m.classes_[p.argmax(1)] == yte) > 0.9
    ref = SkSVC(C=10, gamma=0.05, probability=True, random_state=0).fit(Xtr, ytr).predict_proba(Xte)
    assert np.abs(p - ref).mean() < 0.02
    again = lm.SVC(C=10, gamma=0.05, probability=True, random_state=0, n_jobs=1).fit(Xtr, ytr)
    np.testing.assert_array_equal(again.predict_proba(Xte), p)  # seed decides, not threads
    with pytest.raises(AttributeError):
        lm.SVC().fit(Xtr, ytr).predict_proba(Xte)


def test_pickle_and_threads_do_not_change_the_model(digits):
    Xtr, ytr, Xte, _ = digits
    a = lm.SVC(C=10, gamma=0.05, n_jobs=1).fit(Xtr, ytr)
    b = lm.SVC(C=10, gamma=0.05, n_jobs=2).fit(Xtr, ytr)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    c = pickle.loads(pickle.dumps(b))
    np.testing.assert_array_equal(c.decision_function(Xte), b.decision_function(Xte))


@pytest.mark.parametrize("sparse", [False, True])
def test_one_binary_problem_on_two_threads_is_the_same_model(sparse):
    # large enough that the solver's passes are split over both threads (and the cache small
    # enough that rows are evicted, recomputed and swapped while cached)
    X, y = lm.make_forest_like(n_samples=6000, random_state=3)
    if sparse:
        X = sp.csr_matrix(X)
    a = lm.SVC(C=10, gamma=0.1, cache_size=20, n_jobs=1).fit(X, y)
    b = lm.SVC(C=10, gamma=0.1, cache_size=20, n_jobs=2).fit(X, y)
    dense = (lambda c: c.toarray()) if sparse else (lambda c: c)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(dense(a.dual_coef_), dense(b.dual_coef_))
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    assert a.n_iter_[0] == b.n_iter_[0]


def test_max_iter_warns(digits):
    from sklearn.exceptions import ConvergenceWarning

    Xtr, ytr, _, _ = digits
    with pytest.warns(ConvergenceWarning):
        m = lm.SVC(max_iter=5).fit(Xtr, ytr)
    assert m.fit_status_ == 1


def test_shrinking_off_and_first_order_reach_the_same_optimum(adult_small):
    Xtr, ytr, _, _ = adult_small
    a = lm.SVC(C=10, gamma=0.05, shrinking=True).fit(Xtr, ytr)
    b = lm.SVC(C=10, gamma=0.05, shrinking=False).fit(Xtr, ytr)
    c = lm.SVC(C=10, gamma=0.05, selection="first_order").fit(Xtr, ytr)
    for other in (b, c):
        assert abs(a.objective_[0] - other.objective_[0]) <= 1e-4 * abs(other.objective_[0])
    assert c.n_iter_[0] > a.n_iter_[0]  # the second-order rule needs fewer steps


@pytest.mark.parametrize("n_classes", [2, 3])
def test_linear_coef_matches_libsvm(n_classes):
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(200, 4))
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5][: n_classes - 1])
    ours, ref = lm.SVC(kernel="linear").fit(X, y), SkSVC(kernel="linear").fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    with pytest.raises(AttributeError, match="linear kernel"):
        lm.SVC().fit(X, y).coef_
