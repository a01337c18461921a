"""How far scikit-learn's MLPClassifier() lands from itself with another random_state, scored by
the suite's rule (within 1 point, error ratio over all splits) against the MLPClassifier results
stored by benches/suite.py (random_state=0): the noise floor of the suite's MLP acceptance line.

    python benches/studies/mlp_noise_floor.py [--seed 1] [--out benches/studies/results/mlp_noise_floor.md]

The five largest sets (adult, ijcnn1, letter, letter-bundled, mnist5k) are left out for time.
"""
import argparse
import json
import math
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHES = os.path.dirname(HERE)  # benches/: suite.py, datasets.py, the benchmarks
sys.path.insert(0, BENCHES)
import suite  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "mlp_noise_floor.md"))
    args = ap.parse_args(argv)
    from sklearn.neural_network import MLPClassifier

    with open(os.path.join(BENCHES, "results", "suite.json")) as f:
        stored = {r["dataset"]: r for r in json.load(f)["results"]["mlp-simple"]["rows"]}
    rows = []
    for name, ref in stored.items():
        if name in suite.LARGEST:
            continue
        wrong = n = 0
        for Xtr, ytr, Xte, yte in suite.splits(name):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = MLPClassifier(random_state=args.seed).fit(Xtr, ytr)
            wrong += int(np.sum(m.predict(Xte) != yte))
            n += len(yte)
        err = 100.0 * wrong / n
        rows.append((name, err, ref["theirs_error"], (wrong + 1) / (ref["theirs_wrong"] + 1)))
        print(f"{name:16s} seed {args.seed} {err:6.2f}%  seed 0 {ref['theirs_error']:6.2f}%", flush=True)
    within = sum(abs(r[1] - r[2]) <= suite.TIE for r in rows)
    gmean = math.exp(sum(math.log(r[3]) for r in rows) / len(rows))
    far = ", ".join(f"{r[0]} {r[1] - r[2]:+.2f}" for r in rows if abs(r[1] - r[2]) > suite.TIE)
    lines = [
        "# MLPClassifier() against itself with another random_state",
        "",
        f"`python benches/studies/mlp_noise_floor.py --seed {args.seed}` — {time.strftime('%Y-%m-%d %H:%M')}, "
        f"{len(rows)} suite datasets (the five largest left out).",
        "",
        f"Within {suite.TIE:g} point of random_state=0: {within}/{len(rows)} = {100 * within / len(rows):.0f}%; "
        f"geometric mean error ratio {gmean:.3f}; more than a point apart: {far or 'none'}.",
        "",
        "| dataset | seed %d %% | seed 0 %% | diff |" % args.seed,
        "|---|---|---|---|",
    ] + [f"| {r[0]} | {r[1]:.2f} | {r[2]:.2f} | {r[1] - r[2]:+.2f} |" for r in rows]
    suite._atomic_write(args.out, "\n".join(lines) + "\n")
    print(lines[4])


if __name__ == "__main__":
    main()
