#!/usr/bin/env bash
# Install what tumble needs from Debian's packages (only what is missing):
#   bash scripts/deps.sh        what the command line needs to build and run (scripts/run.sh)
#   bash scripts/deps.sh all    that and what the tests, the fuzzers and MPI need (scripts/test.sh)
set -euo pipefail
pkgs=(cmake make gcc g++ pkg-config python3 librandom123-dev libhdf5-dev libsuitesparse-dev
  libcairo2-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libxml2-dev
  libassimp-dev libqhull-dev)
if [ "${1:-}" = all ]; then
  pkgs+=(libgtest-dev libsiconos-numerics-dev clang libclang-rt-14-dev libomp-14-dev
    libopenmpi-dev openmpi-bin python3-venv liblapacke-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
