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
