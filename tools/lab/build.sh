#!/usr/bin/env bash
# Builds the lab's upstream binaries once per machine (issue 22), into $MLTWIN_LAB_CACHE/bin:
#   kube-apiserver, kubectl  k8s.io/kubernetes v1.32.2 (tools/lab/k8s: its staging modules replaced
#                            by their published v0.32.2 versions)
#   etcd                     go.etcd.io/etcd/server/v3 v3.5.16 (tools/lab/etcd)
#   kwok                     sigs.k8s.io/kwok v0.7.0 (tools/lab/kwok)
#   vc-scheduler             volcano.sh/volcano v1.12.1 cmd/scheduler, from the upstream source
#                            (not served by the Go module proxy: see lib.sh), its own go.mod and go.sum
# A binary already there is not built again. Each build's time goes to logs/build-times.tsv.
# Usage: build.sh [NAME...]   (default: all)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
lab_go_env
mkdir -p "$LAB_BIN" "$LAB_LOGS" "$LAB_SRC"
exec 9>"$LAB_CACHE/build.lock"
flock 9 || lab_die "could not lock $LAB_CACHE/build.lock"   # one build at a time per cache

# Kubernetes' own builds stamp the version (hack/lib/version.sh); clients and the scheduler read it.
k8s_ldflags() {
  local ld="-s -w" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=32 -X $p.gitTreeState=clean"
    ld+=" -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  printf '%s' "$ld"
}

# build NAME OUT DIR PACKAGE LDFLAGS: go build in DIR, timed, logged; skipped when OUT exists.
build() {
  local name=$1 out=$2 dir=$3 pkg=$4 ldflags=$5
  if [[ -x $out ]]; then
    lab_log "$name: cached ($out)"
    return 0
  fi
  command -v go >/dev/null || lab_die "go is not installed (the lab builds its binaries with the machine's Go)"
  local log="$LAB_LOGS/build-$name.log" start end rc=0
  lab_log "$name: building $pkg (one core, under nice; log: $log)"
  start=$(date +%s)
  (cd "$dir" && nice -n 10 go build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg") >"$log" 2>&1 || rc=$?
  end=$(date +%s)
  if [[ $rc -ne 0 ]]; then
    printf '%s\t%s\tfailed\t%s\n' "$(date -u +%FT%TZ)" "$name" "$((end - start))" >>"$LAB_LOGS/build-times.tsv"
    tail -n 30 "$log" >&2
    lab_die "$name: the build failed after $((end - start)) s; the command: (cd $dir && go build -trimpath -o $out $pkg); the log: $log"
  fi
  mv "$out.tmp" "$out"
  printf '%s\t%s\tbuilt\t%s\n' "$(date -u +%FT%TZ)" "$name" "$((end - start))" >>"$LAB_LOGS/build-times.tsv"
  lab_log "$name: built in $((end - start)) s"
}

volcano_source() {
  [[ -f $VOLCANO_SRC/go.mod ]] && return 0
  [[ -d $MLTWIN_VOLCANO_GIT ]] || lab_die "volcano.sh/volcano is not served by the Go module proxy, and no git copy of \
the upstream repository is at MLTWIN_VOLCANO_GIT=$MLTWIN_VOLCANO_GIT; point it at one that has the tag $VOLCANO_VERSION"
  local commit
  commit=$(git -C "$MLTWIN_VOLCANO_GIT" rev-parse "$VOLCANO_VERSION^{commit}") ||
    lab_die "$MLTWIN_VOLCANO_GIT has no tag $VOLCANO_VERSION"
  [[ $commit == "$VOLCANO_COMMIT" ]] || lab_die "$VOLCANO_VERSION is $commit in $MLTWIN_VOLCANO_GIT, not $VOLCANO_COMMIT"
  lab_log "volcano: extracting $VOLCANO_VERSION ($commit) into $VOLCANO_SRC"
  rm -rf "$VOLCANO_SRC.tmp" && mkdir -p "$VOLCANO_SRC.tmp"
  git -C "$MLTWIN_VOLCANO_GIT" archive "$commit" | tar -x -C "$VOLCANO_SRC.tmp"
  mv "$VOLCANO_SRC.tmp" "$VOLCANO_SRC"
}

NAMES=("$@")
[[ ${#NAMES[@]} -eq 0 ]] && NAMES=(etcd kube-apiserver kubectl kwok vc-scheduler)
for n in "${NAMES[@]}"; do
  case $n in
  etcd)
    build etcd "$LAB_BIN/etcd-$ETCD_VERSION" "$LAB_DIR/etcd" go.etcd.io/etcd/server/v3 "-s -w" ;;
  kube-apiserver | kubectl)
    build "$n" "$LAB_BIN/$n-$K8S_VERSION" "$LAB_DIR/k8s" "k8s.io/kubernetes/cmd/$n" "$(k8s_ldflags)" ;;
  kwok)
    build kwok "$LAB_BIN/kwok-$KWOK_VERSION" "$LAB_DIR/kwok" sigs.k8s.io/kwok/cmd/kwok "-s -w" ;;
  vc-scheduler)
    volcano_source
    # Volcano's Makefile: CGO_ENABLED=0 go build -ldflags "-X .../pkg/version.GitSHA=... -X
    # .../pkg/version.Version=..." ./cmd/scheduler
    v=volcano.sh/volcano/pkg/version
    build vc-scheduler "$LAB_BIN/vc-scheduler-$VOLCANO_VERSION" "$VOLCANO_SRC" ./cmd/scheduler \
      "-s -w -X $v.GitSHA=$VOLCANO_COMMIT -X $v.Version=$VOLCANO_VERSION -X $v.Built=1970-01-01" ;;
  *) lab_die "unknown binary $n (etcd, kube-apiserver, kubectl, kwok, vc-scheduler)" ;;
  esac
done
