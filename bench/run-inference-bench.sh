#!/usr/bin/env bash
# Inference benchmarks (issue 3 targets): the blog scenario (1,000 models on 20 x
# ml.c5d.18xlarge, ~1,500 requests/s for one simulated hour, per-request records sampled) in at
# most 5 s wall on one core, and the Azure Functions 1k trace for a full day in at most 10 s.
# Whole-process wall time, user time and peak resident memory from /usr/bin/time -v.
#   bash bench/run-inference-bench.sh          # 3 runs of each
#   RUNS=1 bash bench/run-inference-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
[ -x "$BUILD/apps/mltwin" ] || cmake --build "$BUILD" --target mltwin
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
out=$(mktemp -d)
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for sc in mme-djl-blog-uniform mme-mms-blog-uniform mme-azure-functions; do
  for i in $(seq 1 "$RUNS"); do
    /usr/bin/time -v "$BUILD/apps/mltwin" run "scenarios/$sc.json" --no-progress --out "$out/$sc-$i.sqlite" \
      >"$out/$sc-$i.txt" 2>"$out/$sc-$i.time"
    wall=$(grep 'Elapsed (wall clock)' "$out/$sc-$i.time" | awk '{print $NF}')
    user=$(grep 'User time' "$out/$sc-$i.time" | awk '{print $NF}')
    rss=$(grep 'Maximum resident' "$out/$sc-$i.time" | awk '{printf "%.0f", $NF/1024}')
    req=$(grep -m1 'requests:' "$out/$sc-$i.txt" | awk '{print $2}')
    echo "$sc run $i: wall $wall  user ${user}s  peak RSS ${rss} MiB  requests $req"
  done
  cmp "$out/$sc-1.sqlite" "$out/$sc-$RUNS.sqlite" && echo "$sc: databases of run 1 and run $RUNS are byte-identical"
done
rm -rf "$out"
