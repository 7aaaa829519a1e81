#!/usr/bin/env bash
# The interface language on the embedded data, for every command it covers: machine formats
# (JSON, CSV) are byte-identical whatever the language, the table format is translated
# (differs from English and holds CJK ideographs), and
# --lang en / LC_ALL=C give English under a Chinese LANG.
#   language_test.sh BIN
set -u
BIN=$(realpath "$1")
fail=0
unset GPUSEL_CATALOG GPUSEL_CLOUD COLUMNS NO_COLOR LANGUAGE LC_MESSAGES
export GPUSEL_CURRENCY=USD LC_ALL=C.UTF-8  # the locale would make prices CNY: only the language may change
no() { echo "FAIL: $*"; fail=1; }
en() { LC_ALL=C.UTF-8 LANG=C.UTF-8 "$BIN" "$@" 2>&1; }
zh() { LC_ALL= LANG=zh_CN.UTF-8 "$BIN" "$@" 2>&1; }

commands=(
  "recommend --model llama-3-8b --mode lora --budget 5000"
  "recommend --model llama-3-70b --mode lora --budget 1000 --tokens 50M"
  "recommend --model llama-3-8b --mode lora --rent --tokens 1B --top 3"
  "check --gpu rtx-4090 --model llama-3-8b --mode lora --no-grad-ckpt --batch 4"
  "compare rtx-4090 rtx-3090 --model llama-3-8b"
  "fit --gpu rtx-4090 --model llama-3-8b --mode full"
  "estimate --model llama-3-8b --mode lora"
)
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  for f in json csv; do
    [[ $(en $c --format $f) == "$(zh $c --format $f)" ]] ||
      no "$c --format $f differs under zh_CN"
  done
  english=$(en $c)
  chinese=$(zh $c)
  [[ $english != "$chinese" ]] || no "$c: not translated"
  grep -qP '[\x{4e00}-\x{9fff}]' <<<"$chinese" || no "$c: no Chinese text: $chinese"
  [[ $(LC_ALL= LANG=zh_CN.UTF-8 "$BIN" --lang en $c 2>&1) == "$english" ]] ||
    no "$c: --lang en under zh_CN is not English"
done
cost="cost --gpu rtx-4090 --count 2 --hours-per-day 8 --months 6 --kwh-price 0.2 --as-of 2026-12-02"
# shellcheck disable=SC2086
[[ $(en $cost --format json) == "$(zh $cost --format json)" ]] ||
  no "cost --format json differs under zh_CN"
# shellcheck disable=SC2086
[[ $(zh $cost) == *结论* ]] || no "cost: no verdict in Chinese"
exit $fail
