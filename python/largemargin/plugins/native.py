"""What the built-in plugin registers: names of implementations the native engine (or, for the
mixtures' experts, the package) provides itself, as plain values."""

from dataclasses import dataclass


@dataclass(frozen=True)
class NativeKernel:
    """A kernel the Rust engine computes itself, by its engine name."""

    name: str


@dataclass(frozen=True)
class NativeLoss:
    """A loss the Rust SGD solvers implement themselves, by its engine name."""

    name: str


@dataclass(frozen=True)
class NativeStrategy:
    """An example-selection strategy implemented in Rust, by its engine name."""

    name: str


@dataclass(frozen=True)
class NativeExpert:
    """A built-in expert of the mixtures (the package's ``SVC`` or ``SVR``), by name: the mixture
    makes the estimator, so that this layer knows no estimator."""

    name: str
