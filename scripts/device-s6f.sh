#!/bin/bash
# (EMSOLVE_HOSTPATH=0, the old host path, was removed after call 7 of
# bench/results/2026-11-28-h200-5: its 'old' runs are now the default.)
# device-s6f.sh - the fifth session's last check on one GPU (main with
# cleanup, postspeed, hostpath, meshspeed merged and the lead's factor
# changes), from the repository root, within DEADLINE (default 420) s:
#   1. build everything (CUDA) in /tmp/b-f;
#   2. the gpu tests of the code changed since call 5 (the factor's pool,
#      the checks beside it, the operator from the analysis' pattern, the
#      meshes apart), 4 at a time;
#   3. the mesh stage alone (scripts/device-meshspeed.sh on this build);
#   4. the issue-24 1M command, alternately the default and
#      EMSOLVE_HOSTPATH=0 with Mesh/volume_meshing together (the host path
#      and the mesher as before this session's helpers), twice each: wall,
#      stage lines;
#   5. the default 13-frequency order-3 DRA sweep once (wall).
# Logs: $OUT/s6f-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-s6f}
DEADLINE=${DEADLINE:-420}
B=${BUILD:-/tmp/b-f}
L=/tmp/s6f-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s6f-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" --exclude="farfield_*" --exclude="pattern_*" -C /tmp s6f-logs 2> /dev/null' EXIT
# shellcheck disable=SC1091
. scripts/device-lib.sh
step build
[ -f "$B/CMakeCache.txt" ] || cmake -S . -B "$B" $(command -v ninja > /dev/null && echo "-G Ninja") \
  -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} > "$L/configure.log" 2>&1
timeout "$(cap 150)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
  { grep -E "error" "$L/build.log" | head; exit 1; }
if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests (-j4)"
  T="test_direct_gpu|test_direct_pc_gpu|test_overlap_gpu|test_fsys_gpu|test_fsys_block_gpu"
  T="$T|test_onerun_gpu|test_pc_multi_gpu|test_pmg_gpu|test_dra_gpu|test_sweep_post_gpu|test_array_gpu"
  (cd "$B" && timeout "$(cap 150)" ctest -R "^($T)\$" -j4 --timeout 140 --output-on-failure \
    > "$L/ctest-gpu.log" 2>&1)
  echo "ctest rc $?"
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_MESH:-}" ] && [ "$(left)" -gt 200 ]; then
  BUILD="$B" DEADLINE=60 OUT="$L" bash scripts/device-meshspeed.sh 2>&1 | tail -25
fi
CMD1M="cases/dra.geo -setnumber Solver/order 3 -setnumber Mesh/elements_per_wavelength 13.3 -setnumber Mesh/frequency 5.8e9 -setnumber Solver/frequency 5.8e9"
run1m() { # LABEL [env...]
  local lab=$1 ts rc
  shift
  [ "$(left)" -lt 40 ] && return 0
  step "the 1M run: $lab"
  ts=$(date +%s.%N)
  # shellcheck disable=SC2086
  env "$@" timeout -k 10 "$(cap 60)" "$B/app/emsolve" $CMD1M ${EXTRA:-} --device gpu -v --out /tmp/s6f-$lab \
    > "$L/$lab.log" 2>&1
  rc=$?
  echo "$lab rc $rc wall $(python3 -c "print(round($(date +%s.%N) - $ts, 2))") s" | tee -a "$L/walls.txt"
  grep -E "meshed dra in|assembly: order|operator: [0-9.]+ s, row|waited|values checked|beside the fact|numeric factorization|far field: \.\.\.|post: |writing: |frequency 1/1, " "$L/$lab.log" | cut -c1-150
  cp /tmp/s6f-$lab/summary.json "$L/$lab.json" 2> /dev/null
}
run1m new EMSOLVE_X=1
EXTRA="-setstring Mesh/volume_meshing together" run1m old EMSOLVE_HOSTPATH=0
run1m new2 EMSOLVE_X=1
EXTRA="-setstring Mesh/volume_meshing together" run1m old2 EMSOLVE_HOSTPATH=0
if [ "$(left)" -gt 40 ]; then
  step "the default sweep, order 3"
  ts=$(date +%s.%N)
  timeout -k 10 "$(cap 60)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 --device gpu \
    --out /tmp/s6f-sweep > "$L/sweep.log" 2>&1
  echo "sweep rc $? wall $(python3 -c "print(round($(date +%s.%N) - $ts, 2))") s" | tee -a "$L/walls.txt"
fi
step done
cat "$L/walls.txt"
