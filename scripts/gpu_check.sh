#!/usr/bin/env bash
# The GPU checks in one call, on a machine with a CUDA device (the binaries of a build made
# elsewhere travel: build/tumble_gpu_tests and build/bench/bench_gpu need only the engine, OpenMP
# and the CUDA libraries). Each GPU test runs in its own process, so that an illegal access ends
# that test and not the rest; compute-sanitizer reruns the first that fails; then bench_gpu's
# tables (each ';'-separated entry of the third argument is one bench_gpu command line). Logs
# under $OUT (or out/gpu): tests.md, failures.log, sanitizer.log, bench.md. GPU_TEST_FILTER picks
# the tests (a gtest filter; default all); GPU_SANITIZE=0 skips compute-sanitizer.
#   bash scripts/gpu_check.sh [test seconds] [bench seconds] ['bench_gpu args; bench_gpu args']
set -u
out=${OUT:-out/gpu}
mkdir -p "$out"
test_budget=${1:-200}
bench_budget=${2:-150}
benches=${3:-"100000 200 sliding-sphere,pendulum,chain-wall; 10000 100 box-stack fp64 mncp-plm 0; \
10000 100 box-stack fp64 mncp-plm 32; 100000 200 sliding-sphere,chain-wall fp32"}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}:$PWD/.gpu/lib
tests=build/tumble_gpu_tests
bench=build/bench/bench_gpu

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv |
  tee "$out/gpu.txt"

# suite.test names, parameterized ones included ("Models/GpuRolloutTest.MatchesTheCpuPath/pendulum")
list=$("$tests" --gtest_list_tests --gtest_filter="${GPU_TEST_FILTER:-*}" | awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}')
start=$SECONDS
failed=()
echo "| test | result | s |" >"$out/tests.md"
echo "|---|---|---|" >>"$out/tests.md"
for t in $list; do
  if ((SECONDS - start > test_budget)); then
    echo "| $t | not run (budget) | |" >>"$out/tests.md"
    continue
  fi
  t0=$SECONDS
  timeout 90 "$tests" --gtest_filter="$t" >"$out/one.log" 2>&1
  rc=$?
  if ((rc == 0)) && grep -q "SKIPPED \]" "$out/one.log"; then
    result=skipped
  elif ((rc == 0)); then
    result=pass
  else
    result="FAIL (rc $rc)"
    failed+=("$t")
    { echo "=== $t (rc $rc)"; cat "$out/one.log"; } >>"$out/failures.log"
  fi
  echo "| $t | $result | $((SECONDS - t0)) |" >>"$out/tests.md"
done
rm -f "$out/one.log"
cat "$out/tests.md"
echo "GPU tests: ${#failed[@]} failed"

if ((${#failed[@]} > 0)) && [ "${GPU_SANITIZE:-1}" = 1 ]; then
  timeout 60 compute-sanitizer --tool memcheck --print-limit 5 "$tests" \
    --gtest_filter="${failed[0]}" >"$out/sanitizer.log" 2>&1
  tail -40 "$out/sanitizer.log"
fi

start=$SECONDS
bench_run() {
  local left=$((bench_budget - (SECONDS - start)))
  ((left > 10)) || return
  {
    echo "## bench_gpu $*"
    timeout "$left" "$bench" "$@" 2>&1
    echo
  } >>"$out/bench.md"
}
IFS=';' read -ra lines <<<"$benches"
for line in "${lines[@]}"; do
  # shellcheck disable=SC2086 # each entry is a command line's words
  bench_run $line
done
[ -f "$out/bench.md" ] && grep -v "^- \(cpu\|load\|commit\)" "$out/bench.md"
