#!/usr/bin/python3
"""Does mltwin's M/M/c simulation agree with Erlang C?  (standard library only)

Reads the key=value lines printed by mmc_bench (one run per seed) from the files given, or
from stdin, and tests the mean of the per-seed Wq estimates against the exact Erlang C value:

    t = (mean - Wq_exact) / (sd / sqrt(n))        sd = sample standard deviation (n - 1)

The runs use independent seeds, so under "the simulator is right" t follows Student's t with
n - 1 degrees of freedom; PASS when |t| < t_{0.975, n-1} (2.093 for the usual 20 seeds).
Each run's own Wq carries a start-up bias of order 1/N (the queue starts empty), negligible
at N = 2,000,000; keep N large when reading a FAIL.

Usage:  mmc_seeds.py [--wq-exact 0.876916] [--pwait-exact 0.701533] [FILE...]
The defaults are Erlang C for c = 8, rho = 0.9, mu = 1 (peers' analytic.py erlangc 8 0.9).
Exit status: 0 PASS, 1 FAIL, 2 bad input.
"""
import argparse
import math
import re
import statistics
import sys

# Two-sided 95% critical values of Student's t, t_{0.975, df}, df = 1..30.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t_critical(df):
    return T975[df - 1] if df <= len(T975) else 1.96  # beyond 30 df the normal is close


def parse(lines):
    runs = []
    for line in lines:
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        if "Wq" in kv:
            runs.append(kv)
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wq-exact", type=float, default=0.876916)
    ap.add_argument("--pwait-exact", type=float, default=0.701533)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()

    lines = []
    if args.files:
        for name in args.files:
            with open(name) as f:
                lines.extend(f)
    else:
        lines = sys.stdin.readlines()
    runs = parse(lines)
    if len(runs) < 2:
        print("mmc_seeds: need at least 2 runs with Wq=..., got %d" % len(runs), file=sys.stderr)
        return 2

    n = len(runs)
    wq = [float(r["Wq"]) for r in runs]
    pw = [float(r["Pwait"]) for r in runs if "Pwait" in r]
    mean = statistics.fmean(wq)
    sd = statistics.stdev(wq)
    t = (mean - args.wq_exact) / (sd / math.sqrt(n))
    crit = t_critical(n - 1)
    ok = abs(t) < crit

    print("per-seed Wq: " + " ".join("%.4f" % x for x in wq))
    print("seed check: n=%d customers/run=%s  mean Wq=%.6f  sd=%.6f  Erlang C Wq=%.6f"
          % (n, runs[0].get("customers", "?"), mean, sd, args.wq_exact))
    if pw:
        print("  mean P(wait)=%.6f (Erlang C %.6f)" % (statistics.fmean(pw), args.pwait_exact))
    print("  z = (mean - Wq_exact) / (sd/sqrt(n)) = %+.3f;  |z| < t_{0.975,%d} = %.3f -> %s"
          % (t, n - 1, crit, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
