#!/usr/bin/env bash
# Fabric benchmark (issue 5): mltwin's incremental max-min solver on 1,000 trn1.32xlarge nodes
# carrying 10,000 concurrent ring-neighbour flows, and the same flows on SimGrid's solver.
#
#   bash bench/run-fabric-bench.sh            all three modes, mltwin and SimGrid (~15-30 min:
#                                             SimGrid dominates)
#   QUICK=1 bash bench/run-fabric-bench.sh    fewer completions (~3 min)
#   SKIP_PEERS=1 ...                          mltwin only
#
# Modes (bench/fabric_bench.cpp): flat (non-blocking), spine (leaves of 32, 4:1, jobs on
# contiguous nodes), scattered (same leaves, jobs on scattered nodes: one ~10,000-flow
# component, the solver's worst case). Both print the sum of completion times over the same
# completions, which must agree (same flows, same sharing rule).
# Environment: BUILD (default build), N_FLAT (completions in flat/spine, default 20000; QUICK
# 5000), N_SCATTERED (default 2000; QUICK 300), N_PEER (SimGrid flat/spine, default 5000;
# QUICK 1000), N_PEER_SCATTERED (default 500; QUICK 100).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
if [[ "${QUICK:-0}" == 1 ]]; then
  : "${N_FLAT:=5000}" "${N_SCATTERED:=300}" "${N_PEER:=1000}" "${N_PEER_SCATTERED:=100}"
fi
N_FLAT=${N_FLAT:-20000}
N_SCATTERED=${N_SCATTERED:-2000}
N_PEER=${N_PEER:-5000}
N_PEER_SCATTERED=${N_PEER_SCATTERED:-500}

if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DMLTWIN_WERROR=ON >/dev/null
fi
targets=(fabric_bench)
[[ "${SKIP_PEERS:-0}" == 1 ]] || targets+=(fabric_simgrid)
cmake --build "$BUILD" --target "${targets[@]}" >/dev/null
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in flat spine scattered; do
  n=$N_FLAT
  [[ $mode == scattered ]] && n=$N_SCATTERED
  "$BUILD/bench/fabric_bench" 1000 10 "$n" "$mode"
done
if [[ "${SKIP_PEERS:-0}" != 1 ]]; then
  [[ -x $BUILD/bench/fabric_simgrid ]] || { echo "fabric_simgrid was not built (libsimgrid-dev missing?)" >&2; exit 1; }
  for mode in flat spine scattered; do
    n=$N_PEER
    [[ $mode == scattered ]] && n=$N_PEER_SCATTERED
    "$BUILD/bench/fabric_simgrid" 1000 10 "$n" "$mode" --log=xbt_cfg.thres:warning
    # mltwin over the same number of completions, for the sum-of-completion-times check
    "$BUILD/bench/fabric_bench" 1000 10 "$n" "$mode" | head -2 | tail -1
  done
fi
