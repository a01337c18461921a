"""A randomised active-selection strategy for LaSVM: Boltzmann (softmax) uncertainty sampling.

ACTIVE always takes the candidate closest to the boundary, which on noisy data keeps picking the
same kind of example; this strategy draws the candidate at random with probability proportional
to exp(-|f(x)| / temperature), so examples near the boundary are preferred and the others still
have a chance. As temperature grows it becomes RANDOM; as it goes to 0, ACTIVE.
"""

import numbers

import numpy as np


class BoltzmannSelection:
    def __init__(self, random_state=0, temperature=0.5, n_candidates=50):
        if not isinstance(temperature, numbers.Real) or not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature!r}")
        if not isinstance(n_candidates, numbers.Integral) or n_candidates < 1:
            raise ValueError(f"n_candidates must be a positive integer, got {n_candidates!r}")
        self.temperature = float(temperature)
        self.n_candidates = int(n_candidates)
        self.rng = np.random.default_rng(random_state)

    def choose(self, decision, labels):
        """Position of the candidate to process; labels are not needed (NaN where unknown)."""
        d = np.abs(np.asarray(decision, dtype=np.float64))
        if d.size == 0:
            return None
        if not np.all(np.isfinite(d)):
            raise ValueError("decision values must be finite")
        w = np.exp(-(d - d.min()) / self.temperature)  # shifted: no underflow to all zeros
        return int(self.rng.choice(d.size, p=w / w.sum()))
