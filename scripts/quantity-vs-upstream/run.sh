#!/bin/sh
# Compares mltwin's policy::parse_quantity with k8s.io/apimachinery v0.32.2's ParseQuantity (the
# Go code itself, from the Go module proxy) on generated inputs: verdict, upstream error, exact
# amount, Format, String(), Value() and MilliValue(). Needs Go and g++; not part of `make test`.
# Usage: scripts/quantity-vs-upstream/run.sh [seed] [count]   (from the repository root)
set -eu
seed=${1:-1}
count=${2:-200000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here/upstream" && go build -o "$work/upstream" .)
g++ -std=c++20 -O2 -I"$root/policies/include" "$here/probe.cpp" "$root/policies/src/quantity.cpp" -o "$work/mltwin"
python3 "$here/gen.py" "$seed" "$count" > "$work/in.txt"
"$work/upstream" < "$work/in.txt" > "$work/upstream.txt"
"$work/mltwin" < "$work/in.txt" > "$work/mltwin.txt"
python3 "$here/compare.py" "$work/in.txt" "$work/upstream.txt" "$work/mltwin.txt"
