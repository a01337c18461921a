"""
Writing a kernel plugin, registering it in this process, and training SVC with it
=================================================================================

A plugin is an object (usually a module) whose hook functions, marked with ``@hookimpl``, return
dicts from names to implementations; ``largemargin.plugins.hookspecs`` lists the hooks. An
installed distribution declares its module as an entry point of the ``largemargin`` group and
is found at import (see :doc:`/plugins`). Here, without installing anything, the
plugin is registered in-process with ``get_registry().register(plugin, name=...)``, as the test
suite does.

The plugin registers two kernels:

- ``"cauchy"``: ``k(a, b) = 1 / (1 + |a - b|^2 / sigma^2)``, written in numpy as a ``BlockKernel``.
  ``prepare(B)`` computes the squared norms of the rows of B once per fit (and once per
  prediction call, on the support vectors); each ``block(A, B, prepared)`` call then gets the
  norms of the rows it is asked for. The solver calls it a kernel row at a time.
- ``"rbf_mix"``: a composed kernel, ``0.5 * RBF(0.5) + 0.5 * RBF(5.0)``, computed in Rust at
  about the cost of a built-in kernel.

Both are used by name, ``SVC(kernel="cauchy")``, on a two-moons problem next to the built-in RBF
kernel. Run it with::

    python examples/writing_a_plugin.py

The plot shows the three decision boundaries side by side.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

import largemargin as lm
from largemargin.kernels import RBF
from largemargin.plugins import BlockKernel, get_registry, hookimpl


class Cauchy(BlockKernel):
    """1 / (1 + |a - b|^2 / sigma^2): a heavy-tailed cousin of the RBF kernel."""

    def __init__(self, sigma=0.5):
        self.sigma = sigma

    def prepare(self, B):
        # one entry per row of B: its squared norm (B may be a scipy sparse matrix)
        squares = B.multiply(B).sum(axis=1) if sp.issparse(B) else np.einsum("ij,ij->i", B, B)
        return np.asarray(squares, dtype=np.float64).ravel()

    def block(self, A, B, b_squares):  # b_squares: the prepared entries of these rows of B
        A = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=np.float64)
        a_squares = np.einsum("ij,ij->i", A, A)
        cross = np.asarray(B @ A.T).T  # (len(A), len(B))
        distances = np.maximum(a_squares[:, None] + b_squares[None, :] - 2 * cross, 0.0)
        return 1.0 / (1.0 + distances / self.sigma ** 2)


class ExampleKernels:
    """The plugin: one hook implementation, named as the hook is."""

    @hookimpl
    def largemargin_kernels(self):
        return {"cauchy": Cauchy(sigma=0.5), "rbf_mix": 0.5 * RBF(0.5) + 0.5 * RBF(5.0)}


def main():
    registry = get_registry()
    registry.register(ExampleKernels(), name="example-kernels")  # what an installed entry point does
    try:
        for plugin, provided in registry.plugins():
            if plugin == "example-kernels":
                print(f"registered {plugin}: {provided}")
        run()
    finally:
        registry.unregister("example-kernels")


def run():
    X, y = make_moons(600, noise=0.25, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)

    # a kernel's sanity check: the plugin kernel gives the model of its own Gram matrix
    by_name = lm.SVC(kernel="cauchy", C=10).fit(X_train, y_train)
    gram = lm.SVC(kernel="precomputed", C=10).fit(Cauchy(0.5)(X_train, X_train), y_train)
    assert np.array_equal(by_name.support_, gram.support_)

    kernels = [("built-in rbf (gamma=2)", dict(kernel="rbf", gamma=2.0)),
               ('plugin "cauchy" (numpy BlockKernel)', dict(kernel="cauchy")),
               ('plugin "rbf_mix" (composed, in Rust)', dict(kernel="rbf_mix"))]
    xx, yy = np.meshgrid(np.linspace(-1.8, 2.8, 250), np.linspace(-1.4, 1.9, 200))
    grid = np.c_[xx.ravel(), yy.ravel()]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), sharey=True)
    for ax, (name, params) in zip(axes, kernels):
        t = time.perf_counter()
        clf = lm.SVC(C=10, **params).fit(X_train, y_train)
        seconds = time.perf_counter() - t
        accuracy = clf.score(X_test, y_test)
        print(f"{name:>38}: test accuracy {accuracy:.3f}, {len(clf.support_)} SV, "
              f"{clf.n_kernel_evals_} kernel values, fit {seconds:.3f} s")
        z = clf.decision_function(grid).reshape(xx.shape)
        ax.contourf(xx, yy, z, levels=np.linspace(-2.5, 2.5, 11), cmap="RdBu", alpha=0.45, extend="both")
        ax.contour(xx, yy, z, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"], linewidths=1)
        ax.scatter(*X_train.T, c=y_train, cmap="RdBu", vmin=-0.2, vmax=1.2, s=14, edgecolor="none")
        sv = clf.support_vectors_
        ax.scatter(*sv.T, s=40, facecolors="none", edgecolors="k", linewidths=0.6)
        ax.set_title(f"{name}\ntest accuracy {accuracy:.3f}, {len(sv)} SV (circled)", fontsize=10)
        ax.set_xlabel("x1")
    axes[0].set_ylabel("x2")
    fig.suptitle("SVC(C=10) on two moons: a kernel registered by a plugin, used by name", y=1.0)
    fig.tight_layout()
    plt.show()


if __name__ == "__main__":
    main()
