#!/usr/bin/env bash
# Fuzz every reader with libFuzzer (clang, with ASan and UBSan) for SECONDS each (default 600:
# the long run; CI runs a short one), starting from the committed corpus in fuzz/corpus/NAME.
# New inputs go to build-fuzz/corpus/NAME; a crash, a sanitizer report or a hang (over 10 s on
# one input) fails the run, leaving the input in build-fuzz/ as crash-*, leak-* or timeout-*;
# except a crash inside libhdf5 itself (see crash_is_hdf5s), which is kept and fuzzing goes on.
#   bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
bash scripts/deps.sh all
flags="-fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow -fno-sanitize-recover=all"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DTUMBLE_CUDA=OFF -DTUMBLE_FUZZ=ON \
  -DTUMBLE_TESTS=OFF -DTUMBLE_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
# 0 when the crash report in log $1 is libhdf5's own: its first stack frame above the C library,
# the sanitizers' allocator and interceptors and libFuzzer's malloc hook is in libhdf5 (a null
# copy, an allocation it sized from the file), and for a bad heap access the block's allocation
# is libhdf5's too (a buffer of tumble's that HDF5 overruns is tumble's mistake). tb_readProblem
# reads HDF5 files in a child process, so such a file is an error there. Anything else (a tumble
# frame first, a UBSan report, a hang, the process over its memory limit) is 1.
crash_is_hdf5s() {
  awk 'function skipped() {
         return $0 ~ /interceptor|sanitizer|asan|fuzzer::|MallocHook|sysdeps|libc\.so|libc-start/ ||
                $0 ~ / in (malloc|calloc|realloc|free|mem[a-z]+|str[a-z]+|operator) /
       }
       function hdf5s() { return $0 ~ /libhdf5| in H5[A-Za-z_]/ }
       BEGIN { code = 1; stage = 0 }
       /runtime error:|ALARM: working on the last Unit|out-of-memory \(used:/ { exit }
       /ERROR: AddressSanitizer: (heap-|use-after-free|double-free|attempting)/ { heap = 1 }
       stage == 1 && /allocated by thread/ { stage = 2; next }
       /^ *#[0-9]+ 0x/ && stage != 1 && !skipped() {
         if (!hdf5s()) exit
         if (stage == 0 && heap) { stage = 1; next }
         code = 0; exit
       }
       END { exit code }' "$1"
}

for seeds in fuzz/corpus/*/; do
  name=$(basename "$seeds")
  mkdir -p "build-fuzz/corpus/$name" build-fuzz/hdf5-defects
  echo "fuzz_$name: $seconds s"
  # HDF5 keeps blocks in free lists of its own across files, and after a corrupt file cannot
  # close itself at exit: LeakSanitizer reports those blocks (never for one input alone), so
  # leaks are not looked for there
  leaks=1
  [ "$name" = problem_hdf5 ] && leaks=0
  end=$((SECONDS + seconds))
  # a crash inside libhdf5 ends the fuzzer: its input is kept in build-fuzz/hdf5-defects and the
  # fuzzer goes on from the corpus for the time left
  while :; do
    rc=0
    (cd build-fuzz && ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=$leaks" "./fuzz_$name" \
      -max_total_time=$((end - SECONDS > 1 ? end - SECONDS : 1)) -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -detect_leaks=$leaks -print_final_stats=1 \
      "corpus/$name" "../$seeds" >"fuzz_$name.log" 2>&1) || rc=$?
    log="build-fuzz/fuzz_$name.log"
    tail -n 40 "$log"
    [ "$rc" = 0 ] && break
    crash=$(sed -n "s/.*Test unit written to \.\/\(\(crash\|oom\)-[0-9a-f]*\).*/\1/p" "$log" |
      tail -n 1)
    if [ "$name" = problem_hdf5 ] && [ -n "$crash" ] && crash_is_hdf5s "$log"; then
      mv "build-fuzz/$crash" build-fuzz/hdf5-defects/
      echo "fuzz_$name: $crash crashes inside libhdf5 (kept in build-fuzz/hdf5-defects); going on"
      [ $SECONDS -lt $end ] && continue
      break
    fi
    echo "fuzz_$name: failed (exit $rc)"
    exit 1
  done
done
