"""LinearSVC and LinearSVR against scikit-learn's classes of the same names (LIBLINEAR): the same
primal objective (within 1e-3 relative at the same C and tol) and the same predictions, on dense
and sparse data, two and more classes, weights, intercept scaling, both losses, Crammer-Singer;
scikit-learn's estimator checks; pickles, clones, searches and pipelines; bad input."""

import pickle
import warnings

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
from sklearn.utils.estimator_checks import parametrize_with_checks

import largemargin as lm
from largemargin.exceptions import InvalidParameterError

RTOL = 1e-3


def weights_with_bias(model, scaling):
    """(coef rows, the bias feature's weights): the intercept is that weight times the scaling."""
    coef = np.atleast_2d(model.coef_)
    bias = np.atleast_1d(model.intercept_) / scaling if model.fit_intercept else np.zeros(len(coef))
    return coef, bias * np.ones(len(coef))


def svc_objective(model, X, y, sample_weight=None, class_weight=None):
    """The primal LIBLINEAR minimises, summed over the one-vs-rest problems (with its class weights:
    a class's weight on its own examples in its own problem), or Crammer-Singer's."""
    classes = model.classes_
    scaling = float(model.intercept_scaling)
    coef, bias = weights_with_bias(model, scaling)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    cw = {c: 1.0 for c in classes} if class_weight is None else {c: class_weight.get(c, 1.0) for c in classes}
    scores = np.asarray(X @ coef.T) + np.atleast_1d(model.intercept_ if model.fit_intercept else 0.0)
    reg = 0.5 * (np.sum(coef ** 2) + np.sum(bias ** 2))
    if model.multi_class == "crammer_singer" and len(classes) > 2:
        yi = np.searchsorted(classes, y)
        margins = scores - scores[np.arange(len(y)), yi][:, None] + 1.0
        margins[np.arange(len(y)), yi] = 0.0
        c = model.C * sw * np.array([cw[v] for v in y])
        return reg + np.sum(c * margins.max(axis=1))
    square = model.loss == "squared_hinge"
    total = reg
    problems = [classes[1]] if len(classes) == 2 else list(classes)
    for p, positive in enumerate(problems):
        t = np.where(y == positive, 1.0, -1.0)
        if len(classes) == 2:
            c = np.array([cw[v] for v in y])
        else:
            c = np.where(y == positive, cw[positive], 1.0)
        h = np.maximum(0.0, 1.0 - t * scores[:, p])
        total += model.C * np.sum(sw * c * (h ** 2 if square else h))
    return total


def svr_objective(model, X, y, sample_weight=None):
    scaling = float(model.intercept_scaling)
    bias = model.intercept_[0] / scaling if model.fit_intercept else 0.0
    r = y - (X @ model.coef_ + (model.intercept_[0] if model.fit_intercept else 0.0))
    h = np.maximum(0.0, np.abs(r) - model.epsilon)
    sw = np.ones(len(y)) if sample_weight is None else sample_weight
    loss = h ** 2 if model.loss == "squared_epsilon_insensitive" else h
    return 0.5 * (model.coef_ @ model.coef_ + bias ** 2) + model.C * np.sum(sw * loss)


def classification(n_classes=2, n=300, d=20, seed=0):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=8, n_classes=n_classes, flip_y=0.1,
                               random_state=seed)
    return StandardScaler().fit_transform(X), y


def sparse_of(X):
    X = np.where(np.abs(X) < 0.7, 0.0, X)  # about half the entries zero
    return sp.csr_matrix(X)


def fit_both(ours, theirs, X, y, **fit_kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return ours.fit(X, y, **fit_kw), theirs.fit(X, y, **fit_kw)


def agree(a, b, X, min_agreement=0.99):
    return np.mean(a.predict(X) == b.predict(X)) >= min_agreement


CASES = [
    dict(),
    dict(loss="hinge"),
    dict(C=10.0, intercept_scaling=5.0),
    dict(fit_intercept=False),
    dict(loss="hinge", C=0.1, class_weight="balanced"),
]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_linear_svc_matches_scikit_learn(case, n_classes, sparse):
    X, y = classification(n_classes)
    if n_classes == 4:
        y = np.array(["a", "b", "c", "d"])[y]  # labels of any type
    X = sparse_of(X) if sparse else X
    # (both solve the dual to the end: scikit-learn's dual="auto" solves the primal when n > d)
    params = dict(CASES[case], tol=1e-5, random_state=0, max_iter=100_000, dual=True)
    ours, theirs = fit_both(lm.LinearSVC(**params), sk.LinearSVC(**params), X, y)
    cw = None
    if params.get("class_weight") == "balanced":
        from sklearn.utils.class_weight import compute_class_weight

        cw = dict(zip(theirs.classes_, compute_class_weight("balanced", classes=theirs.classes_, y=y)))
    assert np.array_equal(ours.classes_, theirs.classes_)
    assert ours.coef_.shape == theirs.coef_.shape and np.shape(ours.intercept_) == np.shape(theirs.intercept_)
    mine, ref = svc_objective(ours, X, y, class_weight=cw), svc_objective(theirs, X, y, class_weight=cw)
    assert abs(mine - ref) <= RTOL * ref, (mine, ref)
    assert agree(ours, theirs, X)
    assert isinstance(ours.n_iter_, int) and ours.n_iter_ >= 1


@pytest.mark.parametrize("sparse", [False, True])
def test_weights_match_scikit_learn(sparse):
    X, y = classification(3, seed=3)
    X = sparse_of(X) if sparse else X
    sw = np.random.RandomState(0).uniform(0.0, 3.0, len(y))
    sw[:5] = 0.0
    cw = {0: 2.0, 2: 0.5}
    params = dict(class_weight=cw, tol=1e-5, random_state=0, C=0.5, dual=True, max_iter=100_000)
    ours, theirs = fit_both(lm.LinearSVC(**params), sk.LinearSVC(**params), X, y, sample_weight=sw)
    mine = svc_objective(ours, X, y, sample_weight=sw, class_weight=cw)
    ref = svc_objective(theirs, X, y, sample_weight=sw, class_weight=cw)
    assert abs(mine - ref) <= RTOL * ref, (mine, ref)
    assert agree(ours, theirs, X)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("dual", [True, False])
def test_balanced_weights_with_sample_weights_match_scikit_learn(n_classes, dual):
    """class_weight="balanced" counts the classes as the installed scikit-learn's LinearSVC does
    (by their sample weights in 1.9, by their examples in 1.6): the same model either way."""
    X, y = make_classification(800, 30, weights=[0.7, 0.3] if n_classes == 2 else [0.6, 0.3, 0.1], n_informative=8,
                               n_classes=n_classes, random_state=0)
    sw = np.random.RandomState(0).uniform(0.2, 3.0, len(y))
    params = dict(class_weight="balanced", tol=1e-6, random_state=0, dual=dual, max_iter=100_000)
    ours, theirs = fit_both(lm.LinearSVC(**params), sk.LinearSVC(**params), X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-3, atol=1e-4)
    assert agree(ours, theirs, X, min_agreement=0.995)


def test_crammer_singer_has_liblinears_own_cap_on_iterations():
    """LIBLINEAR's Crammer-Singer solver runs to its tolerance (up to 100,000 iterations) whatever
    max_iter says, and scikit-learn's n_iter_ shows it: at the default max_iter both reach the same
    optimum, and both warn once n_iter_ reaches max_iter."""
    X, y = make_classification(1200, 40, n_informative=15, n_classes=4, n_clusters_per_class=1, random_state=1)
    params = dict(multi_class="crammer_singer", C=0.5, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        ours = lm.LinearSVC(**params).fit(X, y)
    theirs = fit_both(sk.LinearSVC(**params), sk.LinearSVC(**params), X, y)[1]
    mine, ref = svc_objective(ours, X, y), svc_objective(theirs, X, y)
    assert abs(mine - ref) <= 1e-4 * ref, (mine, ref)
    assert ours.n_iter_ > ours.max_iter
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    few = lm.LinearSVC(**params, max_iter=10)
    with pytest.warns(ConvergenceWarning):
        few.fit(X, y)
    assert few.n_iter_ == ours.n_iter_


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("sparse", [False, True])
def test_crammer_singer_matches_scikit_learn(n_classes, sparse):
    X, y = classification(n_classes, seed=n_classes)
    X = sparse_of(X) if sparse else X
    params = dict(multi_class="crammer_singer", tol=1e-5, random_state=0, C=0.3, max_iter=100_000)
    ours, theirs = fit_both(lm.LinearSVC(**params), sk.LinearSVC(**params), X, y)
    assert ours.coef_.shape == theirs.coef_.shape
    if n_classes > 2:
        mine, ref = svc_objective(ours, X, y), svc_objective(theirs, X, y)
        assert abs(mine - ref) <= RTOL * ref, (mine, ref)
    # (two classes: one row, the difference of the two classes' weights, from which the objective
    # cannot be recovered; the decisions must agree)
    ours_d, theirs_d = ours.decision_function(X), theirs.decision_function(X)
    np.testing.assert_allclose(ours_d, theirs_d, atol=1e-3)
    # Crammer-Singer's optimum puts many examples on exact ties between two classes' scores: the
    # predictions agree wherever the top two scores differ
    if n_classes > 2:
        top2 = np.sort(theirs_d, axis=1)[:, -2:]
        clear = top2[:, 1] - top2[:, 0] > 1e-3
        assert np.array_equal(ours.predict(X)[clear], theirs.predict(X)[clear])
    else:
        assert agree(ours, theirs, X)


SVR_CASES = [
    dict(),
    dict(loss="squared_epsilon_insensitive"),
    dict(epsilon=5.0, C=0.1),
    dict(fit_intercept=False),
    dict(intercept_scaling=10.0, loss="squared_epsilon_insensitive", dual=False),
]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("case", range(len(SVR_CASES)))
def test_linear_svr_matches_scikit_learn(case, sparse):
    X, y = make_regression(n_samples=300, n_features=15, noise=10.0, bias=30.0, random_state=1)
    X = StandardScaler().fit_transform(X)
    X = sparse_of(X) if sparse else X
    params = dict(SVR_CASES[case], tol=1e-5, random_state=0, max_iter=100_000)
    sw = np.random.RandomState(1).uniform(0.5, 2.0, len(y)) if case == 2 else None
    ours, theirs = fit_both(lm.LinearSVR(**params), sk.LinearSVR(**params), X, y, sample_weight=sw)
    mine, ref = svr_objective(ours, X, y, sw), svr_objective(theirs, X, y, sw)
    assert abs(mine - ref) <= RTOL * ref, (mine, ref)
    assert ours.coef_.shape == theirs.coef_.shape and np.shape(ours.intercept_) == np.shape(theirs.intercept_)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0.02, atol=0.02 * np.std(y))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_the_defaults_solve_the_primal_as_scikit_learn_does(n_classes, sparse):
    # n_samples > n_features with the squared hinge: both solve the primal by trust-region Newton,
    # and both converge within the default max_iter where the dual would take thousands of passes
    X, y = classification(n_classes, seed=9)
    X = sparse_of(X) if sparse else X
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = lm.LinearSVC(C=10.0, intercept_scaling=5.0, random_state=0).fit(X, y)
        theirs = sk.LinearSVC(C=10.0, intercept_scaling=5.0, random_state=0).fit(X, y)
    mine, ref = svc_objective(ours, X, y), svc_objective(theirs, X, y)
    assert abs(mine - ref) <= RTOL * ref, (mine, ref)
    assert agree(ours, theirs, X)
    assert ours.n_iter_ < 50


@pytest.mark.parametrize("sparse", [False, True])
def test_the_squared_regressor_solves_the_primal_as_scikit_learn_does(sparse):
    X, y = make_regression(n_samples=400, n_features=10, noise=5.0, bias=3.0, random_state=2)
    X = sparse_of(StandardScaler().fit_transform(X)) if sparse else X
    sw = np.random.RandomState(3).uniform(0.0, 2.0, len(y))
    params = dict(loss="squared_epsilon_insensitive", epsilon=1.0, C=3.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours, theirs = lm.LinearSVR(**params).fit(X, y, sample_weight=sw), sk.LinearSVR(**params).fit(X, y, sample_weight=sw)
    mine, ref = svr_objective(ours, X, y, sw), svr_objective(theirs, X, y, sw)
    assert abs(mine - ref) <= RTOL * ref, (mine, ref)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-3, atol=1e-3 * np.std(y))


def test_the_model_does_not_depend_on_n_jobs_and_float32_reads_in_place():
    X, y = classification(5, n=400, seed=7)
    for dual in (True, False):
        one = lm.LinearSVC(random_state=1, n_jobs=1, dual=dual, max_iter=10_000).fit(X, y)
        two = lm.LinearSVC(random_state=1, n_jobs=2, dual=dual, max_iter=10_000).fit(X, y)
        np.testing.assert_array_equal(one.coef_, two.coef_)
    # one binary problem in the primal: its passes split over the threads, the same sums
    Xb, yb = classification(2, n=5000, seed=8)
    alone = lm.LinearSVC(random_state=1, n_jobs=1, dual=False).fit(Xb, yb)
    team = lm.LinearSVC(random_state=1, n_jobs=2, dual=False).fit(Xb, yb)
    np.testing.assert_array_equal(alone.coef_, team.coef_)
    double = lm.LinearSVC(random_state=1).fit(X, y)
    single = lm.LinearSVC(random_state=1).fit(X.astype(np.float32), y)
    assert agree(single, double, X)


def test_convergence_warning_as_scikit_learn_words_it():
    X, y = classification(2, seed=4)
    with pytest.warns(ConvergenceWarning, match="Liblinear failed to converge, increase the number of iterations"):
        model = lm.LinearSVC(max_iter=2, tol=1e-10, C=100.0, random_state=0).fit(X, y)
    assert model.n_iter_ == 2
    with pytest.warns(ConvergenceWarning, match="Liblinear failed to converge"):
        lm.LinearSVR(max_iter=1, tol=1e-10).fit(X, y.astype(float))


def test_pickle_clone_grid_search_and_pipeline():
    X, y = classification(3, seed=5)
    model = lm.LinearSVC(C=0.5, random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    assert clone(model).get_params() == model.get_params()
    search = GridSearchCV(lm.LinearSVC(random_state=0), {"C": [0.01, 1.0], "loss": ["hinge", "squared_hinge"]},
                          cv=3).fit(X, y)
    assert search.best_score_ > 0.5
    pipe = make_pipeline(StandardScaler(), lm.LinearSVR(random_state=0)).fit(X, X[:, 0] * 2.0)
    assert pipe.score(X, X[:, 0] * 2.0) > 0.99


@pytest.mark.parametrize("make, message", [
    (lambda: lm.LinearSVC(dual=False, loss="hinge"), "penalty='l2' and loss='hinge' are not supported when dual=False"),
    (lambda: lm.LinearSVC(penalty="l1", loss="hinge"), "penalty='l1' and loss='hinge' are not supported, Param"),
    (lambda: lm.LinearSVC(penalty="l1", dual=True), "penalty='l1' and loss='squared_hinge' are not supported when"),
    (lambda: lm.LinearSVC(penalty="l1", dual=False), "penalty='l1' is not supported by largemargin.LinearSVC"),
    (lambda: lm.LinearSVC(C=0.0), "C must be"),
    (lambda: lm.LinearSVC(C=-1.0), "C must be"),
    (lambda: lm.LinearSVC(tol=0.0), "tol must be"),
    (lambda: lm.LinearSVC(loss="log"), "loss must be"),
    (lambda: lm.LinearSVC(multi_class="ovo"), "multi_class must be"),
    (lambda: lm.LinearSVC(intercept_scaling=0.0), "intercept_scaling must be"),
    (lambda: lm.LinearSVR(dual=False), "loss='epsilon_insensitive' are not supported when dual=False"),
    (lambda: lm.LinearSVR(epsilon=-1.0), "epsilon must be"),
])
def test_bad_parameters_are_refused_by_name(make, message):
    X, y = classification(2)
    with pytest.raises(InvalidParameterError, match=message):
        make().fit(X, y)


def test_dual_false_with_squared_hinge_solves_the_same_problem():
    X, y = classification(2, seed=6)
    ours = lm.LinearSVC(dual=False, tol=1e-5, random_state=0).fit(X, y)
    theirs = sk.LinearSVC(dual=False, tol=1e-5).fit(X, y)
    assert abs(svc_objective(ours, X, y) - svc_objective(theirs, X, y)) <= RTOL * svc_objective(theirs, X, y)
    # crammer_singer ignores loss and dual, as scikit-learn does
    lm.LinearSVC(multi_class="crammer_singer", loss="hinge", dual=False).fit(X, y)


def test_bad_data_is_refused_clearly():
    X, y = classification(2)
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 3 of the features \(X\) contains NaN"):
        lm.LinearSVC().fit(bad, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        lm.LinearSVC().fit(X, np.zeros(len(y)))
    model = lm.LinearSVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])
    reg = lm.LinearSVR().fit(X, y.astype(float))
    with pytest.raises(ValueError, match="features"):
        reg.predict(X[:, :5])
    with pytest.raises(ValueError, match="Negative values"):
        lm.LinearSVC().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError):
        lm.LinearSVR().fit(X, np.full(len(y), np.inf))


def test_unsorted_csr_indices_are_read_after_sorting():
    X, y = classification(2, seed=8)
    S = sparse_of(X)
    unsorted = sp.csr_matrix((S.data.copy(), S.indices.copy(), S.indptr.copy()), shape=S.shape)
    for r in range(unsorted.shape[0]):  # reverse every row's entries
        a, b = unsorted.indptr[r], unsorted.indptr[r + 1]
        unsorted.indices[a:b] = unsorted.indices[a:b][::-1]
        unsorted.data[a:b] = unsorted.data[a:b][::-1]
    unsorted.has_sorted_indices = False
    a = lm.LinearSVC(random_state=0).fit(S, y)
    b = lm.LinearSVC(random_state=0).fit(unsorted, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


# The expected failures are scikit-learn's own for its LinearSVC/LinearSVR (sample weights are a
# per-example C: at finite tol, C * 2 on one example is not the same path as the example twice).
SAME_AS_SKLEARN = {
    "check_sample_weight_equivalence_on_dense_data": "sample_weight is not equivalent to removing/repeating samples.",
    "check_sample_weight_equivalence_on_sparse_data": "sample_weight is not equivalent to removing/repeating samples.",
}


@parametrize_with_checks([lm.LinearSVC(), lm.LinearSVC(multi_class="crammer_singer"), lm.LinearSVR()],
                         expected_failed_checks=lambda est: SAME_AS_SKLEARN)
def test_sklearn_compatible(estimator, check):
    check(estimator)
