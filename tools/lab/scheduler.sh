#!/usr/bin/env bash
# Starts, stops or restarts the lab's volcano-scheduler alone, the rest of the lab running:
#   scheduler.sh start [CONF]   CONF: a volcano-scheduler.conf; default MLTWIN_LAB_SCHEDULER_CONF,
#                               else Volcano v1.12.1's default configuration
#   scheduler.sh stop
#   scheduler.sh restart [CONF]
# A differential run stops it, writes a cluster's state, reads that state back as the snapshot,
# then starts it with the configuration under test. Its log is appended to vc-scheduler.log of the
# run's log folder, each start marked.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -f $LAB_RUN/pids ]] || lab_die "the lab is not running (make lab)"
RUNLOG=$(cat "$LAB_RUN/logdir")
VCSCHED="$LAB_BIN/vc-scheduler-$VOLCANO_VERSION"
DEFAULT_CONF="$VOLCANO_SRC/installer/helm/chart/volcano/config/volcano-scheduler.conf"

stop_scheduler() {
  local name pid bin
  while read -r name pid bin; do
    [[ $name == vc-scheduler ]] && lab_stop "$name" "$pid" "$bin"
  done <"$LAB_RUN/pids"
  sed -i '/^vc-scheduler /d' "$LAB_RUN/pids"
}

start_scheduler() {
  local conf="${1:-${MLTWIN_LAB_SCHEDULER_CONF:-$DEFAULT_CONF}}" i
  grep -q '^vc-scheduler ' "$LAB_RUN/pids" && lab_die "vc-scheduler is already running (scheduler.sh restart)"
  [[ -f $conf ]] || lab_die "no scheduler configuration at $conf"
  cp "$conf" "$LAB_RUN/volcano-scheduler.conf"
  local n
  n=$(find "$RUNLOG" -maxdepth 1 -name "volcano-scheduler.*.conf" | wc -l)
  cp "$conf" "$RUNLOG/volcano-scheduler.$n.conf"
  local args=(--kubeconfig "$LAB_RUN/kubeconfig"
    --scheduler-conf "$LAB_RUN/volcano-scheduler.conf" --scheduler-name volcano --leader-elect=false
    --enable-metrics --listen-address "127.0.0.1:$LAB_VC_METRICS_PORT"
    --enable-healthz --healthz-address "127.0.0.1:$LAB_VC_HEALTHZ_PORT"
    --cache-dump-dir "$LAB_RUN" --schedule-period "${MLTWIN_LAB_SCHEDULE_PERIOD:-1s}"
    --logtostderr -v "${MLTWIN_LAB_SCHEDULER_V:-3}")
  echo "==== mltwin-lab: vc-scheduler start $n at $(date -u +%FT%TZ), configuration $conf" >>"$RUNLOG/vc-scheduler.log"
  echo "$VCSCHED ${args[*]}" >>"$RUNLOG/vc-scheduler.cmd"
  setsid "$VCSCHED" "${args[@]}" >>"$RUNLOG/vc-scheduler.log" 2>&1 </dev/null &
  local pid=$!
  echo "vc-scheduler $pid $VCSCHED" >>"$LAB_RUN/pids"
  for ((i = 0; i < 240; i++)); do
    curl -sf "http://127.0.0.1:$LAB_VC_HEALTHZ_PORT/healthz" >/dev/null 2>&1 && {
      lab_log "vc-scheduler $VOLCANO_VERSION: schedulerName volcano, configuration $conf"
      return 0
    }
    kill -0 "$pid" 2>/dev/null || break  # it exited (a bad flag, a bad kubeconfig): no use waiting
    sleep 0.25
  done
  tail -n 20 "$RUNLOG/vc-scheduler.log" >&2
  local why="was not healthy after 60 s"
  kill -0 "$pid" 2>/dev/null || why="exited before it was healthy"
  stop_scheduler
  lab_die "vc-scheduler $why (log: $RUNLOG/vc-scheduler.log)"
}

case "${1:-}" in
start) start_scheduler "${2:-}" ;;
stop) stop_scheduler ;;
restart) stop_scheduler; start_scheduler "${2:-}" ;;
*) echo "usage: $0 start [CONF] | stop | restart [CONF]" >&2; exit 2 ;;
esac
