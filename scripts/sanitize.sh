#!/usr/bin/env bash
# The test suite under AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer (with
# float-cast-overflow), on the CPU path: any report fails the run. tests/lsan.supp names the one
# library whose allocations outlive the process by design.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh all
flags="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all"
flags="$flags -fno-omit-frame-pointer"
cmake -S . -B build-asan -DTUMBLE_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j "$(nproc)" >/dev/null
# a test asks for more memory than there is, to see the error: malloc returns NULL as it would
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# the install test builds an example of its own, without the sanitizers' runtime
cd build-asan && ctest --output-on-failure -j "$(nproc)" -E InstallTest
