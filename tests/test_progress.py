"""verbose=True: progress through the `largemargin` logger, and a tqdm bar when the fit plans its work."""

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
def clean_logger():
    logger = logging.getLogger("largemargin")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    logger.handlers, logger.propagate = [], True
    logger.setLevel(logging.NOTSET)
    yield logger
    logger.handlers, logger.level, logger.propagate = saved


def test_a_verbose_fit_logs_its_end_and_its_plan(clean_logger, caplog):
    with caplog.at_level(logging.INFO, logger="largemargin"):
        lm.SVC(verbose=True).fit(X, Y3)
        lm.LaRankClassifier(verbose=True, epochs=2).fit(X, Y3)
    lines = [r.getMessage() for r in caplog.records if r.name == "largemargin"]
    assert any(ln.startswith("SVC fit: 3 of 3 pairs done") and ln.endswith("(finished)") for ln in lines), lines
    assert any(ln.startswith("LaRank fit: 2 of 2 epochs done") for ln in lines), lines
    caplog.clear()
    lm.SVC().fit(X, Y3)  # quiet by default
    assert not [r for r in caplog.records if r.name == "largemargin"]


def test_without_logging_configured_verbose_still_prints(clean_logger, capsys, monkeypatch):
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    lm.SVC(verbose=True).fit(X, Y3)
    assert "[largemargin] SVC fit: 3 of 3 pairs done" in capsys.readouterr().out


def test_a_set_level_is_respected(clean_logger, capsys, monkeypatch):
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    clean_logger.setLevel(logging.WARNING)
    lm.SVC(verbose=True).fit(X, Y3)
    assert "SVC fit" not in capsys.readouterr().out


def test_the_bar_counts_planned_units(clean_logger, monkeypatch):
    tqdm = pytest.importorskip("tqdm")
    out = io.StringIO()
    monkeypatch.setattr(_progress, "_bar_class", lambda: lambda **kw: tqdm.tqdm(**{**kw, "file": out}))
    r = _progress.Reporter("SVC fit")
    r.update(2, 6, 1000, 0.5)
    r.close(6, 6, 5000, 1.0)
    text = out.getvalue()
    assert "SVC fit" in text and "6/6" in text and "pair" in text and "5,000 iterations" in text
    r = _progress.Reporter("cross-validated search")  # no plan: log lines only
    r.update(3, 0, 0, 10.0)
    assert r.bar is None
