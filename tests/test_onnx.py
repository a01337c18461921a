"""largemargin.onnx.to_onnx, checked by onnxruntime on the same inputs as the model."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris, make_classification, make_regression

import largemargin as lm

rt = pytest.importorskip("onnxruntime")
pytest.importorskip("skl2onnx")
from largemargin.onnx import to_onnx  # noqa: E402

X, Y = make_classification(300, n_features=6, random_state=0)
X = X.astype(np.float32)
XI, YI = load_iris(return_X_y=True)
XI = XI.astype(np.float32)
XR, YR = make_regression(200, n_features=5, noise=5.0, random_state=0)
XR = XR.astype(np.float32)


def onnx_outputs(model, X):
    onx = to_onnx(model, X[:2])
    session = rt.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: X})


def as_matrix(proba, classes):
    """onnxruntime's probabilities: an array, or a list of {class: p} (skl2onnx's ZipMap)."""
    return np.array([[d[c] for c in classes] for d in proba]) if isinstance(proba, list) else np.asarray(proba)


CLASSIFIERS = [
    ("svc binary", lambda: lm.SVC(C=3).fit(X, Y), X),
    ("svc 3 classes", lambda: lm.SVC().fit(XI, YI), XI),
    ("svc poly", lambda: lm.SVC(kernel="poly", degree=2, coef0=1.0).fit(XI, YI), XI),
    ("svc sigmoid", lambda: lm.SVC(kernel="sigmoid", gamma=0.01).fit(X, Y), X),
    ("svc sparse fit", lambda: lm.SVC(kernel="linear").fit(sp.csr_matrix(X), Y), X),
    ("svc string labels", lambda: lm.SVC().fit(XI, np.array(["a", "b", "c"])[YI]), XI),
    ("nu-svc binary", lambda: lm.NuSVC(nu=0.3).fit(X, Y), X),
    ("nu-svc 3 classes", lambda: lm.NuSVC(nu=0.2).fit(XI, YI), XI),
    ("lasvm binary", lambda: lm.LaSVM(random_state=0).fit(X, Y), X),
    ("huller", lambda: lm.Huller(random_state=0).fit(X, Y), X),
    ("kernel perceptron", lambda: lm.KernelPerceptron(random_state=0).fit(X, Y), X),
    ("linear sgd", lambda: lm.LinearSGD(random_state=0).fit(X, Y), X),
    ("linear sgd 3 classes", lambda: lm.LinearSGD(random_state=0).fit(XI, YI), XI),
    ("margin perceptron", lambda: lm.MarginPerceptron(random_state=0).fit(X, Y), X),
    ("linear svc", lambda: lm.LinearSVC(random_state=0).fit(X, Y), X),
    ("linear svc 3 classes", lambda: lm.LinearSVC(random_state=0, max_iter=5000).fit(XI, YI), XI),
    ("linear svc crammer-singer", lambda: lm.LinearSVC(multi_class="crammer_singer", random_state=0, max_iter=5000).fit(XI, YI), XI),
    ("linear svc no intercept", lambda: lm.LinearSVC(fit_intercept=False, random_state=0).fit(X, Y), X),
]


@pytest.mark.parametrize("name, make, data", CLASSIFIERS, ids=[c[0] for c in CLASSIFIERS])
def test_onnxruntime_predicts_the_models_labels(name, make, data):
    model = make()
    labels = np.asarray(onnx_outputs(model, data)[0]).ravel()
    np.testing.assert_array_equal(labels, model.predict(data))


def test_probabilities_match_platt_and_coupling():
    model = lm.SVC(probability=True, random_state=0).fit(XI, YI)
    labels, proba = onnx_outputs(model, XI)[:2]
    np.testing.assert_allclose(as_matrix(proba, model.classes_), model.predict_proba(XI), atol=1e-5)


def test_regression_to_float32_rounding():
    model = lm.SVR(C=10.0).fit(XR, YR)
    out = np.asarray(onnx_outputs(model, XR)[0]).ravel()
    np.testing.assert_allclose(out, model.predict(XR), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_linear_svr_to_float32_rounding(fit_intercept):
    model = lm.LinearSVR(C=10.0, fit_intercept=fit_intercept, random_state=0, max_iter=5000).fit(XR, YR)
    out = np.asarray(onnx_outputs(model, XR)[0]).ravel()
    np.testing.assert_allclose(out, model.predict(XR), rtol=1e-4, atol=1e-3)


def test_nu_regression_to_float32_rounding():
    model = lm.NuSVR(C=10.0, nu=0.3).fit(XR, YR)
    out = np.asarray(onnx_outputs(model, XR)[0]).ravel()
    np.testing.assert_allclose(out, model.predict(XR), rtol=1e-4, atol=1e-3)


def test_linear_svc_decision_values():
    model = lm.LinearSVC(random_state=0, max_iter=5000).fit(XI, YI)
    scores = np.asarray(onnx_outputs(model, XI)[1])
    np.testing.assert_allclose(scores, model.decision_function(XI), rtol=1e-4, atol=1e-4)


def test_one_class_labels_and_scores():
    model = lm.OneClassSVM(nu=0.1, gamma=0.1).fit(X)
    labels, scores = onnx_outputs(model, X)[:2]
    decision = model.decision_function(X)
    np.testing.assert_allclose(np.asarray(scores).ravel(), decision, rtol=1e-4, atol=1e-4)
    # labels agree wherever float32 rounding cannot move the sign
    clear = np.abs(decision) > 1e-4
    np.testing.assert_array_equal(np.asarray(labels).ravel()[clear], model.predict(X)[clear])


def test_models_without_an_onnx_form_say_so():
    with pytest.raises(NotImplementedError, match="LaRankClassifier has no ONNX export"):
        to_onnx(lm.LaRankClassifier().fit(XI, YI), XI)
    with pytest.raises(NotImplementedError, match="kernel=<function"):
        to_onnx(lm.SVC(kernel=lambda a, b: a @ b.T).fit(X, Y), X)
    with pytest.raises(NotImplementedError, match="LaSVM with more than two classes"):
        to_onnx(lm.LaSVM().fit(XI, YI), XI)
    with pytest.raises(NotImplementedError, match="break_ties=True"):
        to_onnx(lm.SVC(break_ties=True).fit(XI, YI), XI)
    with pytest.raises(ValueError, match="6 columns"):
        to_onnx(lm.SVC().fit(X, Y), X[:, :3])
