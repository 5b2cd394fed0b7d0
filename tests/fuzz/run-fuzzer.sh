#!/usr/bin/env bash
# run-fuzzer.sh FUZZER WORK_DIR SECONDS CORPUS_DIR [MORE_SEED_DIRS...]
# Replays every input of the committed corpus (and of the seed folders: the repository's own
# scenarios and fixtures) once, then fuzzes for SECONDS (0: replay only). New interesting
# inputs go to WORK_DIR/new/<target>, never into the source tree; a finding (crash, sanitizer
# report, timeout > 10 s, RSS > 2 GiB) is written to WORK_DIR/findings/<target>/ and fails the
# test. Once fixed, copy the finding into CORPUS_DIR so that it is replayed from then on.
set -euo pipefail
fuzzer=$1 work=$2 seconds=$3
shift 3
name=$(basename "$fuzzer")
new="$work/new/$name" findings="$work/findings/$name"
mkdir -p "$new" "$findings"
limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 "-artifact_prefix=$findings/")
n=$(find "$@" -type f | wc -l)
echo "$name: replaying $n inputs from $*"
"$fuzzer" "${limits[@]}" -runs=0 "$@"
if [ "$seconds" -gt 0 ]; then
  echo "$name: fuzzing for $seconds s (new inputs in $new)"
  "$fuzzer" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 "$new" "$@"
fi
echo "$name: no finding"
