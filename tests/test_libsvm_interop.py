"""Model files mean the same thing to LIBSVM and to us: checked with LIBSVM's own Python binding
(`libsvm-official`) in both directions, for zero- and one-based data, binary, multiclass (with
tied votes), regression and probabilities, every built-in kernel and precomputed kernels, and
test files wider than the training files. Then the two command-line tools on the same files."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from libsvm import svmutil as libsvm

import largemargin as lm

KERNELS = {
    "linear": ("-t 0", dict(kernel="linear")),
    "poly": ("-t 1 -d 2 -g 0.05 -r 1", dict(kernel="poly", degree=2, gamma=0.05, coef0=1.0)),
    "rbf": ("-t 2 -g 0.02", dict(kernel="rbf", gamma=0.02)),
    "sigmoid": ("-t 3 -g 0.01 -r -0.5", dict(kernel="sigmoid", gamma=0.01, coef0=-0.5)),
}


@pytest.fixture(scope="module")
def problem():
    """Three digit classes labelled 9, -2, 5 in order of first appearance (LIBSVM's class order:
    not sorted), training rows, test rows with one more feature than any training row has, and
    a grid of points on which one-vs-one votes tie."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, [1, 7, 4])
    X, y = X[keep] / 16.0, y[keep]
    labels = np.select([y == 1, y == 7, y == 4], [9, -2, 5])
    rng = np.random.default_rng(0)
    order = np.argsort(labels != 9, kind="stable")  # a 9 first, so the file lists 9 first
    X, labels = X[order], labels[order]
    X[:, 0] = rng.random(len(X)) * (rng.random(len(X)) < 0.3)  # feature 0 used (0-based files)
    Xtr, ytr, Xte, yte = X[:300], labels[:300], X[300:], labels[300:]
    # a test-only feature beyond every training row (the test file is wider)
    extra = (rng.random(len(Xte)) < 0.2) * 0.5
    Xte = np.hstack([Xte, extra[:, None]])
    grid = np.clip(rng.random((1500, 65)) * 0.6, 0, 1)
    return Xtr, ytr, np.vstack([Xte, grid]), np.concatenate([yte, np.zeros(len(grid), int)])


def write_file(path, X, y, base, serial=False):
    """A LIBSVM data file; `serial`: precomputed-kernel rows, `0:i` then the kernel values."""
    with open(path, "w") as f:
        for i, (row, label) in enumerate(zip(X, y)):
            head = f" 0:{i + 1}" if serial else ""
            start = 1 if serial else base
            body = " ".join(f"{j + start}:{v:.17g}" for j, v in enumerate(row) if v != 0)
            f.write(f"{label:g}{head} {body}\n")


def libsvm_file(path, *train_args):
    """A model trained by LIBSVM, saved to `path` and read back by LIBSVM: what the file says (it
    rounds support vectors to 8 digits)."""
    libsvm.svm_save_model(str(path), libsvm.svm_train(*train_args))
    return libsvm.svm_load_model(str(path))


def votes_tied(dec):
    k = 3
    votes = np.zeros((len(dec), k))
    p = 0
    for a in range(k):
        for b in range(a + 1, k):
            votes[:, a] += dec[:, p] > 0
            votes[:, b] += dec[:, p] <= 0
            p += 1
    top = np.sort(votes, axis=1)
    return int(np.sum(top[:, -1] == top[:, -2]))


def probabilities_in_file_order(model, ref):
    return [list(model.classes_).index(label) for label in ref.get_labels()]


@pytest.mark.parametrize("base", [0, 1])
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_classifiers_both_ways(tmp_path, problem, kernel, base):
    Xtr, ytr, Xte, yte = problem
    tr, te = tmp_path / "train.txt", tmp_path / "test.txt"
    write_file(tr, Xtr, ytr, base)
    write_file(te, Xte, yte, base)
    opts, params = KERNELS[kernel]
    Xtr_f, ytr_f, Xte_f, _ = lm.load_libsvm_files([tr, te], zero_based=bool(base == 0))
    assert Xte_f.shape[1] == Xtr_f.shape[1]
    y_lib, x_lib = libsvm.svm_read_problem(str(te))

    # ours -> LIBSVM (trained on the training file's width: the test file is wider)
    Xtr_own, _ = lm.load_libsvm(tr, zero_based=bool(base == 0))
    ours = lm.SVC(C=1.0, probability=True, random_state=0, **params).fit(Xtr_own, ytr_f)
    path = str(tmp_path / "ours.model")
    lm.save_libsvm_model(ours, path, zero_based=bool(base == 0))
    ref = libsvm.svm_load_model(path)
    pred_ref, _, _ = libsvm.svm_predict(y_lib, x_lib, ref, "-q")
    back = lm.load_libsvm_model(path, zero_based=bool(base == 0))
    np.testing.assert_array_equal(back.predict(Xte_f), pred_ref)
    _, _, prob_ref = libsvm.svm_predict(y_lib, x_lib, ref, "-b 1 -q")
    cols = probabilities_in_file_order(back, ref)
    np.testing.assert_allclose(back.predict_proba(Xte_f)[:, cols], prob_ref, atol=1e-9)

    # LIBSVM -> ours, with the classes in LIBSVM's (unsorted) order
    path = str(tmp_path / "libsvm.model")
    ref = libsvm_file(path, *libsvm.svm_read_problem(str(tr)), f"{opts} -c 1 -b 1 -q")
    assert ref.get_labels()[0] == 9 and ref.get_labels() != sorted(ref.get_labels())  # LIBSVM's order
    if base == 0:
        assert " 0:" in Path(path).read_text()  # LIBSVM's model of zero-based data names feature 0
    model = lm.load_libsvm_model(path, zero_based=bool(base == 0))
    pred_ref, _, dec_ref = libsvm.svm_predict(y_lib, x_lib, ref, "-q")
    assert votes_tied(np.array(dec_ref)) > 0  # the comparison covers tie-breaking
    np.testing.assert_array_equal(model.predict(Xte_f), pred_ref)
    _, _, prob_ref = libsvm.svm_predict(y_lib, x_lib, ref, "-b 1 -q")
    cols = probabilities_in_file_order(model, ref)
    np.testing.assert_allclose(model.predict_proba(Xte_f)[:, cols], prob_ref, atol=1e-9)
    # saved back, the file still means the same to LIBSVM (class order included)
    again = str(tmp_path / "again.model")
    lm.save_libsvm_model(model, again)
    pred_again, _, dec_again = libsvm.svm_predict(y_lib, x_lib, libsvm.svm_load_model(again), "-q")
    np.testing.assert_array_equal(pred_again, pred_ref)
    np.testing.assert_allclose(dec_again, dec_ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("base", [0, 1])
def test_binary_with_swapped_class_order(tmp_path, problem, base):
    Xtr, ytr, Xte, yte = problem
    keep = ytr != 5
    tr, te = tmp_path / "train.txt", tmp_path / "test.txt"
    write_file(tr, Xtr[keep], np.where(ytr[keep] == 9, 4, -4), base)  # the file lists 4 first
    write_file(te, Xte, np.zeros(len(Xte)), base)
    path = str(tmp_path / "m.model")
    ref = libsvm_file(path, *libsvm.svm_read_problem(str(tr)), "-t 2 -g 0.02 -c 1 -b 1 -q")
    model = lm.load_libsvm_model(path, zero_based=bool(base == 0))
    X, _ = lm.load_libsvm(te, zero_based=bool(base == 0))
    y_lib, x_lib = libsvm.svm_read_problem(str(te))
    pred_ref, _, dec_ref = libsvm.svm_predict(y_lib, x_lib, ref, "-q")
    np.testing.assert_array_equal(model.predict(X), pred_ref)
    # LIBSVM's decision favours its first label (4); ours favours classes_[1], which is 4 too
    np.testing.assert_allclose(model.decision_function(X), np.ravel(dec_ref), rtol=1e-12, atol=1e-12)
    _, _, prob_ref = libsvm.svm_predict(y_lib, x_lib, ref, "-b 1 -q")
    np.testing.assert_allclose(model.predict_proba(X)[:, [1, 0]], prob_ref, atol=1e-12)


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_regression_both_ways(tmp_path, problem, kernel):
    Xtr, ytr, Xte, _ = problem
    target = Xtr[:, 1:10].sum(axis=1) + 0.1 * ytr
    tr, te = tmp_path / "train.txt", tmp_path / "test.txt"
    write_file(tr, Xtr, target, 1)
    write_file(te, Xte, np.zeros(len(Xte)), 1)
    opts, params = KERNELS[kernel]
    X, y, Xt, _ = lm.load_libsvm_files([tr, te])
    y_lib, x_lib = libsvm.svm_read_problem(str(te))

    ours = lm.SVR(C=2.0, epsilon=0.05, **params).fit(lm.load_libsvm(tr)[0], y)
    path = str(tmp_path / "ours.model")
    lm.save_libsvm_model(ours, path)
    pred_ref, _, _ = libsvm.svm_predict(y_lib, x_lib, libsvm.svm_load_model(path), "-q")
    np.testing.assert_allclose(lm.load_libsvm_model(path).predict(Xt), pred_ref, rtol=1e-10, atol=1e-10)

    # LIBSVM's regression with -b 1 stores its noise model's scale as probA
    path = str(tmp_path / "libsvm.model")
    ref = libsvm_file(path, *libsvm.svm_read_problem(str(tr)), f"-s 3 {opts} -c 2 -p 0.05 -b 1 -q")
    assert "probA" in Path(path).read_text()
    pred_ref, _, _ = libsvm.svm_predict(y_lib, x_lib, ref, "-q")
    loaded = lm.load_libsvm_model(path)
    np.testing.assert_allclose(loaded.predict(Xt), pred_ref, rtol=1e-10, atol=1e-10)
    again = tmp_path / "again.model"
    lm.save_libsvm_model(loaded, again)  # LIBSVM's noise scale goes back into the file
    prob_a = lambda text: [float(v) for l in text.splitlines() if l.startswith("probA") for v in l.split()[1:]]
    assert prob_a(again.read_text()) == prob_a(Path(path).read_text()) != []


def test_precomputed_kernels_both_ways(tmp_path, problem):
    Xtr, ytr, Xte, yte = problem
    Ktr = Xtr @ Xtr.T
    Kte = Xte[:, :64] @ Xtr.T
    serial_rows = lambda K: np.hstack([np.arange(1, len(K) + 1)[:, None], K]).tolist()
    for task in ("svc", "svr"):
        target = ytr if task == "svc" else Xtr[:, 1:10].sum(axis=1)
        ours = (lm.SVC(kernel="precomputed", C=0.1) if task == "svc"
                else lm.SVR(kernel="precomputed", C=0.1)).fit(Ktr, target)
        path = str(tmp_path / f"ours-{task}.model")
        lm.save_libsvm_model(ours, path)
        pred_ref, _, _ = libsvm.svm_predict([0] * len(Kte), serial_rows(Kte), libsvm.svm_load_model(path), "-q")
        np.testing.assert_allclose(ours.predict(Kte), pred_ref, rtol=1e-10, atol=1e-10)
        back = lm.load_libsvm_model(path)  # reloads, and takes the test kernel as it is
        np.testing.assert_allclose(back.predict(Kte), pred_ref, rtol=1e-10, atol=1e-10)
        sized = lm.load_libsvm_model(path, n_features=len(Ktr))
        np.testing.assert_allclose(sized.predict(Kte), pred_ref, rtol=1e-10, atol=1e-10)
        with pytest.raises(ValueError, match="300"):
            sized.predict(Kte[:, :-1])

        s = "-s 0" if task == "svc" else "-s 3"
        prob = libsvm.svm_problem(target.tolist(), serial_rows(Ktr), isKernel=True)
        path = str(tmp_path / f"libsvm-{task}.model")
        ref = libsvm_file(path, prob, libsvm.svm_parameter(f"{s} -t 4 -c 0.1 -q"))
        pred_ref, _, _ = libsvm.svm_predict([0] * len(Kte), serial_rows(Kte), ref, "-q")
        np.testing.assert_allclose(lm.load_libsvm_model(path).predict(Kte), pred_ref, rtol=1e-10, atol=1e-10)


# --- the command-line tools on the same files ---------------------------------------------------

def python_cli(*args):
    return subprocess.run([sys.executable, "-m", "largemargin.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=600)


def native_cli_path():
    """The native tool: `LARGEMARGIN_CLI` (set by .ci/run, which builds it), else the release
    build of this checkout."""
    path = os.environ.get("LARGEMARGIN_CLI") or str(Path(__file__).resolve().parents[1] / "target/release/largemargin-cli")
    if not Path(path).exists():
        if os.environ.get("LARGEMARGIN_CLI"):
            pytest.fail(f"LARGEMARGIN_CLI={path} does not exist")
        pytest.skip("the native CLI is not built (cargo build --release -p largemargin-cli)")
    return path


def native_cli(*args):
    return subprocess.run([native_cli_path(), *map(str, args)], capture_output=True, text=True, timeout=600)


def error_rate(stdout):
    return float(stdout.split("error")[1].split("%")[0])


def accuracy(stdout):
    """The accuracy in svm-predict's line, 'Accuracy = 85.1% (851/1000) (classification)'."""
    return float(stdout.split("Accuracy = ")[1].split("%")[0])


def tools_agree_with_libsvm(tmp_path, model, data, pred_ref, accuracy_ref):
    """eval and predict of both tools on `model` and `data` give svm_predict's accuracy and labels."""
    for tool in (python_cli, native_cli):
        r = tool("eval", data, model)
        assert r.returncode == 0, r.stderr
        assert accuracy(r.stdout) == pytest.approx(accuracy_ref, abs=1e-3)
    out = tmp_path / "pred.txt"
    for tool in (python_cli, native_cli):
        r = tool("predict", data, model, out)  # both in svm-predict's order, and they print its line
        assert r.returncode == 0, r.stderr
        assert accuracy(r.stdout) == pytest.approx(accuracy_ref, abs=1e-3)
        np.testing.assert_array_equal(np.loadtxt(out), pred_ref)
        out.unlink()


def test_one_base_per_run_and_literal_prediction(tmp_path, problem):
    """Zero-based training and test files whose test rows never use feature 0: train --test
    reads both zero-based; the model file gives LIBSVM the same predictions; eval and predict of
    both tools match LIBSVM's svm_predict on the model LIBSVM writes too."""
    Xtr, ytr, Xte, yte = problem
    n = 200
    Xte = Xte[:n].copy()
    Xte[:, 0] = 0.0
    tr, te = tmp_path / "train.txt", tmp_path / "test.txt"
    write_file(tr, Xtr, ytr, 0)
    write_file(te, Xte, yte[:n], 0)
    model = tmp_path / "m.model"
    r = python_cli("train", tr, model, "--test", te, "-c", "1", "-g", "0.02")
    assert r.returncode == 0, r.stderr
    assert "0-based" in r.stdout
    Xtr_f, y_f, Xte_f, yte_f = lm.load_libsvm_files([tr, te], zero_based=True)
    expected = lm.SVC(C=1, gamma=0.02, random_state=0).fit(Xtr_f, y_f).predict(Xte_f)
    assert error_rate(r.stdout) == pytest.approx(100 * np.mean(expected != yte_f), abs=0.006)
    y_lib, x_lib = libsvm.svm_read_problem(str(te))
    pred_ref, _, _ = libsvm.svm_predict(y_lib, x_lib, libsvm.svm_load_model(str(model)), "-q")
    np.testing.assert_array_equal(expected, pred_ref)

    r = python_cli("eval", te, model)
    assert r.returncode == 0, r.stderr
    assert accuracy(r.stdout) == pytest.approx(100 * np.mean(expected == yte_f), abs=1e-3)

    libsvm_model = tmp_path / "libsvm.model"
    ref = libsvm_file(libsvm_model, *libsvm.svm_read_problem(str(tr)), "-t 2 -g 0.02 -c 1 -q")
    pred_ref, acc, _ = libsvm.svm_predict(y_lib, x_lib, ref, "-q")
    tools_agree_with_libsvm(tmp_path, libsvm_model, te, pred_ref, acc[0])


def test_the_test_file_does_not_change_the_trained_model(tmp_path, problem):
    """gamma='scale' comes from the training file alone, however wide the test file is."""
    Xtr, ytr, Xte, yte = problem
    tr, te = tmp_path / "train.txt", tmp_path / "test.txt"
    write_file(tr, Xtr[:, :40], ytr, 1)
    write_file(te, Xte, yte, 1)  # 65 features
    alone, with_test = tmp_path / "alone.model", tmp_path / "with-test.model"
    assert python_cli("train", tr, alone).returncode == 0
    r = python_cli("train", tr, with_test, "--test", te)
    assert r.returncode == 0, r.stderr
    assert alone.read_text() == with_test.read_text()


def test_native_cli_models_are_libsvm_models(tmp_path, problem):
    Xtr, ytr, Xte, yte = problem
    for base in (0, 1):
        tr, te = tmp_path / f"train{base}.txt", tmp_path / f"test{base}.txt"
        write_file(tr, Xtr, ytr, base)
        write_file(te, Xte[:300], yte[:300], base)
        model = tmp_path / f"native{base}.model"
        args = ["train", "-c", "1", "-g", "0.02", "-q"] + (["-z"] if base == 0 else []) + [tr, model]
        r = native_cli(*args)
        assert r.returncode == 0, r.stderr
        y_lib, x_lib = libsvm.svm_read_problem(str(te))
        pred_ref, _, _ = libsvm.svm_predict(y_lib, x_lib, libsvm.svm_load_model(str(model)), "-q")
        out = tmp_path / "p.txt"
        assert native_cli("predict", te, model, out).returncode == 0
        np.testing.assert_array_equal(np.loadtxt(out), pred_ref)


def test_precomputed_files_through_both_tools(tmp_path, problem):
    Xtr, ytr, Xte, yte = problem
    Ktr, Kte = Xtr @ Xtr.T, Xte[:200, :64] @ Xtr.T
    tr, te = tmp_path / "ktrain.txt", tmp_path / "ktest.txt"
    write_file(tr, Ktr, ytr, 1, serial=True)
    write_file(te, Kte, yte[:200], 1, serial=True)
    path = tmp_path / "k.model"
    ref = libsvm_file(path, *libsvm.svm_read_problem(str(tr)), "-t 4 -c 0.1 -q")
    pred_ref, acc, _ = libsvm.svm_predict(*libsvm.svm_read_problem(str(te)), ref, "-q")
    tools_agree_with_libsvm(tmp_path, path, te, pred_ref, acc[0])
