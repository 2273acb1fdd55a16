#!/usr/bin/env bash
# Install what tumble needs to build and test, from Debian's packages (only what is missing).
set -euo pipefail
pkgs=(cmake make gcc g++ libgtest-dev librandom123-dev libhdf5-dev libsiconos-numerics-dev
  libsuitesparse-dev libcairo2-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev
  pkg-config clang libclang-rt-14-dev libomp-14-dev libopenmpi-dev openmpi-bin libxml2-dev
  python3-venv liblapacke-dev)
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
