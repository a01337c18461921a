"""Experts that kill their own worker process, for the Dask backend's failure tests. Importable by
the Dask workers (the tests put this directory on their PYTHONPATH)."""

import os

import largemargin as lm
from largemargin.plugins import hookimpl


class _KillingSVC(lm.SVC):
    """An SVC whose fit ends its process while `marker` is missing (once), or always."""

    def __init__(self, *, marker=None, always=False, **params):
        super().__init__(**params)
        self.marker = marker
        self.always = always

    def get_params(self, deep=True):
        return {**super().get_params(deep), "marker": self.marker, "always": self.always}

    def fit(self, X, y, sample_weight=None):
        if self.always:
            os._exit(1)
        if self.marker:
            try:  # only the first fit to create the marker dies, even when experts train at once
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass
            else:
                os._exit(1)
        return super().fit(X, y, sample_weight)


class KillingExpert:
    def __init__(self, marker=None, always=False):
        self.marker, self.always = marker, always

    def make(self, **params):
        return _KillingSVC(marker=self.marker, always=self.always, **params)


class KillingPlugin:
    def __init__(self, marker):
        self.marker = marker

    @hookimpl
    def largemargin_experts(self):
        return {"svc_killed_once": KillingExpert(self.marker), "svc_always_killed": KillingExpert(always=True)}
