#!/usr/bin/env bash
# Python-side benchmarks (issue 6), timed by farm-bench, A/B paired:
#   - a worker-autoscaling policy in Python (mltwin.reference.DjlWlm) against the same rules in
#     C++ (DjlWlmPolicy): the blog top-n scenario, 10 simulated minutes (~900,000 requests);
#   - a model cache policy in Python (mltwin.reference.Lru) against C++ LRU: MMS blog uniform,
#     2 simulated minutes (memory thrash: many evictions);
#   - a sweep of 8 runs on 2 local Dask workers against 1.
# Needs the module built (make build) and the data folder (MLTWIN_DATA or ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export PYTHONPATH="$PWD/$BUILD/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
PY=/usr/bin/python3
echo "== worker autoscaling policy: Python (A) vs C++ (B)"
farm-bench -n 3 --timeout 600 --vs "$PY bench/python_bench.py policy cpp" -- $PY bench/python_bench.py policy python
echo "== model cache policy: Python (A) vs C++ (B)"
farm-bench -n 3 --timeout 600 --vs "$PY bench/python_bench.py cache cpp" -- $PY bench/python_bench.py cache python
echo "== sweep of 8 runs: 2 Dask workers (A) vs 1 (B)"
farm-bench -n 3 --timeout 900 --vs "$PY bench/python_bench.py sweep 1" -- $PY bench/python_bench.py sweep 2
