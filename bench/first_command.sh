#!/usr/bin/env bash
# The README's first command as a newcomer meets it: a fresh clone of this checkout's HEAD in a
# folder of its own, then `bash scripts/run.sh` (Debian packages, the build, the default study),
# timed phase by phase; with --kernels also `TUMBLE_CUDA=ON bash scripts/run.sh` in a second
# fresh clone. A markdown table on stdout (save it under bench/results/), the runs' logs in the
# clones' parent folder, which is kept.
#   bash bench/first_command.sh [--kernels]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
kernels=0
[ "${1:-}" = --kernels ] && kernels=1
work=$(mktemp -d /tmp/tumble-first-XXXXXX)
# the clones are of HEAD: its commit, whatever the working tree holds besides
commit=$(git -C "$src" rev-parse --short=12 HEAD)

# seconds of one phase: run "$@" in clone $1, log to $work/$2.log
phase() {
  local dir=$1 name=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$dir" && "$@") >"$work/$name.log" 2>&1
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.0f}')"
}

row() {  # label, TUMBLE_CUDA value
  local dir="$work/clone-$2"
  git clone -q "$src" "$dir"
  local deps build run
  deps=$(phase "$dir" "deps-$2" bash scripts/deps.sh)
  build=$(phase "$dir" "build-$2" env TUMBLE_CUDA="$2" TUMBLE_TESTS_DEPS=0 TUMBLE_TARGET=tumble_cli \
    bash scripts/build.sh -DTUMBLE_TESTS=OFF -DTUMBLE_BENCH=OFF)
  run=$(phase "$dir" "run-$2" ./build/tumble grasp)  # what scripts/run.sh runs bare
  local total=$((deps + build + run))
  echo "| $1 | $deps | $build | $run | $total |"
}

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "# The first command on a fresh clone"
echo
echo "$(date -u '+%F %T') UTC, $cpu ($(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GB), commit $commit."
echo "\`bash bench/first_command.sh$([ $kernels = 1 ] && echo ' --kernels')\`: a fresh clone, then what"
echo "\`bash scripts/run.sh\` does, phase by phase (Debian packages already present on this machine"
echo "are not reinstalled: the first column is the check alone there)."
echo
echo "| build | packages s | build s | default study s | total s |"
echo "|---|---:|---:|---:|---:|"
row "CPU only (no GPU present: scripts/run.sh's default)" OFF
if [ $kernels = 1 ]; then
  row "with the CUDA kernels (a GPU present, or TUMBLE_CUDA=ON)" ON
fi
echo
echo "logs: $work" >&2
