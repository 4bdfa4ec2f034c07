#!/usr/bin/env bash
# The test command of the README and of CI: set up, fetch models, build, run
# the test suite, then the same suite under ASan+UBSan, then each fuzzer for a
# bounded time (FUZZ_SECONDS, default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)
phase() { echo "== $1 (at ${SECONDS}s)"; }

scripts/setup.sh
scripts/fetch-models.sh

phase "tests (Release)"
ctest --test-dir build --output-on-failure -j"$JOBS"

if [ "${CK_SKIP_ASAN:-0}" != 1 ]; then
  phase "tests (ASan+UBSan)"
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCK_SANITIZE=ON -DCK_BENCHMARKS=OFF >/dev/null
  cmake --build build-asan -j"$JOBS"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$JOBS" -LE no-asan
fi

if [ "${CK_SKIP_FUZZ:-0}" != 1 ]; then
  phase "fuzzing (${FUZZ_SECONDS:-60} s per target)"
  scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
fi
phase "done"
