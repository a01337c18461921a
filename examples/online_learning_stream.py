"""
Online learning over a stream: LaSVM's partial_fit chunk by chunk, against batch SMO
====================================================================================

The training rows arrive in chunks of 500 (the first 8,000 rows of the bundled UCI Adult data,
in a random order). ``LaSVM.partial_fit`` learns from each chunk once, without revisiting the
earlier ones: only its support vectors are kept between chunks. Two streams are followed:
``LaSVM(finishing=False)``, the pure online pass, whose finishing step (SMO on the support
vectors) runs once at the end through ``finish()``, and the default ``LaSVM()``, which runs the
finishing step after every chunk. After every chunk the script measures the test error. For
comparison, a batch ``SVC`` (SMO) is refitted from scratch on the prefix of the
stream seen so far at a few points, as a learner that keeps every example would be.

Both use the LaSVM papers' setting for Adult, RBF kernel with gamma=0.005 and C=100; the test
set is the first 4,000 rows of Adult's own test split. Run it with::

    python examples/online_learning_stream.py

The plot shows test error against examples seen, and support vectors against examples seen.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

import largemargin as lm

N_TRAIN, N_TEST, CHUNK = 8_000, 4_000, 500
PARAMS = dict(C=100, gamma=0.005)


def main():
    X, y = lm.load_adult("train")
    Xt, yt = lm.load_adult("test")
    order = np.random.RandomState(0).permutation(X.shape[0])[:N_TRAIN]
    X, y = X[order], y[order]  # the stream: a random order of the rows
    Xt, yt = Xt[:N_TEST], yt[:N_TEST]

    streams = {"no finishing": lm.LaSVM(**PARAMS, finishing=False, random_state=0),
               "finishing after each chunk": lm.LaSVM(**PARAMS, random_state=0)}
    seen = list(range(CHUNK, N_TRAIN + 1, CHUNK))
    curves = {}
    for name, stream in streams.items():
        errors, n_sv, seconds = [], [], 0.0
        for start in range(0, N_TRAIN, CHUNK):
            t = time.perf_counter()
            # one pass over the chunk, continuing from the current support vectors
            stream.partial_fit(X[start:start + CHUNK], y[start:start + CHUNK], classes=[-1, 1])
            seconds += time.perf_counter() - t
            errors.append(np.mean(stream.predict(Xt) != yt))
            n_sv.append(len(stream.support_))
        curves[name] = (errors, n_sv)
        print(f"LaSVM {name}, {N_TRAIN} examples in chunks of {CHUNK}: test error {100 * errors[-1]:.2f}%, "
              f"{n_sv[-1]} SV, {seconds:.1f} s")
    stream = streams["no finishing"]
    t = time.perf_counter()
    stream.finish()  # the finishing step, on the support vectors only
    finish_time = time.perf_counter() - t
    finished_err = np.mean(stream.predict(Xt) != yt)
    print(f"LaSVM no finishing, then finish(): test error {100 * finished_err:.2f}%, {len(stream.support_)} SV, "
          f"+{finish_time:.1f} s")

    smo_seen, smo_err, smo_sv, smo_time = [500, 1000, 2000, 3000, 4000, 6000, 8000], [], [], 0.0
    for n in smo_seen:
        t = time.perf_counter()
        svc = lm.SVC(**PARAMS).fit(X[:n], y[:n])  # batch: refitted on everything seen so far
        smo_time += time.perf_counter() - t
        smo_err.append(np.mean(svc.predict(Xt) != yt))
        smo_sv.append(len(svc.support_))
    print(f"SVC (SMO) on all {N_TRAIN}: test error {100 * smo_err[-1]:.2f}%, {smo_sv[-1]} SV "
          f"({smo_time:.1f} s for the {len(smo_seen)} refits)")

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.3))
    for (name, (errors, _)), style in zip(curves.items(), ("o-", "^-")):
        ax1.plot(seen, 100 * np.array(errors), style, ms=3, label=f"LaSVM partial_fit, {name}")
    ax1.plot([seen[-1]], [100 * finished_err], "*", ms=13, color="C0", label="no finishing, then finish()")
    ax1.plot(smo_seen, 100 * np.array(smo_err), "s--", color="C3", label="SVC (SMO) refitted on the prefix")
    ax1.set_xlabel("training examples seen")
    ax1.set_ylabel("test error (%)")
    ax1.set_title("Adult, RBF gamma=0.005, C=100")
    ax1.grid(alpha=0.3)
    ax1.legend(fontsize=8)
    for (name, (_, n_sv)), style in zip(curves.items(), ("o-", "^-")):
        ax2.plot(seen, n_sv, style, ms=3, label=f"LaSVM, {name}")
    ax2.plot(smo_seen, smo_sv, "s--", color="C3", label="SVC (SMO)")
    ax2.plot([seen[-1]], [len(stream.support_)], "*", ms=13, color="C0", label="no finishing, then finish()")
    ax2.set_xlabel("training examples seen")
    ax2.set_ylabel("support vectors")
    ax2.set_title("Model size: only support vectors are kept")
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    plt.show()


if __name__ == "__main__":
    main()
