"""SVCSearchCV and SVRSearchCV against GridSearchCV over the same estimator: the same folds, the same
cv_results_ keys and, with c_start="cold" (every fit from zero, as GridSearchCV's), the same scores."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold

import largemargin as lm


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(n_samples=400, n_features=8, n_informative=5, flip_y=0.05, random_state=0)
    return X, np.where(y == 1, "yes", "no")


@pytest.fixture(scope="module")
def three():
    X, y = make_classification(n_samples=450, n_features=10, n_informative=6, n_classes=3, random_state=1)
    return X, y


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(n_samples=300, n_features=6, noise=5.0, random_state=2)
    return X, y / 50.0


CV = KFold(4, shuffle=True, random_state=0)
GRID = {"C": [0.3, 3.0, 30.0], "gamma": [0.02, 0.1]}


def scores(results):
    return [k for k in results if "_score" in k and "time" not in k]


def same_results(ours, theirs, exact=True, rtol=0.0):
    """Exact: the same scores (up to `rtol`: regression scores read decision values from the float32
    kernel values the solver used, a fit's predict computes them in float64)."""
    assert set(ours.cv_results_) == set(theirs.cv_results_)
    keys = [k for k in theirs.cv_results_ if ("_score" in k and "time" not in k) or k.startswith("param_")]
    for k in keys:
        a, b = ours.cv_results_[k], theirs.cv_results_[k]
        if k.startswith("param_"):
            assert list(a) == list(b), k
        elif exact:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12 if rtol == 0 else 1e-6, err_msg=k)
        elif k.startswith("mean_test") or k.startswith("split"):
            np.testing.assert_allclose(a, b, rtol=0, atol=0.021, err_msg=k)
    assert ours.cv_results_["params"] == theirs.cv_results_["params"]


@pytest.mark.parametrize("data", ["binary", "three"])
def test_cold_search_scores_as_gridsearchcv(data, request):
    X, y = request.getfixturevalue(data)
    ours = lm.SVCSearchCV(lm.SVC(), GRID, cv=CV, c_start="cold").fit(X, y)
    theirs = GridSearchCV(lm.SVC(), GRID, cv=CV).fit(X, y)
    same_results(ours, theirs)
    assert ours.best_params_ == theirs.best_params_
    assert ours.best_score_ == theirs.best_score_
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X))
    assert ours.native_ and ours.n_kernel_evals_ > 0
    assert ours.search_stats_["cached_row_hits"] > 0


@pytest.mark.parametrize("c_start", ["auto", "keep", "scale"])
def test_warm_starts_score_within_the_solver_tolerance(three, c_start):
    X, y = three
    ours = lm.SVCSearchCV(lm.SVC(), GRID, cv=CV, c_start=c_start).fit(X, y)
    cold = lm.SVCSearchCV(lm.SVC(), GRID, cv=CV, c_start="cold").fit(X, y)
    same_results(ours, cold, exact=False)
    if c_start != "scale":  # (scaling can cost more than it saves: "auto" looks at both)
        assert ours.n_iter_.sum() <= cold.n_iter_.sum()


def test_multiclass_scorers_reading_decision_values(three):
    """Accuracy alone keeps only the votes; a scorer reading decision_function, or break_ties, gets the
    one-vs-rest scores of every model."""
    X, y = three
    ovr = lambda est, X, y: float(np.mean(np.argmax(est.decision_function(X), axis=1) == y))  # noqa: E731
    for est, scoring in [(lm.SVC(), {"acc": "accuracy", "ovr": ovr}), (lm.SVC(break_ties=True), None)]:
        kw = dict(cv=CV, scoring=scoring, refit="acc" if scoring else True)
        ours = lm.SVCSearchCV(est, GRID, c_start="cold", **kw).fit(X, y)
        theirs = GridSearchCV(est, GRID, **kw).fit(X, y)
        same_results(ours, theirs)


def test_train_scores_multimetric_and_callable_scorers(binary):
    X, y = binary
    scoring = {"acc": "accuracy", "auc": "roc_auc", "bal": "balanced_accuracy",
               "mine": lambda est, X, y: float(np.mean(est.predict(X) == y))}
    kw = dict(cv=CV, scoring=scoring, refit="auc", return_train_score=True)
    ours = lm.SVCSearchCV(lm.SVC(), GRID, c_start="cold", **kw).fit(X, y)
    theirs = GridSearchCV(lm.SVC(), GRID, **kw).fit(X, y)
    same_results(ours, theirs)
    assert ours.best_index_ == theirs.best_index_
    np.testing.assert_array_equal(ours.cv_results_["mean_test_acc"], ours.cv_results_["mean_test_mine"])
    assert ours.score(X, y) == theirs.score(X, y)


def test_what_each_fold_derives_from_its_rows(three):
    """gamma='scale' and class_weight='balanced' are computed from each fold's training rows, as a fit
    on that fold does; sample_weight reaches every fold's fit and the refit."""
    X, y = three
    X = X * np.linspace(0.5, 3.0, X.shape[1])
    grid = [{"C": [1.0, 10.0], "gamma": ["scale", "auto", 0.05], "class_weight": [None, "balanced", {0: 2.0, 1: 1.0, 2: 0.5}]}]
    w = np.random.RandomState(0).uniform(0.2, 2.0, len(y))
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = lm.SVCSearchCV(lm.SVC(), grid, cv=cv, c_start="cold").fit(X, y, sample_weight=w)
    theirs = GridSearchCV(lm.SVC(), grid, cv=cv).fit(X, y, sample_weight=w)
    same_results(ours, theirs)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_sparse_input_and_other_kernels(binary):
    X, y = binary
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.7, X, 0.0))
    grid = [{"C": [0.5, 5.0], "kernel": ["poly"], "degree": [2, 3], "coef0": [0.0, 1.0], "gamma": [0.1]},
            {"C": [0.5, 5.0], "kernel": ["linear", "sigmoid"], "gamma": [0.01]},
            {"C": [1.0], "kernel": [lm.kernels.RBF(0.1) + lm.kernels.Linear()]}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = lm.SVCSearchCV(lm.SVC(max_iter=100000), grid, cv=CV, c_start="cold").fit(Xs, y)
        theirs = GridSearchCV(lm.SVC(max_iter=100000), grid, cv=CV).fit(Xs, y)
    same_results(ours, theirs)
    assert ours.native_


def test_regression_as_gridsearchcv(regression):
    X, y = regression
    grid = {"C": [0.5, 5.0, 50.0], "epsilon": [0.01, 0.1], "gamma": ["scale", 0.05]}
    ours = lm.SVRSearchCV(lm.SVR(), grid, cv=CV, c_start="cold").fit(X, y)
    theirs = GridSearchCV(lm.SVR(), grid, cv=CV).fit(X, y)
    same_results(ours, theirs, rtol=1e-6)
    assert ours.best_params_ == theirs.best_params_
    warm = lm.SVRSearchCV(lm.SVR(), grid, cv=CV, scoring="neg_mean_squared_error").fit(X, y)
    assert warm.best_score_ < 0 and warm.best_estimator_.epsilon in (0.01, 0.1)
    np.testing.assert_allclose(warm.predict(X), warm.best_estimator_.predict(X))


def test_results_do_not_depend_on_threads_or_cache(three):
    X, y = three
    runs = [lm.SVCSearchCV(lm.SVC(cache_size=cache), GRID, cv=CV, n_jobs=jobs).fit(X, y)
            for jobs, cache in [(1, 200), (2, 200), (2, 0.05)]]
    for r in runs[1:]:
        for k in scores(r.cv_results_):
            np.testing.assert_array_equal(r.cv_results_[k], runs[0].cv_results_[k])
        np.testing.assert_array_equal(r.n_iter_, runs[0].n_iter_)


def test_grids_it_cannot_run_go_to_gridsearchcv(binary):
    X, y = binary
    for est, grid, why in [
        (lm.SVC(), {"C": [1.0, 2.0], "tol": [1e-3, 1e-2]}, "tol"),
        (lm.SVC(solver="isda"), {"C": [1.0, 2.0]}, "isda"),
        (lm.SVC(probability=True), {"C": [1.0]}, "probability"),
        (lm.SVC(kernel=lambda A, B: A @ B.T), {"C": [1.0]}, "Python"),
    ]:
        with pytest.warns(UserWarning, match=why):
            ours = lm.SVCSearchCV(est, grid, cv=3).fit(X, y)
        theirs = GridSearchCV(est, grid, cv=3).fit(X, y)
        assert not ours.native_
        np.testing.assert_array_equal(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"])
        assert ours.best_params_ == theirs.best_params_


def test_what_a_fit_trains_and_the_search_cannot_goes_to_gridsearchcv(three):
    # a hard margin, and a class without training weight (a fit trains without it)
    X, y = three
    no_class_2 = (y != 2).astype(float)
    for grid, fit_params, why in [
        ({"C": [1.0, np.inf]}, {}, "C=inf"),
        ({"C": [0.5, 2.0], "gamma": [0.1, 1.0]}, {"sample_weight": no_class_2}, "positive weight"),
        ({"C": [1.0], "class_weight": [None, {0: 1.0, 1: 1.0, 2: 0.0}]}, {}, "positive weight"),
    ]:
        with pytest.warns(UserWarning, match=why):
            ours = lm.SVCSearchCV(lm.SVC(), grid, cv=3).fit(X, y, **fit_params)
        theirs = GridSearchCV(lm.SVC(), grid, cv=3).fit(X, y, **fit_params)
        assert not ours.native_
        np.testing.assert_array_equal(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"])


def test_a_scorer_of_probabilities_is_refused_before_any_fit(three):
    X, y = three
    with pytest.raises(AttributeError, match="scoring 'neg_log_loss' needs predict_proba"):
        lm.SVCSearchCV(lm.SVC(), {"C": [1.0]}, cv=3, scoring="neg_log_loss").fit(X, y)
    with pytest.raises(AttributeError, match="scoring 'proba' needs predict_proba"):
        lm.SVCSearchCV(lm.SVC(), {"C": [1.0]}, cv=3, scoring={"acc": "accuracy", "proba": "roc_auc_ovr"},
                       refit=False).fit(X, y)


def test_bad_parameters_are_refused(binary):
    X, y = binary
    with pytest.raises(ValueError, match="c_start"):
        lm.SVCSearchCV(c_start="warm").fit(X, y)
    with pytest.raises(TypeError, match="largemargin.SVC"):
        lm.SVCSearchCV(lm.SVR()).fit(X, y)
    with pytest.raises(ValueError, match="refit"):
        lm.SVCSearchCV(scoring=["accuracy", "f1_macro"], refit=True).fit(X, y)
    with pytest.raises(ValueError, match="C must be a positive"):
        lm.SVCSearchCV(param_grid={"C": [1.0, -1.0]}).fit(X, y)
    with pytest.raises(ValueError, match="gamma"):
        lm.SVCSearchCV(param_grid={"C": [1.0], "gamma": ["wide"]}).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any fallback to GridSearchCV
        with pytest.raises(ValueError, match="Invalid parameter 'Gamma'"):
            lm.SVCSearchCV(param_grid={"C": [1.0], "Gamma": [0.1]}).fit(X, y)
    with pytest.raises(ValueError, match="epsilon must be"):
        lm.SVRSearchCV(param_grid={"C": [1.0], "epsilon": ["a"]}).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="NaN|infinity"):
        lm.SVCSearchCV().fit(np.where(X > 2, np.nan, X), y)
    with pytest.raises(ValueError, match=r"two classes, got only \[0.0\]"):
        lm.SVCSearchCV().fit(X, np.zeros(len(y)))


def test_a_failed_fit_leaves_the_search_as_it_was(binary):
    X, y = binary
    s = lm.SVCSearchCV(param_grid={"C": [1.0, 10.0]}, cv=3).fit(X, y)
    before = dict(s.cv_results_)
    with pytest.raises(ValueError):
        s.fit(X, y[:-1])
    with pytest.raises(ValueError, match="NaN|infinity"):
        s.fit(np.where(X > 2, np.inf, X), y)
    assert s.cv_results_.keys() == before.keys() and s.best_params_ in before["params"]
    np.testing.assert_array_equal(s.cv_results_["mean_test_score"], before["mean_test_score"])


def test_refit_false_and_pickling(binary):
    X, y = binary
    s = lm.SVCSearchCV(param_grid={"C": [1.0, 10.0]}, refit=False).fit(X, y)
    g = GridSearchCV(lm.SVC(), {"C": [1.0, 10.0]}, refit=False).fit(X, y)
    assert not hasattr(s, "best_estimator_") and len(s.cv_results_["params"]) == 2
    assert (s.best_params_, s.best_index_, s.best_score_) == (g.best_params_, g.best_index_, g.best_score_)
    with pytest.raises(AttributeError, match="refit=False"):
        s.predict(X)
    s = pickle.loads(pickle.dumps(lm.SVCSearchCV(param_grid={"C": [1.0, 10.0]}).fit(X, y)))
    assert s.score(X, y) > 0.8 and list(s.classes_) == ["no", "yes"]


def test_scorers_as_gridsearchcv_takes_them(binary, three):
    """A callable returning a dict is several metrics; metadata routing, one-vs-one decision values and
    probabilities go where GridSearchCV handles them, or fail saying why."""
    import sklearn
    from sklearn.metrics import accuracy_score, f1_score, make_scorer

    X, y = binary

    def both(est, X, y):
        p = est.predict(X)
        return {"acc": accuracy_score(y, p), "f1": f1_score(y, p, pos_label="yes")}

    ours = lm.SVCSearchCV(lm.SVC(), GRID, cv=CV, scoring=both, refit="f1", c_start="cold").fit(X, y)
    theirs = GridSearchCV(lm.SVC(), GRID, cv=CV, scoring=both, refit="f1").fit(X, y)
    same_results(ours, theirs)
    assert ours.multimetric_ and ours.best_index_ == theirs.best_index_ and ours.score(X, y) == theirs.score(X, y)
    with pytest.raises(ValueError, match="refit must be"):
        lm.SVCSearchCV(lm.SVC(), GRID, cv=CV, scoring=both).fit(X, y)

    w = np.random.RandomState(1).uniform(0.5, 2.0, len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        est = lm.SVC().set_fit_request(sample_weight=False)
        scorer = make_scorer(accuracy_score).set_score_request(sample_weight=True)
        with pytest.warns(UserWarning, match="metadata routing"):
            ours = lm.SVCSearchCV(est, GRID, cv=CV, scoring=scorer).fit(X, y, sample_weight=w)
        theirs = GridSearchCV(est, GRID, cv=CV, scoring=scorer).fit(X, y, sample_weight=w)
        same_results(ours, theirs)

    X3, y3 = three
    ovo = lambda est, X, y: float(est.decision_function(X)[:, 0].mean())  # noqa: E731
    with pytest.warns(UserWarning, match="ovo"):
        ours = lm.SVCSearchCV(lm.SVC(decision_function_shape="ovo"), GRID, cv=CV, scoring=ovo).fit(X3, y3)
    assert not ours.native_
    with pytest.raises(AttributeError, match="probability=True"):
        lm.SVCSearchCV(lm.SVC(), GRID, cv=CV, scoring="neg_log_loss").fit(X, y)


def test_max_iter_warns_once(binary):
    X, y = binary
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        lm.SVCSearchCV(lm.SVC(max_iter=5), {"C": [1.0, 100.0]}, cv=3).fit(X, y)


def test_dask_gives_the_threads_results(binary):
    distributed = pytest.importorskip("distributed")
    X, y = binary
    threads = lm.SVCSearchCV(lm.SVC(), GRID, cv=CV).fit(X, y)
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = lm.SVCSearchCV(lm.SVC(), GRID, cv=CV, backend="dask", client=client).fit(X, y)
        assert pickle.loads(pickle.dumps(on_dask)).client is None
    for k in scores(threads.cv_results_):
        np.testing.assert_array_equal(on_dask.cv_results_[k], threads.cv_results_[k])
    assert on_dask.best_params_ == threads.best_params_
    np.testing.assert_array_equal(on_dask.predict(X), threads.predict(X))
    with pytest.raises(ValueError, match="Client"):
        lm.SVCSearchCV(backend="dask").fit(X, y)
