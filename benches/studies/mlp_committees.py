"""How many committees for SimpleMLPClassifier: on the suite's datasets (the five largest left out
for time), the decision of K independent single-committee fits (random_state 0 .. K-1) summed,
which is what n_committees=K publishes, against the first fit alone, scored against the stored
MLPClassifier() results of benches/suite.py by the suite's rules (within 1 point or better; the
geometric mean of (ours' misclassified + 1) / (theirs' + 1)).

    python benches/studies/mlp_committees.py [--committees 5] [--datasets NAME,...]
"""
import argparse
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHES = os.path.dirname(HERE)  # benches/: suite.py, datasets.py, the benchmarks
sys.path.insert(0, BENCHES)
import suite  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--committees", type=int, default=5)
    ap.add_argument("--datasets")
    args = ap.parse_args(argv)
    import largemargin as lm

    with open(os.path.join(BENCHES, "results", "suite.json")) as f:
        stored = {r["dataset"]: r for r in json.load(f)["results"]["mlp-simple"]["rows"]}
    names = args.datasets.split(",") if args.datasets else [n for n in stored if n not in suite.LARGEST]
    scores = {"one": [], "summed": []}
    for name in names:
        ref, wrong, n = stored[name], {"one": 0, "summed": 0}, 0
        for Xtr, ytr, Xte, yte in suite.splits(name):
            fits = [lm.SimpleMLPClassifier(n_committees=1, random_state=s).fit(Xtr, ytr)
                    for s in range(args.committees)]
            f = np.sum([m.decision_function(Xte) for m in fits], axis=0)
            classes = fits[0].classes_
            summed = classes[f.argmax(1)] if f.ndim == 2 else classes[(f > 0).astype(int)]
            wrong["summed"] += int(np.sum(summed != yte))
            wrong["one"] += int(np.sum(fits[0].predict(Xte) != yte))
            n += len(yte)
        line = f"{name:16s} MLPClassifier {ref['theirs_error']:6.2f}"
        for k in scores:
            err = 100.0 * wrong[k] / n
            scores[k].append((err - ref["theirs_error"], (wrong[k] + 1) / (ref["theirs_wrong"] + 1)))
            line += f"  {k} {err:6.2f}"
        print(line, flush=True)
    for k, r in scores.items():
        within = sum(d <= suite.TIE for d, _ in r)
        gmean = math.exp(sum(math.log(q) for _, q in r) / len(r))
        print(f"{k}: within 1 point {within}/{len(r)} = {100 * within / len(r):.0f}%, gmean error ratio {gmean:.3f}")


if __name__ == "__main__":
    main()
