"""
A hard mixture of SVM experts trained on a Dask cluster (MixtureSVC(backend="dask"))
====================================================================================

``MixtureSVC`` splits the training set among K experts (RBF SVMs), trains them in parallel,
trains a gater (a small MLP) that learns which expert to trust where, reassigns every example to
the expert the gater prefers (at most n/K + 1 examples each), and repeats for ``max_iter``
rounds. With ``backend="dask"`` the experts train on the workers of a ``dask.distributed``
cluster: the data is split into blocks held by the workers, and only the experts' outputs, the
fitted experts and the gates come back.

The script starts a local cluster of two single-threaded worker processes (a real cluster would
be ``Client("tcp://scheduler:8786")``), fits a mixture of 8 experts for 4 rounds on 8,000 rows
of ``make_forest_like`` (a seeded stand-in for the covertype problem, 54 features) and compares it
with one ``SVC`` on the same rows. On this little data one SVM is faster: a mixture pays from
about 20,000 rows on (see the benchmarks), and ``MixtureSVC()`` with its defaults is one SVM
below that. Run it with::

    python examples/mixture_on_dask.py

The plot shows the training rows in a 2-D projection coloured by their expert, ``assignment_``, the
per-round ``history_``, and each expert's examples and support vectors.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

import largemargin as lm

N_TRAIN, N_TEST = 8_000, 2_000
K = 8


def main():
    X, y = lm.make_forest_like(N_TRAIN + N_TEST, random_state=0)
    X, y, Xt, yt = X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]

    t = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        print(f"cluster of {len(client.scheduler_info()['workers'])} workers up in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        mix = lm.MixtureSVC(n_experts=K, C=10, gamma=0.1, max_iter=4, backend="dask", client=client,
                            random_state=0, verbose=True)
        mix.fit(X, y)  # NumPy input is split into blocks on the workers; dask arrays work too
        fit_time = time.perf_counter() - t
    # the fitted mixture keeps no client: it predicts (and pickles) without the cluster
    mix_error = np.mean(mix.predict(Xt) != yt)
    print(f"MixtureSVC, {len(mix.experts_)} experts, {mix.n_iter_} rounds on Dask: test error {100 * mix_error:.2f}%, "
          f"{int(np.sum(mix.n_support_))} SV, {fit_time:.1f} s")

    t = time.perf_counter()
    svc = lm.SVC(C=10, gamma=0.1).fit(X, y)
    print(f"one SVC: test error {100 * np.mean(svc.predict(Xt) != yt):.2f}%, {len(svc.support_)} SV, "
          f"{time.perf_counter() - t:.1f} s")

    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4.6), gridspec_kw={"width_ratios": [1.25, 1, 1]})
    # the linear 2-D view that best separates the experts' regions (discriminant analysis on assignment_)
    xy = LinearDiscriminantAnalysis(n_components=2).fit_transform(X, mix.assignment_)
    colors = plt.cm.tab10(np.arange(K) % 10)
    ax1.scatter(*xy.T, s=2, c=colors[mix.assignment_], rasterized=True)
    for k in range(K):
        ax1.scatter([], [], s=15, color=colors[k], label=f"expert {k}")
    ax1.set_xlabel("first discriminant direction")
    ax1.set_ylabel("second discriminant direction")
    ax1.set_title("Training rows coloured by their expert (assignment_)")
    ax1.legend(fontsize=7, ncol=2, loc="best")

    history = mix.history_
    rounds = [h["round"] for h in history]
    # (the last round trains and stops: it moves nothing, its "moved" is NaN)
    ax2.plot(rounds, [h["moved"] for h in history], "o-", label="fraction of examples moved")
    ax2.plot(rounds, [h["gater_loss"] for h in history], "s-", label="gater criterion")
    ax2.set_xlabel("round")
    ax2.set_xticks(rounds)
    ax2.set_title("history_: reassignment converges")
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8)
    ax2b = ax2.twinx()
    ax2b.bar(rounds, [h["seconds"] for h in history], width=0.3, alpha=0.12, color="k")
    ax2b.set_ylabel("seconds per round (bars)")

    sizes = np.bincount(mix.assignment_, minlength=K)
    ax3.bar(np.arange(K) - 0.2, sizes, 0.4, color=colors, label="training examples")
    ax3.bar(np.arange(K) + 0.2, mix.n_support_, 0.4, color=colors, alpha=0.45, hatch="//",
            label="support vectors")
    ax3.axhline(N_TRAIN / K + 1, color="k", ls=":", lw=1, label="cap n/K + 1")
    ax3.set_xticks(np.arange(K))
    ax3.set_xlabel("expert")
    ax3.set_title("Each expert's share after the last round")
    ax3.set_ylim(0, 1.3 * sizes.max())
    ax3.legend(fontsize=8, ncol=2, loc="upper center")
    fig.tight_layout()
    plt.show()


if __name__ == "__main__":
    main()
