"""What a fit reads from its parameters: the seed it draws, the threads n_jobs means, where its
warnings point."""

import numpy as np
from sklearn.utils import check_random_state


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
