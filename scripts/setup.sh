#!/usr/bin/env bash
# Installs every dependency (Debian packages + the Python test oracles) and
# builds the project in build/ (Release, runtime SIMD dispatch, no -march=native).
# Idempotent: a second run only checks and rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(build-essential cmake pkg-config libhwy-dev catch2 libspdlog-dev libcli11-dev
  nlohmann-json3-dev libpcre2-dev libssl-dev libedit-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev python3-pip tmux libcpp-httplib-dev chromium chromium-driver haproxy)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
# jsonschema: the grammar tests validate generated JSON with it. openai and
# selenium: ck-server's end-to-end and browser tests (selenium 4.27.1: newer
# ones need a certifi the package index does not have yet).
PIP_PACKAGES=(gguf==0.19.0 numpy matplotlib jsonschema openai==3.54.0 selenium==4.27.1)
if ! "$PY" -c "import gguf, numpy, matplotlib, jsonschema, openai, selenium" 2>/dev/null; then
  echo "setup: installing Python packages (${PIP_PACKAGES[*]})"
  "$PY" -m pip install -q --disable-pip-version-check "${PIP_PACKAGES[@]}" 2>/dev/null \
    || "$PY" -m pip install -q --disable-pip-version-check --break-system-packages "${PIP_PACKAGES[@]}"
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
