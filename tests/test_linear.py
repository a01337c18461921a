"""Linear SVMs by SGD (SGD-QN, SVMSGD2, plain SGD) and the margin perceptron: against LIBLINEAR's
optimum, continuation, multiclass, weights, plugin losses, errors."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

import largemargin as lm
from largemargin.plugins import get_registry, hookimpl


def primal(coef, intercept, X, y, alpha, loss="squared_hinge"):
    m = y * (X @ coef + intercept)
    per = 0.5 * np.maximum(0, 1 - m) ** 2 if loss == "squared_hinge" else np.maximum(0, 1 - m)
    return 0.5 * alpha * coef @ coef + per.mean()


@pytest.fixture(scope="module")
def text_like():
    """Sparse rows, a noisy linear concept: y = sign(<u, x>), 5% of labels flipped."""
    rng = np.random.RandomState(0)
    n, d = 6000, 500
    X = sp.random(n, d, density=0.02, format="csr", random_state=rng, data_rvs=lambda k: rng.uniform(0.2, 1, k))
    u = rng.normal(size=d)
    y = np.sign(X @ u + 1e-9)
    y[rng.rand(n) < 0.05] *= -1
    return X[:5000], y[:5000], X[5000:], y[5000:]


@pytest.mark.parametrize("algorithm", ["sgdqn", "svmsgd2", "sgd"])
def test_reaches_liblinears_optimum(text_like, algorithm):
    Xtr, ytr, Xte, yte = text_like
    alpha = 1e-3
    # scikit-learn's LinearSVC with squared hinge minimises 1/2|w|^2 + C sum max(0, 1-m)^2: C = 1/(2 n alpha)
    ref = LinearSVC(C=1 / (2 * len(ytr) * alpha), fit_intercept=False, tol=1e-8, max_iter=100000).fit(Xtr, ytr)
    best = primal(ref.coef_[0], 0.0, Xtr, ytr, alpha)
    est = lm.LinearSGD(algorithm=algorithm, alpha=alpha, epochs=15, fit_intercept=False, random_state=0).fit(Xtr, ytr)
    ours = primal(est.coef_[0], 0.0, Xtr, ytr, alpha)
    assert est.objective_[0] == pytest.approx(ours, rel=1e-5)  # the objective it reports is the primal
    assert best <= ours <= best * 1.01, (ours, best)
    assert abs(np.mean(est.predict(Xte) != yte) - np.mean(ref.predict(Xte) != yte)) < 0.01
    assert est.n_iter_ == 15 and est.t_ == 15 * len(ytr) and est.coef_.shape == (1, 500)
    assert est.t0_ > 0 and est.skip_ == round(16 / (Xtr.nnz / (Xtr.shape[0] * Xtr.shape[1])))


def test_partial_fit_continues_exactly(text_like):
    Xtr, ytr, _, _ = text_like
    common = dict(alpha=1e-3, t0=1e3, skip=50, shuffle=False, fit_intercept=True)
    whole = lm.LinearSGD(epochs=1, **common).fit(Xtr, ytr)
    parts = lm.LinearSGD(**common)
    parts.partial_fit(Xtr[:2000], ytr[:2000], classes=[-1, 1])
    parts.partial_fit(Xtr[2000:], ytr[2000:])
    # (ASGD's implicit average is folded into coef_ at the end of each call: the same steps, to
    # rounding; the float32 algorithms continue to the bit)
    scale = np.abs(whole.coef_).max()
    np.testing.assert_allclose(whole.coef_, parts.coef_, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(whole.intercept_, parts.intercept_, rtol=1e-12)
    assert parts.n_iter_ == 2 and parts.t_ == len(ytr)
    for algorithm in ("svmsgd2", "sgdqn"):
        whole = lm.LinearSGD(algorithm=algorithm, epochs=1, **common).fit(Xtr, ytr)
        parts = lm.LinearSGD(algorithm=algorithm, **common)
        parts.partial_fit(Xtr[:2000], ytr[:2000], classes=[-1, 1])
        parts.partial_fit(Xtr[2000:], ytr[2000:])
        np.testing.assert_array_equal(whole.coef_, parts.coef_)
        np.testing.assert_array_equal(whole.intercept_, parts.intercept_)
    # a pickled model continues the same way
    import pickle

    again = pickle.loads(pickle.dumps(parts))
    parts.partial_fit(Xtr[:100], ytr[:100])
    again.partial_fit(Xtr[:100], ytr[:100])
    np.testing.assert_array_equal(parts.coef_, again.coef_)
    with pytest.raises(ValueError, match="not among the classes"):
        parts.partial_fit(Xtr[:10], np.full(10, 7))


def test_dense_float32_and_sparse_inputs_agree(text_like):
    Xtr, ytr, _, _ = text_like
    common = dict(alpha=1e-3, t0=1e3, skip=16, shuffle=False, epochs=2, random_state=0)
    a = lm.LinearSGD(**common).fit(Xtr, ytr)
    b = lm.LinearSGD(**common).fit(Xtr.toarray().astype(np.float32), ytr)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-3, atol=1e-5)


def test_multiclass_one_vs_rest_and_weights(digits):
    Xtr, ytr, Xte, yte = digits
    est = lm.LinearSGD(alpha=1e-4, epochs=10, random_state=0, n_jobs=2).fit(Xtr, ytr)
    assert est.coef_.shape == (10, 64) and est.intercept_.shape == (10,)
    assert est.decision_function(Xte).shape == (len(Xte), 10)
    assert np.mean(est.predict(Xte) == yte) > 0.88
    # the model does not depend on the thread count
    one = lm.LinearSGD(alpha=1e-4, epochs=10, random_state=0, n_jobs=1).fit(Xtr, ytr)
    np.testing.assert_array_equal(est.coef_, one.coef_)
    # class weights: the weighted class is recalled more often
    binary = (ytr == 3).astype(int)
    plain = lm.LinearSGD(alpha=1e-3, epochs=5, random_state=0).fit(Xtr, binary)
    heavy = lm.LinearSGD(alpha=1e-3, epochs=5, random_state=0, class_weight={1: 10.0}).fit(Xtr, binary)
    recall = lambda m: np.mean(m.predict(Xte)[yte == 3] == 1)  # noqa: E731
    assert recall(heavy) >= recall(plain)


class SmoothHinge:
    """A third party's loss: the hinge smoothed over [0, 1] (quadratic there)."""

    calls = 0

    def loss(self, f, y):
        m = y * f
        return np.where(m >= 1, 0.0, np.where(m <= 0, 0.5 - m, 0.5 * (1 - m) ** 2))

    def dloss(self, f, y):
        SmoothHinge.calls += 1
        m = y * f
        return y * np.where(m >= 1, 0.0, np.where(m <= 0, -1.0, m - 1))


class LossPlugin:
    @hookimpl
    def largemargin_losses(self):
        return {"smooth_hinge": SmoothHinge()}


def test_a_plugin_loss_trains_through_the_plugin_path(text_like):
    Xtr, ytr, Xte, yte = text_like
    registry = get_registry()
    registry.register(LossPlugin(), name="loss-test")
    try:
        SmoothHinge.calls = 0
        est = lm.LinearSGD(loss="smooth_hinge", alpha=1e-3, epochs=2, t0=1e3, random_state=0).fit(Xtr[:1500], ytr[:1500])
        assert SmoothHinge.calls >= 3000  # one derivative per example and pass at least
        hinge = lm.LinearSGD(loss="hinge", alpha=1e-3, epochs=2, t0=1e3, random_state=0).fit(Xtr[:1500], ytr[:1500])
        assert est.score(Xte, yte) >= hinge.score(Xte, yte) - 0.03
        # the same loss given as an object, and numpy's own squared hinge against the built-in
        direct = lm.LinearSGD(loss=SmoothHinge(), alpha=1e-3, epochs=2, t0=1e3, random_state=0).fit(Xtr[:1500], ytr[:1500])
        np.testing.assert_array_equal(est.coef_, direct.coef_)
    finally:
        registry.unregister("loss-test")

    class SquaredHinge:
        def loss(self, f, y):
            return 0.5 * np.maximum(0, 1 - y * f) ** 2

        def dloss(self, f, y):
            return -y * np.maximum(0, 1 - y * f)

    common = dict(alpha=1e-3, epochs=1, t0=1e3, skip=20, random_state=0)
    builtin = lm.LinearSGD(loss="squared_hinge", **common).fit(Xtr[:800], ytr[:800])
    python = lm.LinearSGD(loss=SquaredHinge(), **common).fit(Xtr[:800], ytr[:800])
    np.testing.assert_allclose(builtin.coef_, python.coef_, rtol=1e-5, atol=1e-7)


def test_a_failing_loss_reaches_the_user(text_like):
    Xtr, ytr, _, _ = text_like

    class Broken:
        def loss(self, f, y):
            return 0.0

        def dloss(self, f, y):
            raise ArithmeticError("loss exploded")

    from largemargin.plugins import PluginError

    with pytest.raises(PluginError, match=r"loss 'Broken': dloss\(.*\) raised ArithmeticError: loss exploded") as e:
        lm.LinearSGD(loss=Broken(), t0=10.0).fit(Xtr[:100], ytr[:100])
    assert isinstance(e.value.__cause__, ArithmeticError)

    class NotANumber(Broken):
        def dloss(self, f, y):
            return float("nan")

    with pytest.raises(PluginError, match=r"dloss\(.*\) returned nan"):
        lm.LinearSGD(loss=NotANumber(), t0=10.0).fit(Xtr[:100], ytr[:100])


def test_a_python_loss_sees_only_finite_margins_and_t0_can_be_chosen(text_like):
    """Choosing t0 tries step sizes that make some runs diverge: their NaN margins end those
    runs without reaching the loss, so the default t0=None works with a Python loss too."""
    Xtr, ytr, Xte, yte = text_like
    seen = []

    class SquaredHinge:
        def loss(self, f, y):
            seen.extend(f)
            return 0.5 * np.maximum(0.0, 1.0 - y * f) ** 2

        def dloss(self, f, y):
            seen.append(f)
            return -y * max(0.0, 1.0 - y * f)

    ours = lm.LinearSGD(loss=SquaredHinge(), epochs=2, random_state=0).fit(Xtr[:2000], ytr[:2000])
    builtin = lm.LinearSGD(loss="squared_hinge", epochs=2, random_state=0).fit(Xtr[:2000], ytr[:2000])
    assert np.all(np.isfinite(seen))
    assert ours.t0_ == builtin.t0_
    np.testing.assert_allclose(ours.coef_, builtin.coef_, rtol=1e-4, atol=1e-6)


def test_a_python_loss_is_vectorised_over_blocks_and_steps_call_dloss(text_like):
    """dloss gets two floats per step (each step needs the derivative at the current weights);
    loss gets arrays: the objective is summed a block of examples per call, not one per call."""
    Xtr, ytr, _, _ = text_like
    Xtr, ytr = Xtr[:3000], ytr[:3000]
    steps, blocks = [], []

    class SquaredHinge:
        def loss(self, f, y):
            blocks.append((type(f), type(y), f.shape, y.shape, f.dtype))
            return 0.5 * np.maximum(0.0, 1.0 - y * f) ** 2

        def dloss(self, f, y):
            steps.append((type(f), type(y)))
            return -y * np.maximum(0.0, 1.0 - y * f)

    est = lm.LinearSGD(loss=SquaredHinge(), epochs=2, random_state=0).fit(Xtr, ytr)  # t0=None: the search
    builtin = lm.LinearSGD(loss="squared_hinge", epochs=2, random_state=0).fit(Xtr, ytr)
    np.testing.assert_allclose(est.objective_, builtin.objective_, rtol=1e-6)
    assert est.t0_ == builtin.t0_
    assert set(steps) == {(float, float)} and len(steps) >= 2 * len(ytr)
    for f_type, y_type, f_shape, y_shape, dtype in blocks:
        assert (f_type, y_type, dtype) == (np.ndarray, np.ndarray, np.float64) and f_shape == y_shape
    # the final objective: 3,000 examples in 3 calls; t0's search: 1,000 examples a call
    assert 3 <= len(blocks) <= 3 + 2 * 12 and max(b[2][0] for b in blocks) == 1024

    class NotVectorised(SquaredHinge):
        def loss(self, f, y):
            return 0.5 * max(0.0, 1.0 - y * f) ** 2

    from largemargin.plugins import PluginError

    with pytest.raises(PluginError, match=r"loss 'NotVectorised': loss\(f, y\) on arrays of \d+ examples raised ValueError"):
        lm.LinearSGD(loss=NotVectorised(), t0=est.t0_).fit(Xtr, ytr)


def test_margin_perceptron_and_early_stopping(adult_small):
    Xtr, ytr, Xte, yte = adult_small
    est = lm.MarginPerceptron(learning_rate=0.01, epochs=30, early_stopping=True, n_iter_no_change=4,
                              random_state=0).fit(Xtr, ytr)
    assert 1 <= est.best_epoch_ <= len(est.validation_scores_) <= 30
    assert est.validation_scores_[est.best_epoch_ - 1] == est.validation_scores_.max()
    assert est.score(Xte, yte) > 0.8
    # weight decay: the linear SVM by SGD of Collobert and Bengio's (19) shrinks the weights
    plain = lm.MarginPerceptron(learning_rate=0.01, epochs=5, random_state=0).fit(Xtr, ytr)
    decayed = lm.MarginPerceptron(learning_rate=0.01, weight_decay=1.0, epochs=5, random_state=0).fit(Xtr, ytr)
    assert np.linalg.norm(decayed.coef_) < np.linalg.norm(plain.coef_)


@pytest.mark.parametrize("kwargs, message", [
    (dict(alpha=0), "alpha must be a positive number"),
    (dict(epochs=0), "epochs must be a positive integer"),
    (dict(algorithm="adam"), "algorithm must be one of"),
    (dict(loss="nope"), "unknown loss 'nope'"),
    (dict(t0=-1.0), "t0 must be a positive number"),
    (dict(skip=0), "skip must be a positive integer"),
])
def test_bad_parameters_are_named(text_like, kwargs, message):
    Xtr, ytr, _, _ = text_like
    with pytest.raises(ValueError, match=message):
        lm.LinearSGD(**kwargs).fit(Xtr, ytr)


def test_bad_data_is_named(text_like):
    Xtr, ytr, _, _ = text_like
    X = Xtr[:50].toarray()
    X[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        lm.LinearSGD().fit(X, ytr[:50])
    with pytest.raises(ValueError, match="one class|greater than one"):
        lm.LinearSGD().fit(Xtr[:50], np.ones(50))
    # a negative class weight trained silently towards an objective of -8e49
    for bad in ({1: -2.0}, {1: np.inf}):
        with pytest.raises(ValueError, match="class_weight must give every class a nonnegative finite weight"):
            lm.LinearSGD(class_weight=bad).fit(Xtr[:200], ytr[:200])


def test_generators_are_seeded_and_shaped():
    from largemargin.datasets import make_badly_conditioned, make_rcv1_like

    X, y = make_rcv1_like(n_samples=3000, n_features=5000, density=0.01, random_state=1)
    X2, y2 = make_rcv1_like(n_samples=3000, n_features=5000, density=0.01, random_state=1)
    assert X.shape == (3000, 5000) and X.dtype == np.float32 and X.has_sorted_indices
    assert (X != X2).nnz == 0 and np.array_equal(y, y2)
    assert 0.008 < X.nnz / X.shape[0] / X.shape[1] < 0.012
    np.testing.assert_allclose(np.sqrt(np.asarray(X.multiply(X).sum(1)).ravel()), 1.0, rtol=1e-5)
    assert set(np.unique(y)) == {-1.0, 1.0} and 0.4 < np.mean(y > 0) < 0.55
    # learnable: a linear SVM does far better than chance, not better than the label noise allows
    est = lm.LinearSGD(alpha=1e-4, epochs=5, random_state=0).fit(X[:2500], y[:2500])
    assert 0.7 < est.score(X[2500:], y[2500:]) <= 1.0

    D, t = make_badly_conditioned(n_samples=4000, n_features=50, scale_range=100.0, random_state=2)
    spread = D.std(0)
    assert D.shape == (4000, 50) and spread.max() / spread.min() > 30
    assert set(np.unique(t)) == {-1.0, 1.0} and 0.4 < np.mean(t > 0) < 0.6


def test_a_libsvm_file_streams_in_chunks(tmp_path, adult_small):
    from sklearn.datasets import dump_svmlight_file

    from largemargin.datasets import iter_libsvm, load_libsvm

    Xtr, ytr, _, _ = adult_small
    path = tmp_path / "a.txt"
    dump_svmlight_file(Xtr, ytr, str(path), zero_based=True)
    chunks = list(iter_libsvm(path, n_features=123, chunk_rows=300, zero_based=True))
    assert all(len(y) <= 300 for _, y in chunks) and sum(len(y) for _, y in chunks) == len(ytr)
    X = sp.vstack([c for c, _ in chunks])
    whole, labels = load_libsvm(path, n_features=123, zero_based=True)
    assert (X != whole).nnz == 0 and np.array_equal(np.concatenate([y for _, y in chunks]), labels)
    # a stream trains the same model as partial_fit over the same chunks in memory
    common = dict(alpha=1e-4, t0=1e6, skip=16, shuffle=False)
    streamed, memory = lm.LinearSGD(**common), lm.LinearSGD(**common)
    for (Xc, yc), start in zip(chunks, range(0, len(ytr), 300)):
        streamed.partial_fit(Xc, yc, classes=[-1, 1])
        memory.partial_fit(Xtr[start:start + 300], ytr[start:start + 300], classes=[-1, 1])
    np.testing.assert_array_equal(streamed.coef_, memory.coef_)
    with pytest.raises(ValueError, match="zero_based"):
        next(iter_libsvm(path, n_features=123, zero_based="auto"))
    with pytest.raises(ValueError, match="n_features"):
        next(iter_libsvm(path, n_features=50, zero_based=True))


def test_divergence_is_reported_and_the_model_kept(text_like):
    Xtr, ytr, _, _ = text_like
    est = lm.LinearSGD(alpha=1e-3, t0=1e3, epochs=1, random_state=0).fit(Xtr, ytr)
    before = est.coef_.copy()
    with pytest.raises(ValueError, match="diverged"):
        est.set_params(t0=1e-3).fit(Xtr * 1e4, ytr)
    np.testing.assert_array_equal(est.coef_, before)
    # t0's search steps past candidates that diverge
    auto = lm.LinearSGD(alpha=1e-3, epochs=1, random_state=0).fit(Xtr * 30, ytr)
    assert np.all(np.isfinite(auto.coef_)) and auto.t0_ >= 1e3


def test_divergence_names_the_class_and_the_step_and_a_blow_up_warns():
    # standardised 4-class blobs with a far too large step set by hand: the overflow names the
    # class whose problem diverged and the t0 used; a run that ends far above the zero model's
    # objective without overflowing is flagged too (a silent blow-up before)
    rng = np.random.RandomState(0)
    X = rng.randn(400, 5)
    y = np.argmax(X[:, :4], axis=1) + 10
    with pytest.raises(ValueError, match=r"diverged after \d+ examples on class 1\d against the rest .*t0=10 "):
        lm.LinearSGD(t0=10, random_state=0).fit(X, y)
    import warnings

    with pytest.warns(ConvergenceWarning, match="diverging") as caught:
        m = lm.LinearSGD(algorithm="sgdqn", t0=1.1e4, random_state=0).fit(X, y)
    assert np.max(m.objective_) > 1.0 and "t0=11000" in str(caught[0].message)
    # the default (a t0 stable by construction) neither raises nor warns
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lm.LinearSGD(random_state=0).fit(X, y)


def test_margin_perceptron_early_stopping_reports_the_epoch_it_keeps():
    rng = np.random.RandomState(3)
    X = rng.normal(size=(600, 10))
    y = (X[:, 0] + 0.8 * rng.normal(size=600) > 0).astype(int)
    m = lm.MarginPerceptron(early_stopping=True, epochs=30, n_iter_no_change=5, random_state=0).fit(X, y)
    assert m.best_epoch_ < m.n_iter_  # stopped after a worse epoch: the kept one is earlier
    # the kept model's training error, measured on the training part, is what the attribute says
    from sklearn.model_selection import train_test_split

    from largemargin._checks import draw_seed

    train, _ = train_test_split(np.arange(600), test_size=m.validation_fraction, stratify=y,
                                random_state=draw_seed(0))
    err = np.mean(m.predict(X[train]) != y[train])
    np.testing.assert_allclose(m.training_error_, [err], atol=1e-12)
