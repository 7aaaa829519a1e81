#!/usr/bin/env bash
# Wall time, CPU time and peak memory at 1k, 10k and 100k catalog entries and cloud offers (README
# "Testing"): generated files of shipped records under new ids, through the real binary.
#   tests/bench/scaling.sh [build dir] [sizes...]
set -euo pipefail
build=${1:-build}
shift || true
sizes=("${@:-1000 10000 100000}")
# shellcheck disable=SC2206
sizes=(${sizes[*]})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$build/gpusel
gen=$build/tests/bench/gen_data
measure=$build/tests/bench/measure

printf "%-8s %-44s %10s %10s %10s %s\n" entries command wall cpu peak_rss exit
for n in "${sizes[@]}"; do
  "$gen" gpus "$n" >"$work/gpus.json"
  "$gen" offers "$n" >"$work/cloud.json"
  mb=$(du -m "$work/gpus.json" | cut -f1)
  run() {
    local label=$1
    shift
    read -r t _ cpu _ rss _ _ rc < <("$measure" "$@")
    printf "%-8s %-44s %8s s %8s s %7s MB %s\n" "$n" "$label" "$t" "$cpu" "$rss" "$rc"
  }
  run "catalog list (${mb} MB)" "$bin" --catalog "$work/gpus.json" catalog list
  run "catalog validate" "$bin" catalog validate "$work/gpus.json" --as-of 2026-12-02
  run "recommend --budget 20000" "$bin" --catalog "$work/gpus.json" recommend --params 7B \
    --mode lora --budget 20000
  run "recommend --rent (offers)" "$bin" --cloud "$work/cloud.json" recommend --params 7B \
    --mode lora --rent --tokens 1B
  run "catalog validate (offers)" "$bin" catalog validate "$work/cloud.json" --as-of 2026-12-02
done
