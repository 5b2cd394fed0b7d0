#!/usr/bin/env bash
# The full Philly scenario (82,247 jobs on 32 trn1.32xlarge): whole-process wall time and peak
# resident memory (/usr/bin/time -v), and the scheduler's sessions against cycles elapsed.
# Targets (issue 2): under 60 s wall and under 1 GiB resident.
#   bash bench/run-philly-bench.sh          # 3 runs
#   RUNS=1 bash bench/run-philly-bench.sh
#   SCENARIO=scenarios/eks-trn1-philly-preempt-reclaim.json bash bench/run-philly-bench.sh
#     (the same trace with the preempt and reclaim actions; target: at most 2x the default's wall)
#   SCENARIO=scenarios/eks-trn1-philly-derived.json bash bench/run-philly-bench.sh
#     (durations from the step model, docs/step-model.md; target: at most 3x the default's wall)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
SCENARIO=${SCENARIO:-scenarios/eks-trn1-philly.json}
[ -x "$BUILD/apps/mltwin" ] || cmake --build "$BUILD" --target mltwin
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
out=$(mktemp -d)
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$RUNS"); do
  /usr/bin/time -v "$BUILD/apps/mltwin" run "$SCENARIO" --no-progress --out "$out/run$i.sqlite" \
    >"$out/run$i.txt" 2>"$out/run$i.time"
  wall=$(grep 'Elapsed (wall clock)' "$out/run$i.time" | awk '{print $NF}')
  rss=$(grep 'Maximum resident' "$out/run$i.time" | awk '{printf "%.0f", $NF/1024}')
  sched=$(grep -E '^(Scheduler|Evictions):' "$out/run$i.txt" | tr '\n' ' ')
  echo "run $i: wall $wall  peak RSS ${rss} MiB  | $sched"
done
cmp "$out/run1.sqlite" "$out/run$RUNS.sqlite" && echo "databases of run 1 and run $RUNS are byte-identical"
rm -rf "$out"
