#!/usr/bin/env bash
# Runs every libFuzzer target for a while from its seeds (README "Testing"): what CI does
# after building the `fuzz` preset.   tests/fuzz/run.sh [build dir] [seconds per target]
# A crash, sanitizer report, timeout (5 s per input) or memory blow-up stops the run; the
# input is saved under <build>/fuzz-findings/ and must become a regression seed: copy it to
# tests/fuzz/corpus/<target>/ and fix the code (the unit suite replays every seed).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
seconds=${2:-30}
findings=$build/fuzz-findings
mkdir -p "$findings"
failed=0
printf "%-12s %12s %10s %s\n" target executions exec/s result
for seeds in tests/fuzz/corpus/*/; do
  target=$(basename "$seeds")
  bin=$build/tests/fuzz/fuzz_$target
  work=$(mktemp -d)
  log=$work/log
  "$bin" "$work" "$seeds" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -max_len=65536 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$findings/$target-" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    result=ok
  else
    result="FINDING (exit $rc): $(grep -m1 -E 'FINDING|ERROR|SUMMARY' "$log")"
    failed=1
    tail -40 "$log"
  fi
  printf "%-12s %12s %10s %s\n" "$target" "${runs:-?}" "${rate:-?}" "$result"
  rm -rf "$work"
done
exit $failed
