"""Ctrl-C stops every solver family: a SIGINT sent while the fit runs makes fit raise
KeyboardInterrupt, however expensive one iteration of the solver is, the fit stops (the problem is
far too large to finish) and the estimator is left as it was. How fast it stops is not asserted
here (a loaded machine makes any bound flaky): benches/interrupt.py measures the latencies.

Each family's problem is tests/helpers/interrupt_child.py's.
"""

import pytest
from helpers.interrupt_child import FAMILIES, measure

# On every Python: a native loop, the callbacks into Python (kernel, loss) and worker threads; the
# other families' stops go through the same binding code, and run on the main Python only (slow).
EVERY_PYTHON = {"smo", "python_kernel", "python_loss", "sgd", "mixture"}


@pytest.mark.parametrize("family", [f if f in EVERY_PYTHON else pytest.param(f, marks=pytest.mark.slow)
                                    for f in FAMILIES])
def test_ctrl_c_stops_fit(family):
    raised, _, err, finished = measure(family, delay=1.0, timeout=600)
    assert not finished, f"{family}: the problem finished before the SIGINT; make it larger"
    assert raised is not None, f"{family}: fit did not raise KeyboardInterrupt:\n{err[-2000:]}"
    assert "KeyboardInterrupt" in err
    assert "STATE UNCHANGED" in err, f"{family}: the interrupted fit changed the estimator:\n{err[-2000:]}"
