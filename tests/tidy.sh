#!/usr/bin/env bash
# clang-tidy over gpusel's own sources with the checks in .clang-tidy, two files at a time.
# Configures (does not build) build-tidy with clang and without precompiled headers, so the
# compile commands are clang's own.   tests/tidy.sh [folder...]   (default: all of src)
set -uo pipefail
cd "$(dirname "$0")/.."
tidy=$(command -v clang-tidy || command -v clang-tidy-14)
cmake -S . -B build-tidy -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON \
  -DGPUSEL_UNITY=OFF -DGPUSEL_BUILD_TESTS=OFF >/dev/null || exit 1
log=$(mktemp)
find "${@:-src}" -name '*.cpp' | sort | xargs -P 2 -n 4 "$tidy" -p build-tidy --quiet >"$log" 2>&1
rc=$?
grep -v "warnings generated\|Suppressed .* warnings\|Use -header-filter\|^$" "$log" || true
rm -f "$log"
echo "clang-tidy: $([ $rc -eq 0 ] && echo clean || echo "FAILED (exit $rc)")"
exit $rc
