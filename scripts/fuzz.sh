#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang + ASan/UBSan) in build-fuzz/,
# replays the regression inputs of tests/fuzz/regressions/NAME/, then runs each
# target for SECONDS (default 60) on its seeds and prints executions and
# coverage, CK_FUZZ_JOBS targets at a time (default: one per core). A
# finding leaves its input in fuzz-out/NAME/ (crash-*, leak-*, timeout-*,
# oom-*) and fails the script.
#
# usage: scripts/fuzz.sh [SECONDS] [TARGET]      e.g. scripts/fuzz.sh 1800 fuzz_gguf
# Seeds: the small files committed in tests/fuzz/corpus/NAME/, plus files
# derived at run time from ../shared/data into fuzz-out/seeds/ (tiny GGUFs by
# tests/fuzz/make_seeds.py, stories260K, their bumps). The corpus each run
# grows is kept in fuzz-out/NAME/corpus for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
ONLY=${2:-}
SHARED=${CK_SHARED_DATA:-$PWD/../shared/data}
JOBS=${CK_FUZZ_JOBS:-$(nproc)}
CXX_CLANG=$(command -v clang++-14 || command -v clang++)
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCK_FUZZ=ON -DCK_BENCHMARKS=OFF \
  -DCMAKE_CXX_COMPILER="$CXX_CLANG" -DCK_SHARED_DATA="$SHARED" >/dev/null
# Only the fuzzers and ck-convert (which writes the bump seeds), not the whole tree.
cmake --build build-fuzz -j"$JOBS" --target ck_fuzz ck-convert

seeds=$PWD/fuzz-out/seeds
mkdir -p "$seeds/gguf" "$seeds/bump"
stories=$SHARED/models/stories260K.gguf
if [ ! -e "$seeds/gguf/stories260K.gguf" ]; then
  python3 tests/fuzz/make_seeds.py "$stories" "$seeds/gguf"
  cp "$stories" "$seeds/gguf/"
  for g in "$seeds"/gguf/tiny-*.gguf "$seeds/gguf/stories260K.gguf"; do
    build-fuzz/bin/ck-convert "$g" -o "$seeds/bump/$(basename "${g%.gguf}").bump" >/dev/null
  done
  rm -f "$seeds"/bump/*.config.json
fi

# NAME -> "seed folders|dictionary"
declare -A inputs=(
  [fuzz_gguf]="$seeds/gguf|gguf.dict"
  [fuzz_bump]="$seeds/bump|gguf.dict"
  [fuzz_convert]="$seeds/gguf|gguf.dict"
  [fuzz_tokenizer]="$PWD/tests/fuzz/corpus/fuzz_tokenizer|tokenizer.dict"
  [fuzz_chat_template]="$PWD/tests/fuzz/corpus/fuzz_chat_template|chat_template.dict"
  [fuzz_grammar]="$PWD/tests/fuzz/corpus/fuzz_grammar|grammar.dict"
)

# fuzz_one NAME: replays NAME's regression inputs, then fuzzes it; writes its
# summary line to fuzz-out/NAME/summary.txt and fails on a finding.
fuzz_one() {
  local name=$1 bin=$PWD/build-fuzz/bin/$1 out=$PWD/fuzz-out/$1 seed_dir dict result execs cov line
  mkdir -p "$out/corpus"
  rm -f "$out/summary.txt"
  IFS='|' read -r seed_dir dict <<<"${inputs[$name]}"
  # Bounded per input (-timeout), in memory (-rss_limit_mb; one allocation
  # above -malloc_limit_mb is a finding: readers must cap sizes by the file's).
  local common=(-rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=20 -artifact_prefix="$out/"
                -dict="$PWD/tests/fuzz/$dict")

  shopt -s nullglob
  local regressions=("$PWD/tests/fuzz/regressions/$name"/*)
  shopt -u nullglob
  if ((${#regressions[@]})); then
    echo "fuzz: $name: replaying ${#regressions[@]} regression inputs"
    if ! "$bin" "${common[@]}" "${regressions[@]}" >"$out/regressions.log" 2>&1; then
      echo "fuzz: $name: A REGRESSION INPUT FAILS, see $out/regressions.log"; tail -40 "$out/regressions.log"
      echo "$name: regression input fails" >"$out/summary.txt"
      return 1
    fi
  fi

  echo "fuzz: $name for ${SECONDS_PER_TARGET}s"
  local found=0
  if (cd "$out" && "$bin" "${common[@]}" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 \
        corpus "$seed_dir" >log.txt 2>&1); then
    result="no finding"
  else
    result="FINDING: $(ls -t "$out" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | head -1)"
    echo "fuzz: $name FOUND A PROBLEM, see $out/log.txt"; tail -60 "$out/log.txt"; found=1
  fi
  execs=$(grep -oP 'stat::number_of_executed_units: \K[0-9]+' "$out/log.txt" || echo "?")
  cov=$(grep -oP '^#[0-9]+\s+\S+\s+cov: \K[0-9]+ ft: [0-9]+' "$out/log.txt" | tail -1 || echo "?")
  line="$name: ${SECONDS_PER_TARGET}s, $execs execs, cov $cov, corpus $(ls "$out/corpus" | wc -l) files, $result"
  echo "fuzz: $line"; echo "$line" >"$out/summary.txt"
  return $found
}

# A libFuzzer process runs on one core: JOBS targets at once, each still
# fuzzed for SECONDS of its own.
targets=()
for name in fuzz_gguf fuzz_bump fuzz_convert fuzz_tokenizer fuzz_chat_template fuzz_grammar; do
  [ -n "$ONLY" ] && [ "$name" != "$ONLY" ] && continue
  targets+=("$name")
done
status=0
running=0
for name in "${targets[@]}"; do
  if ((running >= JOBS)); then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$name" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
echo "== fuzz summary"
for name in "${targets[@]}"; do
  echo "  $(cat "$PWD/fuzz-out/$name/summary.txt" 2>/dev/null || echo "$name: no summary (the script failed before it)")"
done
exit $status
