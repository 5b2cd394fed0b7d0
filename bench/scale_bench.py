#!/usr/bin/env python3
"""How mltwin's cost grows with the fleet (issue 24, item 1): the Philly scenario replayed k times
side by side (``workload.philly.copies: k``: copy i's jobs and queues named ``-c<i>``, the same
submit times) on k x 32 trn1.32xlarge, so the load per node stays the trace's.

For each k it writes the scenario (scenarios/eks-trn1-philly.json with the copies and k x the
nodes) into the work folder, runs ``mltwin run`` on it under ``/usr/bin/time -v`` and reports the
process's wall time, CPU time (user + system), peak RSS and the database's size, with
time(k) / time(1): the goal is at most linear growth, time(10) <= 12 x time(1).

    python3 bench/scale_bench.py                      # k = 1, 2, 5, 10 (about 10 min at load 0)
    python3 bench/scale_bench.py --ks 1,2 --max-jobs 5000 --plot none   # a quick look

Needs the data folder (MLTWIN_DATA, or ../shared/data beside the checkout) and the CLI
(``make cli``). Prints a Markdown table (for bench/README.md) and writes a plot with matplotlib
(``--plot``, default bench/scale.png). A benchmark, not a test: it asserts nothing.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_one(mltwin, scenario_doc, k, work, max_jobs):
    path = os.path.join(work, f"scale-k{k}.json")
    out = os.path.join(work, f"scale-k{k}.sqlite")
    with open(path, "w") as f:
        json.dump(scenario_doc, f, indent=1)
    cmd = ["/usr/bin/time", "-v", mltwin, "run", path, "--out", out, "--no-progress", "--force"]
    # The scenario is written outside the checkout, where the CLI's search for shared/data
    # (upwards from the scenario) would not find it: name the folder.
    data = os.environ.get("MLTWIN_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    if os.path.isdir(data):
        cmd += ["--data", data]
    if max_jobs:
        cmd += ["--max-jobs", str(max_jobs)]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"k={k}: mltwin failed ({p.returncode}):\n{p.stderr[-2000:]}")

    def field(name):
        m = re.search(rf"{re.escape(name)}: ([0-9.:]+)", p.stderr)
        return m.group(1) if m else None

    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    rss_mib = int(field("Maximum resident set size (kbytes)")) / 1024
    db_mib = os.path.getsize(out) / 2**20
    os.remove(out)
    return {"k": k, "wall_s": wall, "cpu_s": cpu, "rss_mib": rss_mib, "db_mib": db_mib,
            }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ks", default="1,2,5,10", help="copies to run, comma-separated (default 1,2,5,10)")
    ap.add_argument("--scenario", default=os.path.join(ROOT, "scenarios", "eks-trn1-philly.json"))
    ap.add_argument("--mltwin", default=os.path.join(ROOT, "build", "apps", "mltwin"))
    ap.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "mltwin-scale"),
                    help="folder for the scenarios and databases (each database removed once measured)")
    ap.add_argument("--max-jobs", type=int, default=0, help="keep the first N trace jobs before copying (0: all)")
    ap.add_argument("--plot", default=os.path.join(ROOT, "bench", "scale.png"), help="PNG to write, or 'none'")
    args = ap.parse_args()
    ks = [int(x) for x in args.ks.split(",")]
    os.makedirs(args.work, exist_ok=True)
    with open(args.scenario) as f:
        base = json.load(f)
    groups = base["cluster"]["node_groups"]
    rows = []
    for k in ks:
        doc = json.loads(json.dumps(base))
        doc["name"] = f"{base['name']}-x{k}"
        for g in doc["cluster"]["node_groups"]:
            g["desired_capacity"] = g["desired_capacity"] * k
        doc["workload"]["philly"]["copies"] = k
        r = run_one(args.mltwin, doc, k, args.work, args.max_jobs)
        r["nodes"] = sum(g["desired_capacity"] for g in groups) * k
        rows.append(r)
        print(f"k={k}: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, {r['rss_mib']:.0f} MiB peak, "
              f"{r['db_mib']:.0f} MiB database", file=sys.stderr, flush=True)
    one = next((r for r in rows if r["k"] == 1), None)
    print("| k | nodes | wall s | CPU s | CPU / (k x CPU at k=1) | peak RSS MiB | database MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ratio = f"{r['cpu_s'] / (r['k'] * one['cpu_s']):.2f}" if one else "-"
        print(f"| {r['k']} | {r['nodes']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {ratio} | {r['rss_mib']:.0f} | {r['db_mib']:.0f} |")
    if args.plot != "none" and one:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        xs = [r["k"] for r in rows]
        ax.plot(xs, [r["cpu_s"] for r in rows], "o-", label="CPU s (measured)")
        ax.plot(xs, [r["wall_s"] for r in rows], "s--", label="wall s (measured)")
        ax.plot(xs, [k * one["cpu_s"] for k in xs], ":", color="grey", label="k x CPU at k=1 (linear)")
        ax.plot(xs, [1.2 * k * one["cpu_s"] for k in xs], "-.", color="red", label="goal: 1.2 k x CPU at k=1")
        ax.set_xlabel("k (copies of the Philly trace on k x 32 trn1.32xlarge)")
        ax.set_ylabel("seconds")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"plot: {args.plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
