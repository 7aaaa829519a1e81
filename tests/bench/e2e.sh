#!/usr/bin/env bash
# End-to-end cost of a command against the cost of starting gpusel at all: the ratio of
# `gpusel <command>` to `gpusel --version` over repeated runs (README "Testing").
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

# Mean seconds per run of "$bin $1", over $runs runs after two warm-up runs.
mean() {
  local args=$1
  if command -v hyperfine >/dev/null; then
    hyperfine -N -w 2 -r "$runs" --export-json /tmp/gpusel-e2e.$$.json "$bin $args" >/dev/null
    sed -n 's/.*"mean": *\([0-9.e+-]*\).*/\1/p' /tmp/gpusel-e2e.$$.json | head -1
    rm -f /tmp/gpusel-e2e.$$.json
    return
  fi
  # shellcheck disable=SC2086
  for _ in 1 2; do "$bin" $args >/dev/null || true; done
  local start end
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  for ((i = 0; i < runs; ++i)); do "$bin" $args >/dev/null || true; done
  end=$(date +%s%N)
  awk -v s="$start" -v e="$end" -v n="$runs" 'BEGIN { printf "%.6f\n", (e - s) / 1e9 / n }'
}

base=$(mean "--version")
printf "%-55s %8.2f ms\n" "gpusel --version" "$(awk -v b="$base" 'BEGIN { print b * 1000 }')"
for c in "${commands[@]}"; do
  t=$(mean "$c")
  printf "%-55s %8.2f ms  %5.2fx --version\n" "gpusel $c" \
    "$(awk -v t="$t" 'BEGIN { print t * 1000 }')" "$(awk -v t="$t" -v b="$base" 'BEGIN { print t / b }')"
done
