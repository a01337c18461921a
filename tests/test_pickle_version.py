"""Pickles carry the largemargin version; loading one under another version warns."""

import inspect
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import InconsistentVersionWarning as SklearnInconsistentVersionWarning

import largemargin as lm
from largemargin.exceptions import InconsistentVersionWarning

ESTIMATORS = [getattr(lm, n) for n in lm.__all__ if inspect.isclass(getattr(lm, n)) and issubclass(getattr(lm, n), BaseEstimator)]


def test_every_public_estimator_is_stamped():
    assert len(ESTIMATORS) >= 15
    for cls in ESTIMATORS:
        assert "_largemargin_version" in pickle.loads(pickle.dumps(cls())).__getstate__(), cls
        assert cls().__getstate__()["_largemargin_version"] == lm.__version__


def _svc():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(80, 3))
    return lm.SVC().fit(X, (X[:, 0] > 0).astype(int)), X


def test_same_version_loads_silently_and_predicts_the_same():
    model, X = _svc()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


@pytest.mark.parametrize("written", ["0.0.1", None])
def test_other_version_warns_with_both_versions(written):
    model, X = _svc()
    state = model.__getstate__()
    if written is None:
        del state["_largemargin_version"]  # a pickle from before the stamp
    else:
        state["_largemargin_version"] = written
    fresh = lm.SVC.__new__(lm.SVC)
    with pytest.warns(InconsistentVersionWarning) as record:
        fresh.__setstate__(state)
    w = record[0].message
    assert isinstance(w, SklearnInconsistentVersionWarning)  # one filter for both packages
    assert w.original_version == (written or "unknown") and w.current_version == lm.__version__
    assert "SVC" in str(w) and (written or "unknown") in str(w) and lm.__version__ in str(w)
    np.testing.assert_array_equal(fresh.predict(X), model.predict(X))
