"""ConvergenceWarning when a budget (max_iter, epochs, max_epochs) ends a fit before its own
stopping criterion is met; silence when the criterion ends it."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from test_sequence import _synthetic

import largemargin as lm

X, Y = make_classification(1500, n_features=8, flip_y=0.05, random_state=0)


def _silent(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return fit()


def test_lasvm_cut_by_max_iter_warns_and_names_the_budget():
    with pytest.warns(ConvergenceWarning, match=r"max_iter=10 online iterations .* 1 of 1 binary") as rec:
        lm.LaSVM(max_iter=10).fit(X, Y)
    assert rec[0].filename == __file__  # points at the user's line
    _silent(lambda: lm.LaSVM().fit(X, Y))
    _silent(lambda: lm.LaSVM(max_iter=10**6, epochs=2).fit(X, Y))


def test_lasvm_budget_of_an_oracle_is_spent_as_asked():
    y = Y.astype(float)
    hidden = np.full(len(y), np.nan)
    hidden[:20] = y[:20]
    _silent(lambda: lm.LaSVM(selection="active", max_iter=50, random_state=0).fit(X, hidden, oracle=lambda i: y[i]))


def test_larank_until_gap_stopped_by_epochs_warns():
    with pytest.warns(ConvergenceWarning, match=r"stopped after 1 epochs with duality gap .* not below C=1"):
        lm.LaRankClassifier(C=1.0, until_gap=True, epochs=1).fit(X, Y)
    est = _silent(lambda: lm.LaRankClassifier(C=1.0, until_gap=True).fit(X, Y))
    assert est.duality_gap_ < 1.0
    _silent(lambda: lm.LaRankClassifier(epochs=1).fit(X, Y))  # no gap asked for: nothing to miss


def test_sequence_until_gap_stopped_by_epochs_warns():
    seqs, tags = _synthetic(200, 0)
    rng = np.random.RandomState(0)  # 30% of the tags noise: a gap that one pass does not close
    labels = sorted({t for seq in tags for t in seq})
    tags = [[labels[rng.randint(len(labels))] if rng.rand() < 0.3 else t for t in seq] for seq in tags]
    with pytest.warns(ConvergenceWarning, match="SequenceLabeler stopped after 1 epochs"):
        lm.SequenceLabeler(C=1.0, until_gap=True, epochs=1, random_state=0).fit(seqs, tags)
    est = _silent(lambda: lm.SequenceLabeler(C=1.0, until_gap=True, random_state=0).fit(seqs, tags))
    assert est.duality_gap_ < 1.0


@pytest.mark.parametrize("cls", [lm.SimpleMLPClassifier, lm.NilssonMLPClassifier, lm.TanhMLPClassifier])
def test_mlp_at_max_epochs_while_improving_warns_once(cls):
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])  # three classes: one-vs-rest members do not warn themselves
    with pytest.warns(ConvergenceWarning, match="max_epochs=2 reached") as rec:
        cls(max_epochs=2, random_state=0).fit(X, y3)
    assert len([w for w in rec if issubclass(w.category, ConvergenceWarning)]) == 1
    _silent(lambda: cls(max_epochs=200, n_iter_no_change=2, random_state=0).fit(X, Y))  # the hold-out stops it


def test_mixture_warns_only_when_max_iter_kept_early_stopping_from_acting():
    Xf, yf = lm.make_forest_like(4000, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=2 rounds ended the fit while the held-out error"):
        lm.MixtureSVC(n_experts=4, validation_fraction=0.2, max_iter=2, random_state=0).fit(Xf, yf)
    # without a hold-out the rounds are the schedule, not a cap
    _silent(lambda: lm.MixtureSVC(n_experts=4, max_iter=2, random_state=0).fit(Xf, yf))
