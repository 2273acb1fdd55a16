#!/usr/bin/env bash
# InstallTest: `cmake --install` into a fresh prefix, then build examples/c against it twice,
# with find_package(tumble) and with pkg-config, and run both programs (each checks its physics).
# usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/tumble"
"$work/prefix/bin/tumble" --version

cmake -S "$src/examples/c" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/slide"

pc=$(find "$work/prefix" -name tumble.pc)
cc -O2 -std=c11 "$src/examples/c/slide.c" -o "$work/slide-pc" \
  $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs tumble)
"$work/slide-pc" >/dev/null
echo "installed prefix: find_package and pkg-config builds both ran"
