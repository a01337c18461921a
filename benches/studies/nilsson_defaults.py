"""Choosing NilssonMLPClassifier's defaults: candidate settings on the suite's datasets (the five
largest left out for time), each scored against the MLPClassifier() results stored by
benches/suite.py (random_state=0) by the suite's rules: within 1 point, and the geometric mean of
(ours' misclassified + 1) / (theirs' + 1) over all splits. Ours are fit with random_state=0.

    python benches/studies/nilsson_defaults.py [--datasets NAME,...] [NAME="dict(...)" ...]

Without NAME=PARAMS arguments it runs CANDIDATES. Writes benches/studies/results/nilsson_defaults.md.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHES = os.path.dirname(HERE)  # benches/: suite.py, datasets.py, the benchmarks
sys.path.insert(0, BENCHES)
import suite  # noqa: E402

# the three best of 18 settings screened on 3 to 13 small and mid-size suite sets (units 7 to 501,
# steps 0.001 to 10, patience 20 or 50, hold-out 0.3 or 0.5, init_scale 1 or 10)
CANDIDATES = {
    "h11-lr1-p50": dict(hidden_units=11, learning_rate=1.0, n_iter_no_change=50),
    "h31-lr0.3-p50": dict(hidden_units=31, learning_rate=0.3, n_iter_no_change=50),
    "h101-lr0.03-p50": dict(hidden_units=101, learning_rate=0.03, n_iter_no_change=50),
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", help="comma-separated (default: the suite's sets but the five largest)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "nilsson_defaults.md"))
    ap.add_argument("candidates", nargs="*", help='NAME="dict(...)": parameters of NilssonMLPClassifier')
    args = ap.parse_args(argv)
    import largemargin as lm

    cands = {k: eval(v, {"dict": dict}) for k, v in (a.split("=", 1) for a in args.candidates)} or CANDIDATES
    with open(os.path.join(BENCHES, "results", "suite.json")) as f:
        stored = {r["dataset"]: r for r in json.load(f)["results"]["mlp-simple"]["rows"]}
    names = args.datasets.split(",") if args.datasets else [n for n in stored if n not in suite.LARGEST]
    scores = {c: [] for c in cands}
    rows = []
    for name in names:
        ref = stored[name]
        cells = []
        for c, params in cands.items():
            wrong = n = 0
            for Xtr, ytr, Xte, yte in suite.splits(name):
                m = lm.NilssonMLPClassifier(random_state=0, **params).fit(Xtr, ytr)
                wrong += int(np.sum(m.predict(Xte) != yte))
                n += len(yte)
            err = 100.0 * wrong / n
            scores[c].append((err - ref["theirs_error"], (wrong + 1) / (ref["theirs_wrong"] + 1)))
            cells.append(f"{err:.2f}")
        rows.append(f"| {name} | {ref['theirs_error']:.2f} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    summary = []
    for c, r in scores.items():
        within = sum(d <= suite.TIE for d, _ in r)  # within 1 point, or better
        gmean = math.exp(sum(math.log(q) for _, q in r) / len(r))
        summary.append(f"| {c} | `{cands[c]}` | {within}/{len(r)} = {100 * within / len(r):.0f}% | {gmean:.3f} |")
    lines = ["# NilssonMLPClassifier: candidate defaults against MLPClassifier()", "",
             f"`python benches/studies/nilsson_defaults.py` — {time.strftime('%Y-%m-%d %H:%M')}, {len(names)} datasets.", "",
             "| candidate | parameters | within 1 pt | gmean error ratio |", "|---|---|---|---|", *summary, "",
             "| dataset | MLPClassifier % | " + " | ".join(cands) + " |", "|---" * (len(cands) + 2) + "|", *rows]
    suite._atomic_write(args.out, "\n".join(lines) + "\n")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
