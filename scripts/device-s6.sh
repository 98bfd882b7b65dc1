#!/bin/bash
# device-s6.sh - the fifth session's first gpu check on one GPU, from the
# repository root, within DEADLINE (default 560) s:
#   1. build everything (CUDA, a python with numpy / scipy) in /tmp/b-s6;
#   2. every gpu-labelled test, 4 at a time (ctest -L gpu): the review
#      mends of the last session (the GPU factor's scatter map by
#      em_spmat_pattern_hash, pmg without its vops sync) had only compiled;
#   3. compute-sanitizer memcheck of test_pc_multi gpu (the wide
#      triangles' columns on streams of their own, col_streams);
#   4. the direct solves' variants, N = 1, 4, on the DRA's order-3 factor
#      (bench/pc_multi_bench: st+tlev = last session's default, +cst =
#      this one's, +cst+ownb, +own), direct and pmg;
#   5. the 2 x 2 array at order 3 (scripts/device-arrays.sh): the four
#      ports as one block against port 1 alone, pmg and direct.
# SKIP_TESTS, SKIP_SAN, SKIP_VARIANTS, SKIP_ARRAY leave a part out; TESTS
# (a ctest -R regex) runs some gpu tests only, VARIANTS picks the variants.
# Logs: $OUT/s6-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-s6}
DEADLINE=${DEADLINE:-560}
B=${BUILD:-/tmp/b-s6}
L=/tmp/s6-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s6-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" --exclude="farfield_*" --exclude="pattern_*" -C /tmp s6-logs 2> /dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
PY=
for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c "import numpy, scipy" 2> /dev/null && { PY=$p; break; }
done
[ -d /opt/emdeps/python ] && export PYTHONPATH=/opt/emdeps/python${PYTHONPATH:+:$PYTHONPATH}
if [ ! -x "$B/app/emsolve" ] || [ -n "${REBUILD:-}" ]; then
  step build
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} > "$L/configure.log" 2>&1
  timeout "$(cap 240)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head; exit 1; }
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  step "ctest -L gpu -j4 ${TESTS:+-R $TESTS}"
  (cd "$B" && timeout "$(cap 300)" ctest -L gpu ${TESTS:+-R "$TESTS"} -j4 --timeout 200 \
    --output-on-failure > "$L/ctest-gpu.log" 2>&1)
  echo "ctest rc $?"
  grep -E "tests passed|tests failed|Total Test time" "$L/ctest-gpu.log"
  sed -n '/The following tests/,$p' "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null && [ "$(left)" -gt 300 ]; then
  step "memcheck test_pc_multi gpu"
  (cd "$B/tests" && timeout "$(cap 60)" compute-sanitizer --tool memcheck --error-exitcode 9 \
    ./solver/test_pc_multi gpu > "$L/memcheck-pc_multi.log" 2>&1)
  echo "memcheck test_pc_multi: rc $? ($(grep -h "ERROR SUMMARY" "$L/memcheck-pc_multi.log" | tail -1))"
fi
if [ -z "${SKIP_ARRAY:-}" ] && [ "$(left)" -gt 150 ]; then
  step "the 2 x 2 array at order 3"
  rm -rf /tmp/arrays-logs
  BUILD="$B" SKIP_SPMM=1 SKIP_TESTS=1 DEADLINE=$(($(left) - 80)) OUT="$L" \
    bash scripts/device-arrays.sh > "$L/arrays.log" 2>&1
  cat /tmp/arrays-logs/runs.txt /tmp/arrays-logs/array-summary.txt 2> /dev/null | tee "$L/array-summary.txt"
  for d in /tmp/arrays-logs/*/; do
    mkdir -p "$L/arr-$(basename "$d")" && cp "$d/summary.json" "$L/arr-$(basename "$d")/" 2> /dev/null
  done
  cp /tmp/arrays-logs/*.log "$L/" 2> /dev/null
fi
if [ -z "${SKIP_VARIANTS:-}" ] && [ "$(left)" -gt 70 ]; then
  step "dump the DRA order-3 system"
  timeout -k 10 "$(cap 60)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out /tmp/s6-dump --dump-matrix /tmp/dra_o3.mat > "$L/dump.log" 2>&1
  step "pc_multi_bench: the direct solves' variants, N = 1, 4"
  timeout -k 10 "$(cap 90)" "$B/bench/pc_multi_bench" --matrix /tmp/dra_o3.mat --device gpu \
    --prec mixed --pc direct,pmg --reps 5 --ns 1,4 \
    --variants "${VARIANTS:-st+tlev,st+tlev+cst,st+tlev+cst+ownb,st+tlev+own,st+tlev+own+cst}" \
    > "$L/pc_multi_variants.log" 2>&1
  echo "pc_multi_bench (variants) rc=$?"
  grep -E "^(direct|pmg)" "$L/pc_multi_variants.log" | cut -c1-200
fi
step done
