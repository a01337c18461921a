"""What both corpora share: the seeded draws, argument checks and bags of candidate MRs."""

import bisect
import numbers

import numpy as np
from sklearn.utils import check_random_state

NO_SYMBOL = "-"
_VOWELS = frozenset("aeiou")

# the highest ambiguity level each generator accepts (a bag then holds up to 2 x level distractors)
_HOUSE_MAX_AMBIGUITY = 5
_CHILD_MAX_AMBIGUITY = 3



# ---------------------------------------------------------------------------------------------------
# randomness and argument checks


class _Draws:
    """Uniform draws in [0, 1) from a legacy `numpy.random.RandomState` (whose stream is fixed across
    NumPy versions and platforms), fetched in blocks so that the many small choices of a grammar stay
    cheap in Python."""

    __slots__ = ("_state", "_block", "_next")

    def __init__(self, seed):
        self._state = np.random.RandomState(seed)
        self._block = []
        self._next = 0

    def _refill(self):
        self._block = self._state.random_sample(2048).tolist()
        self._next = 0

    def random(self):
        if self._next == len(self._block):
            self._refill()
        i = self._next
        self._next = i + 1
        return self._block[i]

    def below(self, n):
        """An int drawn uniformly in 0..n-1."""
        return int(self.random() * n)

    def pick(self, seq):
        if self._next == len(self._block):
            self._refill()
        i = self._next
        self._next = i + 1
        return seq[int(self._block[i] * len(seq))]

    def weighted(self, items, cumulative):
        """One of `items`, drawn with the weights whose running sums are `cumulative`."""
        k = bisect.bisect_right(cumulative, self.random() * cumulative[-1])
        return items[min(k, len(items) - 1)]

    def shuffle(self, seq):
        for i in range(len(seq) - 1, 0, -1):
            j = int(self.random() * (i + 1))
            seq[i], seq[j] = seq[j], seq[i]


def _check_int(name, value, low, high=None):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < low or (high is not None and value > high):
        if high is None:
            what = "a positive int" if low == 1 else f"an int >= {low}"
        else:
            what = f"an int in {low}..{high}"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(value)


def _streams(random_state):
    """Two independent streams: the sentences and their MRs come from the first, the distractors from
    the second, so that a random_state gives the same sentences at every ambiguity level."""
    try:
        rng = check_random_state(random_state)
    except ValueError as e:
        raise ValueError(f"random_state: {e}") from None
    seeds = rng.randint(0, 2**31 - 1, size=2, dtype=np.int64)
    return _Draws(int(seeds[0])), _Draws(int(seeds[1]))


def _mr(rel, args):
    """The MR tuple: the REL pair, then the (symbol, role) pairs of `args` (a dict) in role order."""
    pairs = [(rel, "REL")]
    for role in ("A0", "A1", "A2", "LOC"):
        if role in args:
            pairs.append((args[role], role))
    return tuple(pairs)


def _bag(true, distractors, draws):
    bag = list(true) + distractors
    draws.shuffle(bag)
    return bag


