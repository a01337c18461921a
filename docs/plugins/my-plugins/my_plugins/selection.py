# my_plugins/selection.py
import numpy as np

from largemargin.plugins import hookimpl


class MostUncertain:
    """Of 50 scored candidates, the closest to the boundary."""

    def __init__(self, random_state=0):
        self.n_candidates = 50

    def choose(self, decision, labels):
        return int(np.argmin(np.abs(decision)))


@hookimpl
def largemargin_selection_strategies():
    return {"most_uncertain": MostUncertain}
