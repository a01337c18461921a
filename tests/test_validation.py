"""The declared parameter constraints: every parameter has one, a value of no allowed kind is
refused by fit with a message naming the parameter, the docstrings list the option values the
constraints take (both read `largemargin._options`), and limits that depend on the data."""

import inspect
import re
from numbers import Integral, Real

import numpy as np
import pytest

import largemargin as lm
from largemargin import _options
from largemargin._base.estimator import BaseEstimator
from largemargin._validation import HasMethods, InstanceOf, Interval, Options, Registered, describe, validate_parameters
from largemargin.exceptions import InvalidParameterError

ESTIMATORS = [getattr(lm, n) for n in lm.__all__ if inspect.isclass(getattr(lm, n)) and issubclass(getattr(lm, n), BaseEstimator)]


def _fit_data(cls):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 3))
    y = np.arange(30) % 2
    if cls is lm.WindowFeatures:
        return ([[("a", "DT"), ("b", "NN")]] * 3,)
    if cls is lm.AmbiguousLaRankClassifier:
        return X, [[c] for c in y]
    return X, y


def _make(cls):
    if cls in (lm.SVCSearchCV, lm.SVRSearchCV):
        return cls(cv=2)
    return cls()


def test_every_public_estimator_declares_every_parameter():
    assert len(ESTIMATORS) >= 16
    for cls in ESTIMATORS:
        missing = set(cls().get_params(deep=False)) - set(cls._parameter_constraints)
        assert not missing, (cls.__name__, missing)


class _Unknown:
    """A value of no kind any parameter takes."""

    def __repr__(self):
        return "<unknown>"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_a_value_of_no_allowed_kind_is_refused_by_name(cls):
    data = _fit_data(cls)
    for name in cls().get_params(deep=False):
        if cls._parameter_constraints[name] == "no_validation":
            continue
        est = _make(cls).set_params(**{name: _Unknown()})
        with pytest.raises(InvalidParameterError, match=rf"^{name} must be .*, got <unknown>$"):
            est.fit(*data)
        assert isinstance(InvalidParameterError("x"), ValueError) and isinstance(InvalidParameterError("x"), TypeError)


@pytest.mark.parametrize("constraints, words", [
    ([Interval(Integral, 1, None)], "a positive integer"),
    ([Interval(Integral, 1, None), None], "a positive integer or None"),
    ([Interval(Integral, 0, None)], "a nonnegative integer"),
    ([Interval(Integral, 1, 1000)], "a positive integer of at most 1000"),
    ([Interval(Integral, 0, 10), Options(("adaptive",)), None], "an integer from 0 to 10, 'adaptive' or None"),
    ([Interval(Real, 0, None, closed="neither")], "a positive number"),
    ([Interval(Real, 0, None), None], "a nonnegative number or None"),
    ([Interval(Real, 0, 1, closed="left")], "a number in [0, 1)"),
    ([Interval(Real, None, None)], "a finite number"),
    ([Options(("scale", "auto")), Interval(Real, 0, None, closed="neither")], "'scale', 'auto' or a positive number"),
    ([Options(("a", "b", "c"))], "one of 'a', 'b', 'c'"),
    (["boolean"], "True or False"),
    (["n_jobs"], "a non-zero integer or None"),
    ([HasMethods("loss", "dloss")], "an object with loss() and dloss()"),
    ([InstanceOf(dict, "a dict"), None], "a dict or None"),
    ([Registered("expert")], "an expert name"),
    ([Registered("kernel"), "callable"], "a kernel name or a callable"),
])
def test_constraints_describe_themselves(constraints, words):
    assert describe(constraints) == words


@pytest.mark.parametrize("value, ok", [
    (1, True), (np.int64(3), True), (0, False), (True, False), (1.0, False), (None, False), ("1", False),
])
def test_integers_are_integers_not_booleans_or_floats(value, ok):
    check = lambda: validate_parameters({"k": [Interval(Integral, 1, None)]}, {"k": value})  # noqa: E731
    if ok:
        check()
    else:
        with pytest.raises(InvalidParameterError, match="^k must be a positive integer, got "):
            check()


@pytest.mark.parametrize("value, ok", [(0.5, True), (np.float32(2), True), (1, True), (np.nan, False), (np.inf, False),
                                       (0.0, False), (False, False)])
def test_reals_are_finite(value, ok):
    check = lambda: validate_parameters({"r": [Interval(Real, 0, None, closed="neither")]}, {"r": value})  # noqa: E731
    if ok:
        check()
    else:
        with pytest.raises(InvalidParameterError, match="r must be a positive number"):
            check()


def test_a_subclass_may_add_parameters():
    class Weighted(lm.SVC):
        def __init__(self, *, scale=2.0, C=1.0):
            super().__init__(C=C)
            self.scale = scale

        def fit(self, X, y):
            return super().fit(X * self.scale, y)

    Weighted(scale=3.0, C=2.0).fit(*_fit_data(lm.SVC))
    with pytest.raises(InvalidParameterError, match="^C must be"):
        Weighted(C=-1.0).fit(*_fit_data(lm.SVC))


def test_svc_takes_the_hard_margin_and_others_do_not():
    X, _ = _fit_data(lm.SVC)
    y = (X[:, 0] > 0).astype(int)  # separable: the hard margin exists
    lm.SVC(C=np.inf, kernel="linear").fit(X, y)
    with pytest.raises(ValueError, match="C must be a positive number, got inf"):
        lm.LaSVM(C=np.inf).fit(X, y)


# ---- the docstrings list the values the constraints take --------------------------------------

def _documented_options(cls):
    """{parameter: set of quoted strings in braces} from the numpydoc Parameters section."""
    found = {}
    for line in (cls.__doc__ or "").splitlines():
        m = re.match(r"^    (\w+) : \{([^}]*)\}", line)
        if m:
            found[m.group(1)] = set(re.findall(r"[\"']([^\"']+)[\"']", m.group(2)))
    return found


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_docstrings_list_the_allowed_values(cls):
    for name, documented in _documented_options(cls).items():
        if name == "kernel":
            assert documented == set(_options.KERNELS), (cls.__name__, name)
            continue
        constraints = cls._parameter_constraints.get(name, [])
        allowed = {v for c in constraints if isinstance(c, Options) for v in c.values if isinstance(v, str)}
        if allowed:
            assert documented == allowed, (cls.__name__, name, documented, allowed)


def test_the_builtin_plugin_registers_the_options():
    registry = lm.plugins.get_registry()
    for kind, names in [("kernel", _options.KERNELS), ("loss", _options.LOSSES), ("expert", _options.EXPERTS),
                        ("selection_strategy", _options.SELECTION_STRATEGIES)]:
        for name in names:
            assert registry.resolve(kind, name).name == name


# ---- limits that depend on the data --------------------------------------------------------------

def _forty():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 2))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("cls", [lm.MixtureSVC, lm.MixtureSVR])
def test_more_experts_than_examples_is_refused(cls):
    X, y = _forty()
    with pytest.raises(ValueError, match=r"n_experts=1000000 is more than the 40 training examples: give at most 40 .*fits at most 20 experts"):
        cls(n_experts=1000000, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"n_experts=36 is more than the 32 training examples"):
        cls(n_experts=36, validation_fraction=0.2, random_state=0).fit(X, y)


@pytest.mark.parametrize("cls", [lm.MixtureSVC, lm.MixtureSVR])
def test_fewer_than_two_examples_per_expert_warns_and_fits_fewer(cls):
    X, y = _forty()
    with pytest.warns(UserWarning, match=r"n_experts=30 leaves fewer than two of the 40 training examples per expert: "
                                         r"fitting 20 experts"):
        model = cls(n_experts=30, max_iter=1, random_state=0).fit(X, y)
    assert len(model.experts_) == 20


def test_a_pair_of_classes_names_itself_when_it_has_too_few_examples():
    X, _ = _forty()
    y = np.arange(40) % 4  # 20 examples a pair
    with pytest.raises(ValueError, match=r"^0 vs 1: n_experts=25 is more than the 20 training examples"):
        lm.MixtureSVC(n_experts=25, random_state=0).fit(X, y)
