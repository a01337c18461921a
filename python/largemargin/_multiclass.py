"""The multiclass helpers: LIBSVM's one-vs-one layout, one-vs-rest scores read from one-vs-one
decisions, and one-vs-rest by clones of a binary estimator.

The one-vs-one layout LIBSVM gives a multiclass model: classes in a list, pairs (i, j), i < j,
in the order (0, 1), (0, 2), ..., (1, 2), ...; for the pair (i, j), class i's support vectors
carry their coefficients in row j - 1 and class j's in row i, and a positive decision votes for
i. Moving the classes to another order regroups the support vectors and renumbers the pairs.
"""

import numpy as np
from sklearn.base import clone

from ._checks import draw_seed, effective_n_jobs
from ._threads import parallel

# ---- the one-vs-one layout ---------------------------------------------------------------------

def pairs(k):
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


def pair_reorder(keys):
    """How the one-vs-one pairs move when the classes are put in ascending order of `keys`: the new
    pair p is the old pair perm[p], its decision multiplied by sign[p] (-1 when its two classes
    swap places)."""
    k = len(keys)
    order = np.argsort(keys, kind="stable")
    pair_of = {pair: p for p, pair in enumerate(pairs(k))}
    perm, sign = [], []
    for a, b in pairs(k):
        i, j = order[a], order[b]
        perm.append(pair_of[(min(i, j), max(i, j))])
        sign.append(1.0 if i < j else -1.0)
    return np.array(perm, dtype=int), np.array(sign)


def reorder_classes(keys, n_support, coef, rho, prob_a, prob_b):
    """A one-vs-one model with its classes put in ascending order of `keys` (one per class):
    support vectors regrouped, pairs re-indexed, and a pair's decision negated when its two
    classes swap places (its rho and its probB change sign). Returns (order of the support
    vectors, n_support, coef, rho, probA, probB)."""
    k = len(keys)
    order = np.argsort(keys, kind="stable")
    starts = np.concatenate([[0], np.cumsum(n_support)]).astype(int)
    groups = [np.arange(starts[c], starts[c + 1]) for c in range(k)]
    sv_order = np.concatenate([groups[c] for c in order]) if k else np.zeros(0, int)
    new_n = np.array([n_support[c] for c in order], dtype=np.int64)
    new_start = np.concatenate([[0], np.cumsum(new_n)]).astype(int)
    new_coef = np.zeros((max(k - 1, 1), len(sv_order)))
    perm, sign = pair_reorder(keys)
    new_rho = sign * np.asarray(rho, dtype=float)[perm]
    for a, b in pairs(k):
        i, j = order[a], order[b]
        s = 1.0 if i < j else -1.0
        # coefficient rows: class i's vectors are in row j - 1 for the pair (i, j) when i < j, else in row j
        row_i = (j - 1) if i < j else j
        row_j = i if i < j else (i - 1)
        new_coef[b - 1, new_start[a]:new_start[a + 1]] = s * coef[row_i, groups[i]]
        new_coef[a, new_start[b]:new_start[b + 1]] = s * coef[row_j, groups[j]]
    prob_a = np.asarray(prob_a, dtype=float)
    prob_b = np.asarray(prob_b, dtype=float)
    if len(prob_a):
        # P(first | f) = 1 / (1 + exp(A f + B)); with the classes swapped f -> -f, and
        # 1 - P(old first | f) is the same sigmoid with B negated
        prob_a, prob_b = prob_a[perm], prob_b[perm] * sign
    return sv_order, new_n, new_coef, new_rho, prob_a, prob_b


def ovr_from_ovo(dec, n_classes):
    """One-vs-rest scores from one-vs-one decision values (LIBSVM sign): votes plus a bounded
    confidence term that only breaks ties between equal vote counts."""
    m = dec.shape[0]
    votes = np.zeros((m, n_classes))
    conf = np.zeros((m, n_classes))
    p = 0
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            d = dec[:, p]
            votes[:, a] += d > 0
            votes[:, b] += d <= 0
            conf[:, a] += d
            conf[:, b] -= d
            p += 1
    return votes + conf / (3 * (np.abs(conf) + 1))


# ---- one-vs-rest -------------------------------------------------------------------------------

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
