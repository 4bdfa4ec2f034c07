#!/usr/bin/env bash
# Median time to tokenize the WikiText-2 test text with stories260K's and
# SmolLM2's vocabularies (docs/tokenizer.md, "Speed"). Wall time of the encode
# as ck-tokenize reports it, and the CPU time of the whole process (vocabulary
# load included), which a busy machine disturbs less.
# Usage: tests/tokenizer/bench_wikitext.sh [BUILD_DIR] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
runs=${2:-5}
text=$root/../shared/data/wikitext-2/wikitext-2-raw-v1.test.txt
for model in "$root/../shared/data/models/stories260K.gguf" "$root/models/SmolLM2-135M-Instruct.Q4_1.gguf"; do
  for _ in $(seq "$runs"); do
    # stderr: ck-tokenize's stats line, then bash's `time` (user + sys seconds).
    { TIMEFORMAT='cpu %U %S'; time "$build/bin/ck-tokenize" -m "$model" -f "$text" --ids >/dev/null; } 2>&1
  done | python3 -c '
import re, statistics, sys
lines = sys.stdin.read()
wall = [float(x) for x in re.findall(r"tokens in ([0-9.]+) ms", lines)]
cpu = [1000 * (float(u) + float(s)) for u, s in re.findall(r"cpu ([0-9.]+) ([0-9.]+)", lines)]
tokens = re.search(r"-> ([0-9]+) tokens", lines).group(1)
print(f"{sys.argv[1]}: {tokens} tokens, encode wall median {statistics.median(wall):.0f} ms "
      f"(min {min(wall):.0f}), process CPU median {statistics.median(cpu):.0f} ms, {len(wall)} runs")
' "$(basename "$model")"
done
