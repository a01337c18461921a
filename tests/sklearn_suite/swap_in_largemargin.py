"""A pytest plugin that puts largemargin's SVMs in the place of scikit-learn's before
scikit-learn's own SVM tests are imported: `sklearn.svm.SVC`, `SVR`, `NuSVC`, `NuSVR`,
`OneClassSVM`, `LinearSVC` and `LinearSVR` (and so `svm.SVC`, `from sklearn.svm import SVC` in
those tests) are ours for the whole run."""

import sklearn.svm

import largemargin

SWAPPED = ("SVC", "SVR", "NuSVC", "NuSVR", "OneClassSVM", "LinearSVC", "LinearSVR")


def pytest_configure(config):
    for name in SWAPPED:
        setattr(sklearn.svm, name, getattr(largemargin, name))
