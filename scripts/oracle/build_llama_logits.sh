#!/bin/sh
# Builds scripts/oracle/llama_logits.cc against a llama.cpp CPU build (static
# libraries) into build-oracle/llama_logits. Not part of ck's build or CI:
# the oracle's goldens are committed (tests/runtime/golden/oracle/).
#
#   LLAMA_SRC=.../llama.cpp LLAMA_BUILD=.../build scripts/oracle/build_llama_logits.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
LLAMA_SRC=${LLAMA_SRC:-/work/main/build-peers/src/llama_cpp_python-0.3.36/vendor/llama.cpp}
LLAMA_BUILD=${LLAMA_BUILD:-/work/main/build-peers/llama.cpp}
out="$root/build-oracle"
mkdir -p "$out"
nice -n 19 ${CXX:-g++} -std=c++17 -O2 -o "$out/llama_logits" "$here/llama_logits.cc" \
  -I"$LLAMA_SRC/include" -I"$LLAMA_SRC/ggml/include" \
  "$LLAMA_BUILD/src/libllama.a" "$LLAMA_BUILD/ggml/src/libggml.a" \
  "$LLAMA_BUILD/ggml/src/libggml-cpu.a" "$LLAMA_BUILD/ggml/src/libggml-base.a" \
  -fopenmp -lpthread -ldl -lm
echo "$out/llama_logits"
