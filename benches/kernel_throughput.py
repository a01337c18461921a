"""Kernel values per second of our engine beside the machine's matrix-product rate, in one run.

    python benches/kernel_throughput.py [--widths 54,123] [--rows 1024] [--columns 100000] [--repeat 3]
                                        [--out benches/results/kernel_throughput.json]

The engine: `KernelEngine::block`, a block of ``--rows`` rows against ``--columns`` rows of seeded
dense data (the crate's example ``kernel_block``, built with ``cargo build --release``), for the
linear, RBF and cubic polynomial kernels, and the same kernels one row at a time (``row``: on this
data a block of one row, which reads the data as a row did and runs at the same speed), on both
cores. Widths: 54 (Forest's) and 123
(adult's, as dense). The machine: numpy's float64 and float32 matrix products on 4096 x 4096,
both cores. The engine computes in float64, so its share of the float64 rate is the figure to
read, counting 2 x width flops per kernel value (the transform's flops are not counted). Each
figure is the best of ``--repeat`` runs.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def gemm_rate(dtype, n=4096, repeat=3):
    a = np.random.default_rng(0).random((n, n)).astype(dtype)
    b = a.copy()
    a @ b  # warm
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    return 2 * n**3 / best / 1e9


def engine_rates(width, rows, columns, repeat):
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "largemargin", "--example", "kernel_block"],
                   cwd=ROOT, check=True)
    exe = os.path.join(ROOT, "target", "release", "examples", "kernel_block")
    best = {}
    for _ in range(repeat):
        out = subprocess.run([exe, str(width), str(rows), str(columns)], capture_output=True, text=True, check=True)
        for line in out.stdout.splitlines():
            path, kernel, *fields = line.split()
            values = dict(f.split("=") for f in fields)
            key = (path, kernel)
            rate = float(values["values_per_s"])
            best[key] = max(best.get(key, 0.0), rate)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--widths", default="54,123")
    p.add_argument("--rows", type=int, default=1024)
    p.add_argument("--columns", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default=os.path.join(HERE, "results", "kernel_throughput.json"))
    args = p.parse_args()
    from threadpoolctl import threadpool_info

    blas = ", ".join(f"{i['internal_api']} {i.get('version')} ({i.get('architecture')}, {i['num_threads']} threads)"
                     for i in threadpool_info() if i["user_api"] == "blas")
    g64, g32 = gemm_rate(np.float64, repeat=args.repeat), gemm_rate(np.float32, repeat=args.repeat)
    print(f"numpy GEMM 4096^3: float64 {g64:.1f} GFLOP/s, float32 {g32:.1f} GFLOP/s ({blas})", flush=True)
    rows = []
    for width in [int(w) for w in args.widths.split(",")]:
        rates = engine_rates(width, args.rows, args.columns, args.repeat)
        for (path, kernel), rate in sorted(rates.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            gflops = rate * 2 * width / 1e9
            row = dict(width=width, kernel=kernel, path=path, values_per_s=rate, gflops=gflops,
                       share_of_f64_gemm=gflops / g64, share_of_f32_gemm=gflops / g32)
            rows.append(row)
            print(f"d={width:4d} {kernel:7s} {path:6s} {rate:.3e} values/s {gflops:6.1f} GFLOP/s "
                  f"{100 * gflops / g64:5.1f}% of float64 GEMM", flush=True)
    result = dict(gemm_gflops=dict(float64=g64, float32=g32), blas=blas, rows_in_block=args.rows,
                  columns=args.columns, results=rows)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    md = os.path.splitext(args.out)[0] + ".md"
    cmd = "python benches/kernel_throughput.py " + " ".join(sys.argv[1:])
    with open(md, "w") as f:
        f.write(f"Command: `{cmd.strip()}` (2 cores). Machine: numpy's GEMM (4096 x 4096) at **{g64:.1f} GFLOP/s "
                f"in float64** and {g32:.1f} in float32 ({blas}), same run. Engine: a block of {args.rows} rows "
                f"against {args.columns:,} (`block`), or the same rows one at a time (`row`); float64 arithmetic, "
                "2 x width flops counted per value.\n\n")
        f.write("| width | kernel | path | values/s | GFLOP/s | share of float64 GEMM | share of float32 GEMM |\n")
        f.write("|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['width']} | {r['kernel']} | {r['path']} | {r['values_per_s']:.3e} | {r['gflops']:.1f} | "
                    f"{100 * r['share_of_f64_gemm']:.1f}% | {100 * r['share_of_f32_gemm']:.1f}% |\n")
    print(f"wrote {args.out} and {md}")


if __name__ == "__main__":
    main()
