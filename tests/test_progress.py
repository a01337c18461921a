"""verbose=True: progress through the `largemargin` logger (printed when logging is not
configured), and a tqdm bar when the fit plans its work. The logger's configuration is never changed."""

import io
import logging

import numpy as np
import pytest

import largemargin as lm
from largemargin import _progress

RNG = np.random.RandomState(0)
X = RNG.normal(size=(300, 4))
Y3 = np.digitize(X[:, 0], [-0.5, 0.5])


@pytest.fixture
def unconfigured(monkeypatch):
    """The logger as a program that never configured logging has it (pytest's own capture
    handlers on the root logger aside: the test says whether logging counts as configured)."""
    logger = logging.getLogger("largemargin")
    monkeypatch.setattr(logger, "handlers", [])
    monkeypatch.setattr(logger, "propagate", True)
    monkeypatch.setattr(logger, "level", logging.NOTSET)
    return logger


def not_configured(monkeypatch):
    monkeypatch.setattr(_progress, "_configured", lambda: False)


def test_without_logging_configured_verbose_prints_and_changes_nothing(unconfigured, capsys, monkeypatch):
    not_configured(monkeypatch)
    lm.SVC(verbose=True).fit(X, Y3)
    lm.LaRankClassifier(verbose=True, epochs=2).fit(X, Y3)
    out = capsys.readouterr().out
    assert "[largemargin] SVC fit: 3 of 3 pairs done" in out and "(finished)" in out
    assert "[largemargin] LaRank fit: 2 of 2 epochs done" in out
    lm.SemanticParser(verbose=True, random_state=0).fit([["a", "dog", "eats"]] * 3, [[(("eat", "REL"), ("dog", "A0"))]] * 3)
    assert "[largemargin] semantic parser fit: 3 of 3 sentences done" in capsys.readouterr().out
    assert unconfigured.handlers == [] and unconfigured.propagate and unconfigured.level == logging.NOTSET
    lm.SVC().fit(X, Y3)  # quiet by default
    assert capsys.readouterr().out == ""


def test_with_logging_configured_lines_are_info_records(unconfigured, caplog):
    with caplog.at_level(logging.INFO, logger="largemargin"):
        lm.SVC(verbose=True).fit(X, Y3)
        lm.LinearSGD(verbose=True, random_state=0).fit(X, Y3)
    lines = [r.getMessage() for r in caplog.records if r.name == "largemargin"]
    assert any(ln.startswith("[largemargin] SVC fit: 3 of 3 pairs done") for ln in lines), lines
    assert any(ln.startswith("[LinearSGD] class 0 against the rest") for ln in lines), lines


def test_a_higher_level_silences_lines_and_bar(unconfigured, capsys, monkeypatch):
    unconfigured.setLevel(logging.WARNING)
    lm.SVC(verbose=True).fit(X, Y3)
    r = _progress.Reporter("SVC fit")
    r.update(1, 6, 0.5)
    assert r.bar is None
    out = capsys.readouterr()
    assert "SVC fit" not in out.out and "SVC fit" not in out.err


def test_the_bar_counts_planned_units(unconfigured, monkeypatch):
    tqdm = pytest.importorskip("tqdm")
    not_configured(monkeypatch)
    out = io.StringIO()
    monkeypatch.setattr(_progress, "_bar_class", lambda: lambda **kw: tqdm.tqdm(**{**kw, "file": out}))
    r = _progress.Reporter("SVC fit")
    r.update(2, 6, 0.5)
    r.close(6, 6, 1.0)
    text = out.getvalue()
    assert "SVC fit" in text and "6/6" in text and "pair" in text
    r = _progress.Reporter("cross-validated search")  # no plan: log lines only
    r.update(3, 0, 10.0)
    assert r.bar is None
