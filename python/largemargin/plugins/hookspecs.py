"""The hook specifications of largemargin: the four places where packages extend the library.

Each hook returns a mapping from a public name to an implementation; the registry collects them.
The built-in kernels come through these same hooks (``largemargin.plugins.builtin``)."""

import pluggy

hookspec = pluggy.HookspecMarker("largemargin")
hookimpl = pluggy.HookimplMarker("largemargin")


@hookspec
def largemargin_kernels():
    """Kernels by name: ``{"chi2": implementation}``.

    An implementation is a ``NativeKernel`` (a kernel computed in Rust) or a callable
    ``k(A, B) -> ndarray`` of shape (len(A), len(B)) called on blocks of rows."""


@hookspec
def largemargin_losses():
    """Losses for the linear SGD solvers, by name."""


@hookspec
def largemargin_experts():
    """Experts for the mixture of SVMs, by name: scikit-learn compatible estimator factories."""


@hookspec
def largemargin_selection_strategies():
    """Example-selection strategies for LaSVM, by name."""
