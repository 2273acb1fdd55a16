#!/usr/bin/env bash
# Configure and build tumble into build/ (CUDA kernels for sm_90 when nvcc is on the PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
