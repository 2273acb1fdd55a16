#!/usr/bin/env bash
# The whole test suite: build, then ctest (GPU tests skip when no device is present).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
# MuJoCo from PyPI for the MJCF cross-check (the bench's environment); it skips without PyPI
venv=build/bench-venv
if [ ! -x "$venv/bin/python" ]; then
  (python3 -m venv "$venv" && "$venv/bin/pip" install -q mujoco numpy) >&2 || rm -rf "$venv"
fi
cd build && ctest --output-on-failure -j "$(nproc)"
