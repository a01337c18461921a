# my_plugins/losses.py
import numpy as np

from largemargin.plugins import hookimpl


class SmoothHinge:
    """The hinge smoothed on margins in [0, 1]: 1/2 - m below, (1 - m)^2 / 2 within, 0 above."""

    def loss(self, f, y):  # arrays: a block of examples
        m = y * f
        return np.where(m >= 1, 0.0, np.where(m <= 0, 0.5 - m, 0.5 * (1 - m) ** 2))

    def dloss(self, f, y):  # floats: one SGD step; the derivative in f
        m = y * f
        if m >= 1.0:
            return 0.0
        return -y if m <= 0.0 else y * (m - 1.0)


@hookimpl
def largemargin_losses():
    return {"smooth_hinge": SmoothHinge()}
