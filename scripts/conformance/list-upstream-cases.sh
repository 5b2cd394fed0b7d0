#!/usr/bin/env bash
# Writes tests/conformance/upstream_cases.tsv: every table case of Volcano's scheduler action and
# plugin tests at the pinned release, the rows docs/conformance.md must account for.
#   scripts/conformance/list-upstream-cases.sh VOLCANO_CHECKOUT
# VOLCANO_CHECKOUT is a git clone of github.com/volcano-sh/volcano; the tag is read from it, not
# from the work tree. Test tooling: needs Go.
set -euo pipefail
tag=v1.12.1
repo=${1:?usage: $0 VOLCANO_CHECKOUT (a git clone of volcano-sh/volcano)}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../../tests/conformance/upstream_cases.tsv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$repo" archive "$tag" pkg/scheduler | tar -x -C "$work"
(cd "$here/upstream-cases" && go build -o "$work/upstream-cases" .)
files=$(cd "$work" && find pkg/scheduler/actions pkg/scheduler/plugins -name '*_test.go' | LC_ALL=C sort)
{
  echo "# Volcano $tag table cases of pkg/scheduler/{actions,plugins}/**/*_test.go, listed by"
  echo "# scripts/conformance/list-upstream-cases.sh (names only; Apache-2.0, see NOTICE)."
  echo "# file (under pkg/scheduler/)	test function	line	case name"
  (cd "$work/pkg/scheduler" && "$work/upstream-cases" -root . $(echo "$files" | sed 's#^pkg/scheduler/##'))
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out: $(grep -vc '^#' "$out") cases"
