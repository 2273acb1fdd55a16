#!/usr/bin/env bash
# The main job on its built-in default: build the command line, then run tumble grasp, or tumble
# with the arguments given (on the GPU when one is usable, else on the CPU). The CUDA kernels add
# minutes to the build (bench/results/first-command-*.md) and nothing to a run without a GPU, so
# they are built only where a GPU is present, where build/ already has them, or when asked
# (TUMBLE_CUDA=ON bash scripts/run.sh); the test command always builds them.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TUMBLE_CUDA:-}" ]; then
  if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    TUMBLE_CUDA=ON
  elif grep -q '^TUMBLE_CUDA:BOOL=ON' build/CMakeCache.txt 2>/dev/null; then
    TUMBLE_CUDA=ON
  else
    TUMBLE_CUDA=OFF
  fi
fi
TUMBLE_CUDA=$TUMBLE_CUDA TUMBLE_TESTS_DEPS=0 TUMBLE_TARGET=tumble_cli \
  bash scripts/build.sh -DTUMBLE_TESTS=OFF -DTUMBLE_BENCH=OFF >/dev/null
# bare tumble prints its overview: the default study is asked for by name
if [ $# -eq 0 ]; then
  set -- grasp
fi
exec ./build/tumble "$@"
