"""nu_svc, nu_svr and one_class model files mean the same to LIBSVM and to us, checked with
LIBSVM's own Python binding (`libsvm-official`): the models LIBSVM trains and saves are predicted
by our native tool as LIBSVM predicts them (labels, values, and -b 1 probabilities: Platt's
sigmoids for nu-SVC, the density marks of one-class), and a file our core reads and writes again
loads in LIBSVM and predicts the same; and the models NuSVC, NuSVR and OneClassSVM train and
save, LIBSVM predicts as they do, while load_libsvm_model predicts LIBSVM's own as LIBSVM."""

import re

import numpy as np
import pytest
from libsvm import svmutil as libsvm
from test_libsvm_interop import libsvm_file, native_cli, write_file

import largemargin as lm
from largemargin import _native


def blobs(rng, n, centres, scale=0.8):
    """n rows around each centre in turn (the first row is the first centre's: LIBSVM's class
    order is the order of first appearance) and the index of each row's centre."""
    which = np.arange(n) % len(centres)
    return np.asarray(centres)[which] + scale * rng.standard_normal((n, len(centres[0]))), which


@pytest.fixture(scope="module")
def data():
    """Training and test rows of each task (5 features, some zero so that the files are sparse)."""
    rng = np.random.default_rng(40)
    centres = [[1, 0, 1, 0, 0.5], [-1, 1, 0, 0, -0.5], [0, -1, -1, 1, 0]]
    out = {}
    X, c = blobs(rng, 360, centres)
    X[rng.random(X.shape) < 0.15] = 0.0
    labels = np.array([2, -1, 7])[c]  # unsorted, as LIBSVM keeps them
    out["three"] = (X[:240], labels[:240], X[240:], labels[240:])
    two = c < 2
    binary = np.where(c == 0, 4, -4)[two]  # 4 first
    out["two"] = (X[two][:160], binary[:160], X[two][160:], binary[160:])
    target = np.sin(X[:, 0]) + 0.5 * X[:, 1] - 0.25 * X[:, 3] + 0.05 * rng.standard_normal(len(X))
    out["regression"] = (X[:240], target[:240], X[240:], target[240:])
    inliers = centres[0] + 0.6 * rng.standard_normal((200, 5))
    test = np.vstack([centres[0] + 0.6 * rng.standard_normal((60, 5)), 3 * rng.standard_normal((60, 5))])
    truth = np.r_[np.ones(60), -np.ones(60)]
    out["novelty"] = (inliers, np.ones(len(inliers)), test, truth)
    return out


RBF, POLY = "-t 2 -g 0.3", "-t 1 -d 2 -g 0.2 -r 1"
CASES = {
    # name: (task, svm-train options, base of the files)
    "nu_svc-2": ("two", f"-s 1 -n 0.3 {RBF}", 1),
    "nu_svc-2-b": ("two", f"-s 1 -n 0.3 {RBF} -b 1", 1),
    "nu_svc-3": ("three", f"-s 1 -n 0.2 {POLY}", 1),
    "nu_svc-3-b": ("three", f"-s 1 -n 0.2 {RBF} -b 1", 0),
    "nu_svr": ("regression", f"-s 4 -n 0.4 -c 2 {RBF}", 1),
    "nu_svr-b": ("regression", f"-s 4 -n 0.4 -c 2 {POLY} -b 1", 0),
    "one_class": ("novelty", f"-s 2 -n 0.1 {RBF}", 1),
    "one_class-b": ("novelty", f"-s 2 -n 0.3 {RBF} -b 1", 0),
}


def reference(model, x):
    """LIBSVM's labels (values) and all decision values, from its C functions: svmutil's
    svm_predict makes room for one decision value of a nu_svc model whatever its classes."""
    nr_class = model.get_nr_class()
    n_dec = nr_class * (nr_class - 1) // 2 if model.get_svm_type() in (0, 1) else 1
    labels, dec = [], []
    buf = (libsvm.c_double * n_dec)()
    for row in x:
        nodes, _ = libsvm.gen_svm_nodearray(row)
        labels.append(libsvm.libsvm.svm_predict_values(model, nodes, buf))
        dec.append(buf[:n_dec])
    return np.array(labels), np.array(dec)


def header(path):
    """The header lines of a model file, numbers as floats: {key: [values]}."""
    head = {}
    for line in path.read_text().split("\nSV\n")[0].splitlines():
        key, *values = line.split()
        head[key] = [v if re.match(r"^[a-z_]+$", v) else float(v) for v in values]
    return head


def rewrite(src, dst, zero_based):
    """The model at `src` read by our core and written again to `dst`."""
    d = _native.read_libsvm_model(str(src), zero_based=zero_based)
    indptr, indices, values, cols = d["sv"]
    sv = (np.asarray(indptr, np.int64), np.asarray(indices, np.int32), np.asarray(values, np.float64), int(cols))
    _native.write_libsvm_model(
        str(dst), svm_type=d["svm_type"], kernel=d["kernel"], gamma=d["gamma"], coef0=d["coef0"],
        degree=int(d["degree"]), labels=np.asarray(d["labels"], np.int64),
        n_support=np.asarray(d["n_support"], np.int64), rho=d["rho"], prob_a=d["prob_a"], prob_b=d["prob_b"],
        sv_coef=np.ascontiguousarray(d["sv_coef"]), sv=sv, sv_indices=np.asarray(d["sv_indices"], np.int64),
        zero_based=zero_based)
    return d


@pytest.mark.parametrize("case", sorted(CASES))
def test_libsvm_models_predicted_by_the_native_tool(tmp_path, data, case):
    task, opts, base = CASES[case]
    Xtr, ytr, Xte, yte = data[task]
    tr, te = tmp_path / "train.txt", tmp_path / "test.txt"
    write_file(tr, Xtr, ytr, base)
    write_file(te, Xte, yte, base)
    path = tmp_path / "libsvm.model"
    ref = libsvm_file(path, *libsvm.svm_read_problem(str(tr)), f"{opts} -q")
    svm_type = case.split("-")[0]
    head = header(path)
    assert head["svm_type"] == [svm_type]
    probability = opts.endswith("-b 1")
    expected_keys = {"nu_svc": {"probA", "probB"}, "nu_svr": {"probA"}, "one_class": {"prob_density_marks"}}
    assert (expected_keys[svm_type] <= head.keys()) == probability
    y_lib, x_lib = libsvm.svm_read_problem(str(te))
    labels_ref, _ = reference(ref, x_lib)
    # svm-predict's scores of LIBSVM's predictions
    acc_ref, mse_ref = 100 * np.mean(labels_ref == yte), np.mean((labels_ref - yte) ** 2)

    out = tmp_path / "pred.txt"
    r = native_cli("predict", te, path, out)
    assert r.returncode == 0, r.stderr
    if svm_type == "nu_svr":
        np.testing.assert_allclose(np.loadtxt(out), labels_ref, rtol=1e-10, atol=1e-10)
        mse = float(r.stdout.split("Mean squared error = ")[1].split()[0])
        assert mse == pytest.approx(mse_ref, rel=1e-5)
    else:
        np.testing.assert_array_equal(np.loadtxt(out), labels_ref)
        assert float(r.stdout.split("Accuracy = ")[1].split("%")[0]) == pytest.approx(acc_ref, abs=1e-3)
        if svm_type == "one_class":
            assert set(labels_ref) == {1.0, -1.0}

    r = native_cli("predict", "-b", "1", te, path, out)
    if not probability:
        assert r.returncode == 2 and "no probability estimates" in r.stderr, r.stderr
        return
    assert r.returncode == 0, r.stderr
    pred_ref, _, prob_ref = libsvm.svm_predict(y_lib, x_lib, ref, "-b 1 -q")
    if svm_type == "nu_svr":
        # svm-predict's note on the noise model, then the values as without -b
        assert f"sigma={ref.get_svr_probability():g}\n" in r.stdout
        np.testing.assert_allclose(np.loadtxt(out), pred_ref, rtol=1e-10, atol=1e-10)
        return
    lines = out.read_text().splitlines()
    if svm_type == "one_class":
        assert lines[0] == "label normal outlier"
        assert len({round(p[0], 12) for p in prob_ref}) > 3  # several of the bins are used
    else:
        assert lines[0] == "labels " + " ".join(str(label) for label in ref.get_labels())
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    np.testing.assert_array_equal(rows[:, 0], pred_ref)
    np.testing.assert_allclose(rows[:, 1:], prob_ref, atol=1e-9)


@pytest.mark.parametrize("case", sorted(CASES))
def test_files_our_core_writes_again_mean_the_same_to_libsvm(tmp_path, data, case):
    task, opts, base = CASES[case]
    Xtr, ytr, Xte, yte = data[task]
    tr, te = tmp_path / "train.txt", tmp_path / "test.txt"
    write_file(tr, Xtr, ytr, base)
    write_file(te, Xte, yte, base)
    path, again = tmp_path / "libsvm.model", tmp_path / "again.model"
    ref = libsvm_file(path, *libsvm.svm_read_problem(str(tr)), f"{opts} -q")
    d = rewrite(path, again, zero_based=base == 0)
    assert d["svm_type"] == case.split("-")[0]
    # the header says the same, number for number (ours writes the shortest exact decimal)
    assert header(again) == header(path)
    if base == 0:
        assert " 0:" in again.read_text().split("\nSV\n")[1]
    back = libsvm.svm_load_model(str(again))
    assert (back.get_svm_type(), back.get_nr_class(), back.get_labels()) == \
           (ref.get_svm_type(), ref.get_nr_class(), ref.get_labels())
    _, x_lib = libsvm.svm_read_problem(str(te))
    labels_ref, dec_ref = reference(ref, x_lib)
    labels, dec = reference(back, x_lib)
    # the same support vectors and numbers; LIBSVM's OpenMP sums vary in the last digits
    np.testing.assert_allclose(labels, labels_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dec, dec_ref, rtol=1e-12, atol=1e-12)
    if opts.endswith("-b 1"):
        assert back.is_probability_model()
        y = [0] * len(x_lib)
        _, _, prob_ref = libsvm.svm_predict(y, x_lib, ref, "-b 1 -q")
        _, _, prob = libsvm.svm_predict(y, x_lib, back, "-b 1 -q")
        np.testing.assert_allclose(prob, prob_ref, atol=1e-12)


def test_a_file_whose_header_and_body_disagree_is_refused_whole(tmp_path, data):
    """A nu_svc header over a one-class body, and a one_class header over a classifier's: one
    line of error naming the line, from the core and from the tool, and no output written."""
    Xtr, ytr, Xte, yte = data["novelty"]
    tr, te = tmp_path / "train.txt", tmp_path / "test.txt"
    write_file(tr, Xtr, ytr, 1)
    write_file(te, Xte, yte, 1)
    one_class = tmp_path / "one_class.model"
    libsvm_file(one_class, *libsvm.svm_read_problem(str(tr)), f"-s 2 -n 0.3 {RBF} -b 1 -q")
    Xtr, ytr, _, _ = data["three"]
    write_file(tr, Xtr, ytr, 1)
    classifier = tmp_path / "nu_svc.model"
    libsvm_file(classifier, *libsvm.svm_read_problem(str(tr)), f"-s 1 -n 0.2 {RBF} -q")
    bad = tmp_path / "bad.model"
    for src, svm_type, says in [
        (one_class, "nu_svc", "a nu_svc model has no prob_density_marks line (svm_type on line 1)"),
        (classifier, "one_class", "nr_class is 3; a one_class model has nr_class 2 (svm_type on line 1)"),
    ]:
        bad.write_text(re.sub(r"^svm_type \w+", f"svm_type {svm_type}", src.read_text()))
        with pytest.raises(ValueError, match=re.escape(says)) as e:
            _native.read_libsvm_model(str(bad), zero_based=False)
        assert "line " in str(e.value)
        out = tmp_path / "pred.txt"
        r = native_cli("predict", te, bad, out)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr, r.stderr
        assert not out.exists()


ESTIMATORS = {
    # task: (our estimator, LIBSVM's options for the same problem)
    "two": (lambda: lm.NuSVC(nu=0.3, gamma=0.3, tol=1e-6), "-s 1 -n 0.3 -t 2 -g 0.3 -e 1e-6"),
    "three": (lambda: lm.NuSVC(nu=0.2, gamma=0.3, tol=1e-6), "-s 1 -n 0.2 -t 2 -g 0.3 -e 1e-6"),
    "regression": (lambda: lm.NuSVR(nu=0.4, C=2, gamma=0.3, tol=1e-6), "-s 4 -n 0.4 -c 2 -t 2 -g 0.3 -e 1e-6"),
    "novelty": (lambda: lm.OneClassSVM(nu=0.1, gamma=0.3, tol=1e-6), "-s 2 -n 0.1 -t 2 -g 0.3 -e 1e-6"),
}


@pytest.mark.parametrize("task", sorted(ESTIMATORS))
def test_our_models_in_libsvm_and_libsvms_in_ours(tmp_path, data, task):
    """What we train and save, LIBSVM loads and predicts as we do (and as the model it trains
    itself on the same data); what LIBSVM trains, `load_libsvm_model` predicts as LIBSVM."""
    make, opts = ESTIMATORS[task]
    Xtr, ytr, Xte, yte = data[task]
    ours = make().fit(Xtr) if task == "novelty" else make().fit(Xtr, ytr)
    saved = tmp_path / "ours.model"
    lm.save_libsvm_model(ours, saved)
    te = tmp_path / "test.txt"
    write_file(te, Xte, yte, 1)
    _, x_lib = libsvm.svm_read_problem(str(te))
    labels, dec = reference(libsvm.svm_load_model(str(saved)), x_lib)
    if task in ("regression", "novelty"):
        # one output, whose sign LIBSVM and scikit-learn agree on
        ours_dec = ours.predict(Xte) if task == "regression" else ours.decision_function(Xte)
        np.testing.assert_allclose(labels if task == "regression" else dec.ravel(), ours_dec,
                                   atol=1e-9 * np.abs(ours_dec).max())
    if task != "regression":
        np.testing.assert_array_equal(labels, ours.predict(Xte))
    tr = tmp_path / "train.txt"
    write_file(tr, Xtr, ytr, 1)
    theirs = tmp_path / "libsvm.model"
    ref = libsvm_file(theirs, *libsvm.svm_read_problem(str(tr)), f"{opts} -q")
    labels_ref, dec_ref = reference(ref, x_lib)
    # the same problem, solved by each: the same model to the tolerance
    if task in ("regression", "novelty"):
        np.testing.assert_allclose(dec, dec_ref, atol=1e-4 * np.abs(dec_ref).max())
    else:
        assert np.mean(labels == labels_ref) > 0.98
    loaded = lm.load_libsvm_model(theirs)
    assert type(loaded) is type(ours)
    if task == "regression":
        np.testing.assert_allclose(loaded.predict(Xte), labels_ref, rtol=1e-10, atol=1e-10)
    else:
        np.testing.assert_array_equal(loaded.predict(Xte), labels_ref)
    if task == "novelty":
        np.testing.assert_allclose(loaded.decision_function(Xte), dec_ref.ravel(), atol=1e-10 * np.abs(dec_ref).max())
