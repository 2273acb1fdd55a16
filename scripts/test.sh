#!/usr/bin/env bash
# The whole test suite: build, then ctest (GPU tests skip when no device is present).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
cd build && ctest --output-on-failure -j "$(nproc)"
