"""Every estimator keeps its promises around fitting: predicting before a successful fit raises
NotFittedError; a fit that fails leaves the estimator exactly as it was; two threads fitting one
object give the model of one of the two fits, never a mixture."""

import pickle
import threading

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import largemargin as lm

RNG = np.random.default_rng(0)
X = RNG.random((200, 4))
Y_CLASS = np.where(X[:, 0] + X[:, 1] > 1, 1, 0)
Y_REAL = X @ np.array([1.0, -2.0, 0.5, 0.0])
SEQS = [RNG.random((5, 3)) for _ in range(30)]
SEQ_LABELS = [np.where(s[:, 0] > 0.5, "A", "B") for s in SEQS]

# (estimator, training inputs, failing refits)
CASES = [
    (lm.SVC(), (X, Y_CLASS), "classifier"),
    (lm.SVR(), (X, Y_REAL), "regressor"),
    (lm.LaSVM(), (X, Y_CLASS), "classifier"),
    (lm.Huller(), (X, Y_CLASS), "classifier"),
    (lm.KernelPerceptron(), (X, Y_CLASS), "classifier"),
    (lm.LinearSGD(), (X, Y_CLASS), "classifier"),
    (lm.MarginPerceptron(), (X, Y_CLASS), "classifier"),
    (lm.LaRankClassifier(), (X, Y_CLASS), "classifier"),
    (lm.AmbiguousLaRankClassifier(), (X, Y_CLASS), "classifier"),
    (lm.SimpleMLPClassifier(), (X, Y_CLASS), "classifier"),
    (lm.NilssonMLPClassifier(), (X, Y_CLASS), "classifier"),
    (lm.TanhMLPClassifier(), (X, Y_CLASS), "classifier"),
    (lm.MixtureSVC(n_experts=2, max_iter=2, random_state=0), (X, np.where(Y_CLASS > 0, 1, -1)), "classifier"),
    (lm.MixtureSVR(n_experts=2, max_iter=2, random_state=0), (X, Y_REAL), "regressor"),
    (lm.SequenceLabeler(), (SEQS, SEQ_LABELS), "sequences"),
]
IDS = [type(c[0]).__name__ for c in CASES]


def failing_refits(kind, data):
    Xf, y = data
    if kind == "sequences":
        return [(Xf, y[:-1]), (Xf[:3] + [np.full((4, 3), np.nan)], y[:3] + [np.array(["A"] * 4)])]
    bad = Xf.copy()
    bad[7, 2] = np.nan
    refits = [(Xf, y[:-1]), (bad, y)]
    if kind == "classifier":
        refits.append((Xf[:40], np.ones(40)))  # one class
    return refits


def predict_input(kind, data):
    return data[0][:5] if kind == "sequences" else data[0][:50]


@pytest.mark.parametrize("estimator, data, kind", CASES, ids=IDS)
def test_predict_before_fit_is_not_fitted(estimator, data, kind):
    with pytest.raises(NotFittedError):
        estimator.predict(predict_input(kind, data))


@pytest.mark.parametrize("estimator, data, kind", CASES, ids=IDS)
def test_a_failed_fit_leaves_the_estimator_as_it_was(estimator, data, kind):
    from sklearn.base import clone

    est = clone(estimator)
    for refit in failing_refits(kind, data):  # a failed first fit leaves it unfitted
        with pytest.raises(ValueError):
            est.fit(*refit)
        with pytest.raises(NotFittedError):
            est.predict(predict_input(kind, data))
    est.fit(*data)
    before = pickle.dumps(est)
    predictions = est.predict(predict_input(kind, data))
    for refit in failing_refits(kind, data):
        with pytest.raises(ValueError):
            est.fit(*refit)
        assert pickle.dumps(est) == before
        after = est.predict(predict_input(kind, data))
        if kind == "sequences":
            assert all(np.array_equal(a, b) for a, b in zip(after, predictions))
        else:
            np.testing.assert_array_equal(after, predictions)


@pytest.mark.parametrize("make", [lambda: lm.SVC(C=10, random_state=0), lambda: lm.KernelPerceptron(random_state=0),
                                  lambda: lm.MixtureSVC(n_experts=2, max_iter=2, random_state=0)],
                         ids=["SVC", "KernelPerceptron", "MixtureSVC"])
def test_two_threads_fitting_one_object_give_one_of_the_two_models(make):
    y_pm = np.where(Y_CLASS > 0, 1, -1)
    first = (X[:150], y_pm[:150])
    second = (X[50:], -y_pm[50:])
    references = [pickle.dumps(make().fit(*d).predict(X)) for d in (first, second)]
    for _ in range(4):
        est = make()
        threads = [threading.Thread(target=est.fit, args=d) for d in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert pickle.dumps(est.predict(X)) in references


@pytest.mark.parametrize("make", [lm.SVC, lm.LaSVM, lambda: lm.MixtureSVC(n_experts=2)], ids=["SVC", "LaSVM", "MixtureSVC"])
def test_gamma_scale_on_huge_values_is_refused_not_constant(make):
    huge = X * 1e154  # its variance overflows: 1 / (n_features * var) would be 0, a constant kernel
    with pytest.raises(ValueError, match="gamma='scale'|squared norm of row .* overflows"):
        make().fit(huge, np.where(Y_CLASS > 0, 1, -1))
    # a stated gamma cannot help: the squared norms themselves overflow, every distance is infinite
    with pytest.raises(ValueError, match="squared norm of row .* overflows"):
        lm.SVC(gamma=1e-308).fit(huge[:40], Y_CLASS[:40])


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/task"), reason="counts threads in /proc")
def test_fits_with_many_n_jobs_do_not_pile_up_threads():
    import os
    import time

    def threads():
        return len(os.listdir("/proc/self/task"))

    lm.SVC(n_jobs=1).fit(X, Y_CLASS)
    base = threads()
    for n_jobs in list(range(1, 25)) + [1000]:
        lm.SVC(n_jobs=n_jobs).fit(X[:60], Y_CLASS[:60])
    cores = os.cpu_count() or 1
    bound = base + 3 * 4 * cores  # three pools kept, at most four threads per core each
    deadline = time.monotonic() + 300  # a guard against waiting forever, not a bound on how fast
    while threads() > bound and time.monotonic() < deadline:
        time.sleep(0.1)  # dropped pools' threads end on their own
    assert threads() <= bound, (threads(), bound)


def test_declared_shapes_and_small_inputs():
    from sklearn.base import clone

    assert lm.MixtureSVC().__sklearn_tags__().classifier_tags.multi_class is True  # one-vs-one of mixtures
    clone(lm.WindowFeatures(suffixes=[2, 3]))  # an estimator like any other
    small = lm.MixtureSVR().fit(X[:40], Y_REAL[:40])  # 10 experts on 40 rows: some are left empty
    assert np.all(np.isfinite(small.predict(X[:40])))
    with pytest.raises(ValueError, match="NaN"):
        lm.SequenceLabeler().fit(SEQS[:6], [np.array([1.0, np.nan, 1.0, 2.0, 1.0])] * 6)
