#!/usr/bin/env bash
# mltwin-scheduler benchmark (issue 20): one Volcano scheduling cycle (default configuration)
# from the in-memory state at 1,000 nodes / 10,000 pods and at 5,000 nodes / 50,000 pods (half
# pending, gangs of 1-64), median and p99, and the time to read each cluster's kubectl JSON
# snapshot (bench/scheduler_bench.cpp says how the clusters are made).
#
#   bash bench/run-scheduler-bench.sh         101 cycles at 1,000 nodes, 21 at 5,000 (~3 min)
# Environment: BUILD (default build), REPS (cycles per size, overriding both).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
"$BUILD/bench/scheduler_bench" ${REPS:+--reps "$REPS"}
