#!/usr/bin/env bash
# Kernel benchmark: mltwin's M/M/c (bench/mmc_bench.cpp) side by side with the peer
# simulators in shared/peers, then a 20-seed check of its Wq against Erlang C.
#
#   bash bench/run-kernel-bench.sh            full run (~3 min on the idle 2-core VM; SimPy
#                                             dominates; several times that when it is busy)
#   QUICK=1 bash bench/run-kernel-bench.sh    smoke test (~1 min)
#
# Steps: (a) build mmc_bench if needed, (b) run the peers' run.sh (M/M/c table only) and
# time mmc_bench exactly as run.sh times the peers (hyperfine -N, 1 warm-up, as many runs as
# cpp_ref; peak RSS from /usr/bin/time -v), printing its row in the same columns, plus a
# back-to-back timing of mltwin and cpp_ref for their ratio, (c) run mmc_bench for seeds
# 1..20 and t-test the mean Wq against Erlang C (bench/mmc_seeds.py; exit status 1 on FAIL).
# hyperfine and /usr/bin/time are installed by run.sh if missing (apt), so (b) comes first.
#
# Environment:
#   BUILD          build dir (default: build, relative to the repo root)
#   MLTWIN_PEERS   the peers folder (default: <repo root>/../shared/peers)
#   PEERS_WORK     writable folder for the peers' binaries and results
#                  (default: ${TMPDIR:-/tmp}/mltwin-peers); ours go to $PEERS_WORK/results too
#   N, RUNS_FAST   customers per run and timed runs (as in run.sh; QUICK=1 shrinks them)
#   SEED_N         customers per run of the 20-seed check (default 2000000; QUICK: 200000)
#   SKIP_PEERS=1   skip step (b)'s peers (time mltwin only; needs hyperfine already present)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
PEERS=${MLTWIN_PEERS:-$ROOT/../shared/peers}
[[ $PEERS == /* ]] || PEERS=$ROOT/$PEERS
PEERS=$(cd "$PEERS" && pwd)
export PEERS_WORK=${PEERS_WORK:-${TMPDIR:-/tmp}/mltwin-peers}
PY=/usr/bin/python3

# The same defaults as run.sh, exported so that the peers and mltwin run the same N.
if [[ "${QUICK:-0}" == 1 ]]; then
  : "${N:=200000}" "${RUNS_FAST:=3}" "${SEED_N:=200000}"
fi
export N=${N:-2000000}
export RUNS_FAST=${RUNS_FAST:-10}
SEED_N=${SEED_N:-2000000}
C=8
RHO=0.9
SEED=12345

# ---- (a) build ------------------------------------------------------------------------
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DMLTWIN_WERROR=ON >/dev/null
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
if [[ $build_type != Release ]]; then
  echo "warning: $BUILD is a '${build_type:-no type}' build; timings are meaningful for Release only" >&2
fi
cmake --build "$BUILD" --target mmc_bench >/dev/null
BENCH=$BUILD/bench/mmc_bench
[[ -x $BENCH ]] || { echo "$BENCH was not built (is MLTWIN_BUILD_BENCH off?)" >&2; exit 1; }

# ---- (b) peers, then mltwin timed the same way ------------------------------------------
if [[ "${SKIP_PEERS:-0}" != 1 ]]; then
  SKIP_HOLD=1 SKIP_VALID=1 bash "$PEERS/run.sh"
fi
RES=${RES:-$PEERS_WORK/results}
mkdir -p "$RES"
cmd="$BENCH $N $C $RHO $SEED"
# On a shared VM the load can change between run.sh's timing of cpp_ref and ours, so cpp_ref
# (built by run.sh) is timed again right after mltwin, in the same hyperfine call, for the ratio.
ref_cmd=()
[[ -x $PEERS_WORK/mmc_ref ]] && ref_cmd=("$PEERS_WORK/mmc_ref $N $C $RHO $SEED")
echo "-- running mltwin ($RUNS_FAST timed runs + 1 warm-up + 1 under /usr/bin/time -v)" >&2
# shellcheck disable=SC2086
/usr/bin/time -v $cmd >"$RES/mltwin.out" 2>"$RES/mltwin.time"
hyperfine -N --warmup 1 --runs "$RUNS_FAST" --export-json "$RES/mltwin.json" "$cmd" \
  "${ref_cmd[@]}" >"$RES/mltwin.hyperfine" 2>&1

read -r WQ_EXACT PW_EXACT < <($PY "$PEERS/analytic.py" erlangc $C $RHO)
# mltwin's row in run.sh's columns and formulas, under run.sh's cpp_ref row.
$PY - "$RES" "$N" "$WQ_EXACT" <<'EOF'
import json, os, re, sys
res, n, wq_x = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fmt = "%-15s %4s %10s %10s %11s %10s %11s %12s %20s %8s %7s"
def row(name):
    kv = dict(re.findall(r"(\w+)=([^\s]+)", open("%s/%s.out" % (res, name)).read()))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                        open("%s/%s.time" % (res, name)).read()).group(1)) / 1024.0
    h = json.load(open("%s/%s.json" % (res, name)))["results"][0]
    times = sorted(h["times"])
    med = h["median"]
    wq, ci, ev = float(kv["Wq"]), float(kv["ci95"]), int(kv["events"])
    print(fmt % (name, len(times), "%.3f" % times[0], "%.3f" % med, "%.3e" % (2 * n / med),
                 "%d" % ev, "%.3e" % (ev / med), "%.1f" % rss, "%.4f +- %.4f" % (wq, ci),
                 "%.4f" % float(kv["Pwait"]), "%+.2f" % ((wq - wq_x) / ci)))
print()
print(fmt % ("impl", "runs", "wall min s", "wall med s", "model ev/s", "native ev", "native ev/s",
             "peak RSS MiB", "Wq +- 95% CI", "P(wait)", "dWq/CI"))
ref_out = "%s/cpp_ref.out" % res
if os.path.exists(ref_out) and ("events=%d " % (2 * n)) in open(ref_out).read():
    row("cpp_ref")  # (absent with SKIP_PEERS=1, or stale from a run with another N)
row("mltwin")
hf = json.load(open("%s/mltwin.json" % res))["results"]
if len(hf) > 1:
    ours, ref = hf[0]["median"], hf[1]["median"]
    print("back to back in one hyperfine call: mltwin %.3f s, cpp_ref %.3f s median wall"
          " -> mltwin %.3e model ev/s = %.2fx cpp_ref" % (ours, ref, 2 * n / ours, ref / ours))
EOF

# ---- (c) 20 seeds against Erlang C --------------------------------------------------------
echo
echo "M/M/c c=$C rho=$RHO, $SEED_N customers per run, seeds 1..20 (mltwin):"
for s in $(seq 1 20); do
  "$BENCH" "$SEED_N" $C $RHO "$s"
done >"$RES/mltwin_seeds.out"
$PY "$ROOT/bench/mmc_seeds.py" --wq-exact "$WQ_EXACT" --pwait-exact "$PW_EXACT" \
  "$RES/mltwin_seeds.out"
