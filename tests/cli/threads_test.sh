#!/usr/bin/env bash
# Threads change nothing a user sees: on 5,000 generated cards and offers (longer than a wave
# of 4,096 records, a ranking slice of 2,048 cards, a table made across threads), every
# command's output, errors and exit code are byte-identical on 1 thread and on 3.
#   threads_test.sh BIN GEN_DATA
set -u
BIN=$(realpath "$1")
GEN=$(realpath "$2")
fail=0
unset GPUSEL_CATALOG GPUSEL_CLOUD COLUMNS NO_COLOR
export GPUSEL_CURRENCY=USD LC_ALL=C.UTF-8
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$GEN" gpus 5000 >"$work/gpus.json"
"$GEN" offers 5000 >"$work/cloud.json"
# The same catalog with an unknown field in the second wave and a duplicate id there too:
# the findings, their order and places too.
sed -e 's/"id": "\([a-z0-9-]*\)-4800"/"id": "\1-4800", "bogus": 1/' \
  -e 's/"id": "\([a-z0-9-]*\)-4500"/"id": "\1-5"/' "$work/gpus.json" >"$work/broken.json"
cmp -s "$work/gpus.json" "$work/broken.json" && { echo "FAIL: the broken catalog is not broken"; fail=1; }

commands=(
  "--catalog $work/gpus.json catalog list"
  "--catalog $work/gpus.json catalog list --format csv"
  "--catalog $work/gpus.json catalog list --format json --vendor amd"
  "catalog validate $work/gpus.json --as-of 2026-12-02"
  "catalog validate $work/broken.json --as-of 2026-12-02 --format json"
  "--catalog $work/broken.json catalog list"
  "--catalog $work/gpus.json recommend --params 7B --mode lora --budget 20000 --format json"
  "--catalog $work/gpus.json recommend --params 70B --mode qlora --budget 8000 --top 20"
  "--cloud $work/cloud.json recommend --params 7B --mode lora --rent --tokens 1B --format json"
  "catalog validate $work/cloud.json --as-of 2026-12-02"
)
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  one=$(GPUSEL_THREADS=1 "$BIN" $c 2>&1; echo "exit $?")
  # shellcheck disable=SC2086
  three=$(GPUSEL_THREADS=3 "$BIN" $c 2>&1; echo "exit $?")
  [[ $one == "$three" ]] || { echo "FAIL: differs on 3 threads: gpusel $c"; fail=1; }
  [[ $(wc -l <<<"$one") -gt 1 ]] || { echo "FAIL: too little output to compare: gpusel $c"; fail=1; }
done
exit $fail
