"""The LIBSVM data reader and LIBSVM model files, checked against the official LIBSVM package."""

import bz2
import gzip

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

import largemargin as lm

libsvm = pytest.importorskip("libsvm.svmutil")


def test_reader_matches_sklearn_on_the_bundled_files(tmp_path):
    X, y = lm.load_adult("test")
    assert X.shape == (16281, 123)
    assert set(np.unique(y)) == {-1.0, 1.0}
    from importlib import resources

    with resources.as_file(resources.files("largemargin").joinpath("data", "adult.tst.bz2")) as path:
        Xs, ys = load_svmlight_file(str(path), n_features=123, zero_based=True)
    np.testing.assert_array_equal(y, ys)
    assert abs(X - Xs).max() == 0


@pytest.mark.parametrize("opener, suffix", [(open, ""), (gzip.open, ".gz"), (bz2.open, ".bz2")])
def test_compressed_and_one_based(tmp_path, opener, suffix):
    p = tmp_path / f"d.txt{suffix}"
    with opener(p, "wt") as f:
        f.write("# comment line\n1 qid:2 1:0.5 3:2\n-1 2:1.5 # tail\n2")
    X, y = lm.load_libsvm(p)
    np.testing.assert_array_equal(y, [1, -1, 2])
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0, 2], [0, 1.5, 0], [0, 0, 0]])
    X0, _ = lm.load_libsvm(p, zero_based=True, n_features=5)
    assert X0.shape == (3, 5) and X0[0, 1] == 0.5


@pytest.mark.parametrize("kind", ["svc_binary", "svc_multi", "svr", "svc_sparse", "svc_precomputed"])
def test_model_file_loads_in_libsvm_and_predicts_identically(tmp_path, digits, kind):
    Xtr, ytr, Xte, yte = digits
    path = str(tmp_path / "m.model")
    test_input = sp.csr_matrix(Xte)
    if kind == "svr":
        m = lm.SVR(C=3, gamma=0.05).fit(Xtr, ytr.astype(float))
    elif kind == "svc_binary":
        m = lm.SVC(C=3, gamma=0.05, probability=True, random_state=0).fit(Xtr, np.where(ytr > 4, 7, -3))
    elif kind == "svc_sparse":
        m = lm.SVC(C=3, gamma=0.05).fit(sp.csr_matrix(Xtr), ytr)
    elif kind == "svc_precomputed":
        K = Xtr @ Xtr.T
        m = lm.SVC(C=0.1, kernel="precomputed").fit(K, ytr)
        Kte = Xte @ Xtr.T
        test_input = np.hstack([np.arange(1, len(Xte) + 1)[:, None], Kte])
    else:
        m = lm.SVC(C=3, gamma=0.05).fit(Xtr, ytr)
    lm.save_libsvm_model(m, path)
    ref = libsvm.svm_load_model(path)
    if kind == "svc_precomputed":
        pred_ref, _, _ = libsvm.svm_predict([0] * len(Xte), test_input.tolist(), ref, "-q")
        ours = m.predict(Kte)
    else:
        pred_ref, _, _ = libsvm.svm_predict([0] * len(Xte), test_input, ref, "-q")
        ours = m.predict(Xte)
    np.testing.assert_allclose(np.array(pred_ref), ours, rtol=1e-12, atol=1e-12)
    if kind == "svc_precomputed":
        return
    back = lm.load_libsvm_model(path, n_features=Xtr.shape[1])
    np.testing.assert_allclose(back.predict(Xte), ours, rtol=1e-12)
    if kind == "svc_binary":
        np.testing.assert_allclose(back.predict_proba(Xte), m.predict_proba(Xte), atol=1e-12)


def test_loads_libsvm_models_with_unsorted_labels(tmp_path, digits):
    Xtr, ytr, Xte, _ = digits
    y = np.where(ytr % 3 == 0, 5, np.where(ytr % 3 == 1, -2, 9))
    order = np.argsort(y != 9, kind="stable")  # LIBSVM numbers classes by first appearance: 9 first
    ref = libsvm.svm_train(y[order].tolist(), sp.csr_matrix(Xtr[order]), "-c 10 -g 0.05 -q")
    path = str(tmp_path / "l.model")
    libsvm.svm_save_model(path, ref)
    m = lm.load_libsvm_model(path, n_features=64)
    np.testing.assert_array_equal(m.classes_, [-2, 5, 9])
    ours_fit = lm.SVC(C=10, gamma=0.05).fit(Xtr, y)
    m.decision_function_shape = ours_fit.decision_function_shape = "ovo"
    np.testing.assert_allclose(m.decision_function(Xte), ours_fit.decision_function(Xte), atol=2e-3)
