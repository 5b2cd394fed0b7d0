#!/usr/bin/env bash
# Starts the lab (issue 22): etcd, kube-apiserver, KWOK and the real volcano-scheduler, on loopback
# ports, from the binaries build.sh made (it is run first; cached binaries are not built again).
# Then applies Volcano v1.12.1's CRDs and an open `default` Queue, waits until every part is
# healthy and prints the kubeconfig. A lab already running is left as it is.
#
# Each start is a fresh cluster (etcd's data is new). Logs: $MLTWIN_LAB_CACHE/logs/run-<time>/
# (logs/current points at the newest); tools/lab/down.sh stops it and keeps them.
#
# The scheduler's configuration: MLTWIN_LAB_SCHEDULER_CONF=FILE, else Volcano v1.12.1's default
# (installer/helm/chart/volcano/config/volcano-scheduler.conf of the release).
# MLTWIN_LAB_NO_SCHEDULER=1: everything but the scheduler (tools/lab/scheduler.sh starts it).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [[ -f $LAB_RUN/pids ]] && bash "$LAB_DIR/status.sh" >/dev/null 2>&1; then
  lab_log "the lab is already running"
  # A comparison that stopped the scheduler and failed leaves the lab without it: start it again.
  if [[ -z ${MLTWIN_LAB_NO_SCHEDULER:-} ]] && ! grep -q '^vc-scheduler ' "$LAB_RUN/pids"; then
    lab_log "vc-scheduler was not running: starting it"
    bash "$LAB_DIR/scheduler.sh" start
  fi
  bash "$LAB_DIR/status.sh"
  exit 0
fi
if [[ -f $LAB_RUN/pids ]]; then
  lab_log "a lab that is not healthy is recorded in $LAB_RUN: stopping it first"
  bash "$LAB_DIR/down.sh"
fi

bash "$LAB_DIR/build.sh"
for c in openssl curl; do command -v $c >/dev/null || lab_die "$c is needed (apt-get install $c)"; done

ETCD="$LAB_BIN/etcd-$ETCD_VERSION"
APISERVER="$LAB_BIN/kube-apiserver-$K8S_VERSION"
KUBECTL="$LAB_BIN/kubectl-$K8S_VERSION"
KWOK="$LAB_BIN/kwok-$KWOK_VERSION"
VCSCHED="$LAB_BIN/vc-scheduler-$VOLCANO_VERSION"

for port in "$LAB_ETCD_PORT" "$LAB_ETCD_PEER_PORT" "$LAB_APISERVER_PORT" "$LAB_KWOK_PORT" \
  "$LAB_VC_METRICS_PORT" "$LAB_VC_HEALTHZ_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    lab_die "127.0.0.1:$port is taken by another program (see the MLTWIN_LAB_*_PORT variables in tools/lab/lib.sh)"
  fi
done

rm -rf "$LAB_RUN"
mkdir -p "$LAB_RUN/pki" "$LAB_LOGS"
RUNLOG="$LAB_LOGS/run-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$RUNLOG"
ln -sfn "$RUNLOG" "$LAB_LOGS/current"
echo "$RUNLOG" >"$LAB_RUN/logdir"
# Keep the logs of the last 10 runs.
ls -1dt "$LAB_LOGS"/run-* 2>/dev/null | tail -n +11 | xargs -r rm -rf

failed() {
  lab_log "the lab did not come up: $*"
  lab_log "logs: $RUNLOG (the last lines of each follow)"
  for f in "$RUNLOG"/*.log; do
    [[ -f $f ]] && { echo "---- $f" >&2; tail -n 15 "$f" >&2; }
  done
  bash "$LAB_DIR/down.sh" >&2 || true
  exit 1
}

# wait_for WHAT SECONDS COMMAND...: polls until COMMAND succeeds.
wait_for() {
  local what=$1 secs=$2 i
  shift 2
  for ((i = 0; i < secs * 4; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  failed "$what was not ready after $secs s"
}

# start NAME BINARY ARGS...: runs it in its own session, its output in NAME.log, its pid recorded.
start() {
  local name=$1
  shift
  setsid "$@" >"$RUNLOG/$name.log" 2>&1 </dev/null &
  echo "$name $! $1" >>"$LAB_RUN/pids"
  echo "$*" >"$RUNLOG/$name.cmd"
}

# ---- certificates: a CA, the apiserver's serving certificate, an admin client (system:masters),
# the service-account signing key pair.
PKI="$LAB_RUN/pki"
(
  cd "$PKI"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=mltwin-lab-ca" 2>/dev/null
  cat >apiserver.ext <<EOF
subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1
extendedKeyUsage=serverAuth
keyUsage=digitalSignature,keyEncipherment
EOF
  openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -extfile apiserver.ext \
    -out apiserver.crt 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n' >client.ext
  openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=mltwin-lab-admin" 2>/dev/null
  openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -extfile client.ext \
    -out admin.crt 2>/dev/null
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
) || failed "openssl could not make the certificates"

KUBECONFIG_FILE="$LAB_RUN/kubeconfig"
cat >"$KUBECONFIG_FILE" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: mltwin-lab
  cluster:
    server: https://127.0.0.1:$LAB_APISERVER_PORT
    certificate-authority: $PKI/ca.crt
users:
- name: mltwin-lab-admin
  user:
    client-certificate: $PKI/admin.crt
    client-key: $PKI/admin.key
contexts:
- name: mltwin-lab
  context:
    cluster: mltwin-lab
    user: mltwin-lab-admin
current-context: mltwin-lab
EOF
kc() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
api() { curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" "https://127.0.0.1:$LAB_APISERVER_PORT$1"; }

# ---- etcd (a throw-away cluster of one: no fsync).
start etcd "$ETCD" --name lab --data-dir "$LAB_RUN/etcd" --unsafe-no-fsync \
  --listen-client-urls "http://127.0.0.1:$LAB_ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$LAB_ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$LAB_ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$LAB_ETCD_PEER_PORT" \
  --initial-cluster "lab=http://127.0.0.1:$LAB_ETCD_PEER_PORT"
wait_for "etcd" 30 curl -sf "http://127.0.0.1:$LAB_ETCD_PORT/health"
lab_log "etcd $ETCD_VERSION: http://127.0.0.1:$LAB_ETCD_PORT"

# ---- kube-apiserver. No controller-manager runs, so two admission plugins that expect it are
# off: ServiceAccount (it needs the token controller's default ServiceAccount) and
# TaintNodesByCondition (it taints every new node node.kubernetes.io/not-ready:NoSchedule, which
# the node lifecycle controller would take off once KWOK makes the node Ready: a node carries
# the taints it was created with and no others). No endpoint reconciler either (its endpoints
# could only name the loopback address, which Endpoints refuse).
start kube-apiserver "$APISERVER" \
  --etcd-servers "http://127.0.0.1:$LAB_ETCD_PORT" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$LAB_APISERVER_PORT" \
  --cert-dir "$PKI" --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
  --client-ca-file "$PKI/ca.crt" \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-cluster-ip-range 10.96.0.0/16 --endpoint-reconciler-type none \
  --authorization-mode RBAC --disable-admission-plugins ServiceAccount,TaintNodesByCondition \
  --profiling=false --v 1
wait_for "kube-apiserver (/readyz)" 120 api /readyz
wait_for "the default namespace" 30 api /api/v1/namespaces/default
lab_log "kube-apiserver $K8S_VERSION: https://127.0.0.1:$LAB_APISERVER_PORT"

# ---- Volcano's CRDs (all of config/crd/volcano/bases: the scheduler's informers wait for
# queues, podgroups, numatopologies and hypernodes) and the `default` queue, Open (the controller,
# which is not run, would make both).
kc apply --server-side -f "$VOLCANO_SRC/config/crd/volcano/bases/" >"$RUNLOG/crds.log" 2>&1 || failed "kubectl apply of the CRDs"
# (kubectl wait fails at once on a CRD whose status has no conditions yet: retried.)
crds_established() { kc wait --for condition=Established --timeout 10s crd --all >>"$RUNLOG/crds.log" 2>&1; }
wait_for "the CRDs' Established condition" 60 crds_established
cat >"$LAB_RUN/default-queue.yaml" <<EOF
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: default
spec:
  weight: 1
  reclaimable: true
EOF
open_default_queue() {
  kc apply -f "$LAB_RUN/default-queue.yaml" >>"$RUNLOG/crds.log" 2>&1 &&
    kc patch queue default --subresource status --type merge -p '{"status":{"state":"Open"}}' >>"$RUNLOG/crds.log" 2>&1
}
wait_for "the default queue, Open" 30 open_default_queue
lab_log "Volcano $VOLCANO_VERSION CRDs applied; queue default is Open"

# ---- KWOK: nodes annotated kwok.x-k8s.io/node=fake become Ready and their pods Running.
start kwok "$KWOK" --kubeconfig "$KUBECONFIG_FILE" \
  --manage-all-nodes=false --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
  --server-address "127.0.0.1:$LAB_KWOK_PORT" --node-lease-duration-seconds 40
wait_for "kwok (/healthz)" 60 curl -sf "http://127.0.0.1:$LAB_KWOK_PORT/healthz"
lab_log "kwok $KWOK_VERSION: manages nodes annotated kwok.x-k8s.io/node=fake"

# ---- volcano-scheduler (tools/lab/scheduler.sh starts, stops and restarts it alone).
if [[ -n ${MLTWIN_LAB_NO_SCHEDULER:-} ]]; then
  lab_log "vc-scheduler not started (MLTWIN_LAB_NO_SCHEDULER): tools/lab/scheduler.sh start [CONF]"
  exit 0
fi
bash "$LAB_DIR/scheduler.sh" start || failed "vc-scheduler did not start"

bash "$LAB_DIR/status.sh"
