"""Ctrl-C latency per solver family: seconds from SIGINT to KeyboardInterrupt out of fit, and to
the process's exit, for the problems of tests/interrupt_child.py (the 60,000 x 50 dense case for
kernel solvers, MixtureSVC on 40,000 rows).

    python benches/interrupt.py [--delays 0.5 2 5] [FAMILY ...]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from interrupt_child import FAMILIES, measure  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("families", nargs="*", default=FAMILIES)
    ap.add_argument("--delays", type=float, nargs="+", default=[0.5, 2.0, 5.0],
                    help="seconds after the fit starts at which SIGINT is sent (one run each)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "interrupt"))
    args = ap.parse_args()
    rows = []
    print("| family | SIGINT after (s) | fit raised after (s) | process exited after (s) |")
    print("|---|---|---|---|")
    for family in args.families:
        for delay in args.delays:
            raised, exited, _, finished = measure(family, delay=delay)
            rows.append({"family": family, "delay": delay, "raised": raised, "exited": exited, "finished": finished})
            shown = "finished first" if finished else ("no KeyboardInterrupt" if raised is None else f"{raised:.3f}")
            print(f"| {family} | {delay:g} | {shown} | {exited:.2f} |", flush=True)
    worst = max((r["raised"] for r in rows if r["raised"] is not None), default=float("nan"))
    print(f"\nworst latency to KeyboardInterrupt: {worst:.3f} s")
    with open(args.out + ".json", "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
