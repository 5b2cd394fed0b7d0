# Shared settings of the lab scripts (issue 22): sourced, not run.
#
# Everything the lab builds or writes lives outside the repository, in one cache folder per
# machine: the Go module and build caches, the binaries, the Volcano source, and each run's state
# (certificates, etcd's data, the kubeconfig) and logs.

LAB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LAB_CACHE="${MLTWIN_LAB_CACHE:-$HOME/.cache/mltwin-lab}"
LAB_BIN="$LAB_CACHE/bin"
LAB_SRC="$LAB_CACHE/src"
LAB_LOGS="$LAB_CACHE/logs"
LAB_RUN="$LAB_CACHE/run"          # the running lab's state; `lab-down` removes it, logs stay

# The pinned releases: Volcano v1.12.1 and the Kubernetes it builds against (its go.mod:
# k8s.io/kubernetes v1.32.2), the etcd that Kubernetes v1.32 was tested with (its go.mod:
# go.etcd.io/etcd/server/v3 v3.5.16), and KWOK. Changing one here (and in the module under
# tools/lab/) builds a binary of a new name; the old one stays in the cache.
K8S_VERSION=v1.32.2
ETCD_VERSION=v3.5.16
KWOK_VERSION=v0.7.0
VOLCANO_VERSION=v1.12.1
VOLCANO_COMMIT=f7acc998d1b23f045b3e3f53cdccff1695bbff37   # the tag's commit, checked when extracting

# volcano.sh/volcano is not served by the Go module proxy: its source comes from a git copy of
# the upstream repository (MLTWIN_VOLCANO_GIT), extracted once into the cache.
MLTWIN_VOLCANO_GIT="${MLTWIN_VOLCANO_GIT:-/work/.mirror/volcano-sh+volcano/repo}"
VOLCANO_SRC="$LAB_SRC/volcano-$VOLCANO_VERSION"

# Loopback ports (override with the environment when they collide).
LAB_ETCD_PORT="${MLTWIN_LAB_ETCD_PORT:-23790}"
LAB_ETCD_PEER_PORT="${MLTWIN_LAB_ETCD_PEER_PORT:-23800}"
LAB_APISERVER_PORT="${MLTWIN_LAB_APISERVER_PORT:-16443}"
LAB_KWOK_PORT="${MLTWIN_LAB_KWOK_PORT:-10247}"
LAB_VC_METRICS_PORT="${MLTWIN_LAB_VC_METRICS_PORT:-18080}"
LAB_VC_HEALTHZ_PORT="${MLTWIN_LAB_VC_HEALTHZ_PORT:-11251}"

# Go: the machine's toolchain, caches in the lab's folder, and one core (the machine is shared
# with C++ builds): -p=1 builds one package at a time, GOMAXPROCS=1 keeps each compile on one
# thread; the builds run under nice. MLTWIN_LAB_GO_JOBS raises both.
lab_go_env() {
  export GOMODCACHE="$LAB_CACHE/gomod"
  export GOCACHE="$LAB_CACHE/gobuild"
  local jobs="${MLTWIN_LAB_GO_JOBS:-1}"
  export GOFLAGS="-buildvcs=false -mod=readonly -p=$jobs"
  export GOMAXPROCS="$jobs"
  export CGO_ENABLED=0
}

lab_log() { printf '[lab %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
lab_die() { lab_log "error: $*"; exit 1; }

# lab_stop NAME PID BINARY: SIGTERM, then SIGKILL after 15 s; only while PID is still BINARY (a
# pid may be reused). The binary is compared by its real path: a cache whose bin/ is a link works.
lab_stop() {
  local name=$1 pid=$2 bin=$3 i
  [[ -e /proc/$pid && $(readlink "/proc/$pid/exe" 2>/dev/null) == "$(readlink -f "$bin")" ]] || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 60; i++)); do [[ -e /proc/$pid ]] || break; sleep 0.25; done
  if [[ -e /proc/$pid ]]; then
    lab_log "$name (pid $pid) did not stop in 15 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null
  fi
  lab_log "$name stopped"
}
