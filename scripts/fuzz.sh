#!/usr/bin/env bash
# Fuzz every reader with libFuzzer (clang, with ASan and UBSan) for SECONDS each (default 600:
# the long run; CI runs a short one), starting from the committed corpus in fuzz/corpus/NAME.
# New inputs go to build-fuzz/corpus/NAME; a crash, a sanitizer report or a hang (over 10 s on
# one input) fails the run, leaving the input in build-fuzz/ as crash-*, leak-* or timeout-*.
#   bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
bash scripts/deps.sh
flags="-fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow -fno-sanitize-recover=all"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DTUMBLE_CUDA=OFF -DTUMBLE_FUZZ=ON \
  -DTUMBLE_TESTS=OFF -DTUMBLE_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
for seeds in fuzz/corpus/*/; do
  name=$(basename "$seeds")
  mkdir -p "build-fuzz/corpus/$name"
  echo "fuzz_$name: $seconds s"
  # HDF5 keeps blocks in free lists of its own across files, and after a corrupt file cannot
  # close itself at exit: LeakSanitizer reports those blocks (never for one input alone), so
  # leaks are not looked for there
  leaks=1
  [ "$name" = problem_hdf5 ] && leaks=0
  (cd build-fuzz && ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=$leaks" "./fuzz_$name" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -detect_leaks=$leaks -print_final_stats=1 "corpus/$name" "../$seeds" 2>&1 | tail -n 40)
done
