#!/bin/bash
# device-s6b.sh - the fifth session's factor and block-solve variants on one
# GPU, from the repository root, within DEADLINE (default 500) s:
#   1. build (CUDA) in /tmp/b-s6 unless there; test_direct_gpu (the fronts
#      up to order 512 / 700 / 1024 by the one-block kernel against the CPU
#      factor) and test_pc_multi_gpu (trinv capped, for blocks only);
#   2. the 1M DRA's order-3 system (the issue-24 command, --dump-matrix):
#      bench/direct_bench, the GPU numeric factorization in complex double
#      with gpu_small 256 (the default), 384, 512, 768, median of 3 each;
#   3. the 2 x 2 array's order-3 system: bench/pc_multi_bench, direct and
#      pmg, N = 1, 4, trinv off / for blocks up to 1024, 2048, 4096 columns
#      / all, the block's first apply (the inverses' build) printed.
# SKIP_TESTS, SKIP_SMALL, SKIP_ARRAY leave a part out.  Logs: $OUT/s6b-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-s6b}
DEADLINE=${DEADLINE:-500}
B=${BUILD:-/tmp/b-s6}
L=/tmp/s6b-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s6b-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" --exclude="farfield_*" --exclude="pattern_*" -C /tmp s6b-logs 2> /dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
[ -d /opt/emdeps/python ] && export PYTHONPATH=/opt/emdeps/python${PYTHONPATH:+:$PYTHONPATH}
step build
G=$(command -v ninja > /dev/null && echo "-G Ninja")
[ -f "$B/CMakeCache.txt" ] || cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
timeout "$(cap 240)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
  { grep -E "error" "$L/build.log" | head; exit 1; }
if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout "$(cap 150)" ctest -R "test_direct_gpu|test_pc_multi_gpu" -j2 --timeout 140 \
    --output-on-failure > "$L/ctest-gpu.log" 2>&1)
  echo "ctest rc $?"
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_SMALL:-}" ] && [ "$(left)" -gt 150 ]; then
  step "dump the 1M DRA order-3 system"
  timeout -k 10 "$(cap 90)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    -setnumber Mesh/elements_per_wavelength 13.3 -setnumber Mesh/frequency 5.8e9 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out /tmp/s6b-dump1m --dump-matrix /tmp/dra1m_o3.mat > "$L/dump1m.log" 2>&1
  echo "dump rc $?"
  step "direct_bench: gpu_small 256 (default), 384, 512, 768"
  timeout -k 10 "$(cap 200)" "$B/bench/direct_bench" --matrix /tmp/dra1m_o3.mat --device gpu \
    --prec double --repeat 3 --no-krylov --gpu-small "${SMALLS:-0,384,512,768}" \
    > "$L/direct_small.log" 2>&1
  echo "direct_bench rc $?"
  grep -E "^(device|gpu )" "$L/direct_small.log" | cut -c1-260
  rm -f /tmp/dra1m_o3.mat
fi
if [ -z "${SKIP_ARRAY:-}" ] && [ "$(left)" -gt 90 ]; then
  step "dump the 2 x 2 array's order-3 system"
  timeout -k 10 "$(cap 90)" "$B/app/emsolve" cases/dra_array.geo -setnumber Solver/order 3 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out /tmp/s6b-dumparr --dump-matrix /tmp/arr_o3.mat > "$L/dumparr.log" 2>&1
  echo "dump rc $?"
  step "pc_multi_bench on the array: trinv caps"
  timeout -k 10 "$(cap 150)" "$B/bench/pc_multi_bench" --matrix /tmp/arr_o3.mat --device gpu \
    --prec mixed --pc direct,pmg --reps 5 --ns 1,4 \
    --variants "st+tlev,st+tlev+inv2+imax1024,st+tlev+inv2+imax2048,st+tlev+inv2+imax4096,st+tlev+inv2" \
    > "$L/pc_multi_array.log" 2>&1
  echo "pc_multi_bench rc $?"
  grep -E "^(direct|pmg)" "$L/pc_multi_array.log" | cut -c1-220
fi
step done
