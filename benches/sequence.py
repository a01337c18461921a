"""Sequence labeling: the protocol of the thesis' Tables 5.5/5.6 (and Fig. 5.3) on CoNLL-2000
chunking and the OCR words.

For each data set, one pass (epochs=1) of LaRankGreedy, PAGreedy, PerceptronGreedy, LaRankExact,
PAExact and PerceptronExact (averaged, and plain), and the batch references LaRankGreedyGap and
LaRankExactGap (passes until the duality gap is below C), with the thesis' C = 0.1 and its per-data-set
n_R and Markov order (Table 5.4): token accuracy, chunk F1 (CoNLL), fit time, dual, support
patterns/vectors and inference calls. Then LaRankGreedy/LaRankExact fit time over four CoNLL
training sizes, with the log-log slope and a log-log plot.

    python benches/sequence.py [--conll-train PATH] [--conll-test PATH] [--ocr PATH]
                               [--skip-ocr] [--skip-scaling] [--seed 0] [--out benches/results/sequence]

CoNLL features: `WindowFeatures()` (lowercased words at -2..+2, POS at -2..+2, POS bigrams, word
bigrams (-1,0),(0,+1), suffixes of length 2 and 3, word shape, bias), extracted once; the fit time
is the solver's (`fit_time_`), the extraction time is reported apart. OCR: the 128 pixels plus a
bias, training on fold 0 and testing on folds 1-9.
"""

import argparse
import datetime
import gzip
import json
import os
import platform
import sys
import time

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/work/shared/datasets"

# name -> (method, keyword arguments); markov_order/n_reprocess per data set below
RUNS = [
    ("LaRankGreedy", "larank_greedy", {}),
    ("PAGreedy", "pa", {"inference": "greedy"}),
    ("PerceptronGreedy (avg)", "perceptron", {"inference": "greedy"}),
    ("PerceptronGreedy", "perceptron", {"inference": "greedy", "average": False}),
    ("LaRankExact", "larank_exact", {}),
    ("PAExact", "pa", {"inference": "exact"}),
    ("PerceptronExact (avg)", "perceptron", {"inference": "exact"}),
    ("PerceptronExact", "perceptron", {"inference": "exact", "average": False}),
    # batch references: epochs until the duality gap is below C (at most 50)
    ("LaRankGreedyGap", "larank_greedy", {"until_gap": True, "epochs": 50}),
    ("LaRankExactGap", "larank_exact", {"until_gap": True, "epochs": 50}),
]
# Table 5.4: (greedy n_R, greedy k, exact n_R)
SETTINGS = {"conll2000": (1, 2, 5), "ocr": (5, 10, 10)}


def read_ocr(path):
    """Taskar's letter.data: words (tokens x 128 pixels), their letters and folds."""
    words, labels, folds, pix, lab = [], [], [], [], []
    with gzip.open(path, "rt") as f:
        for n, line in enumerate(f, 1):
            p = line.rstrip("\t\n").split("\t")
            if len(p) != 6 + 128:
                raise ValueError(f"{path}, line {n}: expected 134 fields, got {len(p)}")
            pix.append(np.asarray(p[6:], dtype=np.float64))
            lab.append(p[1])
            if int(p[2]) == -1:
                words.append(np.vstack(pix))
                labels.append(lab)
                folds.append(int(p[5]))
                pix, lab = [], []
    return words, labels, np.asarray(folds)


def per_sequence(parts):
    """CSR parts of all tokens -> one sparse matrix per sequence."""
    indptr, indices, data, seq_ptr, n = parts
    x = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, n))
    return [x[a:b] for a, b in zip(seq_ptr[:-1], seq_ptr[1:])]


def conll(train_path, test_path):
    from largemargin import WindowFeatures, read_conll

    Xtr, ytr = read_conll(train_path)
    Xte, yte = read_conll(test_path)
    started = time.perf_counter()
    wf = WindowFeatures().fit(Xtr)
    Ftr, Fte = per_sequence(wf.transform(Xtr)), per_sequence(wf.transform(Xte))
    extract_s = time.perf_counter() - started
    return Ftr, ytr, Fte, yte, len(wf.vocabulary_), extract_s


def ocr(path):
    words, labels, folds = read_ocr(path)
    bias = [np.hstack([w, np.ones((len(w), 1))]) for w in words]
    tr, te = np.flatnonzero(folds == 0), np.flatnonzero(folds != 0)
    return [bias[i] for i in tr], [labels[i] for i in tr], [bias[i] for i in te], [labels[i] for i in te]


def evaluate(dataset, Xtr, ytr, Xte, yte, seed, chunks):
    from largemargin import SequenceLabeler, chunk_f1, token_accuracy

    nr_greedy, k_greedy, nr_exact = SETTINGS[dataset]
    rows = []
    for name, method, kw in RUNS:
        kw = dict(kw)
        greedy = method == "larank_greedy" or kw.get("inference") == "greedy"
        kw["markov_order"] = k_greedy if greedy else 1
        if method.startswith("larank"):
            kw["n_reprocess"] = nr_greedy if greedy else nr_exact
        kw.setdefault("epochs", 1)
        est = SequenceLabeler(method, C=0.1, random_state=seed, **kw).fit(Xtr, ytr)
        started = time.perf_counter()
        pred = est.predict(Xte)
        predict_s = time.perf_counter() - started
        row = dict(dataset=dataset, method=name, epochs=int(est.n_iter_), markov_order=kw["markov_order"],
                   n_reprocess=kw.get("n_reprocess"), token_accuracy=100 * token_accuracy(yte, pred),
                   chunk_f1=100 * chunk_f1(yte, pred) if chunks else None, fit_s=est.fit_time_, predict_s=predict_s,
                   dual=None if np.isnan(est.dual_) else est.dual_,
                   gap=None if np.isnan(est.duality_gap_) else est.duality_gap_, support_patterns=est.n_support_patterns_,
                   support_vectors=est.n_support_vectors_, inference_calls=est.n_inference_calls_)
        rows.append(row)
        print(f"  {row}", file=sys.stderr, flush=True)
    return rows


def scaling(Xtr, ytr, seed):
    """Fit time of LaRankGreedy and LaRankExact over four training sizes (best of two fits)."""
    from largemargin import SequenceLabeler

    order = np.random.RandomState(seed).permutation(len(Xtr))
    sizes = [len(Xtr) // 8, len(Xtr) // 4, len(Xtr) // 2, len(Xtr)]
    rows = []
    nr_greedy, k_greedy, nr_exact = SETTINGS["conll2000"]
    for name, method, kw in [("LaRankGreedy", "larank_greedy", dict(markov_order=k_greedy, n_reprocess=nr_greedy)),
                             ("LaRankExact", "larank_exact", dict(n_reprocess=nr_exact))]:
        for n in sizes:
            X, y = [Xtr[i] for i in order[:n]], [ytr[i] for i in order[:n]]
            times = [SequenceLabeler(method, C=0.1, random_state=seed, **kw).fit(X, y).fit_time_ for _ in range(2)]
            rows.append(dict(method=name, sequences=n, tokens=int(sum(len(s) for s in y)), fit_s=min(times)))
            print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    slopes = {}
    for name in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == name]
        slopes[name] = float(np.polyfit(np.log([r["tokens"] for r in mine]), np.log([r["fit_s"] for r in mine]), 1)[0])
    return rows, slopes


def plot_scaling(rows, slopes, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name, style in [("LaRankGreedy", "-o"), ("LaRankExact", "--s")]:
        mine = [r for r in rows if r["method"] == name]
        t0, n0 = mine[0]["fit_s"], mine[0]["tokens"]
        ax.loglog([r["tokens"] / n0 for r in mine], [r["fit_s"] / t0 for r in mine], style, color="k",
                  label=f"{name} (slope {slopes[name]:.2f})")
    ref = np.array([1, 8])
    ax.loglog(ref, ref, ":", color="gray", label="linear")
    ax.set_xlabel("relative training size s/s0")
    ax.set_ylabel("relative fit time t/t0")
    ax.set_title("CoNLL-2000 chunking: fit time scaling (one pass)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def markdown(rows, scale_rows, slopes, meta):
    out = ["# Sequence labeling (thesis Tables 5.5/5.6, Fig. 5.3)", "",
           f"`{meta['command']}` — {meta['date']}, {meta['machine']}", "",
           "One pass (epochs=1) each except the ...Gap rows (epochs until the duality gap < C), C = 0.1, random_state fixed. Fit time = the solver's (features extracted "
           "beforehand; CoNLL extraction took %.1f s for train+test, %d features)." % (meta["conll_extract_s"],
                                                                                     meta["conll_features"]), "",
           "| data | method | epochs | k | n_R | token acc % | chunk F1 | fit s | dual | support patterns | SVs | inference calls |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        f1 = "" if r["chunk_f1"] is None else f"{r['chunk_f1']:.2f}"
        dual = "n/a" if r["dual"] is None else f"{r['dual']:.1f}"
        out.append(f"| {r['dataset']} | {r['method']} | {r['epochs']} | {r['markov_order']} | {r['n_reprocess'] if r['n_reprocess'] is not None else ''} "
                   f"| {r['token_accuracy']:.2f} | {f1} | {r['fit_s']:.2f} | {dual} | {r['support_patterns']} "
                   f"| {r['support_vectors']} | {r['inference_calls']} |")
    out += ["", "Perceptron: support patterns = patterns that caused an update, SVs = 2 x updates; no dual.", ""]
    # one-pass duals relative to the batch reference (thesis Table 5.7: LaRankGreedy ~95-96% of
    # LaRankGreedyGap, PA variants ~23-44% of the batch duals)
    for data in dict.fromkeys(r["dataset"] for r in rows):
        ref = {r["method"]: r["dual"] for r in rows if r["dataset"] == data}
        ratios = [f"{m} {100 * ref[m] / ref[g]:.1f}% of {g}" for m, g in
                  [("LaRankGreedy", "LaRankGreedyGap"), ("PAGreedy", "LaRankGreedyGap"),
                   ("LaRankExact", "LaRankExactGap"), ("PAExact", "LaRankExactGap")] if ref.get(m) and ref.get(g)]
        out.append(f"{data} duals: " + ", ".join(ratios) + ".")
    out.append("")
    if scale_rows:
        out += ["## Fit time against training size (CoNLL-2000, best of two fits)", "",
                "| method | sequences | tokens | fit s |", "|---|---|---|---|"]
        out += [f"| {r['method']} | {r['sequences']} | {r['tokens']} | {r['fit_s']:.2f} |" for r in scale_rows]
        out += ["", "Log-log slope of fit time against tokens: " +
                ", ".join(f"{k} {v:.2f}" for k, v in slopes.items()), "",
                "![scaling](sequence-scaling.png)", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conll-train", default=os.path.join(DATA, "conll2000-train.txt.gz"))
    ap.add_argument("--conll-test", default=os.path.join(DATA, "conll2000-test.txt.gz"))
    ap.add_argument("--ocr", default=os.path.join(DATA, "ocr-letter.data.gz"))
    ap.add_argument("--skip-ocr", action="store_true")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "sequence"))
    args = ap.parse_args()

    Ftr, ytr, Fte, yte, n_features, extract_s = conll(args.conll_train, args.conll_test)
    rows = evaluate("conll2000", Ftr, ytr, Fte, yte, args.seed, chunks=True)
    if not args.skip_ocr:
        rows += evaluate("ocr", *ocr(args.ocr), args.seed, chunks=False)
    scale_rows, slopes = [], {}
    if not args.skip_scaling:
        scale_rows, slopes = scaling(Ftr, ytr, args.seed)
        plot_scaling(scale_rows, slopes, args.out + "-scaling.png")
    meta = dict(command="python benches/sequence.py " + " ".join(sys.argv[1:]),
                date=datetime.datetime.now().isoformat(timespec="seconds"),
                machine=f"{platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}",
                conll_features=n_features, conll_extract_s=extract_s)
    with open(args.out + ".json", "w") as f:
        json.dump(dict(meta=meta, results=rows, scaling=scale_rows, slopes=slopes), f, indent=1)
    md = markdown(rows, scale_rows, slopes, meta)
    with open(args.out + ".md", "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
