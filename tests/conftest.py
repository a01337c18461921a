import pytest

from largemargin import load_adult


@pytest.fixture(scope="session")
def adult_small():
    """The first 2,000 training and 1,000 test rows of the bundled Adult data."""
    Xtr, ytr = load_adult("train")
    Xte, yte = load_adult("test")
    return Xtr[:2000], ytr[:2000], Xte[:1000], yte[:1000]


@pytest.fixture(scope="session")
def digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    return X[:1000], y[:1000], X[1000:], y[1000:]
