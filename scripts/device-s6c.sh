#!/bin/bash
# device-s6c.sh - the GPU factor's launches from several host threads:
# build in /tmp/b-s6 (incremental), the gpu tests of the direct factor and
# its users, direct_bench on the 1M DRA's order-3 system (median of 3 and
# every repetition), then the issue-24 command twice (wall, stage lines).
# Logs: $OUT/s6c-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-s6c}
DEADLINE=${DEADLINE:-500}
B=${BUILD:-/tmp/b-s6}
L=/tmp/s6c-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s6c-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" --exclude="farfield_*" --exclude="pattern_*" -C /tmp s6c-logs 2> /dev/null' EXIT
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
  (cd "$B" && timeout "$(cap 200)" ctest -L gpu -R "${TESTS:-test_direct_gpu|test_direct_pc_gpu|test_pc_multi_gpu|test_pmg_gpu|test_fsys_gpu|test_overlap_gpu}" -j4 --timeout 190 \
    --output-on-failure > "$L/ctest-gpu.log" 2>&1)
  echo "ctest rc $?"
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi
CMD1M="cases/dra.geo -setnumber Solver/order 3 -setnumber Mesh/elements_per_wavelength 13.3 -setnumber Mesh/frequency 5.8e9 -setnumber Solver/frequency 5.8e9"
if [ -z "${SKIP_BENCH:-}" ] && [ "$(left)" -gt 150 ]; then
  step "dump the 1M DRA order-3 system"
  # shellcheck disable=SC2086
  timeout -k 10 "$(cap 90)" "$B/app/emsolve" $CMD1M -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out /tmp/s6c-dump1m --dump-matrix /tmp/dra1m_o3.mat > "$L/dump1m.log" 2>&1
  step "direct_bench (default gpu_small 384, launch threads)"
  timeout -k 10 "$(cap 120)" "$B/bench/direct_bench" --matrix /tmp/dra1m_o3.mat --device gpu \
    --prec double --repeat 3 --no-krylov --gpu-small "${SMALLS:-0}" > "$L/direct_bench.log" 2>&1
  echo "direct_bench rc $?"
  grep -E "^(device|gpu )" "$L/direct_bench.log" | cut -c1-260
  rm -f /tmp/dra1m_o3.mat
fi
for r in ${RUNS:-1 2}; do
  [ "$(left)" -lt 40 ] && break
  step "the 1M run ($r)"
  ts=$(date +%s.%N)
  # shellcheck disable=SC2086
  timeout -k 10 "$(cap 60)" "$B/app/emsolve" $CMD1M --device gpu -v --out /tmp/s6c-run$r > "$L/run$r.log" 2>&1
  rc=$?
  echo "run $r rc $rc wall $(python3 -c "print(round($(date +%s.%N) - $ts, 2))") s" | tee -a "$L/walls.txt"
  grep -E "numeric factorization|waited|meshed dra|assembly: order|post: |writing: |farfield: |released" "$L/run$r.log" | cut -c1-160
  cp /tmp/s6c-run$r/summary.json "$L/summary$r.json" 2> /dev/null
done
step done
