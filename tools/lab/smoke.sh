#!/usr/bin/env bash
# End-to-end check of a running lab (make lab): the real volcano-scheduler binds a gang on a KWOK
# node, and leaves a gang that cannot fit unbound.
#   node lab-smoke-0: cpu 32, memory 128Gi, pods 110, aws.amazon.com/neuroncore 16 (KWOK makes it Ready)
#   PodGroup fits (minMember 2): 2 pods of cpu 4, memory 8Gi, neuroncore 8   -> both bound, Running
#   PodGroup too-big (minMember 2): 2 pods of neuroncore 12 (24 > the 16 left) -> neither bound
# Everything it makes is deleted at the end (also on failure).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bash "$LAB_DIR/status.sh" >/dev/null || lab_die "the lab is not running (make lab)"
KUBECTL="$LAB_BIN/kubectl-$K8S_VERSION"
kc() { "$KUBECTL" --kubeconfig "$LAB_RUN/kubeconfig" "$@"; }
NS=default

cleanup() {
  kc delete pod -n $NS -l mltwin-lab=smoke --grace-period 0 --force --wait=false >/dev/null 2>&1 || true
  kc delete podgroup -n $NS -l mltwin-lab=smoke --wait=false >/dev/null 2>&1 || true
  kc delete node lab-smoke-0 --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT

pod() { # name group neuroncores
  cat <<EOF
---
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: $NS
  labels: {mltwin-lab: smoke}
  annotations: {scheduling.k8s.io/group-name: $2}
spec:
  schedulerName: volcano
  restartPolicy: Never
  containers:
  - name: main
    image: registry.invalid/none:0
    resources:
      requests: {cpu: "4", memory: 8Gi, aws.amazon.com/neuroncore: "$3"}
      limits: {cpu: "4", memory: 8Gi, aws.amazon.com/neuroncore: "$3"}
EOF
}
podgroup() { # name minMember
  cat <<EOF
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: $1
  namespace: $NS
  labels: {mltwin-lab: smoke}
spec:
  minMember: $2
  queue: default
EOF
}

start=$(date +%s.%N)
kc apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Node
metadata:
  name: lab-smoke-0
  annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
  labels: {type: kwok, kubernetes.io/hostname: lab-smoke-0, node.kubernetes.io/instance-type: trn1.32xlarge}
status:
  allocatable: {cpu: "32", memory: 128Gi, pods: "110", aws.amazon.com/neuroncore: "16"}
  capacity: {cpu: "32", memory: 128Gi, pods: "110", aws.amazon.com/neuroncore: "16"}
EOF
for ((i = 0; i < 120; i++)); do
  [[ $(kc get node lab-smoke-0 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null) == True ]] && break
  sleep 0.25
done
[[ $(kc get node lab-smoke-0 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]] ||
  lab_die "KWOK did not make node lab-smoke-0 Ready in 30 s"
lab_log "node lab-smoke-0 is Ready (KWOK); allocatable: $(kc get node lab-smoke-0 -o jsonpath='{.status.allocatable}')"

{ podgroup fits 2; pod fits-0 fits 8; pod fits-1 fits 8; } | kc apply -f - >/dev/null
for ((i = 0; i < 120; i++)); do
  phases=$(kc get pod -n $NS fits-0 fits-1 -o jsonpath='{range .items[*]}{.spec.nodeName}/{.status.phase} {end}')
  [[ $phases == "lab-smoke-0/Running lab-smoke-0/Running " ]] && break
  sleep 0.25
done
[[ $phases == "lab-smoke-0/Running lab-smoke-0/Running " ]] ||
  lab_die "the gang 'fits' was not bound and Running in 30 s: $phases (scheduler log: $(cat "$LAB_RUN/logdir")/vc-scheduler.log)"
t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
lab_log "PodGroup fits: fits-0 and fits-1 bound to lab-smoke-0 by volcano-scheduler and Running ($t s from the node's creation)"
kc get events -n $NS --field-selector involvedObject.name=fits-0,reason=Scheduled -o jsonpath='{range .items[*]}  event: {.source.component}: {.message}{"\n"}{end}' >&2

{ podgroup too-big 2; pod too-big-0 too-big 12; pod too-big-1 too-big 12; } | kc apply -f - >/dev/null
sleep 4   # four scheduling periods
bound=$(kc get pod -n $NS too-big-0 too-big-1 -o jsonpath='{range .items[*]}{.spec.nodeName}{end}')
[[ -z $bound ]] || lab_die "a pod of the gang 'too-big' was bound ($bound): the gang's minMember was not kept"
for ((i = 0; i < 40; i++)); do
  pg_fits=$(kc get podgroup -n $NS fits -o jsonpath='{.status.phase}')
  [[ $pg_fits == Running ]] && break
  sleep 0.25
done
pg_big=$(kc get podgroup -n $NS too-big -o jsonpath='{.status.phase}')
lab_log "PodGroup too-big (2 x 12 neuroncores; fits holds all 16 of the node): no pod bound; PodGroup phases: fits=$pg_fits too-big=$pg_big"
[[ $pg_fits == Running ]] || lab_die "PodGroup fits is $pg_fits, not Running"
lab_log "smoke: passed"
