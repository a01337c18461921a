"""Bad input gets a clear exception that names the problem."""

import os
import signal
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

import largemargin as lm

X = np.random.RandomState(0).rand(20, 3)
y = np.array([0, 1] * 10)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(C=-1), "C must be a positive"),
        (dict(gamma=-0.5), "gamma must be"),
        (dict(gamma="wide"), "gamma must be"),
        (dict(kernel="chi9"), "unknown kernel 'chi9'"),
        (dict(tol=0), "tol must be"),
        (dict(cache_size=0), "cache_size must be"),
        (dict(degree=-2, kernel="poly"), "degree must be"),
        (dict(max_iter=0), "max_iter must be"),
        (dict(n_jobs=0), "n_jobs must be"),
        (dict(selection="best"), "selection must be"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        lm.SVC(**params).fit(X, y)


def test_bad_data():
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        lm.SVC().fit(bad, y)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        lm.SVC().fit(bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        lm.SVC().fit(X, y[:-1])
    with pytest.raises(ValueError, match="one"):
        lm.SVC().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="0 sample"):
        lm.SVC().fit(np.zeros((0, 3)), np.zeros(0))
    with pytest.raises(ValueError, match="could not convert|dtype"):
        lm.SVC().fit(np.array([["a", "b"]] * 4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="Unknown label type"):
        lm.SVC().fit(X, np.linspace(0, 1, 20))
    with pytest.raises(ValueError, match="square"):
        lm.SVC(kernel="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="(?i)negative"):
        lm.SVC().fit(X, y, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="epsilon"):
        lm.SVR(epsilon=-1).fit(X, y.astype(float))
    m = lm.SVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(np.zeros((2, 4)))


def test_malformed_libsvm_file_names_the_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("+1 1:0.5 2:1\n-1 3:0.25\n+1 2:abc\n")
    with pytest.raises(ValueError, match=r"bad.txt: line 3: value 'abc' of feature 2"):
        lm.load_libsvm(p)
    p.write_text("+1 4:1 2:1\n")
    with pytest.raises(ValueError, match="line 1: feature indices must increase"):
        lm.load_libsvm(p)
    p.write_text("one 1:1\n")
    with pytest.raises(ValueError, match="line 1: label 'one' is not a number"):
        lm.load_libsvm(p)


def _slow_problem():
    rng = np.random.RandomState(0)
    # (about 4 s of fit here: a stop request at 1 s must find it running, on a fast machine too)
    Xs = rng.randn(12000, 10)
    ys = (Xs[:, 0] * Xs[:, 1] + 0.8 * rng.randn(12000) > 0).astype(int)
    return Xs, ys


def test_fit_releases_the_gil_and_stops_on_ctrl_c():
    Xs, ys = _slow_problem()
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    t = threading.Thread(target=ticker)
    t.start()
    # (Python's usual handler even where the run inherited SIGINT ignored, as a shell's background job does)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            lm.SVC(C=1e4, gamma=2.0, tol=1e-6, shrinking=False, cache_size=1, n_jobs=1).fit(Xs, ys)
    finally:
        timer.cancel()
        stop.set()
        t.join()
        signal.signal(signal.SIGINT, handler)
    assert len(ticks) > 20, "another Python thread could not run during the fit"


def test_fit_leaves_the_callers_sparse_matrix_untouched():
    # unsorted (valid) CSR and CSR with a repeated column: a fit sorted the caller's indices in
    # place, and refused the duplicates; now it works on a canonical copy, as scipy reads them
    rng = np.random.default_rng(0)
    X = sp.random(80, 30, density=0.2, format="csr", random_state=0)
    y = (rng.random(80) > 0.5).astype(int)
    Xu = X.copy()
    for r in range(Xu.shape[0]):  # reverse each row's entries: the same matrix, unsorted
        a, b = Xu.indptr[r], Xu.indptr[r + 1]
        Xu.indices[a:b] = Xu.indices[a:b][::-1].copy()
        Xu.data[a:b] = Xu.data[a:b][::-1].copy()
    Xu.has_sorted_indices = False
    indices_before = Xu.indices.copy()
    for est in [lm.SVC(), lm.LaSVM(random_state=0), lm.LinearSGD(random_state=0)]:
        expected = clone(est).fit(X, y).decision_function(X)
        np.testing.assert_allclose(est.fit(Xu, y).decision_function(Xu), expected, rtol=1e-6, atol=1e-9)
        np.testing.assert_array_equal(Xu.indices, indices_before)
    # a duplicated entry means the sum of the two, as in scipy
    row = X[:1].toarray()
    dup = sp.csr_matrix((np.r_[row[0, row[0] != 0] / 2, row[0, row[0] != 0] / 2],
                         np.r_[np.flatnonzero(row[0]), np.flatnonzero(row[0])], [0, 2 * np.count_nonzero(row)]),
                         shape=(1, X.shape[1]))
    m = lm.SVC().fit(X, y)
    np.testing.assert_allclose(m.decision_function(dup), m.decision_function(X[:1]))
    # LinearSGD hands sparse data over as it is and canonicalises only when refused: training on
    # rows whose entries are split in two halves is training on their sums
    halves = sp.csr_matrix((np.repeat(X.data / 2, 2), np.repeat(X.indices, 2), 2 * X.indptr), shape=X.shape)
    assert not halves.has_canonical_format
    for algorithm in ("asgd", "svmsgd2"):  # (SVMSGD2's skip counts the nonzeros: the summed ones)
        fitted = lm.LinearSGD(algorithm=algorithm, random_state=0).fit(halves, y)
        canonical = lm.LinearSGD(algorithm=algorithm, random_state=0).fit(X, y)
        assert fitted.skip_ == canonical.skip_
        np.testing.assert_allclose(fitted.coef_, canonical.coef_, rtol=1e-5, atol=1e-7)
    assert halves.nnz == 2 * X.nnz  # the caller's matrix untouched


def test_rows_whose_squared_norm_overflows_are_refused_whatever_gamma():
    # gamma='scale' already refused such data; gamma='auto' or a number fitted silently, every
    # kernel value between distinct rows being exp(-inf) = 0 (training accuracy 0.71)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = (X[:, 0] > 0).astype(int)
    for est in [lm.SVC(gamma="auto"), lm.SVR(gamma=1.0), lm.LaSVM(gamma=1.0), lm.LaRankClassifier(gamma=1.0)]:
        with pytest.raises(ValueError, match="squared norm of row .* overflows"):
            est.fit(X * 1e154, y)
    m = lm.SVC(gamma=1.0).fit(X, y)
    with pytest.raises(ValueError, match="squared norm of row .* overflows"):
        m.predict(X * 1e154)


def test_native_functions_refuse_fortran_ordered_matrices():
    # a Fortran-ordered array is contiguous, but read as rows it would be another matrix: the
    # native side refuses it (the estimators convert it first)
    from largemargin import _native

    X = np.random.RandomState(0).randn(20, 3)
    kw = dict(kernel="rbf", gamma=0.5, coef0=0.0, degree=3, n_jobs=1)
    with pytest.raises(ValueError, match="C-contiguous"):
        _native.kernel_matrix(np.asfortranarray(X), X, **kw)
    with pytest.raises(ValueError, match="C-contiguous"):
        _native.kernel_matrix(X, np.asfortranarray(X), **kw)
    y = np.arange(20) % 2
    np.testing.assert_array_equal(lm.SVC().fit(np.asfortranarray(X), y).dual_coef_, lm.SVC().fit(X, y).dual_coef_)


def test_counts_too_large_to_be_settings_are_refused():
    X, y = np.random.RandomState(0).randn(30, 2), np.arange(30) % 2
    for cls in (lm.SimpleMLPClassifier, lm.TanhMLPClassifier):
        with pytest.raises(ValueError, match="n_committees must be a positive integer of at most 1000"):
            cls(n_committees=2**64).fit(X, y)
    seqs, tags = [[("a", "DT"), ("b", "NN")]] * 3, [["x", "y"]] * 3
    with pytest.raises(ValueError, match="n_reprocess must be an integer from 0 to"):
        lm.SequenceLabeler(n_reprocess=10**12).fit(seqs, tags)
    with pytest.raises(ValueError, match="does not reprocess"):
        lm.SequenceLabeler("pa", n_reprocess=3).fit(seqs, tags)
