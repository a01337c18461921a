"""What n_jobs=None means: every core, unless joblib, OMP_NUM_THREADS or threadpoolctl say fewer."""

import os
import subprocess
import sys

import joblib
import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import largemargin as lm
from largemargin._checks import effective_n_jobs
from largemargin._threads import default_threads

CORES = os.cpu_count() or 1


@pytest.fixture(autouse=True)
def no_omp_limit(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)


def test_every_core_by_default_and_explicit_counts_kept():
    assert default_threads() == effective_n_jobs(None) == CORES
    assert effective_n_jobs(3) == 3 and effective_n_jobs(-1) == CORES


def test_joblib_context_sets_the_default():
    with joblib.parallel_config(n_jobs=1):
        assert effective_n_jobs(None) == 1
    with joblib.parallel_config(n_jobs=-1):
        assert effective_n_jobs(None) == CORES


def test_inside_joblib_workers_one_share_of_the_cores():
    # threads of one process: one each; processes (loky): the share joblib hands them
    assert joblib.Parallel(n_jobs=2, backend="threading")(joblib.delayed(default_threads)() for _ in range(4)) == [1] * 4
    shares = joblib.Parallel(n_jobs=2)(joblib.delayed(default_threads)() for _ in range(2))
    assert shares == [max(1, CORES // 2)] * 2


def test_omp_num_threads_caps_the_default(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert default_threads() == 1
    assert effective_n_jobs(2) == 2  # an explicit count is the user's
    monkeypatch.setenv("OMP_NUM_THREADS", "nonsense")
    assert default_threads() == CORES


def test_threadpoolctl_sees_and_limits_the_pool():
    ours = [i for i in threadpool_info() if i["user_api"] == "largemargin"]
    assert ours and ours[0]["num_threads"] == CORES and ours[0]["version"] == lm.__version__
    with threadpool_limits(1):
        assert default_threads() == 1
    with threadpool_limits(1, user_api="blas"):
        assert default_threads() == CORES
    assert default_threads() == CORES


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="counts threads in /proc")
@pytest.mark.parametrize("env, limit", [({"OMP_NUM_THREADS": "1"}, "None"), ({}, "1")])
def test_the_native_pool_follows_the_default(env, limit):
    # a fresh process: the worker threads started by one fit with n_jobs=None, counted by name
    code = f"""
import os, numpy as np, largemargin as lm
from threadpoolctl import threadpool_limits
rng = np.random.RandomState(0); X = rng.normal(size=(300, 5)); y = (X[:, 0] > 0).astype(int)
with threadpool_limits({limit}):
    lm.SVC().fit(X, y)
names = [open(f"/proc/self/task/{{t}}/comm").read().strip() for t in os.listdir("/proc/self/task")]
print(sum(n.startswith("largemargin-") for n in names))
"""
    full_env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"} | env
    out = subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True, check=True)
    assert int(out.stdout.strip()) == 1


def test_models_do_not_depend_on_the_limit():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 6))
    y = (X[:, 0] + X[:, 1] ** 2 > 1).astype(int)
    with threadpool_limits(1):
        one = lm.SVC().fit(X, y)
    every = lm.SVC().fit(X, y)
    np.testing.assert_array_equal(one.support_, every.support_)
    np.testing.assert_allclose(one.dual_coef_, every.dual_coef_)
