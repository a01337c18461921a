"""Kernels built from the native ones by sums, products and positive scalings, computed entirely
in Rust::

    from largemargin.kernels import RBF, Linear
    SVC(kernel=RBF(0.1) + 0.5 * Linear())

A composed kernel costs one pass over the data like a built-in kernel (every factor is a function
of the same dot product), plus a cheap transform per factor. Calling a kernel, ``k(A, B)``, gives
its matrix; a plugin can register a composed kernel under a name (see ``largemargin.plugins``).
"""

import numbers

import numpy as np
import scipy.sparse as sp

__all__ = ["Kernel", "Linear", "RBF", "Poly", "Sigmoid", "Constant"]


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


class Kernel:
    """A kernel the native engine computes: a weighted sum of products of built-in kernels.

    The base of `Linear`, `RBF`, `Poly`, `Sigmoid` and `Constant`, and of what ``+`` and ``*``
    make of them: ``k1 + k2`` and ``k1 * k2`` are kernels, a number added is a `Constant` (adding 0
    leaves the kernel as it is, so that ``sum(kernels)`` works), and a positive number multiplied
    scales the kernel. A composed kernel costs one pass over the data like a built-in kernel
    (every factor is a function of the same dot product), plus a cheap transform per factor. Pass
    one as the ``kernel`` of an estimator (``SVC(kernel=RBF(0.1) + 0.5 * Linear())``), or register
    it under a name with a plugin. Two kernels are equal when their expanded terms are.

    Calling a kernel, ``k(A, B=None, n_jobs=None)``, gives its matrix K[i, j] = k(A[i], B[j]) (B
    defaults to A) as a dense float64 ndarray of shape (len(A), len(B)), for dense or sparse 2-D
    input.

    See Also
    --------
    SVC : Takes a kernel as its ``kernel``.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin.kernels import RBF, Linear
    >>> k = RBF(0.5) + 0.5 * Linear()
    >>> k
    RBF(0.5) + 0.5 * Linear()
    >>> k(np.array([[0.0, 1.0], [1.0, 0.0]])).round(3)
    array([[1.5  , 0.368],
           [0.368, 1.5  ]])
    """

    def terms(self):
        """The expanded sum of products, as the native engine takes it.

        Returns
        -------
        list of tuple
            ``[(weight, [(name, gamma, coef0, degree), ...]), ...]``: one term per product of
            built-in kernels, with its weight (a `Constant` is a term with no factor).
        """
        raise NotImplementedError

    def __add__(self, other):
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            if other == 0:
                return self  # so that sum(kernels) works
            other = Constant(other)
        if not isinstance(other, Kernel):
            return NotImplemented
        return _Sum(self, other)

    __radd__ = __add__

    def __mul__(self, other):
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return _Scaled(_positive("a kernel's scale", other), self)
        if not isinstance(other, Kernel):
            return NotImplemented
        return _Product(self, other)

    __rmul__ = __mul__

    def __eq__(self, other):
        return isinstance(other, Kernel) and self.terms() == other.terms()

    def __hash__(self):
        return hash(repr(self.terms()))

    def __call__(self, A, B=None, n_jobs=None):
        """The kernel matrix K[i, j] = k(A[i], B[j]) (B defaults to A), dense or sparse input.

        Parameters
        ----------
        A : {array-like, sparse matrix} of shape (n_a, n_features)
            The rows of K.
        B : {array-like, sparse matrix} of shape (n_b, n_features), default=None
            The columns of K; None: A.
        n_jobs : int or None, default=None
            Threads (None: every core).

        Returns
        -------
        ndarray of shape (n_a, n_b)
            The kernel matrix.
        """
        from . import _native
        from ._arrays import to_native

        A = _matrix(A)
        B = A if B is None else _matrix(B)
        return _native.kernel_matrix(to_native(A), to_native(B), kernel=self.terms(), gamma=0.0, coef0=0.0, degree=0, n_jobs=n_jobs)


def _matrix(X):
    if sp.issparse(X):
        return X.tocsr()
    X = np.asarray(X, dtype=np.float64 if np.asarray(X).dtype != np.float32 else np.float32)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D array, got shape {X.shape}")
    return X


class _Builtin(Kernel):
    _name = None

    def _factor(self):
        raise NotImplementedError

    def terms(self):
        """The kernel as one term of one factor: ``[(1.0, [(name, gamma, coef0, degree)])]``.

        Returns
        -------
        list of tuple
            As `Kernel.terms`.
        """
        return [(1.0, [self._factor()])]


class Linear(_Builtin):
    """The linear kernel, k(x, x') = <x, x'>.

    It has no parameter; scale it by multiplying with a positive number.

    See Also
    --------
    Poly : Powers of the dot product.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin.kernels import Linear
    >>> Linear()(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[ 5., 11.],
           [11., 25.]])
    """

    def _factor(self):
        return ("linear", 1.0, 0.0, 1)

    def __repr__(self):
        return "Linear()"


class RBF(_Builtin):
    """The Gaussian kernel, k(x, x') = exp(-gamma ||x - x'||^2).

    Parameters
    ----------
    gamma : float, default=1.0
        The inverse width, positive.

    See Also
    --------
    Linear : The dot product, often added to an RBF kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin.kernels import RBF
    >>> RBF(0.5)(np.array([[0.0, 0.0], [1.0, 1.0]])).round(3)
    array([[1.   , 0.368],
           [0.368, 1.   ]])
    """

    def __init__(self, gamma=1.0):
        self.gamma = _positive("gamma", gamma)

    def _factor(self):
        return ("rbf", self.gamma, 0.0, 3)

    def __repr__(self):
        return f"RBF({self.gamma!r})"


class Poly(_Builtin):
    """The polynomial kernel, k(x, x') = (gamma <x, x'> + coef0)^degree.

    Parameters
    ----------
    degree : int, default=3
        The power, a non-negative integer.
    gamma : float, default=1.0
        The dot product's scale, positive.
    coef0 : float, default=0.0
        The constant added before the power.

    See Also
    --------
    Linear : The dot product alone.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin.kernels import Poly
    >>> Poly(degree=2, coef0=1.0)(np.array([[1.0, 0.0], [0.0, 1.0]]))
    array([[4., 1.],
           [1., 4.]])
    """

    def __init__(self, degree=3, gamma=1.0, coef0=0.0):
        if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 0:
            raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
        if not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
            raise ValueError(f"coef0 must be a finite number, got {coef0!r}")
        self.degree, self.gamma, self.coef0 = int(degree), _positive("gamma", gamma), float(coef0)

    def _factor(self):
        return ("poly", self.gamma, self.coef0, self.degree)

    def __repr__(self):
        return f"Poly(degree={self.degree}, gamma={self.gamma!r}, coef0={self.coef0!r})"


class Sigmoid(_Builtin):
    """The sigmoid kernel, k(x, x') = tanh(gamma <x, x'> + coef0).

    Not positive definite in general.

    Parameters
    ----------
    gamma : float, default=1.0
        The dot product's scale, positive.
    coef0 : float, default=0.0
        The constant added inside the tanh.

    See Also
    --------
    RBF : The Gaussian kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin.kernels import Sigmoid
    >>> Sigmoid(gamma=0.5)(np.array([[1.0, 0.0], [0.0, 1.0]])).round(3)
    array([[0.462, 0.   ],
           [0.   , 0.462]])
    """

    def __init__(self, gamma=1.0, coef0=0.0):
        if not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
            raise ValueError(f"coef0 must be a finite number, got {coef0!r}")
        self.gamma, self.coef0 = _positive("gamma", gamma), float(coef0)

    def _factor(self):
        return ("sigmoid", self.gamma, self.coef0, 3)

    def __repr__(self):
        return f"Sigmoid(gamma={self.gamma!r}, coef0={self.coef0!r})"


class Constant(Kernel):
    """The constant kernel, k(x, x') = c.

    With a sum, it is the offset that an unregularised bias would be (a number added to a kernel
    becomes one).

    Parameters
    ----------
    c : float, default=1.0
        The constant, positive.

    See Also
    --------
    Kernel : Sums and products of kernels.

    Examples
    --------
    >>> from largemargin.kernels import Constant, Linear
    >>> Linear() + 2
    Linear() + Constant(2.0)
    >>> (Linear() + Constant(2.0)).terms()
    [(1.0, [('linear', 1.0, 0.0, 1)]), (2.0, [])]
    """

    def __init__(self, c=1.0):
        self.c = _positive("a constant kernel", c)

    def terms(self):
        """The constant as one term without a factor: ``[(c, [])]``.

        Returns
        -------
        list of tuple
            As `Kernel.terms`.
        """
        return [(self.c, [])]

    def __repr__(self):
        return f"Constant({self.c!r})"


class _Sum(Kernel):
    def __init__(self, *parts):
        self.parts = parts

    def terms(self):
        return [t for p in self.parts for t in p.terms()]

    def __repr__(self):
        return " + ".join(repr(p) for p in self.parts)


class _Product(Kernel):
    def __init__(self, *parts):
        self.parts = parts

    def terms(self):
        out = [(1.0, [])]
        for p in self.parts:  # distribute the product over the sums
            out = [(w1 * w2, f1 + f2) for w1, f1 in out for w2, f2 in p.terms()]
        return out

    def __repr__(self):
        return " * ".join(f"({p!r})" if isinstance(p, _Sum) else repr(p) for p in self.parts)


class _Scaled(Kernel):
    def __init__(self, weight, kernel):
        self.weight, self.kernel = weight, kernel

    def terms(self):
        return [(self.weight * w, f) for w, f in self.kernel.terms()]

    def __repr__(self):
        inner = f"({self.kernel!r})" if isinstance(self.kernel, _Sum) else repr(self.kernel)
        return f"{self.weight!r} * {inner}"
