import numpy as np
import pytest
from helpers.kernels import rbf
from sklearn.svm import SVR as SkSVR

import largemargin as lm

ABALONE = __file__.rsplit("/", 1)[0] + "/data/abalone.trn.bz2"


@pytest.fixture(scope="module")
def abalone():
    X, y = lm.load_libsvm(ABALONE)
    X = X.toarray()
    return X[:1500], y[:1500], X[3000:], y[3000:]


def test_svr_parity_and_kkt(abalone):
    Xtr, ytr, Xte, yte = abalone
    C, eps, gamma = 10.0, 0.5, 0.5
    ours = lm.SVR(C=C, epsilon=eps, gamma=gamma).fit(Xtr, ytr)
    ref = SkSVR(C=C, epsilon=eps, gamma=gamma).fit(Xtr, ytr)
    assert abs(len(ours.support_) - len(ref.support_)) <= 0.01 * len(ref.support_)
    mae, mae_ref = np.mean(np.abs(ours.predict(Xte) - yte)), np.mean(np.abs(ref.predict(Xte) - yte))
    assert abs(mae - mae_ref) <= 0.01 * mae_ref
    np.testing.assert_allclose(ours.predict(Xte), ref.predict(Xte), atol=1e-2)
    # KKT in the 2L-variable signed dual: beta = alpha+ + alpha-, f(x_i) within the tube
    beta = np.zeros(len(ytr))
    beta[ours.support_] = np.asarray(ours.dual_coef_)[0]
    f = rbf(Xtr, Xtr, gamma) @ beta + ours.intercept_[0]
    r = ytr - f
    inside = np.abs(beta) < 1e-12
    free = (np.abs(beta) > 1e-8) & (np.abs(beta) < C - 1e-8)
    assert np.all(np.abs(r[inside]) <= eps + 2e-3)
    assert np.all(np.abs(np.abs(r[free]) - eps) <= 2e-3)
    assert np.all(np.sign(r[free]) == np.sign(beta[free]))
    assert abs(beta.sum()) < 1e-8
    K = rbf(Xtr, Xtr, gamma)
    D = beta @ ytr - eps * np.abs(beta).sum() - 0.5 * beta @ K @ beta
    assert abs(D - ours.objective_[0]) <= 1e-6 * abs(D)


def test_svr_sparse_and_weights(abalone):
    import scipy.sparse as sp

    Xtr, ytr, Xte, _ = abalone
    sw = np.random.RandomState(1).uniform(0.5, 2, len(ytr))
    ours = lm.SVR(C=3, epsilon=0.3).fit(sp.csr_matrix(Xtr), ytr, sample_weight=sw)
    ref = SkSVR(C=3, epsilon=0.3).fit(Xtr, ytr, sample_weight=sw)
    np.testing.assert_allclose(ours.predict(Xte), ref.predict(Xte), atol=1e-2)


def test_svr_on_two_threads_is_the_same_model():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=3000)
    a = lm.SVR(C=10, gamma=0.3, epsilon=0.05, n_jobs=1).fit(X, y)
    b = lm.SVR(C=10, gamma=0.3, epsilon=0.05, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
