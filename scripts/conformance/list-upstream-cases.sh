#!/usr/bin/env bash
# Writes the rows docs/conformance.md must account for, at the pinned Volcano release:
#   tests/conformance/upstream_cases.tsv             every table case of the scheduler's action
#                                                    and plugin tests (pkg/scheduler/{actions,plugins})
#   tests/conformance/upstream_controller_cases.tsv  every table case of the job controller's
#                                                    tests (pkg/controllers/job/*_test.go)
#   scripts/conformance/list-upstream-cases.sh VOLCANO_CHECKOUT
# VOLCANO_CHECKOUT is a git clone of github.com/volcano-sh/volcano; the tag is read from it, not
# from the work tree. Test tooling: needs Go.
set -euo pipefail
tag=v1.12.1
repo=${1:?usage: $0 VOLCANO_CHECKOUT (a git clone of volcano-sh/volcano)}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$repo" archive "$tag" pkg/scheduler pkg/controllers/job | tar -x -C "$work"
(cd "$here/upstream-cases" && go build -o "$work/upstream-cases" .)

# list OUT ROOT DESCRIPTION FIND_ARGS...: the cases of the test files under $work/ROOT.
list() {
  local out=$1 root=$2 what=$3
  shift 3
  local files
  files=$(cd "$work/$root" && find "$@" -name '*_test.go' | sed 's#^\./##' | LC_ALL=C sort)
  {
    echo "# Volcano $tag table cases of $what, listed by"
    echo "# scripts/conformance/list-upstream-cases.sh (names only; Apache-2.0, see NOTICE)."
    echo "# file (under $root/)	test function	line	case name"
    (cd "$work/$root" && "$work/upstream-cases" -root . $files)
  } > "$out.tmp"
  mv "$out.tmp" "$out"
  echo "wrote $out: $(grep -vc '^#' "$out") cases"
}
list "$here/../../tests/conformance/upstream_cases.tsv" pkg/scheduler \
  "pkg/scheduler/{actions,plugins}/**/*_test.go" actions plugins
list "$here/../../tests/conformance/upstream_controller_cases.tsv" pkg/controllers/job \
  "pkg/controllers/job/*_test.go" . -maxdepth 1
