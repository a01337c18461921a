"""The margin MLPs: the simple MLP (Collobert and Bengio's Algorithm 2) and the Nilsson
MLP (a committee of sign units) learn what a linear model cannot, early stopping keeps the best validation epoch, the
curves are consistent, dense and sparse input give the same model, and bad input is named."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import check_random_state

import largemargin as lm
from largemargin._checks import draw_seed


def xor_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, "same", "diff")


def test_learns_xor_and_keeps_the_best_epoch():
    X, y = xor_data(3000, 0)
    Xte, yte = xor_data(1000, 1)
    m = lm.SimpleMLPClassifier(hidden_units=20, n_committees=1, beta=2.0, learning_rate=0.05, max_epochs=60,
                               random_state=0).fit(X, y)
    assert np.mean(m.predict(Xte) == yte) > 0.9  # a linear model is at chance here
    np.testing.assert_array_equal(m.classes_, ["diff", "same"])
    assert len(m.loss_curve_) == len(m.train_error_curve_) == len(m.updates_per_epoch_) == len(m.validation_error_curve_)
    assert len(m.loss_curve_) == m.n_epochs_
    assert m.best_epoch_ == int(np.argmin(m.validation_error_curve_)) + 1
    assert m.n_epochs_ - m.best_epoch_ <= m.n_iter_no_change or m.n_epochs_ == m.max_epochs
    assert m.loss_curve_[-1] < m.loss_curve_[0]
    assert m.margin_ == pytest.approx(2 * 2.0 / np.sqrt(20))
    # the decision is b + sum_i hardtanh(v_i . x + d_i)
    z = Xte[:20] @ m.hidden_weights_.T.astype(np.float64) + m.hidden_bias_
    np.testing.assert_allclose(m.decision_function(Xte[:20]), m.bias_ + np.clip(z, -1, 1).sum(1), rtol=1e-5, atol=1e-5)


def test_without_early_stopping_runs_every_epoch_until_no_update():
    X, y = xor_data(500, 2)
    m = lm.SimpleMLPClassifier(hidden_units=10, n_committees=1, early_stopping=False, max_epochs=7,
                               random_state=1).fit(X, y)
    assert m.n_epochs_ == 7 or m.updates_per_epoch_[-1] == 0
    assert len(m.validation_error_curve_) == 0 and m.best_epoch_ == m.n_epochs_


def test_dense_and_sparse_agree_and_seeded():
    X, y = xor_data(800, 3)
    X = np.hstack([X, np.zeros((800, 3))])
    a = lm.SimpleMLPClassifier(hidden_units=8, random_state=4, max_epochs=5).fit(X, y)
    b = lm.SimpleMLPClassifier(hidden_units=8, random_state=4, max_epochs=5).fit(sp.csr_matrix(X), y)
    c = lm.SimpleMLPClassifier(hidden_units=8, random_state=4, max_epochs=5).fit(X, y)
    np.testing.assert_array_equal(a.hidden_weights_, c.hidden_weights_)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(sp.csr_matrix(X)), atol=1e-4)


def test_averaged_weights_are_published_and_scored():
    X, y = xor_data(3000, 0)
    Xte, yte = xor_data(1000, 1)
    kw = dict(hidden_units=20, n_committees=1, beta=2.0, learning_rate=0.05, max_epochs=30, random_state=0)
    # without the refit on every row the published model is the one the held-out rows scored
    last = lm.SimpleMLPClassifier(average=False, refit=False, **kw).fit(X, y)
    avg = lm.SimpleMLPClassifier(average=True, refit=False, **kw).fit(X, y)
    assert np.mean(avg.predict(Xte) == yte) > 0.9
    # same seed, same split and order: only the published weights differ
    assert not np.array_equal(avg.hidden_weights_, last.hidden_weights_)
    # the validation curve scores the published (averaged) weights: the kept epoch's entry is the
    # published model's error on the held-out rows (drawn as fit draws them)
    rng = check_random_state(0)
    draw_seed(rng)
    val = avg._validation_rows(np.searchsorted(avg.classes_, y), rng)
    for m in (last, avg):
        held_out = np.mean(m.predict(X[val]) != y[val])
        assert m.validation_error_curve_[m.best_epoch_ - 1] == pytest.approx(held_out)


@pytest.mark.parametrize("cls", [lm.SimpleMLPClassifier, lm.NilssonMLPClassifier, lm.TanhMLPClassifier])
def test_refit_trains_on_every_row_for_the_chosen_epochs(cls):
    # the held-out rows only choose the epoch count: the published model is, bit for bit, the one
    # trained without a hold-out on all rows for best_epoch_ epochs (same seed, so same
    # initial weights and epoch orders)
    X, y = xor_data(600, 11)
    if cls is not lm.NilssonMLPClassifier:
        cls = functools.partial(cls, n_committees=1)
    m = cls(hidden_units=13, max_epochs=40, n_iter_no_change=5, random_state=3).fit(X, y)
    assert 1 <= m.best_epoch_ <= m.n_epochs_ and len(m.validation_error_curve_) == m.n_epochs_
    alone = cls(hidden_units=13, max_epochs=m.best_epoch_, early_stopping=False, random_state=3).fit(X, y)
    np.testing.assert_array_equal(m.hidden_weights_, alone.hidden_weights_)
    np.testing.assert_array_equal(m.decision_function(X), alone.decision_function(X))
    # without the refit the model is the one of the held-out run: trained on fewer rows
    held = cls(hidden_units=13, max_epochs=40, n_iter_no_change=5, refit=False, random_state=3).fit(X, y)
    assert held.best_epoch_ == m.best_epoch_
    np.testing.assert_array_equal(held.validation_error_curve_, m.validation_error_curve_)
    assert not np.array_equal(held.decision_function(X), m.decision_function(X))


def test_init_scale_sets_the_initial_weights():
    X, y = xor_data(200, 0)
    # one epoch at a tiny learning rate: the weights are still (nearly) the initial ones
    kw = dict(hidden_units=16, learning_rate=1e-9, max_epochs=1, early_stopping=False, random_state=0)
    small = lm.SimpleMLPClassifier(init_scale=0.1, **kw).fit(X, y)
    large = lm.SimpleMLPClassifier(init_scale=3.0, **kw).fit(X, y)
    assert np.abs(small.hidden_weights_).max() <= 0.1 / np.sqrt(2) + 1e-6
    np.testing.assert_allclose(large.hidden_weights_, 30 * small.hidden_weights_, rtol=1e-4)


@pytest.mark.parametrize("kw, match", [
    (dict(hidden_units=0), "hidden_units"), (dict(beta=0), "beta"), (dict(learning_rate=-1), "learning_rate"),
    (dict(validation_fraction=1.0), "validation_fraction"), (dict(decay=-0.1), "decay"),
    (dict(init_scale=0.0), "init_scale"), (dict(average="yes"), "average"), (dict(refit="no"), "refit"),
])
def test_bad_parameters(kw, match):
    X, y = xor_data(100, 0)
    with pytest.raises(ValueError, match=match):
        lm.SimpleMLPClassifier(**kw).fit(X, y)


def test_nan_is_named():
    X, _ = xor_data(90, 0)
    X[3, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        lm.SimpleMLPClassifier().fit(X, np.arange(90) % 2)


def test_nilsson_committee_of_sign_units():
    X, y = xor_data(3000, 5)
    Xte, yte = xor_data(1000, 6)
    kw = dict(hidden_units=21, learning_rate=1.0, random_state=0)
    m = lm.NilssonMLPClassifier(**kw).fit(X, y)
    assert np.mean(m.predict(Xte) == yte) > 0.9  # no single sign unit does better than chance
    assert m.best_epoch_ == int(np.argmin(m.validation_error_curve_)) + 1
    assert m.bias_ == 0.0
    # the decision is the vote sum_n sign(z_n), an odd integer, plus sum z / (2 sum |z|)
    z = Xte[:50] @ m.hidden_weights_.T.astype(np.float64) + m.hidden_bias_
    vote = np.where(z > 0, 1.0, -1.0).sum(1)
    f = m.decision_function(Xte[:50])
    np.testing.assert_allclose(f, vote + 0.5 * z.sum(1) / np.abs(z).sum(1), rtol=1e-4, atol=1e-4)
    assert np.all(np.round(f - 0.5 * z.sum(1) / np.abs(z).sum(1)) % 2 == 1)
    np.testing.assert_array_equal(m.predict(Xte[:50]), m.classes_[(vote > 0).astype(int)])
    # the loss is the mean number of units an example needed to move: at least the error rate
    assert np.all(np.asarray(m.loss_curve_) >= np.asarray(m.train_error_curve_) - 1e-12)
    again = lm.NilssonMLPClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(again.hidden_weights_, m.hidden_weights_)


def test_nilsson_needs_an_odd_committee():
    X, y = xor_data(100, 0)
    with pytest.raises(ValueError, match="odd"):
        lm.NilssonMLPClassifier(hidden_units=100).fit(X, y)


@pytest.mark.parametrize("criterion", ["cross_entropy", "mse", "tanh_mse"])
@pytest.mark.parametrize("optimizer, lr", [("sgd", 0.02), ("block_newton", 0.002)])
def test_tanh_mlp_learns_xor(criterion, optimizer, lr):
    X, y = xor_data(3000, 7)
    Xte, yte = xor_data(1000, 8)
    m = lm.TanhMLPClassifier(hidden_units=16, criterion=criterion, optimizer=optimizer, learning_rate=lr, max_epochs=60,
                             random_state=0).fit(X, y)
    assert np.mean(m.predict(Xte) == yte) > 0.9, (criterion, optimizer)
    h = np.tanh(Xte[:20] @ m.hidden_weights_.T.astype(np.float64) + m.hidden_bias_)
    np.testing.assert_allclose(m.decision_function(Xte[:20]), m.bias_ + h @ m.output_weights_, rtol=1e-4, atol=1e-4)


def test_block_newton_needs_fewer_epochs_on_badly_scaled_inputs():
    """The input block undoes the features' scales, which plain SGD suffers from."""
    X, y = xor_data(4000, 9)
    X = X * [30.0, 0.03]
    curves = {}
    for optimizer, lr in (("sgd", 0.003), ("block_newton", 0.002)):
        m = lm.TanhMLPClassifier(hidden_units=10, n_committees=1, optimizer=optimizer, learning_rate=lr,
                                 max_epochs=25, early_stopping=False, random_state=1).fit(X, y)
        curves[optimizer] = m.train_error_curve_
    target = curves["sgd"][-1]
    reached = np.flatnonzero(curves["block_newton"] <= target)
    assert len(reached) and reached[0] + 1 < len(curves["sgd"]), curves


def test_block_newton_refuses_too_many_features():
    X = sp.random(50, 5000, density=0.01, format="csr", random_state=0)
    with pytest.raises(ValueError, match="at most 4096 features"):
        lm.TanhMLPClassifier(optimizer="block_newton").fit(X, np.arange(50) % 2)


@pytest.mark.parametrize("cls", [lm.SimpleMLPClassifier, lm.NilssonMLPClassifier, lm.TanhMLPClassifier])
def test_multiclass_is_one_vs_rest(cls):
    # three Gaussian blobs: one network per class, each the binary fit of its class against the
    # rest with the seed drawn for it, whatever the threads
    rng = np.random.RandomState(0)
    centers = np.array([[0, 3], [3, -2], [-3, -2]])
    y = np.repeat(["a", "b", "c"], 200)
    X = centers[np.searchsorted(["a", "b", "c"], y)] + rng.randn(600, 2)
    m = cls(random_state=1, n_jobs=2).fit(X, y)
    assert [e.n_features_in_ for e in m.estimators_] == [2, 2, 2]
    scores = m.decision_function(X)
    assert scores.shape == (600, 3)
    assert (m.predict(X) == y).mean() > 0.95
    np.testing.assert_array_equal(m.predict(X), m.classes_[scores.argmax(1)])
    seeds = check_random_state(1)
    draw_seed(seeds)  # the seed a binary fit would draw first
    member_seed = draw_seed(seeds)
    alone = cls(random_state=member_seed, n_jobs=1)
    alone._fit_binary(X, y == "b", check_random_state(member_seed), m.learning_rate_)
    np.testing.assert_allclose(alone._native_decision(X), scores[:, 1])
    same = cls(random_state=1, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(same.decision_function(X), scores)
    # a binary refit leaves nothing of the multiclass model
    m.fit(X[:400], y[:400])
    assert not hasattr(m, "estimators_") and m.decision_function(X).shape == (600,)


def test_auto_learning_rate_follows_the_rows_norm():
    # "auto": AUTO_STEP over (1 + the rows' mean squared norm), at least AUTO_FLOOR, the same for
    # dense and sparse input, so that shrinking the features (as in raw ijcnn1) does not shrink
    # every update with them
    X, y = xor_data(400, 0)
    assert lm.SimpleMLPClassifier(learning_rate="auto").fit(10 * X, y).learning_rate_ == lm.mlp.AUTO_FLOOR
    for scale in (1.0, 0.1):
        kw = dict(learning_rate="auto", max_epochs=3, random_state=0)
        m = lm.SimpleMLPClassifier(**kw).fit(scale * X, y)
        expected = max(lm.mlp.AUTO_FLOOR, lm.mlp.AUTO_STEP / (1 + np.mean(np.sum((scale * X) ** 2, axis=1))))
        assert m.learning_rate_ == pytest.approx(expected)
        assert lm.SimpleMLPClassifier(**kw).fit(sp.csr_matrix(scale * X), y).learning_rate_ == pytest.approx(expected)
    assert lm.SimpleMLPClassifier(learning_rate=0.05).fit(X, y).learning_rate_ == 0.05
    with pytest.raises(ValueError, match="learning_rate"):
        lm.SimpleMLPClassifier(learning_rate="fast").fit(X, y)


@pytest.mark.parametrize("cls", [lm.SimpleMLPClassifier, lm.NilssonMLPClassifier, lm.TanhMLPClassifier])
def test_features_far_from_unit_scale_warn(cls):
    # raw pixel-like values (0-16): the defaults assume standardised features and fail silently
    # there, so a fit says so; standardised or [0, 1] features do not warn
    rng = np.random.RandomState(0)
    X = rng.randint(0, 17, size=(300, 20)).astype(float)
    y = (X[:, 0] > 8).astype(int)
    with pytest.warns(UserWarning, match="far from unit scale"):
        cls(max_epochs=2, random_state=0).fit(X, y)
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_epochs=2 ends the fit early, as asked
        cls(max_epochs=2, random_state=0).fit(X / 16.0, y)
        cls(max_epochs=2, random_state=0).fit(sp.csr_matrix(X / 16.0), y)


def test_committees_trained_apart_are_one_committee():
    # n_committees=3 is one simple MLP of 3 x hidden_units units (the parts' units side by side,
    # their biases summed); the first part is bit for bit the single-committee fit of the same
    # random_state (the parts draw their seeds and hold-outs in order), whatever the threads
    X, y = xor_data(600, 12)
    Xte, yte = xor_data(1000, 13)
    kw = dict(hidden_units=8, max_epochs=30, n_iter_no_change=5)
    m = lm.SimpleMLPClassifier(n_committees=3, random_state=5, n_jobs=2, **kw).fit(X, y)
    assert m.hidden_weights_.shape == (24, 2) and m.hidden_bias_.shape == (24,)
    assert m.best_epoch_.shape == m.n_epochs_.shape == (3,) and len(m.validation_error_curve_) == 3
    for curve, epochs, best in zip(m.validation_error_curve_, m.n_epochs_, m.best_epoch_):
        assert len(curve) == epochs and best == int(np.argmin(curve)) + 1
    z = X @ m.hidden_weights_.T.astype(np.float64) + m.hidden_bias_
    np.testing.assert_allclose(m.decision_function(X), m.bias_ + np.clip(z, -1, 1).sum(1), rtol=1e-5, atol=1e-5)
    one = lm.SimpleMLPClassifier(n_committees=1, random_state=5, **kw).fit(X, y)
    np.testing.assert_array_equal(one.hidden_weights_, m.hidden_weights_[:8])
    np.testing.assert_array_equal(one.hidden_bias_, m.hidden_bias_[:8])
    assert not np.array_equal(m.hidden_weights_[:8], m.hidden_weights_[8:16])  # parts differ
    same = lm.SimpleMLPClassifier(n_committees=3, random_state=5, n_jobs=1, **kw).fit(X, y)
    np.testing.assert_array_equal(same.hidden_weights_, m.hidden_weights_)
    assert same.bias_ == m.bias_
    assert np.mean(m.predict(Xte) == yte) > 0.9
    with pytest.raises(ValueError, match="n_committees"):
        lm.SimpleMLPClassifier(n_committees=0).fit(X, y)


def test_tanh_committees_are_one_network():
    # the tanh MLP's parts joined: units side by side, output weights kept, biases summed, so the
    # decision is the sum of the parts'; every part is refit on all rows for the median of the
    # parts' best epochs, so the first part is the fit without hold-out for that many epochs
    X, y = xor_data(600, 14)
    kw = dict(hidden_units=6, n_iter_no_change=5, random_state=2)
    m = lm.TanhMLPClassifier(n_committees=3, max_epochs=30, n_jobs=2, **kw).fit(X, y)
    assert m.hidden_weights_.shape == (18, 2) and m.output_weights_.shape == (18,) and m.n_epochs_.shape == (3,)
    h = np.tanh(X @ m.hidden_weights_.T.astype(np.float64) + m.hidden_bias_)
    np.testing.assert_allclose(m.decision_function(X), m.bias_ + h @ m.output_weights_, rtol=1e-4, atol=1e-4)
    epochs = int(np.median(m.best_epoch_))
    one = lm.TanhMLPClassifier(n_committees=1, max_epochs=epochs, early_stopping=False, **kw).fit(X, y)
    np.testing.assert_array_equal(one.hidden_weights_, m.hidden_weights_[:6])
    np.testing.assert_array_equal(one.output_weights_, m.output_weights_[:6])
    same = lm.TanhMLPClassifier(n_committees=3, max_epochs=30, n_jobs=1, **kw).fit(X, y)
    np.testing.assert_array_equal(same.hidden_weights_, m.hidden_weights_)
    with pytest.raises(ValueError, match="n_committees"):
        lm.TanhMLPClassifier(n_committees=0).fit(X, y)


@pytest.mark.parametrize("cls", [lm.SimpleMLPClassifier, lm.NilssonMLPClassifier])
def test_unscaled_multiclass_warns_once_at_the_callers_line(cls):
    import warnings

    rng = np.random.RandomState(1)
    X = rng.randint(0, 17, size=(200, 10)).astype(float)
    y = np.arange(200) % 4
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cls(max_epochs=2, random_state=0).fit(X, y)
    scale = [w for w in caught if "far from unit scale" in str(w.message)]
    assert len(scale) == 1, [str(w.message) for w in caught]
    assert scale[0].filename == __file__
