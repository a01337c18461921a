"""The cost of a Python loss in the SGD solvers: the same squared hinge built in and as a plugin
loss, on seeded sparse data (100,000 x 100, 10 nonzeros a row), one thread.

Each SGD step needs the derivative at the current weights before the next step, so a Python
loss's ``dloss`` is called once per example and pass (on two floats); ``loss`` is called on arrays
of a block of examples where the objective is summed (t0's search, the final objective). Two
Python versions: numpy ufuncs (``np.maximum``) and plain float arithmetic in ``dloss``.

    python benches/plugin_loss.py [--rows 100000] [--repeat 3]

Prints per path: the passes' seconds per example (`fit_time_`, which excludes the objective's
evaluation) and the whole fit's wall time with t0 given and with t0=None (the search: one pass
over a tenth of the data per candidate), each the best of --repeat, and the ratio to built-in; the table also goes to --out
(benches/results/plugin_loss.md).
"""

import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

import largemargin as lm


class NumpySquaredHinge:
    def loss(self, f, y):
        return 0.5 * np.maximum(0.0, 1.0 - y * f) ** 2

    def dloss(self, f, y):
        return -y * np.maximum(0.0, 1.0 - y * f)


class FloatSquaredHinge(NumpySquaredHinge):
    def dloss(self, f, y):
        m = 1.0 - y * f
        return -y * m if m > 0.0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "plugin_loss.md"),
                    help="the table's file (default: benches/results/plugin_loss.md)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n, d = args.rows, 100
    X = sp.random(n, d, density=0.1, format="csr", random_state=0)
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    paths = {"built-in": "squared_hinge", "numpy ufuncs": NumpySquaredHinge(), "float dloss": FloatSquaredHinge()}
    rows = {}
    for name, loss in paths.items():
        out = []
        for t0 in (1e5, None):
            passes, wall, objective = [], [], None
            for _ in range(args.repeat):
                started = time.perf_counter()
                m = lm.LinearSGD(loss=loss, epochs=1, t0=t0, alpha=1e-4, n_jobs=1, random_state=0).fit(X, y)
                wall.append(time.perf_counter() - started)
                passes.append(m.fit_time_)
                objective = float(m.objective_[0])
            out.append((min(passes) / n, min(wall), objective))
        rows[name] = out
    base = rows["built-in"]
    command = " ".join(["python benches/plugin_loss.py"] + sys.argv[1:])
    lines = [f"`{command}` ({time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs): {n:,} x {d} sparse, "
             f"1 pass, one thread, best of {args.repeat}.", "",
             "| loss | us per step | x built-in | fit s, t0=1e5 | x built-in | fit s, t0=None | x built-in | objective |",
             "|---|---|---|---|---|---|---|---|"]
    for name, ((step, wall, obj), (_, wall_none, _)) in rows.items():
        lines.append(f"| {name} | {step * 1e6:.3f} | {step / base[0][0]:.0f} | {wall:.3f} | {wall / base[0][1]:.1f} | "
                     f"{wall_none:.3f} | {wall_none / base[1][1]:.1f} | {obj:.6f} |")
    print("\n".join(lines))
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
