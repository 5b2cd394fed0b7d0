#!/usr/bin/env python3
"""Python-side benchmarks (issue 6), one configuration per process so that farm-bench can
time them side by side (bench/run-python-bench.sh):

  python_bench.py policy cpp      # the blog top-n scenario, 10 simulated minutes, DJL WLM in C++
  python_bench.py policy python   # the same with mltwin.reference.DjlWlm (the same rules in Python)
  python_bench.py cache cpp       # MMS blog uniform, 2 minutes (memory thrash): LRU in C++
  python_bench.py cache python    # the same with mltwin.reference.Lru
  python_bench.py sweep N         # 8 runs (top-n, 10 simulated minutes, seeds 1..8) on N local Dask workers

Each prints one line: what ran, its policy calls where relevant, and its wall time inside Python.
"""
import os
import sys
import time

import mltwin
from mltwin.reference import DjlWlm, Lru

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Counting:
    """Wraps a Python policy to count its calls (on_arrival / on_worker_free, or cache calls)."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0
        self.name = inner.name

    def __getattr__(self, attr):
        f = getattr(self.inner, attr)

        def call(*a):
            self.calls += 1
            return f(*a)
        return call


def main():
    what, arg = sys.argv[1], sys.argv[2]
    t0 = time.perf_counter()
    if what == "policy":
        sc = os.path.join(ROOT, "scenarios", "mme-djl-blog-top-n.json")
        pol = Counting(DjlWlm()) if arg == "python" else None
        run = mltwin.Run(sc, seed=1, autoscaling=pol)
        run.run("10m")
        s = run.summary()
        print(f"policy {arg}: {s['requests']} requests, {pol.calls if pol else '-'} Python calls, "
              f"{time.perf_counter() - t0:.2f} s")
    elif what == "cache":
        sc = os.path.join(ROOT, "scenarios", "mme-mms-blog-uniform.json")
        made = []

        def factory():
            made.append(Counting(Lru()))
            return made[-1]
        run = mltwin.Run(sc, seed=1, memory_cache=factory if arg == "python" else None,
                         disk_cache=factory if arg == "python" else None)
        run.run("2m")
        s = run.summary()
        print(f"cache {arg}: {s['requests']} requests, {s['unloads']} unloads, "
              f"{sum(c.calls for c in made) if made else '-'} Python calls, {time.perf_counter() - t0:.2f} s")
    elif what == "sweep":
        sc = os.path.join(ROOT, "scenarios", "mme-djl-blog-top-n.json")
        runs, _ = mltwin.sweep(sc, {}, seeds=range(1, 9), n_workers=int(arg), until="10m",
                               out_dir=f"/tmp/mltwin-sweep-bench-{arg}", progress=False)
        assert set(runs["status"]) == {"ok"}, runs["error"].dropna().tolist()
        print(f"sweep {arg} workers: {len(runs)} runs, {time.perf_counter() - t0:.2f} s")
    else:
        sys.exit(f"unknown benchmark {what!r}")


if __name__ == "__main__":
    main()
