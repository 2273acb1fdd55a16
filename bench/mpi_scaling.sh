#!/usr/bin/env bash
# Many processes on one study against one: each long command under `mpirun -np N` (one OpenMP
# thread per process) beside the same command as one process with N threads and with one, in the
# same run; wall times, their ratios, and whether every output file is the one process's bitwise.
#   bash bench/mpi_scaling.sh [BUILD] [N] > bench/results/mpi-$(date -u +%F).md
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-$(nproc)}
tumble=$(realpath "$build/tumble")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# seconds of one run: tag, launcher prefix (may be empty), then the command's arguments
timed() {
  local tag=$1 launch=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  $launch "$tumble" "$@" --out "$work/$tag" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}

# every file of the one-process run, the same bytes in the MPI run (histories: no wall times)
same_files() {
  local a=$1 b=$2 f
  for f in "$work/$a"*; do
    case $f in *.png) [[ $f == *optimize* ]] && continue ;; esac
    local g=$work/$b${f#"$work/$a"}
    if [[ $f == *-nelder-mead.csv || $f == *-cmaes.csv ]]; then
      cmp -s <(cut -d, -f1,2,4,5 "$f") <(cut -d, -f1,2,4,5 "$g") || return 1
    else
      cmp -s "$f" "$g" || return 1
    fi
  done
}

echo "# MPI scale-out: $n processes against one process"
echo
echo "$(date -u +%F), $(uname -n), $(nproc) cores, commit $(git rev-parse --short HEAD);"
echo "\`bash bench/mpi_scaling.sh $build $n\` (Open MPI $(mpirun --version | head -1 | awk '{print $NF}'),"
echo "shared memory transport)."
echo
echo "| command | 1 process, 1 thread (s) | 1 process, $n threads (s) | $n processes x 1 thread (s) | speed-up over 1 thread | against $n threads | files bitwise |"
echo "|---|---:|---:|---:|---:|---:|---|"
obs=$work/obs.csv
"$tumble" estimate synth --scene sliding-sphere --steps 4000 --every 20 --noise uniform:1e-4 \
  --out "$obs" >/dev/null 2>&1
cases=(
  "grasp|grasp --grid 8x8 --trials 8 --chunk 64"
  "grasp3d|grasp3d --grid 4x4 --trials 8"
  "plate field|plate field --grid 20x20 --seconds 2"
  "plate optimize|plate optimize --target circle --optimizer cmaes --starts 8 --horizon 2 --evals 64"
  "estimate pf|estimate pf --scene sliding-sphere --obs $obs --params mu --prior mu=uniform:0.1:0.9 --noise uniform:1e-4 --particles 2000"
  "simulate|simulate box-stack --scenes 256 --steps 500 --every 50"
)
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a args <<<"${c#*|}"
  tag=$(echo "$name" | tr ' ' '-')
  one=$(timed "$tag-one" "" "${args[@]}" --threads 1)
  threads=$(timed "$tag-threads" "" "${args[@]}" --threads "$n")
  mpi=$(timed "$tag-mpi" "mpirun --oversubscribe -np $n" "${args[@]}" --threads 1)
  ok=no
  same_files "$tag-one" "$tag-mpi" && ok=yes
  printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n" "$name" "$one" "$threads" "$mpi" \
    "$(echo "$one / $mpi" | bc -l)" "$(echo "$threads / $mpi" | bc -l)" "$ok"
done
