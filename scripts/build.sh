#!/usr/bin/env bash
# Configure and build tumble into build/. The CUDA kernels (sm_90) are built when TUMBLE_CUDA=ON,
# or, with TUMBLE_CUDA=auto (the default), whenever nvcc is found: the test command's way, so that
# a kernel that does not compile fails even on a machine without a GPU. Further arguments go to
# cmake's configure step (-DTUMBLE_TESTS=OFF ...); TUMBLE_TARGET builds that target alone;
# TUMBLE_TESTS_DEPS=0 installs only what the command line needs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${TUMBLE_TESTS_DEPS:-1}" = 1 ]; then bash scripts/deps.sh all; else bash scripts/deps.sh; fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
cuda=${TUMBLE_CUDA:-auto}
case "$cuda" in
  ON | OFF) ;;
  # passed on every configure: build/'s cache would keep what an earlier run chose
  auto) if command -v nvcc >/dev/null 2>&1; then cuda=ON; else cuda=OFF; fi ;;
  *) echo "scripts/build.sh: TUMBLE_CUDA must be ON, OFF or auto, not '$cuda'" >&2; exit 2 ;;
esac
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTUMBLE_CUDA="$cuda" "$@" >/dev/null
if [ -n "${TUMBLE_TARGET:-}" ]; then
  cmake --build build -j "$(nproc)" --target "$TUMBLE_TARGET"
else
  cmake --build build -j "$(nproc)"
fi
