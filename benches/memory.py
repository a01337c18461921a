"""Peak memory of an SVC fit on the bundled Adult data against the cache budget.

Each cache size runs in a fresh process; the figure is the peak RSS of the fit minus the RSS right
after loading the data, to compare with `cache_size` (the claim: data + cache budget + O(n)).

    python benches/memory.py [--cache-sizes 20,200] [--n-jobs 1]
"""

import argparse
import resource
import subprocess
import sys


def worker(cache_mb, n_jobs):
    import psutil

    import largemargin as lm

    X, y = lm.load_adult("train")
    base = psutil.Process().memory_info().rss / 2**20
    m = lm.SVC(C=100, gamma=0.005, cache_size=cache_mb, n_jobs=n_jobs).fit(X, y)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"| {cache_mb:g} | {n_jobs} | {base:.0f} | {peak:.0f} | {peak - base:.0f} | {m.fit_time_:.1f} | {m.n_kernel_evals_:,} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-sizes", default="20,200")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--worker", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        return worker(args.worker, args.n_jobs)
    print("| cache MB | n_jobs | RSS after data MB | peak RSS MB | growth MB | fit s | kernel evals |")
    print("|---|---|---|---|---|---|---|")
    for c in args.cache_sizes.split(","):
        subprocess.run([sys.executable, __file__, "--worker", c, "--n-jobs", str(args.n_jobs)], check=True)


if __name__ == "__main__":
    main()
