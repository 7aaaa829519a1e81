#!/usr/bin/env bash
# Drives the generated completion scripts the way each shell would and checks what they
# offer: subcommands, options, enum values, GPU ids (for --gpu and compare) and model ids.
#   completion_test.sh BIN bash|zsh|fish     (exit 77: that shell is not installed)
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SHELL_NAME=$2
export PATH="$(dirname "$BIN"):$PATH"
unset GPUSEL_CATALOG
fail=0
script=$(mktemp)
trap 'rm -f "$script"' EXIT
"$BIN" completions "$SHELL_NAME" > "$script" || { echo "gpusel completions $SHELL_NAME failed"; exit 1; }

# expect "<words typed>" "<candidate that must be offered>"... ("!x": must not be offered)
check() {
  local typed=$1 got
  shift
  got=" $(complete_line "$typed" | tr '\n' ' ') "
  for want in "$@"; do
    if [[ $want == !* ]]; then
      [[ $got == *" ${want#!} "* ]] && { echo "FAIL: '$typed' offers ${want#!}"; fail=1; }
    else
      [[ $got == *" $want "* ]] || { echo "FAIL: '$typed' misses $want; got:$got"; fail=1; }
    fi
  done
}

case $SHELL_NAME in
  bash)
    complete_line() {
      bash -c 'source "$1"; complete -p gpusel >/dev/null || exit 1
               read -ra COMP_WORDS <<< "$2"; [[ $2 == *" " ]] && COMP_WORDS+=("")
               COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _gpusel
               printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$1"
    }
    bash -c 'source "$1" && complete -p gpusel' _ "$script" | grep -q -- '-F _gpusel gpusel' ||
      { echo "FAIL: complete -p gpusel"; fail=1; } ;;
  zsh)
    command -v zsh >/dev/null || exit 77
    zsh -n "$script" || { echo "FAIL: zsh -n"; exit 1; }
    # Outside a completion widget: compadd and friends are stubbed to print what they get.
    complete_line() {
      zsh -f -c 'compadd() { while [[ $1 != -- && $# -gt 0 ]]; do shift; done; shift
                   local x; for x; do [[ $x == ${PREFIX}* ]] && print -r -- $x; done; }
                 compdef() { :; }; _files() { print -- @files; }; _message() { :; }
                 compset() { :; }; source "$1"
                 words=(${=2}); [[ $2 == *" " ]] && words+=(""); CURRENT=${#words}
                 PREFIX=${words[CURRENT]}; _gpusel' \
        _ "$script" "$1"
    } ;;
  fish)
    command -v fish >/dev/null || exit 77
    fish -n "$script" || { echo "FAIL: fish -n"; exit 1; }
    complete_line() {
      fish -c 'source $argv[1]; complete -C"$argv[2]"' "$script" "$1" | cut -f1
    } ;;
  *) echo "unknown shell $SHELL_NAME"; exit 2 ;;
esac

check "gpusel rec" recommend '!check'
check "gpusel " recommend check compare estimate fit cost models catalog help version completions '!manpage' '!__complete'
check "gpusel catalog " list show validate
check "gpusel recommend --mo" --mode --model --models
check "gpusel recommend --mode " inference full freeze lora qlora
check "gpusel estimate --precision " fp32 bf16 int4
check "gpusel recommend --format " table json csv '!github'
check "gpusel catalog validate --format " table json github
check "gpusel recommend --color " auto always never
check "gpusel check --gpu rtx-409" rtx-4090 '!a100-80gb-sxm'
check "gpusel compare rtx-4090 rtx-509" rtx-5090
check "gpusel catalog show h100-s" h100-sxm
check "gpusel recommend --model llama-3.1-" llama-3.1-8b llama-3.1-70b
check "gpusel models show qwen2.5-1" qwen2.5-14b
check "gpusel --catalog x.json catalog s" show
check "gpusel completions " bash zsh fish
check "gpusel help " environment recommend
check "gpusel recommend --params 7B --mode lora --bu" --budget
[[ $fail == 0 ]] && echo "$SHELL_NAME completion: ok"
exit $fail
