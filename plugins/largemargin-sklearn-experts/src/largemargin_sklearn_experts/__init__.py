"""scikit-learn estimators as mixture experts: each factory's make(**params) returns a fresh,
unfitted estimator; the mixture fits it on its subset (labels -1/+1 for classification)."""

from largemargin.plugins import hookimpl


class SklearnExpert:
    def __init__(self, path):
        self.path = path

    def make(self, **params):
        module, name = self.path.rsplit(".", 1)
        import importlib

        return getattr(importlib.import_module(module), name)(**params)


@hookimpl
def largemargin_experts():
    return {
        "knn": SklearnExpert("sklearn.neighbors.KNeighborsClassifier"),
        "logistic": SklearnExpert("sklearn.linear_model.LogisticRegression"),
        "ridge": SklearnExpert("sklearn.linear_model.Ridge"),
    }
