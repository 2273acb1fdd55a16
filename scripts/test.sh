#!/usr/bin/env bash
# The whole test suite: build, then ctest (GPU tests skip when no device is present).
set -euo pipefail
cd "$(dirname "$0")/.."
# everything on, whatever an earlier scripts/run.sh left in build/'s cache
bash scripts/build.sh -DTUMBLE_TESTS=ON -DTUMBLE_BENCH=ON -DTUMBLE_MPI=ON >/dev/null
# a Python environment (the bench's) with MuJoCo, CVXPY and pytest from PyPI and this tumble
# package built from source (pip install ., CPU only: the kernels are built and tested above);
# where PyPI cannot be reached the MJCF and convex cross-checks and the package's tests skip
venv=build/bench-venv
if [ ! -x "$venv/bin/python" ]; then
  (python3 -m venv "$venv" && "$venv/bin/pip" install -q mujoco numpy pytest) >&2 || rm -rf "$venv"
fi
if [ -x "$venv/bin/python" ] && ! "$venv/bin/python" -c "import cvxpy" 2>/dev/null; then
  "$venv/bin/pip" install -q cvxpy >&2 || true
fi
if [ -x "$venv/bin/python" ]; then
  "$venv/bin/pip" install -q . -Ccmake.define.TUMBLE_CUDA=OFF >&2
fi
cd build && ctest --output-on-failure -j "$(nproc)"
