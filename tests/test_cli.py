import subprocess
import sys

import numpy as np
import pytest
from test_svr import ABALONE

# The tests that train through the tool are marked slow (CI runs them on the main Python only); the
# parsing, help and error lines are checked on every Python.


def run(*args):
    return subprocess.run([sys.executable, "-m", "largemargin.cli", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_train_predict_eval_on_files(tmp_path):
    model = tmp_path / "a.model"
    r = run("train", ABALONE, str(model), "--svr", "-c", "3", "-p", "0.5", "-m", "100", "--test", ABALONE)
    assert r.returncode == 0, r.stderr
    assert "support vectors" in r.stdout and "test MSE" in r.stdout
    train_mse = float(r.stdout.split("test MSE")[1].split()[0])
    out = tmp_path / "pred.txt"
    r = run("predict", ABALONE, str(model), str(out))  # svm-predict's order
    assert r.returncode == 0, r.stderr
    pred = np.loadtxt(out)
    assert len(pred) == 4177
    from largemargin import load_libsvm

    y = load_libsvm(ABALONE)[1]
    mse = float(r.stdout.split("Mean squared error = ")[1].split()[0])
    np.testing.assert_allclose(mse, np.mean((pred - y) ** 2), rtol=1e-5)
    assert "Squared correlation coefficient" in r.stdout
    r = run("eval", ABALONE, str(model))
    assert r.returncode == 0 and f"Mean squared error = {mse:g} (regression)" in r.stdout
    np.testing.assert_allclose(train_mse, mse, rtol=1e-5)  # train --test reports what eval does
    r = run("predict", ABALONE, str(model))  # no output file: the predictions on stdout
    np.testing.assert_allclose(np.array(r.stdout.split(), dtype=float), pred)
    r = run("eval", str(model), ABALONE)  # the order of largemargin < 0.2
    assert r.returncode == 2 and "DATA MODEL, in svm-predict's order" in r.stderr


@pytest.mark.slow
def test_one_class_cross_validation_and_the_linear_kernel_line(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(150, 3)), rng.normal(6.0, 1.0, size=(30, 3))])
    y = np.r_[np.ones(150), -np.ones(30)]  # inliers +1, outliers -1, as svm-train scores one-class -v
    data = tmp_path / "d.txt"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    r = run("train", "-s", "2", "-n", "0.1", "-g", "0.2", "-v", "3", str(data))
    assert r.returncode == 0, r.stderr
    accuracy = float(r.stdout.split("Cross Validation Accuracy = ")[1].split("%")[0])
    # scikit-learn's one-class SVM on the same folds (plain, shuffled with --seed 0) gives the same
    from sklearn.model_selection import KFold, cross_val_predict
    from sklearn.svm import OneClassSVM

    pred = cross_val_predict(OneClassSVM(nu=0.1, gamma=0.2), X, y, cv=KFold(3, shuffle=True, random_state=0))
    assert f"{100 * np.mean(pred == y):g}" == f"{accuracy:g}", r.stdout
    r = run("train", "-t", "0", str(data), str(tmp_path / "m.model"))
    assert r.returncode == 0, r.stderr
    line = next(t for t in r.stdout.splitlines() if t.startswith("training"))
    assert "kernel=linear" in line and "gamma" not in line, line


@pytest.mark.slow
def test_classification_options_as_svm_train(tmp_path):
    from sklearn.datasets import dump_svmlight_file, make_classification

    import largemargin as lm

    X, y = make_classification(n_samples=300, n_features=5, random_state=0)
    data, model, out = tmp_path / "d.txt", tmp_path / "d.model", tmp_path / "p.txt"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    r = run("train", "-t", "1", "-d", "2", "-c", "4", "-g", "0.5", "-b", "1", "--shrinking", "0", "-q", str(data), str(model))
    assert r.returncode == 0, r.stderr
    assert "training" not in r.stdout  # -q
    m = lm.load_libsvm_model(str(model))
    assert (m.kernel, m.degree, m.gamma, m.probability) == ("poly", 2, 0.5, True)  # C is not in the file
    r = run("predict", "-b", "1", str(data), str(model), str(out))
    assert r.returncode == 0, r.stderr
    lines = open(out).read().splitlines()
    assert lines[0] == "labels 0 1" and len(lines) == 301
    proba = np.array([row.split()[1:] for row in lines[1:]], dtype=float)
    np.testing.assert_allclose(proba, m.predict_proba(X), atol=1e-6)
    right = int(np.sum(m.classes_[np.argmax(proba, axis=1)] == y))  # -b 1 labels: the most probable class
    assert f"Accuracy = {100 * right / 300:g}% ({right}/300) (classification)" in r.stdout
    r = run("train", str(data), "-v", "5", "-q")
    assert r.returncode == 0 and r.stdout.startswith("Cross Validation Accuracy = ")
    r = run("train", str(data), str(model), "-v", "5")
    assert r.returncode == 2 and "drop MODEL" in r.stderr
    # no MODEL: svm-train's default, the data file's name + .model in the current directory
    r = subprocess.run([sys.executable, "-m", "largemargin.cli", "train", "-q", str(data)], cwd=tmp_path / "..",
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and (tmp_path / ".." / "d.txt.model").exists(), r.stderr
    (tmp_path / ".." / "d.txt.model").unlink()
    model.unlink()
    r = run("train", "-q", "-c", "2", str(data), "-g", "0.5", str(model), "--test", str(data))  # svm-train's mixed order
    assert r.returncode == 0 and model.exists(), r.stderr
    r = run("train", str(data), "-c", "2", str(model), "extra")
    assert r.returncode == 2 and "unrecognized arguments" in r.stderr and r.stderr.rstrip().count("\n") == 0


def test_help_version_and_one_line_errors():
    from largemargin import __version__

    for args in (["--help"], ["train", "--help"], ["predict", "--help"], ["eval", "--help"], ["search", "--help"]):
        r = run(*args)
        assert r.returncode == 0 and r.stdout.startswith("usage: largemargin") and not r.stderr
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"largemargin {__version__}"
    r = subprocess.run([sys.executable, "-m", "largemargin", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and __version__ in r.stdout
    r = run()
    assert r.returncode == 2 and r.stderr.startswith("usage: largemargin")
    r = run("train", "-w1", "2")
    assert r.returncode == 2 and "class_weight" in r.stderr and r.stderr.count("\n") == 1
    r = run("train", "-t", "9")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "-t" in r.stderr and "--help" in r.stderr


def test_bad_file_is_reported_not_raised(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1:1\nx 1:2\n")
    r = run("train", str(bad))
    assert r.returncode == 2
    assert "line 2" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_train_with_lasvm(tmp_path):
    r = run("train", ABALONE, "--solver", "lasvm", "-c", "3", "--test", ABALONE)
    assert r.returncode == 0, r.stderr
    assert "LaSVM" in r.stdout and "support vectors" in r.stdout and "test error" in r.stdout
    r = run("train", ABALONE, str(tmp_path / "m"), "--solver", "lasvm")
    assert r.returncode == 2 and "pickle" in r.stderr


@pytest.mark.slow
def test_train_a_linear_svm_by_sgd():
    # the bundled adult: a linear SVM's error there is about 15%
    for solver, epochs in (("sgdqn", ["--epochs", "2"]), ("asgd", [])):
        r = run("train", "--solver", solver, *epochs)
        assert r.returncode == 0, r.stderr
        error = float(r.stdout.split("test error")[1].split("%")[0])
        assert "primal" in r.stdout and error < 16.5, r.stdout
    assert "passes until the objective stops improving" in r.stdout
    r = run("train", "--solver", "svmsgd2", "--svr")
    assert r.returncode == 2 and "linear classifiers" in r.stderr


@pytest.mark.slow
def test_search_prints_the_grid_and_the_best_setting(tmp_path):
    from sklearn.datasets import dump_svmlight_file, make_classification
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    import largemargin as lm

    X, y = make_classification(n_samples=300, n_features=6, random_state=3)
    path = tmp_path / "d.txt"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    r = run("search", str(path), "-c", "0.5,2^3", "-g", "2^-4,scale", "-v", "4")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    rows = [line.split() for line in lines[2:6]]
    assert [row[:2] for row in rows] == [["0.5", "0.0625"], ["0.5", "scale"], ["8", "0.0625"], ["8", "scale"]]
    # the same accuracies as GridSearchCV over the same folds (the file is read one-based: the same X)
    g = GridSearchCV(lm.SVC(), {"C": [0.5, 8.0], "gamma": [0.0625, "scale"]},
                     cv=StratifiedKFold(4, shuffle=True, random_state=0)).fit(X, y)
    np.testing.assert_allclose([float(row[2]) for row in rows], 100 * g.cv_results_["mean_test_score"], atol=0.02)
    assert lines[-2].startswith("best") and "accuracy" in lines[-2]
    r = run("search", ABALONE, "--svr", "-c", "1,10", "-g", "0.5", "-p", "0.1,1", "-v", "3")
    assert r.returncode == 0, r.stderr
    assert "MSE" in r.stdout and r.stdout.count("\n") == 8
    r = run("search", str(path), "-c", "1,ten")
    assert r.returncode == 2 and "'ten' is not a number" in r.stderr
    r = run("search", str(path), "-v", "1")
    assert r.returncode == 2 and "-v must be at least 2" in r.stderr
