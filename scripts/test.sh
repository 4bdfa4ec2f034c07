#!/usr/bin/env bash
# The test command of the README and of CI: set up, fetch models, build, run
# the test suite, then the same suite under ASan+UBSan, then each fuzzer for a
# bounded time (FUZZ_SECONDS, default 60). CK_TSAN=1 adds a ThreadSanitizer
# phase (off by default: ~12 min on 2 cores; docs/reliability.md).
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

if [ "${CK_TSAN:-0}" = 1 ]; then
  # The tokenizer and decoder tests, and the tests where our own std::threads
  # share a Tokenizer or a Model. libgomp is not TSan-instrumented, so OpenMP
  # may start no worker threads here (OMP_THREAD_LIMIT=1 also caps an explicit
  # -t 2); the threaded OpenMP paths are checked by result comparisons instead.
  phase "tests (ThreadSanitizer)"
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCK_TSAN=ON -DCK_BENCHMARKS=OFF >/dev/null
  cmake --build build-tsan -j"$JOBS" --target test_tokenizer ck-tokenize ck_runtime_tests test_reliability
  export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp"
  OMP_THREAD_LIMIT=1 ctest --test-dir build-tsan --output-on-failure -j"$JOBS" -L 'tokenizer|runtime'
  OMP_THREAD_LIMIT=1 ctest --test-dir build-tsan --output-on-failure -j"$JOBS" -R 'one (Tokenizer|Model) .* several threads'
  unset TSAN_OPTIONS
fi

if [ "${CK_SKIP_FUZZ:-0}" != 1 ]; then
  phase "fuzzing (${FUZZ_SECONDS:-60} s per target)"
  scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
fi
phase "done"
