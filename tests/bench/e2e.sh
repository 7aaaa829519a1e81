#!/usr/bin/env bash
# End-to-end cost of a command against the cost of starting gpusel at all: the ratio of
# `gpusel <command>` to `gpusel --version` over repeated runs (README "Testing"), in wall time
# and in CPU time (user + system), the steadier figure on a machine other jobs share.
#   tests/bench/e2e.sh [path/to/gpusel] [runs]
# Uses hyperfine when it is installed (Debian: apt-get install hyperfine), else a plain loop.
set -euo pipefail
bin=${1:-build/gpusel}
runs=${2:-50}
commands=(
  "recommend --params 7B --mode lora --budget 15000"
  "recommend --model llama-3.1-8b --mode qlora --rent"
  "estimate --model llama-3.1-8b --mode qlora"
  "catalog validate --as-of reviewed"
)

# "wall cpu": mean seconds per run of "$bin $1", over $runs runs after two warm-up runs.
mean() {
  local args=$1
  if command -v hyperfine >/dev/null; then
    local out=/tmp/gpusel-e2e.$$.json
    hyperfine -N -w 2 -r "$runs" --export-json "$out" "$bin $args" >/dev/null
    local field
    for field in mean user system; do
      sed -n "s/.*\"$field\": *\([0-9.e+-]*\).*/\1/p" "$out" | head -1
    done | awk '{ v[NR] = $1 } END { printf "%.6f %.6f\n", v[1], v[2] + v[3] }'
    rm -f "$out"
    return
  fi
  # shellcheck disable=SC2086
  for _ in 1 2; do "$bin" $args >/dev/null || true; done
  local TIMEFORMAT='%R %U %S' t
  # shellcheck disable=SC2086
  t=$({ time (for ((i = 0; i < runs; ++i)); do "$bin" $args >/dev/null || true; done); } 2>&1)
  awk -v n="$runs" '{ printf "%.6f %.6f\n", $1 / n, ($2 + $3) / n }' <<<"$t"
}

ms() { awk -v t="$1" 'BEGIN { printf "%.2f", t * 1000 }'; }
ratio() { awk -v t="$1" -v b="$2" 'BEGIN { printf "%.2f", t / b }'; }

read -r base_wall base_cpu < <(mean "--version")
printf "%-55s %8s %8s %9s %9s\n" "command" "wall ms" "cpu ms" "wall x" "cpu x"
printf "%-55s %8s %8s\n" "gpusel --version" "$(ms "$base_wall")" "$(ms "$base_cpu")"
for c in "${commands[@]}"; do
  read -r wall cpu < <(mean "$c")
  printf "%-55s %8s %8s %8sx %8sx\n" "gpusel $c" "$(ms "$wall")" "$(ms "$cpu")" \
    "$(ratio "$wall" "$base_wall")" "$(ratio "$cpu" "$base_cpu")"
done
