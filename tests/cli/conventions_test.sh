#!/usr/bin/env bash
# The conventions a golden file cannot show: a real terminal (colour, width), a closed pipe,
# hostile bytes on the command line, and every example in every --help actually running.
#   conventions_test.sh BIN
set -u
BIN=$(realpath "$1")
fail=0
unset GPUSEL_CATALOG GPUSEL_CLOUD GPUSEL_CURRENCY COLUMNS NO_COLOR
export LC_ALL=C.UTF-8
no() { echo "FAIL: $*"; fail=1; }

# A closed pipe ends gpusel quietly: status 0 or 141 (SIGPIPE), nothing on stderr. The JSON
# catalog is large enough (> 64 KiB) that the write really meets the closed pipe.
errf=$(mktemp)
for parent_ignores in no yes; do
  (
    [[ $parent_ignores == yes ]] && trap '' PIPE
    "$BIN" catalog list --format json 2>"$errf" | head -c 10 >/dev/null
    exit "${PIPESTATUS[0]}"
  )
  status=$?
  [[ $status == 0 || $status == 141 ]] || no "closed pipe (SIGPIPE ignored: $parent_ignores): status $status"
  [[ ! -s $errf ]] || no "closed pipe printed: $(cat "$errf")"
done

# On a terminal (a pty from script(1)): colour unless NO_COLOR or --color never; width from
# the terminal; in a pipe never colour.
on_tty() { script -qec "stty cols ${COLS:-200}; $*" /dev/null; }
out=$(on_tty "$BIN" check --gpu rtx-4090 --params 7B)
[[ $out == *$'\e[32mfits:'* ]] || no "no colour on a terminal: $out"
out=$(NO_COLOR=1 on_tty "$BIN" check --gpu rtx-4090 --params 7B)
[[ $out != *$'\e['* ]] || no "colour despite NO_COLOR"
out=$(on_tty "$BIN" --color never check --gpu rtx-4090 --params 7B)
[[ $out != *$'\e['* ]] || no "colour despite --color never"
out=$(NO_COLOR=1 on_tty "$BIN" --color always check --gpu rtx-4090 --params 7B)
[[ $out == *$'\e[32m'* ]] || no "--color always did not win over NO_COLOR"
out=$("$BIN" check --gpu rtx-4090 --params 7B | cat)
[[ $out != *$'\e['* ]] || no "colour in a pipe"
out=$(COLS=80 on_tty "$BIN" catalog list)
widest=$(printf '%s\n' "$out" | tr -d '\r' | grep -v ' GPUs (' | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[[ $widest -le 80 ]] || no "catalog list on an 80-column terminal is $widest wide"
[[ $out == *"--wide shows all"* ]] || no "narrow catalog list does not say what it hid"

# Hostile bytes in an argument come back escaped on stderr.
err=$("$BIN" check --gpu $'rtx\e]0;pwned\a' --params 7B 2>&1 >/dev/null)
[[ $err != *$'\e'* && $err == *'\x1b]0;pwned\x07'* ]] || no "stderr carries raw escapes: $err"

# Output that cannot be written is an error a script sees: one line, exit 2 (a full disk, a
# closed descriptor); a closed pipe stays quiet (above).
if [[ -w /dev/full ]]; then
  err=$("$BIN" catalog list --format csv 2>&1 >/dev/full)
  rc=$?
  [[ $rc == 2 && $err == *"cannot write standard output"* && $(wc -l <<<"$err") == 1 ]] ||
    no "a full disk on stdout gives exit $rc: $err"
fi
err=$("$BIN" version 2>&1 >&-)
[[ $? == 2 && $err == *"cannot write standard output"* ]] || no "closed stdout: $err"

# A data file named on the command line must exist, whether or not the command reads it.
dir0=$(mktemp -d)
err=$("$BIN" --cloud /nonexistent/cloud.json estimate --params 7B 2>&1 >/dev/null)
[[ $? == 3 && $err == *"cannot read '/nonexistent/cloud.json': no such file"* ]] ||
  no "a missing --cloud file passes unnoticed: $err"
# ... but commands that read no data, and the completion scripts' quiet lookups, still run.
for c in version "help environment" "completions bash" "__complete gpus"; do
  # shellcheck disable=SC2086
  GPUSEL_CATALOG=/nonexistent/gpus.json "$BIN" $c >/dev/null 2>"$dir0/err" ||
    no "GPUSEL_CATALOG naming a missing file stops '$c': $(cat "$dir0/err")"
  [[ -s $dir0/err ]] && no "'$c' writes to stderr with GPUSEL_CATALOG missing: $(cat "$dir0/err")"
done

rm -rf "$dir0"

# A file name is input: its newline or escape cannot forge a line or reach the terminal.
dir=$(mktemp -d)
name=$'g\nfake.json:1:1: error: forged [schema]\nh\e[31m.json'
printf '{' >"$dir/$name"
for format in table github; do
  out=$("$BIN" catalog validate "$dir/$name" --format "$format" 2>&1)
  ! grep -q '^fake.json' <<<"$out" && [[ $out == *forged* && $out != *$'\e'* ]] ||
    no "catalog validate --format $format prints a file name raw: $out"
done
rm -rf "$dir"

# Every example of every --help runs (exit 0, or 1 for a negative answer), from any folder.
cd "$(mktemp -d)" || exit 1
count=0
while read -r path; do
  # shellcheck disable=SC2086
  while read -r example; do
    count=$((count + 1))
    read -ra words <<< "${example#gpusel }"
    "$BIN" "${words[@]}" >/dev/null 2>/tmp/gpusel-example.err
    rc=$?
    [[ $rc == 0 || $rc == 1 ]] || no "example '$example' exits $rc: $(cat /tmp/gpusel-example.err)"
  done < <("$BIN" $path --help | sed -n '/^Examples:/,$p' | grep '^  gpusel ' | sed 's/^  //')
done < <(echo; "$BIN" __complete commands)
[[ $count -ge 30 ]] || no "only $count examples found in the --help texts"
[[ $fail == 0 ]] && echo "conventions: ok ($count examples ran)"
exit $fail
