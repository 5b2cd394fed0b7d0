#!/usr/bin/env bash
# The conformance sample CI runs (issue 22, item 3): SAMPLE seeds (default 20) of the differential
# runner, tools/lab/conformance.py, on a lab of cached binaries. A comparison classed `different`
# is made again up to twice (Volcano's own coin flips can make one run differ); one that stays
# different, or that could not run, fails it.
#
# It runs only where the lab's binaries are already built (make lab-build: about 21 minutes cold,
# too long for CI to pay each time) and the Volcano release's source is extracted; elsewhere it
# says why and succeeds. A lab already running is used as it is; one this script starts, it stops.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SAMPLE="${SAMPLE:-20}"
SCHED="${MLTWIN_SCHEDULER:-build/apps/mltwin-scheduler}"

missing=()
for b in "etcd-$ETCD_VERSION" "kube-apiserver-$K8S_VERSION" "kubectl-$K8S_VERSION" "kwok-$KWOK_VERSION" \
  "vc-scheduler-$VOLCANO_VERSION"; do
  [[ -x $LAB_BIN/$b ]] || missing+=("$b")
done
[[ -d $VOLCANO_SRC/config/crd ]] || missing+=("the Volcano $VOLCANO_VERSION source ($VOLCANO_SRC)")
if ((${#missing[@]})); then
  echo "conformance sample: skipped: not built on this machine: ${missing[*]} (in $LAB_BIN; make lab-build builds them)"
  exit 0
fi
[[ -x $SCHED ]] || lab_die "no $SCHED (make scheduler)"

started=0
if ! bash "$LAB_DIR/status.sh" >/dev/null 2>&1; then
  bash "$LAB_DIR/up.sh" >/dev/null
  started=1
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/mltwin-conformance-sample.XXXXXX")
rc=0
python3 "$LAB_DIR/conformance.py" --count "$SAMPLE" --results "$out/results.jsonl" --out "$out" \
  --mltwin-scheduler "$SCHED" --retry-different 2 --fail-on-different || rc=$?
if ((started)); then bash "$LAB_DIR/down.sh" >/dev/null 2>&1 || true; fi
if ((rc)); then
  echo "conformance sample: FAILED: a comparison is different or could not run (details: $out)"
  exit "$rc"
fi
echo "conformance sample: passed ($SAMPLE seeds; details: $out)"
