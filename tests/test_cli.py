import subprocess
import sys

import numpy as np
from test_svr import ABALONE


def run(*args):
    return subprocess.run([sys.executable, "-m", "largemargin.cli", *args], capture_output=True, text=True, timeout=600)


def test_train_predict_eval_on_files(tmp_path):
    model = tmp_path / "a.model"
    r = run("train", ABALONE, "--svr", "-c", "3", "-p", "0.5", "-m", str(model), "--test", ABALONE)
    assert r.returncode == 0, r.stderr
    assert "support vectors" in r.stdout and "test MAE" in r.stdout
    out = tmp_path / "pred.txt"
    r = run("predict", str(model), ABALONE, "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert len(np.loadtxt(out)) == 4177
    r = run("eval", str(model), ABALONE)
    assert r.returncode == 0 and "MAE" in r.stdout


def test_bad_file_is_reported_not_raised(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1:1\nx 1:2\n")
    r = run("train", str(bad))
    assert r.returncode == 2
    assert "line 2" in r.stderr and "Traceback" not in r.stderr


def test_train_with_lasvm(tmp_path):
    r = run("train", ABALONE, "--solver", "lasvm", "-c", "3", "--test", ABALONE)
    assert r.returncode == 0, r.stderr
    assert "LaSVM" in r.stdout and "support vectors" in r.stdout and "test error" in r.stdout
    r = run("train", ABALONE, "--solver", "lasvm", "-m", str(tmp_path / "m"))
    assert r.returncode == 2 and "pickle" in r.stderr


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
