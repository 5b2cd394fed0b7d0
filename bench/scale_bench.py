#!/usr/bin/env python3
"""How mltwin's cost grows with the fleet (issue 24, item 1): the Philly scenario replayed k times
side by side (``workload.philly.copies: k``: copy i's jobs and queues named ``-c<i>``, the same
submit times) on k x 32 trn1.32xlarge, so the load per node stays the trace's.

For each k it writes the scenario (scenarios/eks-trn1-philly.json with the copies and k x the
nodes) into the work folder, runs ``mltwin run`` on it under ``/usr/bin/time -v`` and reports the
process's wall time, CPU time (user + system), peak RSS and the database's size, with
time(k) / time(1): the goal is at most linear growth, time(10) <= 12 x time(1).

    /usr/bin/python3 bench/scale_bench.py             # k = 1, 2, 5, 10 (about 35 min of CPU)
    /usr/bin/python3 bench/scale_bench.py --ks 1,2 --max-jobs 5000 --plot none   # a quick look
    /usr/bin/python3 bench/scale_bench.py --until 21d --plot none   # before the trace's backlog forms
    /usr/bin/python3 bench/scale_bench.py --rows /tmp/mltwin-scale/scale-rows.json   # table and plot again

Needs the data folder (MLTWIN_DATA, or ../shared/data beside the checkout) and the CLI
(``make cli``). Prints a Markdown table (for bench/README.md) and writes a plot with matplotlib
(``--plot``, default bench/scale.png; Debian's python3-matplotlib, hence /usr/bin/python3). Each
k's measurements are saved as they come, in scale-rows.json in the work folder, so that a long
run's table and plot can be made again without running it (``--rows``). A benchmark, not a test:
it asserts nothing.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_one(mltwin, scenario_doc, k, work, max_jobs, until):
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
    if until:
        cmd += ["--until", until]
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
    # What the scheduler had to do: its sessions (the run summary's "Scheduler:" line) and the
    # Pending PodGroups a session walks, on average over the run (the database's cluster_metrics).
    m = re.search(r"Scheduler: (\d+) sessions opened", p.stdout)
    sessions = int(m.group(1)) if m else 0
    import sqlite3
    with sqlite3.connect(out) as db:
        pending = db.execute("SELECT avg(jobs_pending) FROM cluster_metrics").fetchone()[0] or 0.0
    os.remove(out)
    return {"k": k, "wall_s": wall, "cpu_s": cpu, "rss_mib": rss_mib, "db_mib": db_mib,
            "sessions": sessions, "pending": pending}


def print_table(rows):
    one = next((r for r in rows if r["k"] == 1), None)
    print("| k | nodes | wall s | CPU s | CPU / (k x CPU at k=1) | peak RSS MiB | database MiB | sessions | mean Pending PodGroups |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ratio = f"{r['cpu_s'] / (r['k'] * one['cpu_s']):.2f}" if one else "-"
        print(f"| {r['k']} | {r['nodes']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {ratio} | {r['rss_mib']:.0f} | {r['db_mib']:.0f} "
              f"| {r['sessions']} | {r['pending']:.0f} |")


def plot(rows, path):
    """Left: CPU and wall time against k, with linear growth and the goal (log-log). Right: what
    the scheduler had to do, relative to k = 1 — sessions and the mean number of Pending
    PodGroups a session walks — beside k itself."""
    one = next((r for r in rows if r["k"] == 1), None)
    if not one:
        sys.exit("the plot needs the k = 1 row (the reference for linear growth)")
    try:
        import matplotlib
    except ImportError:
        sys.exit(f"no matplotlib for {sys.executable}: run this script with /usr/bin/python3 (Debian's "
                 "python3-matplotlib), or pass --plot none")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    xs = [r["k"] for r in rows]
    ax.plot(xs, [r["cpu_s"] for r in rows], "o-", label="CPU s (measured)")
    ax.plot(xs, [r["wall_s"] for r in rows], "s--", label="wall s (measured)")
    ax.plot(xs, [k * one["cpu_s"] for k in xs], ":", color="grey", label="k x CPU at k=1 (linear)")
    ax.plot(xs, [1.2 * k * one["cpu_s"] for k in xs], "-.", color="red", label="goal: 1.2 k x CPU at k=1")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(xs, [str(k) for k in xs])
    ax.set_xlabel("k (copies of the Philly trace on k x 32 trn1.32xlarge)")
    ax.set_ylabel("seconds")
    ax.set_title("cost")
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    bx.plot(xs, [r["sessions"] / one["sessions"] for r in rows], "o-", label="sessions / sessions at k=1")
    if one["pending"] > 0:
        bx.plot(xs, [r["pending"] / one["pending"] for r in rows], "s-", label="mean Pending PodGroups / at k=1")
    bx.plot(xs, [r["cpu_s"] / one["cpu_s"] for r in rows], "^-", label="CPU / CPU at k=1")
    bx.plot(xs, xs, ":", color="grey", label="k")
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xticks(xs, [str(k) for k in xs])
    bx.set_xlabel("k")
    bx.set_title("what the scheduler had to do, relative to k = 1")
    bx.legend()
    bx.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"plot: {path}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ks", default="1,2,5,10", help="copies to run, comma-separated (default 1,2,5,10)")
    ap.add_argument("--scenario", default=os.path.join(ROOT, "scenarios", "eks-trn1-philly.json"))
    ap.add_argument("--mltwin", default=os.path.join(ROOT, "build", "apps", "mltwin"))
    ap.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "mltwin-scale"),
                    help="folder for the scenarios, databases (each removed once measured) and scale-rows.json")
    ap.add_argument("--max-jobs", type=int, default=0, help="keep the first N trace jobs before copying (0: all)")
    ap.add_argument("--until", default="", help="simulate only up to this time (mltwin run --until, e.g. 21d; default: the whole trace)")
    ap.add_argument("--rows", default="", help="make the table and plot from this saved scale-rows.json instead of running")
    ap.add_argument("--plot", default=os.path.join(ROOT, "bench", "scale.png"), help="PNG to write, or 'none'")
    args = ap.parse_args()
    if args.rows:
        with open(args.rows) as f:
            rows = json.load(f)
    else:
        rows = run_all(args)
    print_table(rows)
    if args.plot != "none":
        plot(rows, args.plot)


def run_all(args):
    ks = [int(x) for x in args.ks.split(",")]
    os.makedirs(args.work, exist_ok=True)
    saved = os.path.join(args.work, "scale-rows.json")
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
        r = run_one(args.mltwin, doc, k, args.work, args.max_jobs, args.until)
        r["nodes"] = sum(g["desired_capacity"] for g in groups) * k
        rows.append(r)
        with open(saved, "w") as f:
            json.dump(rows, f, indent=1)
        print(f"k={k}: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, {r['rss_mib']:.0f} MiB peak, "
              f"{r['db_mib']:.0f} MiB database, {r['sessions']} sessions, {r['pending']:.0f} Pending PodGroups on average "
              f"(saved in {saved})", file=sys.stderr, flush=True)
    return rows


if __name__ == "__main__":
    main()
