#!/usr/bin/env bash
# Renders what gpusel makes for browsers in headless Chromium: the SVG charts (`gpusel plot`)
# and the HTML report (`gpusel recommend --format html`), from fixture data.
#   tests/browser/check_render.sh <gpusel binary> <tests/fixtures> [output folder]
# For each file: xmllint well-formedness (SVG, where xmllint is installed), a screenshot
# (PNG, not blank), the DOM Chromium builds (the table, the inline chart and the sections are
# there; a hostile name stays text, no <script> appears), and Chromium's log (no console
# message, no network request). Exit 0 ok, 1 a check failed, 77 no Chromium (ctest: skipped).
# Look at the screenshots in the output folder to see that the charts read well.
set -euo pipefail

bin=$(realpath "$1")
fixtures=$(realpath "$2")
out=${3:-$(mktemp -d)}
mkdir -p "$out"
out=$(realpath "$out")
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "check_render: no chromium installed: skipped (apt-get install chromium)"
  exit 77
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
failed=0
fail() { echo "check_render: FAIL: $*"; failed=1; }

# The files, made as a user makes them.
cd "$fixtures"
"$bin" --catalog catalog/small.json --cloud cloud/small.json recommend --models models/small.json \
  --model llama-3-8b --mode lora --budget 5000 --format html -o "$out/report.html"
"$bin" --catalog catalog/hostile_names.json --cloud cloud/small.json recommend \
  --models models/hostile_names.json --model llama-3-8b --mode lora --rules rules/hostile_warning.json \
  --format html -o "$out/hostile.html"
"$bin" recommend --params 7B --mode lora --budget 15000 --format html -o "$out/report-full.html"
"$bin" plot --params 7B --mode lora --budget 15000 -o "$out/chart.svg" > /dev/null
"$bin" plot --model qwen2.5-72b --mode inference --precision int4 --currency CNY --budget 200000 \
  -o "$out/chart-inference.svg" > /dev/null
"$bin" plot --metric bandwidth --vendor nvidia -o "$out/bandwidth.svg" > /dev/null
"$bin" --catalog catalog/hostile_names.json plot --metric vram -o "$out/hostile.svg" > /dev/null

chrome() {
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --hide-scrollbars --enable-logging=stderr --v=0 "$@"
}

# Chromium's own chatter (D-Bus, GPU process) is not the page's: only console messages and
# network errors count.
page_problems() {
  grep -E 'CONSOLE|Uncaught|net::ERR_|Refused to|Not allowed to load' "$1" || true
}

for f in chart.svg chart-inference.svg bandwidth.svg hostile.svg; do
  if command -v xmllint > /dev/null; then
    xmllint --noout "$out/$f" || fail "$f is not well-formed XML"
  fi
  grep -q '<script' "$out/$f" && fail "$f holds a script"
done
for f in report.html hostile.html report-full.html; do
  grep -q '<script' "$out/$f" && fail "$f holds a script"
done

# What a blank page of each size screenshots to, so "not blank" is measured, not guessed: a
# rendered chart or page must compress to at least twice that.
printf '<svg xmlns="http://www.w3.org/2000/svg" width="1100" height="700"/>' > "$out/blank.svg"
printf '<!DOCTYPE html><html><body></body></html>' > "$out/blank.html"
blank_size() {
  chrome --window-size="$1" --screenshot="$out/blank-$2.png" "file://$out/blank.$2" \
    > /dev/null 2>&1 || true
  stat -c %s "$out/blank-$2.png" 2> /dev/null || echo 10000
}
blank_svg=$(blank_size 1100,700 svg)
blank_html=$(blank_size 1200,1800 html)

for f in report.html hostile.html report-full.html chart.svg chart-inference.svg bandwidth.svg hostile.svg; do
  base=${f%.*}-${f##*.}
  size=1200,1800
  blank=$blank_html
  case "$f" in *.svg) size=1100,700 blank=$blank_svg ;; esac
  chrome --window-size=$size --screenshot="$out/$base.png" "file://$out/$f" 2> "$out/$base.log" > /dev/null ||
    fail "$f: chromium exited $?"
  [ -s "$out/$base.png" ] || fail "$f: no screenshot"
  [ "$(stat -c %s "$out/$base.png" 2> /dev/null || echo 0)" -gt $((2 * blank)) ] ||
    fail "$f: the screenshot looks blank (a blank page is $blank bytes)"
  chrome --dump-dom "file://$out/$f" > "$out/$base.dom" 2> "$out/$base.dom.log" || fail "$f: --dump-dom failed"
  problems=$(page_problems "$out/$base.log"; page_problems "$out/$base.dom.log")
  [ -z "$problems" ] || fail "$f: console or network messages: $problems"
done

dom=$out/report-html.dom
for want in 'id="ranking-table"' '<svg' 'id="question"' 'id="warnings"' 'id="rent-table"' \
  'id="data-table"' 'Price against throughput' '1x rtx-4090'; do
  grep -q -- "$want" "$dom" || fail "report.html: the rendered page lacks $want"
done
rows=$(grep -o '<tr>' "$dom" | wc -l)
[ "$rows" -ge 5 ] || fail "report.html: only $rows table rows rendered"
grep -q '<script' "$out/hostile-html.dom" && fail "hostile.html: a <script> element was built"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt; RTX 4090' "$out/hostile-html.dom" ||
  fail "hostile.html: the hostile name is not shown as text"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt; RTX 4090' "$out/hostile-svg.dom" ||
  fail "hostile.svg: the hostile name is not shown as text"

if [ "$failed" -ne 0 ]; then
  echo "check_render: failed (files in $out)"
  exit 1
fi
echo "check_render: ok, $("$browser" --version 2> /dev/null | head -1); screenshots in $out"
