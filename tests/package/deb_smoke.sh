#!/usr/bin/env bash
# Packaging check (CI, after the tests): `cmake --install` lays out the usual prefixes; CPack
# builds the .deb with the dependencies dpkg-shlibdeps reads off the binary; the .deb,
# unpacked into an empty root, runs `gpusel recommend` and carries its man page and
# completions where Debian's man, bash, zsh and fish look.
#   tests/package/deb_smoke.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/gpusel share/man/man1/gpusel.1 share/bash-completion/completions/gpusel \
         share/zsh/site-functions/_gpusel share/fish/vendor_completions.d/gpusel.fish; do
  [[ -f $work/prefix/$f ]] || { echo "cmake --install: $f missing"; exit 1; }
done

(cd "$build" && cpack -G DEB -B "$work/pkg" >/dev/null)
deb=$(ls "$work"/pkg/gpusel_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "$(basename "$deb"): Depends: $depends"
[[ $depends == *libfmt9* && $depends == *libc6* ]] || { echo "Depends lacks libfmt9/libc6"; exit 1; }

root=$work/root
dpkg -x "$deb" "$root"
for f in usr/bin/gpusel usr/share/man/man1/gpusel.1 usr/share/bash-completion/completions/gpusel \
         usr/share/zsh/vendor-completions/_gpusel usr/share/fish/vendor_completions.d/gpusel.fish; do
  [[ -f $root/$f ]] || { echo ".deb: /$f missing"; exit 1; }
done
cd "$work"  # not the source tree: the data must come from the binary
"$root/usr/bin/gpusel" recommend --params 7B --mode lora --budget 15000 --top 3
man -l "$root/usr/share/man/man1/gpusel.1" 2>/dev/null | grep -q "gpusel recommend" ||
  { echo "man page does not render"; exit 1; }
bash -c 'source "$1" && complete -p gpusel' _ "$root/usr/share/bash-completion/completions/gpusel"
echo "deb smoke: ok"
