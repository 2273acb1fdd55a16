#!/usr/bin/env bash
# The main job on its built-in default (CPU when no GPU is present): build, then run tumble.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
exec ./build/tumble "$@"
