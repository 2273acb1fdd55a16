#!/usr/bin/env bash
# bench_solvers on the shared set (the tuning side) and on problems exported from tumble's own
# scenes (the validation side: auto's constants were never chosen on them). The problems are
# the steps' Delassus problems written by `tumble simulate --export-problems`, solved cold.
#   bash bench/solvers_validation.sh [BUILD] > bench/results/solvers-validation-$(date -u +%F).md
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
val=$build/validation
rm -rf "$val" && mkdir -p "$val/fc3d"
export_scene() {  # scene, then simulate's options
  "$build/tumble" simulate "$@" --export-problems "$val/fc3d" >/dev/null
}
# stacks at rest on auto, and stacks PGS leaves shifted (their faces no longer flush: up to 8
# points a pair); the vibrating plate (rigid, as first exported: its default is regularized
# now, whose steps auto solves in microseconds); boxes sticking and sliding on inclines; a
# rolling sphere; spheres piled in a box (195-220 rows, more than their DoFs; rigid, on PGS with
# 1000 sweeps, the scene's defaults when these problems were first exported, and stepped with A
# stored: the body-space step's other rounding leads the pile elsewhere, and the set stays the
# one of the tables in bench/results)
export_scene box-stack --solver auto --scenes 3 --steps 1000 --every 500 --param mu=0.2:0.8 \
  --param mass=0.5:2
export_scene box-stack --solver pgs --scenes 3 --steps 1000 --every 250 --param mu=0.2:0.8
export_scene plate-block --solver auto --scenes 3 --steps 3000 --every 1000 --param mu=0.3:0.6 \
  --param soft=0
export_scene incline-block --solver auto --scenes 3 --steps 600 --every 300 --param angle=10 \
  --param mu=0.1:0.5
export_scene incline-block --solver auto --scenes 2 --steps 600 --every 300 --param angle=35 \
  --param yaw=30
export_scene sliding-sphere --solver auto --scenes 2 --steps 400 --every 200 --param mu=0.1:0.4
export_scene sphere-pile --scenes 2 --steps 1000 --every 500 --param mu=0.3:0.7 --delassus dense \
  --param soft=0 --solver pgs --max-iter 1000
# and a second rigid pile set on PGS in body space, friction drawn per scene,
# steps 150 to 900 (none of the first set's names): auto's SOC-FB stage after its Newton rounds
# (host/solver/solver_auto.h tb_socAfterNewton) was chosen on other pile steps, not on these
export_scene sphere-pile --scenes 3 --steps 900 --every 150 --param mu=0.2:0.9 --param soft=0 \
  --solver pgs --max-iter 1000
exec "$build/bench/bench_solvers" --validation "$val"
