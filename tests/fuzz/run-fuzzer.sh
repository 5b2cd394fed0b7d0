#!/usr/bin/env bash
# run-fuzzer.sh FUZZER WORK_DIR SECONDS CORPUS_DIR [MORE_SEED_DIRS...]
# Replays every input of the committed corpus (and of the seed folders: the repository's own
# scenarios and fixtures) once, then fuzzes for SECONDS (0: replay only). New interesting
# inputs go to WORK_DIR/new/<target>, never into the source tree; a finding (crash, sanitizer
# report, timeout > 10 s, RSS > 2 GiB) is written to WORK_DIR/findings/<target>/ and fails the
# test. Once fixed, copy the finding into tests/fuzz/corpus/<target>/ so that it is replayed from
# then on (the fuzzer replays a copy of it in WORK_DIR/corpus/<target>, its header tokens written out).
set -euo pipefail
fuzzer=$1 work=$2 seconds=$3 corpus=$4
shift 4
name=$(basename "$fuzzer")
new="$work/new/$name" findings="$work/findings/$name"
mkdir -p "$new" "$findings"
# The committed corpus names the trace formats' header lines by tokens, so that the repository
# holds no line of the traces under ../shared/data (the Azure Functions 2019 files: invocations
# with minute_1 .. minute_1440, or its three key columns before fewer minutes; durations; memory;
# Philly's). The fuzzer replays a copy with the tokens written out; every other byte is kept
# (LC_ALL=C sed: CR, form feeds, invalid UTF-8).
# The header rows, from their column names (as ../shared/data/README.md lists them).
join() { local IFS=,; echo "$*"; }
minutes=$(printf ',minute_%d' $(seq 1 1440))
durations=$(join HashOwner HashApp HashFunction Average Count Minimum Maximum percentile_Average_{0,1,25,50,75,99,100})
memory=$(join HashOwner HashApp SampleCount AverageAllocatedMb AverageAllocatedMb_pct{1,5,25,50,75,95,99,100})
philly=$(join timestamp duration num_gpus gpu_time cluster)
expanded="$work/corpus/$name"
rm -rf "$expanded"
mkdir -p "$expanded"
for f in "$corpus"/*; do
  LC_ALL=C sed -e "s/@AZURE_INVOCATIONS_HEADER@/HashFunction,HashOwner,HashApp$minutes/g" \
    -e "s/@AZURE_INVOCATIONS_KEYS@/HashFunction,HashOwner,HashApp/g" \
    -e "s/@AZURE_DURATIONS_HEADER@/$durations/g" \
    -e "s/@AZURE_MEMORY_HEADER@/$memory/g" \
    -e "s/@PHILLY_HEADER@/$philly/g" "$f" >"$expanded/$(basename "$f")"
done
set -- "$expanded" "$@"
limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 "-artifact_prefix=$findings/")
n=$(find "$@" -type f | wc -l)
echo "$name: replaying $n inputs from $*"
"$fuzzer" "${limits[@]}" -runs=0 "$@"
if [ "$seconds" -gt 0 ]; then
  echo "$name: fuzzing for $seconds s (new inputs in $new)"
  "$fuzzer" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 "$new" "$@"
fi
echo "$name: no finding"
