"""Runs scikit-learn's own SVM tests (sklearn/svm/tests/test_svm.py and test_sparse.py of the
installed scikit-learn, with its conftest.py) against largemargin's kernel SVMs, swapped in for
scikit-learn's by `swap_in_largemargin`. Exits non-zero when a test fails that
`expected_failures.txt` does not list (with its reason), or when no instance of a listed test fails.

    python tests/sklearn_suite/run.py [-q] [pytest options]
"""

import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ["sklearn.svm.tests.test_svm", "sklearn.svm.tests.test_sparse"]


def expected_failures():
    """{test name: reason} from expected_failures.txt (reasons may continue on '#' lines)."""
    out, last = {}, None
    with open(os.path.join(HERE, "expected_failures.txt")) as f:
        for line in f:
            name, _, reason = line.partition("#")
            name = name.strip()
            if name:
                out[name], last = reason.strip(), name
            elif last is not None and line.startswith(" ") and reason.strip():
                out[last] += " " + reason.strip()
            elif not line.strip():
                last = None
    return out


class Outcomes:
    """Each test's outcome, by node id (a failure in setup or teardown counts as a failure)."""

    def __init__(self):
        self.failed, self.passed = set(), set()

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failed.add(report.nodeid)
        elif report.when == "call" and report.passed:
            self.passed.add(report.nodeid)


def base_name(nodeid):
    return re.sub(r"\[.*\]$", "", nodeid.split("::")[-1])


def main(argv):
    sys.path.insert(0, HERE)  # the swap plugin
    outcomes = Outcomes()
    code = pytest.main(["-p", "swap_in_largemargin", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning",
                        "--pyargs", *MODULES, *argv], plugins=[outcomes])
    if code not in (0, 1):  # 1: tests failed, judged below; anything else: the run itself failed
        print(f"the run of scikit-learn's SVM tests failed (pytest exit code {code})")
        return 2
    listed = expected_failures()
    unexpected = sorted(n for n in outcomes.failed if base_name(n) not in listed)
    failed_names = {base_name(n) for n in outcomes.failed}
    ran_names = failed_names | {base_name(n) for n in outcomes.passed}
    stale = sorted(name for name in listed if name in ran_names and name not in failed_names)
    print(f"\nscikit-learn's SVM tests on largemargin: {len(outcomes.passed)} passed, {len(outcomes.failed)} failed "
          f"({len(outcomes.failed) - len(unexpected)} of them listed in expected_failures.txt)")
    for name in sorted(failed_names & set(listed)):
        print(f"  expected: {name}: {listed[name]}")
    for n in unexpected:
        print(f"  UNEXPECTED FAILURE: {n}")
    for n in stale:
        print(f"  LISTED BUT NO LONGER FAILS (remove it from expected_failures.txt): {n}")
    return 1 if unexpected or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
