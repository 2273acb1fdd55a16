#!/usr/bin/env bash
# tumble against MuJoCo's rollout: a virtual environment with MuJoCo from PyPI (made once, in
# build/bench-venv), then bench/mujoco_rollout.py with its arguments; tumble from build/.
#   bash bench/mujoco_rollout.sh > bench/results/mujoco-rollout-$(date -u +%F).md
#   bash bench/mujoco_rollout.sh families > bench/results/families-$(date -u +%F).md
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/bench-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mujoco numpy >&2
fi
[ -x build/tumble ] || bash scripts/build.sh >&2
# `families` first: the generated scenes' table (bench/families.py) instead of the built-ins'
script=bench/mujoco_rollout.py
if [ "${1:-}" = families ]; then
  script=bench/families.py
  shift
fi
exec "$venv/bin/python" "$script" "$@"
