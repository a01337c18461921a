"""What a fit with ``verbose=True`` reports while it runs, through the ``largemargin`` logger and,
when tqdm is installed and the fit knows how much work it has (one-vs-one pairs, binary problems,
epochs), a progress bar with the time left.

The native side calls `Reporter.update` about four times a second and `Reporter.close` at the end;
the estimators' own verbose lines go through `say`. Lines are INFO records of the ``largemargin``
logger when the program has configured logging (so its handlers and levels decide what shows: a
root level of WARNING hides them unless ``logging.getLogger("largemargin").setLevel(logging.INFO)``);
a program that configured none gets them on stdout, as scikit-learn's estimators print theirs.
Nothing here changes the logger's configuration.
"""

import logging
import sys
import time

logger = logging.getLogger("largemargin")

# what the native fits count, by the label they report under
_UNITS = {"SVC fit": "pair", "LaRank fit": "epoch", "ambiguous LaRank fit": "epoch", "sequence fit": "epoch",
          "SGD fit": "problem", "LaSVM fit": "problem", "online fit": "problem", "SVR fit": "problem",
          "semantic parser fit": "sentence"}
LOG_EVERY = 2.0  # seconds between log lines


def _configured():
    return logger.hasHandlers()


def _shown():
    """Whether an INFO line of the logger would show (always, when logging is not configured)."""
    return not _configured() or logger.isEnabledFor(logging.INFO)


def say(message):
    """One verbose line: an INFO record if the program configured logging, else printed."""
    if _configured():
        logger.info("%s", message)
    else:
        print(message, flush=True)


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

    def update(self, done, planned, seconds):
        if not _shown():
            return
        if self.bar is None and planned > 1 and (bar := _bar_class()) is not None:
            # started at the count reached so far, so that its rate and time left count from here
            self.bar = bar(total=int(planned), initial=min(int(done), int(planned)), desc=self.what, unit=self.unit,
                           leave=True, file=sys.stderr)
        if self.bar is not None:
            self.bar.update(min(int(done), self.bar.total) - self.bar.n)
        elif time.monotonic() - self.last_log >= LOG_EVERY:
            self.last_log = time.monotonic()
            say(self._line(done, planned, seconds))

    def close(self, done, planned, seconds):
        if self.bar is not None:
            self.update(done, planned, seconds)
            self.bar.close()
        if _shown():
            say(self._line(done, planned, seconds) + " (finished)")

    def _line(self, done, planned, seconds):
        of = f" of {planned}" if planned > 0 else ""
        return f"[largemargin] {self.what}: {done}{of} {self.unit}s done, {seconds:.1f} s"
