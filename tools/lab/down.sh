#!/usr/bin/env bash
# Stops the lab: the scheduler, KWOK, the apiserver, then etcd (SIGTERM, then SIGKILL after 15 s),
# only the processes up.sh recorded. Removes the run's state (etcd data, certificates); keeps logs.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [[ ! -f $LAB_RUN/pids ]]; then
  lab_log "the lab is not running"
  rm -rf "$LAB_RUN"
  exit 0
fi
logdir=$(cat "$LAB_RUN/logdir" 2>/dev/null)
mapfile -t lines < <(tac "$LAB_RUN/pids")   # the reverse of the start order
for line in "${lines[@]}"; do
  read -r name pid bin <<<"$line"
  lab_stop "$name" "$pid" "$bin"
done
rm -rf "$LAB_RUN"
lab_log "the lab is down; logs kept in ${logdir:-$LAB_LOGS}"
