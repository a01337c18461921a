"""NuSVC, NuSVR and OneClassSVM: the same models as scikit-learn's LIBSVM at a tight tolerance
(support vectors, coefficients, intercepts, decisions), the KKT conditions of the per-sign dual,
their attributes, and their refusals of bad input."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as sk
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import largemargin as lm
from largemargin.exceptions import InvalidParameterError

TIGHT = dict(tol=1e-8)


@pytest.fixture(scope="module")
def three_classes():
    return make_classification(300, 8, n_informative=5, n_classes=3, random_state=0)


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(250, 6, noise=5.0, random_state=1)
    return StandardScaler().fit_transform(X), y / y.std()


def same_model(ours, theirs, X, rel=1e-4):
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    scale = np.abs(theirs.dual_coef_).max()
    np.testing.assert_allclose(np.asarray(ours.dual_coef_.todense() if sp.issparse(ours.dual_coef_) else ours.dual_coef_),
                               np.asarray(theirs.dual_coef_.todense() if sp.issparse(theirs.dual_coef_) else theirs.dual_coef_),
                               atol=rel * scale)
    d_ours, d_theirs = ours.decision_function(X) if hasattr(ours, "decision_function") else None, None
    if hasattr(theirs, "decision_function"):
        d_ours, d_theirs = ours.decision_function(X), theirs.decision_function(X)
    else:
        d_ours, d_theirs = ours.predict(X), theirs.predict(X)
    np.testing.assert_allclose(d_ours, d_theirs, atol=rel * max(np.abs(d_theirs).max(), 1.0))
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=rel * max(np.abs(theirs.intercept_).max(), 1.0))


@pytest.mark.parametrize("nu", [0.05, 0.3, 0.6])
@pytest.mark.parametrize("sparse", [False, True])
def test_nu_svc_is_libsvms_model(three_classes, nu, sparse):
    X, y = three_classes
    if sparse:
        # (a random half of the entries: no two rows alike, so the dual is unique)
        X = sp.csr_matrix(X * (np.random.RandomState(2).uniform(size=X.shape) < 0.5))
    ours = lm.NuSVC(nu=nu, decision_function_shape="ovo", **TIGHT).fit(X, y)
    theirs = sk.NuSVC(nu=nu, decision_function_shape="ovo", **TIGHT).fit(X, y)
    same_model(ours, theirs, X)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert sp.issparse(ours.dual_coef_) == sparse


def test_nu_svc_binary_with_weights_and_the_linear_kernel(three_classes):
    X, y = three_classes
    y2 = (y == 1).astype(int)
    w = np.random.RandomState(3).uniform(0.2, 3.0, len(y2))
    ours = lm.NuSVC(nu=0.2, kernel="linear", **TIGHT).fit(X, y2, sample_weight=w)
    theirs = sk.NuSVC(nu=0.2, kernel="linear", **TIGHT).fit(X, y2, sample_weight=w)
    same_model(ours, theirs, X)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-5 * np.abs(theirs.coef_).max())


@pytest.mark.parametrize("nu", [0.1, 0.5, 0.9])
def test_nu_svr_is_libsvms_model(regression, nu):
    X, y = regression
    w = np.random.RandomState(4).uniform(0.5, 2.0, len(y))
    ours = lm.NuSVR(nu=nu, C=3.0, **TIGHT).fit(X, y, sample_weight=w)
    theirs = sk.NuSVR(nu=nu, C=3.0, **TIGHT).fit(X, y, sample_weight=w)
    same_model(ours, theirs, X)
    # nu bounds the fraction of support vectors from below
    assert len(ours.support_) >= nu * len(y) - 1


@pytest.mark.parametrize("nu", [0.02, 0.2, 0.7])
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_one_class_svm_is_libsvms_model(three_classes, nu, kernel):
    X, _ = three_classes
    # (the cubic kernel's region has rho near 0: both solvers take ~10^6 steps at tol=1e-8)
    tol = TIGHT["tol"] if kernel == "rbf" else 1e-5
    ours = lm.OneClassSVM(nu=nu, kernel=kernel, tol=tol).fit(X)
    theirs = sk.OneClassSVM(nu=nu, kernel=kernel, tol=tol).fit(X)
    same_model(ours, theirs, X)
    np.testing.assert_allclose(ours.offset_, theirs.offset_, rtol=1e-6)
    scores = theirs.score_samples(X)
    np.testing.assert_allclose(ours.score_samples(X), scores, atol=1e-5 * np.abs(scores).max())
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    # nu bounds the fraction of training errors (outside by more than the tolerance) from above
    # and of support vectors from below
    assert np.mean(ours.decision_function(X) < -10 * tol) <= nu
    assert len(ours.support_) >= nu * len(X) - 1


def test_one_class_svm_kkt_and_constraint(three_classes):
    X, _ = three_classes
    nu = 0.3
    m = lm.OneClassSVM(nu=nu, gamma=0.1, tol=1e-6).fit(X)
    a = m.dual_coef_.ravel()
    assert np.all(a > 0) and np.all(a <= 1 + 1e-12)
    assert a.sum() == pytest.approx(nu * len(X), rel=1e-10)
    f = m.decision_function(X)
    at_bound = np.isin(np.arange(len(X)), m.support_[a >= 1 - 1e-12])
    free = np.isin(np.arange(len(X)), m.support_[a < 1 - 1e-12])
    outside = ~np.isin(np.arange(len(X)), m.support_)
    # free vectors on the boundary, bounded ones outside or on it, the others inside or on it
    assert np.abs(f[free]).max() < 1e-4
    assert f[at_bound].max() < 1e-4
    assert f[outside].min() > -1e-4


def test_parallel_fits_are_the_same_model(three_classes):
    X, y = three_classes
    for make in (lambda j: lm.NuSVC(nu=0.3, n_jobs=j), lambda j: lm.OneClassSVM(nu=0.3, n_jobs=j)):
        one, two = make(1).fit(X, y), make(2).fit(X, y)
        np.testing.assert_array_equal(one.support_, two.support_)
        np.testing.assert_array_equal(one.dual_coef_, two.dual_coef_)
        np.testing.assert_array_equal(one.intercept_, two.intercept_)


def test_nu_svc_probabilities_and_ties(three_classes):
    X, y = three_classes
    m = lm.NuSVC(nu=0.3, probability=True, random_state=0).fit(X, y)
    p = m.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.mean(p.argmax(axis=1) == y) > 0.8
    assert lm.NuSVC(nu=0.3, break_ties=True).fit(X, y).score(X, y) > 0.8


@pytest.mark.parametrize("nu", [0.0, -0.1, 1.5, np.nan])
@pytest.mark.parametrize("cls", [lm.NuSVC, lm.NuSVR, lm.OneClassSVM])
def test_nu_outside_the_unit_interval_is_refused(three_classes, cls, nu):
    X, y = three_classes
    with pytest.raises(InvalidParameterError, match="nu"):
        cls(nu=nu).fit(X, y)


def test_infeasible_nu_names_the_pair():
    X = np.random.RandomState(0).randn(40, 2)
    y = np.array(["a"] * 30 + ["b"] * 10)
    with pytest.raises(ValueError, match=r"specified nu is infeasible for the classes 'a' and 'b'.*at most 0\.5"):
        lm.NuSVC(nu=0.6).fit(X, y)
    lm.NuSVC(nu=0.5).fit(X, y)  # the largest feasible nu is fine
    # the bound printed is feasible as printed (rounded down)
    y3 = np.array(["a"] * 10 + ["b"] * 20 + ["a"] * 10)[:30]
    with pytest.raises(ValueError, match=r"at most 0\.666666666.* \(e\.g\. 0\.666666\)"):
        lm.NuSVC(nu=0.7).fit(X[:30], y3)
    lm.NuSVC(nu=0.666666).fit(X[:30], y3)
    # a class left without weight: LIBSVM's words, and why
    w = (y == "a").astype(float)
    with pytest.raises(ValueError, match="specified nu is infeasible .*class 'b' has no sample of positive weight"):
        lm.NuSVC().fit(X, y, sample_weight=w)


def test_one_class_on_one_row_is_refused():
    with pytest.raises(ValueError, match="at least 2 samples.*got 1 sample"):
        lm.OneClassSVM().fit([[1.0, 2.0]])
    with pytest.raises(ValueError, match="got 1 sample"):
        lm.OneClassSVM().fit([[1.0], [2.0], [3.0]], sample_weight=[1.0, 0.0, 0.0])


def test_max_iter_warns_and_sets_fit_status(three_classes):
    X, y = three_classes
    for m in (lm.NuSVC(max_iter=2), lm.NuSVR(max_iter=2), lm.OneClassSVM(max_iter=2)):
        with pytest.warns(ConvergenceWarning, match="max_iter=2"):
            m.fit(X, y)
        assert m.fit_status_ == 1


def test_pickle_clone_search_and_pipeline(three_classes, regression):
    X, y = three_classes
    for m in (lm.NuSVC(nu=0.4), lm.OneClassSVM(nu=0.1)):
        m.fit(X, y)
        back = pickle.loads(pickle.dumps(m))
        np.testing.assert_array_equal(back.decision_function(X), m.decision_function(X))
        assert clone(m).get_params() == m.get_params()
    search = GridSearchCV(lm.NuSVC(), {"nu": [0.2, 0.5], "gamma": [0.05, 0.2]}, cv=3).fit(X, y)
    assert search.best_score_ > 0.7
    Xr, yr = regression
    pipe = make_pipeline(StandardScaler(), lm.NuSVR(nu=0.5, C=10)).fit(Xr, yr)
    assert pipe.score(Xr, yr) > 0.9
    assert lm.OneClassSVM(nu=0.2).fit_predict(X).shape == (len(X),)


def test_class_weight_is_kept_but_does_not_change_nu_svc(three_classes):
    X, y = three_classes
    plain = lm.NuSVC(nu=0.3).fit(X, y)
    weighted = lm.NuSVC(nu=0.3, class_weight={0: 5.0}).fit(X, y)
    np.testing.assert_array_equal(weighted.class_weight_, [5.0, 1.0, 1.0])
    np.testing.assert_array_equal(plain.dual_coef_, weighted.dual_coef_)


def test_default_tolerance_follows_libsvms_path(three_classes, regression):
    """At LIBSVM's own tolerance the per-sign problems are solved to a precision that their
    rescaling by the margin magnifies; the solver takes LIBSVM's steps in LIBSVM's arithmetic, so
    the models are LIBSVM's anyway: the same iterations, the same coefficients to rounding."""
    X, y = three_classes
    for nu in (0.1, 0.3):
        ours, theirs = lm.NuSVC(nu=nu).fit(X, y), sk.NuSVC(nu=nu).fit(X, y)
        np.testing.assert_array_equal(ours.n_iter_, theirs.n_iter_)
        np.testing.assert_array_equal(ours.support_, theirs.support_)
        np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=1e-12, atol=1e-12)
    Xr, yr = regression
    ours, theirs = lm.NuSVR(nu=0.5, C=10).fit(Xr, yr), sk.NuSVR(nu=0.5, C=10).fit(Xr, yr)
    assert ours.n_iter_ == theirs.n_iter_
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=1e-12, atol=1e-12)
