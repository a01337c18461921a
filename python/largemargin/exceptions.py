"""Exceptions and warnings of the package beyond scikit-learn's (``ConvergenceWarning`` is
scikit-learn's own)."""

from sklearn.exceptions import InconsistentVersionWarning as _SklearnInconsistentVersionWarning

__all__ = ["InconsistentVersionWarning", "InvalidParameterError"]


class InvalidParameterError(ValueError, TypeError):
    """An estimator's parameter has a value it does not take: raised by `fit` (and
    `partial_fit`), naming the parameter and what it may be. A ValueError and a TypeError, as
    scikit-learn's error of the same name, so that code catching either keeps working.

    Examples
    --------
    >>> import largemargin as lm
    >>> try:
    ...     lm.SVC(C=-1.0).fit([[0.0], [1.0]], [0, 1])
    ... except lm.exceptions.InvalidParameterError as e:
    ...     print(e)
    C must be a positive number or inf, got -1.0
    """


class InconsistentVersionWarning(_SklearnInconsistentVersionWarning):
    """An estimator was unpickled under another largemargin version than the one that pickled it.

    Every estimator's pickle records the largemargin version that wrote it; loading it under
    another version warns with this class (as scikit-learn does for its own estimators), since the
    model may load wrongly or predict differently. A subclass of scikit-learn's warning of the same
    name, so that one filter covers both.

    Parameters
    ----------
    estimator_name : str
        The estimator's class name.
    current_version : str
        The largemargin version loading the pickle.
    original_version : str
        The largemargin version that wrote it (``"unknown"`` for pickles written before versions
        were stamped).

    Attributes
    ----------
    estimator_name : str
        The estimator's class name.
    current_version : str
        The largemargin version loading the pickle.
    original_version : str
        The largemargin version that wrote it.

    See Also
    --------
    sklearn.exceptions.InconsistentVersionWarning : The base class, scikit-learn's own.

    Examples
    --------
    >>> import warnings
    >>> from largemargin.exceptions import InconsistentVersionWarning
    >>> w = InconsistentVersionWarning(estimator_name="SVC", current_version="2.0", original_version="1.0")
    >>> w.original_version, w.current_version
    ('1.0', '2.0')

    To refuse pickles of another version, make the warning an error while loading:

    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", InconsistentVersionWarning)
    """

    def __init__(self, *, estimator_name, current_version, original_version):
        super().__init__(estimator_name=estimator_name, current_sklearn_version=current_version,
                         original_sklearn_version=original_version)
        self.current_version = current_version
        self.original_version = original_version

    def __str__(self):
        return (f"Trying to unpickle estimator {self.estimator_name} from largemargin version "
                f"{self.original_version} when using version {self.current_version}. The model may load wrongly "
                "or give different results: refit it, or load it under the version that wrote it.")
