"""What a fit with ``verbose=True`` reports while it runs, through the ``largemargin`` logger and,
when tqdm is installed and the fit knows how much work it has (one-vs-one pairs, binary problems,
epochs), a progress bar with the time left.

The native side calls `Reporter.update` about four times a second and `Reporter.close` at the end.
Log records go to the ``largemargin`` logger at INFO level; when the program has configured no
logging at all, a handler printing them to stdout is added so that ``verbose=True`` shows them,
as scikit-learn's estimators print theirs. To route or silence them, configure that logger.
"""

import logging
import sys
import time

logger = logging.getLogger("largemargin")

# what the native fits count, by the label they report under
_UNITS = {"SVC fit": "pair", "LaRank fit": "epoch", "ambiguous LaRank fit": "epoch", "sequence fit": "epoch",
          "SGD fit": "problem", "LaSVM fit": "problem", "online fit": "problem", "SVR fit": "problem"}
LOG_EVERY = 2.0  # seconds between log lines


def _visible_logger():
    """The logger, with a stdout handler added if nothing would print INFO records otherwise."""
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter("[largemargin] %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    if logger.level == logging.NOTSET and logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)  # verbose=True asks for INFO, unless this logger's level was set
    return logger


def _bar_class():
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


class Reporter:
    """The progress of one native fit, labelled `what`."""

    def __init__(self, what):
        self.what, self.unit = what, _UNITS.get(what, "problem")
        self.bar, self.last_log = None, time.monotonic()
        self.log = _visible_logger()

    def update(self, done, planned, iterations, seconds):
        if planned > 0 and self.bar is None and planned > 1 and (bar := _bar_class()) is not None:
            self.bar = bar(total=int(planned), desc=self.what, unit=self.unit, leave=True, file=sys.stderr)
        if self.bar is not None:
            self.bar.n = min(int(done), self.bar.total)
            if iterations:
                self.bar.set_postfix_str(f"{iterations:,} iterations", refresh=False)
            self.bar.refresh()
        elif time.monotonic() - self.last_log >= LOG_EVERY:
            self.last_log = time.monotonic()
            self.log.info("%s", self._line(done, planned, iterations, seconds))

    def close(self, done, planned, iterations, seconds):
        if self.bar is not None:
            self.update(done, planned, iterations, seconds)
            self.bar.close()
        self.log.info("%s", self._line(done, planned, iterations, seconds) + " (finished)")

    def _line(self, done, planned, iterations, seconds):
        of = f" of {planned}" if planned > 0 else ""
        steps = f", {iterations:,} iterations" if iterations else ""
        return f"{self.what}: {done}{of} {self.unit}s done{steps}, {seconds:.1f} s"
