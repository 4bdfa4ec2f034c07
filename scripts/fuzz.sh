#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang + ASan/UBSan) in build-fuzz/
# and runs each for SECONDS (default 60) on its seed corpus. A finding leaves a
# crash-* file in fuzz-out/NAME/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
ONLY=${2:-}
CXX_CLANG=$(command -v clang++-14 || command -v clang++)
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCK_FUZZ=ON -DCK_BENCHMARKS=OFF \
  -DCMAKE_CXX_COMPILER="$CXX_CLANG" >/dev/null
cmake --build build-fuzz -j"$(nproc)"
shopt -s nullglob
targets=(build-fuzz/bin/fuzz_*)
if ((${#targets[@]} == 0)); then echo "fuzz: no fuzz targets built"; exit 0; fi
status=0
for t in "${targets[@]}"; do
  name=$(basename "$t")
  [ -n "$ONLY" ] && [ "$name" != "$ONLY" ] && continue
  out=fuzz-out/$name; mkdir -p "$out/corpus"
  seeds=tests/fuzz/corpus/$name; [ -d "$seeds" ] || seeds=""
  echo "fuzz: $name for ${SECONDS_PER_TARGET}s"
  if ! (cd "$out" && "../../$t" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=4096 -timeout=30 \
        -print_final_stats=1 corpus ${seeds:+"../../$seeds"} > log.txt 2>&1); then
    echo "fuzz: $name FOUND A PROBLEM, see $out/log.txt"; tail -40 "$out/log.txt"; status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$out/log.txt" | tail -2 || true
  fi
done
exit $status
