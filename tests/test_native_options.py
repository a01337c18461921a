"""The option names the native module takes, as the core crate defines them (`_native.OPTIONS`),
and as `_native.pyi` types them (`Literal[...]`): the two are kept equal here, so that a name added
to or removed from a core enum cannot leave the stub behind."""

import pathlib
import re

import numpy as np
import pytest

import largemargin
from largemargin import _native

STUB = pathlib.Path(largemargin.__file__).parent / "_native.pyi"
# names the core also reads, beside its own (OPTIONS leaves them out)
ALIASES = {"kernel": {"polynomial"}, "loss": {"log"}}


def stub_literals():
    """{OPTIONS key: the names of the Literal the stub ties to it}."""
    found = {}
    for line in STUB.read_text().splitlines():
        m = re.match(r'^_\w+ = Literal\[(.*)\]  # OPTIONS\["(\w+)"\]$', line)
        if m:
            found[m.group(2)] = set(re.findall(r'"([^"]+)"', m.group(1)))
    return found


def test_the_stub_types_every_option_with_exactly_the_names_the_core_reads():
    literals = stub_literals()
    assert set(literals) == set(_native.OPTIONS)
    for key, names in _native.OPTIONS.items():
        assert isinstance(names, tuple) and len(set(names)) == len(names), key
        assert literals[key] == set(names) | ALIASES.get(key, set()), key


def test_an_unknown_name_is_a_value_error_listing_the_names():
    x = np.eye(3)
    with pytest.raises(ValueError, match=r"^unknown kernel 'rbff': expected one of 'linear', 'poly', 'rbf'") as e:
        _native.kernel_matrix(x, x, kernel="rbff", gamma=1.0, coef0=0.0, degree=3, n_jobs=1)
    assert "'rbff'" in str(e.value)
    y = np.array([0, 1, 1], dtype=np.int64)
    kw = dict(n_classes=2, sample_c=np.ones(3), kernel="linear", gamma=1.0, coef0=0.0, degree=3, tol=1e-3,
              shrinking=True, cache_size=10.0, max_iter=-1, probability=False, seed=0, n_jobs=1, verbose=False)
    with pytest.raises(ValueError, match=r"^unknown selection 'best': expected 'second_order' or 'first_order'"):
        _native.fit_svc(x, y, selection="best", **kw)
    with pytest.raises(TypeError):
        _native.fit_svc(x, y, selection=2, **kw)
    assert _native.fit_svc(x, y, selection="first_order", solver="isda", isda_bias="none", **kw)["converged"] == [True]
    # an alias reads as its name
    poly, polynomial = (
        _native.kernel_matrix(x, x, kernel=n, gamma=0.5, coef0=1.0, degree=2, n_jobs=1) for n in ("poly", "polynomial")
    )
    np.testing.assert_array_equal(poly, polynomial)


# The package's option values (`largemargin._options`, what the estimators accept) against the
# names the native module reads for the same option: equal where the estimator passes the name
# through, a subset where the estimator offers part of the native choices.
SAME = {
    "KERNELS": "kernel", "SELECTION_STRATEGIES": "lasvm_selection", "LOSSES": "loss",
    "SMO_SELECTIONS": "smo_selection", "SVM_SOLVERS": "solver", "ISDA_BIASES": "isda_bias",
    "SCHEDULES": "larank_schedule", "CLOCKS": "larank_clock", "INFERENCES": "sequence_inference",
    "MLP_CRITERIA": "mlp_criterion", "MLP_OPTIMIZERS": "mlp_optimizer", "C_STARTS": "warm_start",
    "LINEAR_SVC_LOSSES": "linear_svc_loss", "LINEAR_SVR_LOSSES": "linear_svr_loss", "MULTI_CLASS_LINEAR": "multi_class",
    "OSPAS_STRATEGIES": "ospas_strategy",
}
SUBSET = {
    "BASELINE_RULES": "online_algorithm", "LARANK_METHODS": "larank_method",
    "AMBIGUOUS_METHODS": "larank_method", "SGD_ALGORITHMS": "sgd_algorithm",
}


@pytest.mark.parametrize("name", sorted(SAME) + sorted(SUBSET))
def test_the_package_offers_only_names_the_core_reads(name):
    from largemargin import _options

    ours, native = set(getattr(_options, name)), set(_native.OPTIONS[SAME.get(name) or SUBSET[name]])
    if name in SAME:
        assert ours == native, f"_options.{name} {sorted(ours)} != the core's {sorted(native)}"
    else:
        assert ours <= native, f"_options.{name} has names the core does not read: {sorted(ours - native)}"
