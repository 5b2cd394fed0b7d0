#!/usr/bin/env bash
# Says whether the lab is running and healthy (exit 0) or not (exit 1), and how to reach it.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -f $LAB_RUN/pids ]] || { echo "the lab is not running (make lab starts it)"; exit 1; }
ok=1
while read -r name pid bin; do
  if [[ -e /proc/$pid && $(readlink "/proc/$pid/exe" 2>/dev/null) == "$(readlink -f "$bin")" ]]; then
    echo "  $name: running (pid $pid)"
  else
    echo "  $name: NOT running (pid $pid)"; ok=0
  fi
done <"$LAB_RUN/pids"
PKI="$LAB_RUN/pki"
curl -sf "http://127.0.0.1:$LAB_ETCD_PORT/health" >/dev/null || { echo "  etcd: not healthy"; ok=0; }
curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
  "https://127.0.0.1:$LAB_APISERVER_PORT/readyz" >/dev/null || { echo "  kube-apiserver: not ready"; ok=0; }
curl -sf "http://127.0.0.1:$LAB_KWOK_PORT/healthz" >/dev/null || { echo "  kwok: not healthy"; ok=0; }
if grep -q '^vc-scheduler ' "$LAB_RUN/pids"; then
  curl -sf "http://127.0.0.1:$LAB_VC_HEALTHZ_PORT/healthz" >/dev/null || { echo "  vc-scheduler: not healthy"; ok=0; }
else
  echo "  vc-scheduler: not started (tools/lab/scheduler.sh start [CONF])"
fi
logdir=$(cat "$LAB_RUN/logdir" 2>/dev/null)
if [[ $ok == 1 ]]; then
  cat <<MSG
The lab is up: Kubernetes $K8S_VERSION (etcd $ETCD_VERSION), KWOK $KWOK_VERSION, volcano-scheduler $VOLCANO_VERSION.
  export KUBECONFIG=$LAB_RUN/kubeconfig
  kubectl:  $LAB_BIN/kubectl-$K8S_VERSION   (or any kubectl 1.31-1.33)
  fake nodes: annotate them kwok.x-k8s.io/node=fake; pods: schedulerName volcano and the annotation
    scheduling.k8s.io/group-name: <PodGroup> (no Volcano controller runs: make PodGroups, and open
    new Queues with: kubectl patch queue Q --subresource status --type merge -p '{"status":{"state":"Open"}}')
  logs: $logdir
  stop: make lab-down
MSG
  exit 0
fi
echo "the lab is NOT healthy; logs: $logdir"
exit 1
