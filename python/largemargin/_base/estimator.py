"""The base of every estimator: scikit-learn's, with the package version stamped into pickles."""

import warnings

from sklearn.base import BaseEstimator as _SklearnBaseEstimator

from .._native import __version__
from ..exceptions import InconsistentVersionWarning

_KEY = "_largemargin_version"


class BaseEstimator(_SklearnBaseEstimator):
    """scikit-learn's BaseEstimator; a pickle records the largemargin version that wrote it, and
    loading it under another version warns (`InconsistentVersionWarning`), as scikit-learn does
    for its own estimators."""

    def __getstate__(self):
        state = super().__getstate__()
        if isinstance(state, dict):
            state = dict(state, **{_KEY: __version__})
        return state

    def __setstate__(self, state):
        if isinstance(state, dict):
            state = dict(state)
            written = state.pop(_KEY, "unknown")
            if written != __version__:
                warnings.warn(InconsistentVersionWarning(estimator_name=type(self).__name__,
                                                         current_version=__version__, original_version=written))
        super().__setstate__(state)
