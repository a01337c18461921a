"""The base of every estimator: scikit-learn's, with its parameters checked against the class's
declared constraints and the package version stamped into pickles."""

import warnings

from sklearn.base import BaseEstimator as _SklearnBaseEstimator

from .._native import __version__
from .._validation import validate_parameters
from ..exceptions import InconsistentVersionWarning

_KEY = "_largemargin_version"


class BaseEstimator(_SklearnBaseEstimator):
    """scikit-learn's BaseEstimator; a pickle records the largemargin version that wrote it, and
    loading it under another version warns (`InconsistentVersionWarning`), as scikit-learn does
    for its own estimators.

    `_parameter_constraints` lists, for every parameter of the class, what it may be (see
    `largemargin._validation`); a subclass extends its base's with ``{**Base._parameter_constraints,
    ...}``. `_validate_params` checks them at the start of `fit` and `partial_fit`, then calls
    `_check_relations` for what ties several parameters together."""

    _parameter_constraints: dict = {}

    def _validate_params(self):
        """Every parameter checked against its constraints, then their relations: raises
        `InvalidParameterError` naming the first bad one."""
        validate_parameters(self._parameter_constraints, self.get_params(deep=False))
        self._check_relations()

    def _check_relations(self):
        """Checks across parameters (and resolutions they need): none by default."""

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
