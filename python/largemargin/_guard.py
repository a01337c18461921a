"""Keeping an estimator whole when a fit fails."""

import functools


def unchanged_on_failure(method):
    """A fit that fails (bad input, an exception from a plugin or an oracle, Ctrl-C) leaves the
    estimator as it was: attributes are only ever replaced, so a shallow copy restores them."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return guarded
