"""A pytest plugin that puts largemargin's SVC, SVR, LinearSVC and LinearSVR in the place of
scikit-learn's before scikit-learn's own SVM tests are imported: `sklearn.svm.SVC` and the others
(and so `svm.SVC`, `from sklearn.svm import SVC` in those tests) are ours for the whole run."""

import sklearn.svm

import largemargin


def pytest_configure(config):
    sklearn.svm.SVC = largemargin.SVC
    sklearn.svm.SVR = largemargin.SVR
    sklearn.svm.LinearSVC = largemargin.LinearSVC
    sklearn.svm.LinearSVR = largemargin.LinearSVR
