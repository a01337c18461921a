"""Runs every example script of this directory, each in its own process with a timeout.

Each example saves its plot as ``<script name>.png`` into the directory named by the environment
variable ``LARGEMARGIN_EXAMPLES_OUT``; this script sets it from ``--out`` (default:
``examples/_output/``), removes the old PNG first, and prints each example's time. It exits with
status 1 if an example fails, runs out of time or writes no PNG. ::

    python examples/run_all.py                                  # plots in examples/_output/
    python examples/run_all.py --out docs/_static/examples      # the plots the documentation shows
    python examples/run_all.py --timeout 120 sequence_labeling  # some of them only
"""

import argparse
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def examples():
    """The example scripts: every .py file of this directory but this one."""
    return sorted(f[:-3] for f in os.listdir(HERE)
                  if f.endswith(".py") and not f.startswith("_") and f != os.path.basename(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="examples to run (default: all)")
    parser.add_argument("--out", default=os.path.join(HERE, "_output"),
                        help="directory for the plots (default: examples/_output/)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds allowed per example (default: 300)")
    args = parser.parse_args()
    names = [n[:-3] if n.endswith(".py") else n for n in args.names] or examples()
    unknown = sorted(set(names) - set(examples()))
    if unknown:
        parser.error(f"no such example: {', '.join(unknown)} (examples: {', '.join(examples())})")
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, LARGEMARGIN_EXAMPLES_OUT=out, MPLBACKEND="Agg")

    failed = []
    total = time.perf_counter()
    for name in names:
        png = os.path.join(out, name + ".png")
        if os.path.exists(png):
            os.remove(png)
        started = time.perf_counter()
        # its own process group, so that a timeout also ends what it started (Dask's workers)
        proc = subprocess.Popen([sys.executable, os.path.join(HERE, name + ".py")], env=env, cwd=HERE,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=(os.name == "posix"))
        try:
            output, _ = proc.communicate(timeout=args.timeout)
            status = "ok" if proc.returncode == 0 else f"FAILED (exit code {proc.returncode})"
        except subprocess.TimeoutExpired:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
            output, _ = proc.communicate()
            status = f"FAILED (timed out after {args.timeout:g} s)"
        seconds = time.perf_counter() - started
        if status == "ok" and not os.path.exists(png):
            status = f"FAILED (wrote no {png})"
        print(f"{name:<34} {seconds:7.1f} s  {status}", flush=True)
        if status != "ok":
            failed.append(name)
            print("    " + "\n    ".join(output.rstrip().splitlines()[-30:]), flush=True)
    print(f"{len(names) - len(failed)} of {len(names)} examples ran in {time.perf_counter() - total:.1f} s; "
          f"plots in {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
