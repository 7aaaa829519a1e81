#!/usr/bin/env bash
# gpusel(1) as built: groff reads it without a warning, and every command and every option
# that `gpusel <command> --help` lists is in it.
#   manpage_test.sh BIN MANPAGE
set -u
BIN=$1
PAGE=$2
fail=0
warnings=$(groff -man -Tutf8 -ww -z "$PAGE" 2>&1)
[[ -z $warnings ]] || { echo "FAIL: groff warnings:"; echo "$warnings"; fail=1; }
text=$(groff -man -Tutf8 -P-c -P-b -P-u "$PAGE" 2>/dev/null | tr -s ' \n' '  ')
commands=$("$BIN" __complete commands)
[[ $(echo "$commands" | wc -l) -ge 14 ]] || { echo "FAIL: only $(echo "$commands" | wc -l) commands"; fail=1; }
while read -r path; do
  [[ $text == *"gpusel $path "* ]] || { echo "FAIL: no section for 'gpusel $path'"; fail=1; }
  # shellcheck disable=SC2086
  for opt in $("$BIN" $path --help | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,' | sort -u); do
    [[ $text == *"$opt"* ]] || { echo "FAIL: $opt of 'gpusel $path' is not in the man page"; fail=1; }
  done
done <<< "$commands"
for var in GPUSEL_CATALOG GPUSEL_CLOUD GPUSEL_CURRENCY LC_MONETARY NO_COLOR COLUMNS; do
  [[ $text == *"$var"* ]] || { echo "FAIL: ENVIRONMENT lacks $var"; fail=1; }
done
[[ $fail == 0 ]] && echo "man page: ok ($(echo "$commands" | wc -l) commands)"
exit $fail
