"""What the classifiers' fits guard: the estimator kept whole when a fit fails, and the classes
they are given."""

import functools
import threading
import weakref

import numpy as np

# One lock per estimator object that is being fitted (not an attribute: estimators are pickled,
# cloned and compared by their __dict__).
_fit_locks = weakref.WeakKeyDictionary()
_fit_locks_guard = threading.Lock()


def _fit_lock(estimator):
    with _fit_locks_guard:
        lock = _fit_locks.get(estimator)
        if lock is None:
            lock = _fit_locks[estimator] = threading.RLock()
        return lock


def unchanged_on_failure(method):
    """A fit that fails (bad input, an exception from a plugin or an oracle, Ctrl-C) leaves the
    estimator as it was: attributes are only ever replaced, so a shallow copy restores them.
    Fits of one object from several threads run one after the other, so that the model is the
    outcome of one of them, never a mixture of two."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        with _fit_lock(self):
            saved = dict(self.__dict__)
            try:
                return method(self, *args, **kwargs)
            except BaseException:
                self.__dict__.clear()
                self.__dict__.update(saved)
                raise

    return guarded


def at_least_two(classes):
    """`classes`, if there are two or more of them."""
    if len(classes) < 2:
        raise ValueError(f"The number of classes has to be greater than one; got {len(classes)} class")
    return classes


def partial_fit_classes(fitted, classes):
    """The classes of a partial_fit call, checked before its data: those given on the first call
    (`fitted` None), the fitted ones after (against which `classes`, if given, must agree)."""
    if fitted is None:
        if classes is None:
            raise ValueError("classes must be given on the first call to partial_fit")
        return at_least_two(np.unique(classes))
    if classes is not None and not np.array_equal(np.unique(classes), fitted):
        raise ValueError(f"classes {classes!r} differ from those of the first call {fitted!r}")
    return fitted


def check_known_labels(y, classes):
    """Every label of a partial_fit chunk is one of the classes."""
    unknown = np.setdiff1d(np.unique(y), classes)
    if len(unknown):
        raise ValueError(f"labels {unknown!r} are not among the classes {classes!r}")
