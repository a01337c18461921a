"""Checks of the estimators' parameters, made in `fit`, and the seed a fit draws."""

import numbers

import numpy as np
from sklearn.utils import check_random_state


def check_real(name, value, ok, expected):
    """`value` is a finite real number for which ok(value) holds, else a ValueError naming `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or not ok(value):
        raise ValueError(f"{name} must be {expected}, got {value!r}")


def check_positive_int(name, value, none_ok=False, most=None):
    """`value` is an integer of at least 1 (and at most `most`, if given; or None, if `none_ok`),
    else a ValueError naming `name`."""
    if none_ok and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer{' or None' if none_ok else ''}, got {value!r}")
    if most is not None and value > most:
        raise ValueError(f"{name} must be at most {most}, got {value!r}")


def check_n_jobs(value):
    """`value` is None or a non-zero integer (negative: cores + 1 + value), else a ValueError."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value == 0):
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {value!r}")


def draw_seed(random_state):
    """The native solvers' seed, drawn from `random_state` as scikit-learn estimators do."""
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def effective_n_jobs(value):
    """n_jobs as a count of threads, as the native code reads it: None is `default_threads()` (every
    core unless joblib, OMP_NUM_THREADS or threadpoolctl say fewer), a negative value cores + 1 +
    value (at least one)."""
    import os

    from ._threads import default_threads

    cores = os.cpu_count() or 1
    if value is None:
        return default_threads()
    return max(1, cores + 1 + value) if value < 0 else value


def caller_stacklevel():
    """The `stacklevel` that makes a warning issued by the function calling this one point at the
    first frame outside the package: the user's line, however many of the package's frames
    (wrappers, one-vs-rest members) lie between."""
    import os
    import sys

    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def warn_not_converged(message):
    """A ConvergenceWarning pointing at the user's line, as scikit-learn's estimators give when a
    budget (max_iter, epochs) ends a fit before its stopping criterion is met."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.warn(message, ConvergenceWarning, stacklevel=caller_stacklevel())
