"""Declarative checks of the estimators' parameters.

Each estimator class lists what each of its parameters may be, as data::

    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,          # a base class's, shared
        "C": [Interval(Real, 0, None, closed="neither")],
        "solver": [Options(SVM_SOLVERS)],
        "max_iter": [Interval(Integral, 1, None), Options((-1,), Integral)],
        "shrinking": ["boolean"],
    }

and `validate_parameters` (called by ``BaseEstimator._validate_params`` at the start of `fit`
and `partial_fit`) refuses a value that none of its parameter's constraints accepts, with an
`InvalidParameterError` naming the parameter as the user spelled it and saying what it may be:
``C must be a positive number, got -1``. What ties several parameters together stays explicit
code (the estimator's `_check_relations`), as do limits that depend on the data.

A constraint is an object below or one of these shorthands:

- ``"boolean"``: True or False (NumPy's too);
- ``"random_state"``: None, an integer or a `numpy.random.RandomState`;
- ``"n_jobs"``: None or a non-zero integer (negative: cores + 1 + n_jobs);
- ``"verbose"``: True, False or a non-negative integer;
- ``"callable"``, ``"dict"``, ``"str"``: any value of that kind;
- ``None``: the value None;
- ``"no_validation"`` (alone): any value (checked where it is used).
"""

from numbers import Integral, Real

import numpy as np

from .exceptions import InvalidParameterError

__all__ = ["HasMethods", "InstanceOf", "Interval", "Options", "Registered", "describe", "validate_parameters"]


class Interval:
    """Numbers of one kind (``numbers.Integral`` or ``numbers.Real``) between two bounds (None: no
    bound on that side). `closed` is "both", "left", "right" or "neither". A real interval takes
    finite values only; booleans are not numbers here."""

    def __init__(self, kind, left, right, *, closed="both"):
        if kind not in (Integral, Real):
            raise TypeError(f"an Interval is of Integral or Real numbers, not {kind!r}")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
        if left is not None and right is not None and left > right:
            raise ValueError(f"empty interval: {left} > {right}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts(self, value):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.kind):
            return False
        if self.kind is Real and not np.isfinite(value):
            return False
        if self.left is not None and (value < self.left or (value == self.left and self.closed in ("right", "neither"))):
            return False
        if self.right is not None and (value > self.right or (value == self.right and self.closed in ("left", "neither"))):
            return False
        return True

    def describe(self):
        integer = self.kind is Integral
        noun = "integer" if integer else "number"
        left, right = self.left, self.right
        low_in = self.closed in ("both", "left")
        high_in = self.closed in ("both", "right")
        if right is None:
            if left is None:
                return [f"an {noun}" if integer else "a finite number"]
            if left == 0:
                return [f"a nonnegative {noun}" if low_in else f"a positive {noun}"]
            if integer and left == 1 and low_in:
                return ["a positive integer"]
            return [f"an {noun} of at least {left}" if integer and low_in
                    else f"a{'n' if integer else ''} {noun} {'>=' if low_in else '>'} {left}"]
        if left is None:
            return [f"a{'n' if integer else ''} {noun} {'<=' if high_in else '<'} {right}"]
        if integer:
            if left == 1 and low_in and high_in:
                return [f"a positive integer of at most {right}"]
            return [f"an integer from {left if low_in else left + 1} to {right if high_in else right - 1}"]
        return [f"a number in {'[' if low_in else '('}{left}, {right}{']' if high_in else ')'}"]


class Options:
    """One of a fixed set of values, of one kind (strings unless said otherwise)."""

    def __init__(self, values, kind=str):
        self.values, self.kind = tuple(values), kind

    def accepts(self, value):
        if isinstance(value, (bool, np.bool_)) and self.kind is not bool:
            return False
        return isinstance(value, self.kind) and value in self.values

    def describe(self):
        return [repr(v) if isinstance(v, str) else str(v) for v in self.values]


class InstanceOf:
    """An instance of a type (or of one of several), described as `description`."""

    def __init__(self, kind, description):
        self.kind, self.description = kind, description

    def accepts(self, value):
        return isinstance(value, self.kind)

    def describe(self):
        return [self.description]


class HasMethods:
    """An object with these methods (duck typing, as a user's loss or transformer)."""

    def __init__(self, *methods):
        self.methods = methods

    def accepts(self, value):
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def describe(self):
        names = [f"{m}()" for m in self.methods]
        return [f"an object with {_join(names, 'and')}"]


class Registered:
    """The name of a kind of plugin object ("kernel", "loss", "selection_strategy", "expert"):
    a built-in one or one a plugin registered. An unknown name raises the registry's error, which
    lists the registered names."""

    def __init__(self, kind):
        self.kind = kind

    def accepts(self, value):
        if not isinstance(value, str):
            return False
        from .plugins import get_registry

        get_registry().resolve(self.kind, value)  # raises for an unknown name
        return True

    def describe(self):
        what = self.kind.replace("_", " ")
        return [f"{'an' if what[0] in 'aeiou' else 'a'} {what} name"]


class _Boolean:
    def accepts(self, value):
        return isinstance(value, (bool, np.bool_))

    def describe(self):
        return ["True", "False"]


class _NoneValue:
    def accepts(self, value):
        return value is None

    def describe(self):
        return ["None"]


class _NJobs:
    def accepts(self, value):
        return value is None or (isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)) and value != 0)

    def describe(self):
        return ["None", "a non-zero integer"]


class _Kind(InstanceOf):
    def accepts(self, value):
        return super().accepts(value) and not isinstance(value, (bool, np.bool_))


_SHORTHANDS = {
    "boolean": lambda: [_Boolean()],
    "random_state": lambda: [_NoneValue(), _Kind(Integral, "an integer"),
                             InstanceOf(np.random.RandomState, "a numpy.random.RandomState")],
    "n_jobs": lambda: [_NJobs()],
    "verbose": lambda: [_Boolean(), Interval(Integral, 0, None)],
    "callable": lambda: [_Callable()],
    "dict": lambda: [InstanceOf(dict, "a dict")],
    "str": lambda: [InstanceOf(str, "a string")],
}


class _Callable:
    def accepts(self, value):
        return callable(value)

    def describe(self):
        return ["a callable"]


def _expand(constraints):
    out = []
    for c in constraints:
        if c is None:
            out.append(_NoneValue())
        elif isinstance(c, str):
            if c not in _SHORTHANDS:
                raise ValueError(f"unknown constraint {c!r}")
            out.extend(_SHORTHANDS[c]())
        else:
            out.append(c)
    return out


def _join(pieces, word="or"):
    return pieces[0] if len(pieces) == 1 else f"{', '.join(pieces[:-1])} {word} {pieces[-1]}"


def describe(constraints):
    """What a parameter with these constraints may be, in words: "a positive integer or None"."""
    expanded = _expand(constraints)
    if len(expanded) == 1 and isinstance(expanded[0], Options) and len(expanded[0].values) > 2:
        return f"one of {', '.join(expanded[0].describe())}"
    pieces = []
    for c in expanded:
        pieces.extend(p for p in c.describe() if p not in pieces)
    # None reads last: "a positive integer or None"
    pieces.sort(key=lambda p: p == "None")
    return _join(pieces)


def _shown(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def validate_parameters(constraints, params):
    """Checks each parameter of `params` (a dict, as ``get_params(deep=False)`` gives) against its
    entry of `constraints`; raises `InvalidParameterError` for the first one no constraint
    accepts. A parameter without an entry is not checked: a user's subclass may add parameters
    (the package's own classes declare every one: tests/test_validation.py)."""
    for name, value in params.items():
        allowed = constraints.get(name, "no_validation")
        if allowed == "no_validation":
            continue
        if not any(c.accepts(value) for c in _expand(allowed)):
            raise InvalidParameterError(f"{name} must be {describe(allowed)}, got {_shown(value)}")


def check_number(name, value, constraint):
    """One value checked alone (a setting derived from the parameters, a function's argument),
    with the same message as a parameter."""
    validate_parameters({name: [constraint]}, {name: value})
