"""One-vs-rest for estimators whose model is binary: one clone per class, fitted on a thread each
(stoppable with Ctrl-C)."""

import numpy as np
from sklearn.base import clone

from ._checks import draw_seed, effective_n_jobs
from ._threads import parallel


def fit_one_vs_rest(est, X, y_idx, n_classes, rng):
    """Clones of `est`, the c-th fitted on labels +1 (class c) and -1 (the rest). Each runs on one
    thread of its own (native fits release the GIL), with a seed drawn from `rng` in class order,
    so that the members do not depend on how many run at once."""
    seeds = [draw_seed(rng) for _ in range(n_classes)]

    def one(c):
        member = clone(est).set_params(n_jobs=1, random_state=seeds[c])
        member._one_vs_rest_member = True  # checks of the whole X were made once, by est.fit
        try:
            return member.fit(X, np.where(y_idx == c, 1, -1))
        finally:
            del member._one_vs_rest_member

    return parallel(one, range(n_classes), min(n_classes, effective_n_jobs(est.n_jobs)))

