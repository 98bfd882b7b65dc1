#!/bin/bash
# device-s5.sh - the fourth session's gpu check on one GPU, from the
# repository root, within DEADLINE (default 560) s:
#   1. build everything (CUDA, a python with numpy / scipy) in /tmp/b-s5;
#   2. every gpu-labelled test, 4 at a time (ctest -L gpu);
#   3. compute-sanitizer memcheck of the kernels this session touched:
#      test_spmm gpu quick (the interleaved SpMM and its packing),
#      test_solver_vec gpu (caxpbypcz), test_spmat_refill gpu (the kept
#      staging, the page-locked values), each capped.
# The benches then reuse the build (BUILD=/tmp/b-s5 SKIP_TESTS=1 SKIP_SAN=1
# scripts/device-blocksolve.sh, scripts/device-sweep2.sh,
# scripts/device-onerun.sh) in the next calls while the machine is warm.
# Logs: $OUT/s5-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-s5}
DEADLINE=${DEADLINE:-560}
B=${BUILD:-/tmp/b-s5}
L=/tmp/s5-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s5-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp s5-logs 2> /dev/null' EXIT
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
if [ ! -x "$B/app/emsolve" ]; then
  step build
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} > "$L/configure.log" 2>&1
  timeout "$(cap 240)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head; exit 1; }
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  step "ctest -L gpu -j4"
  (cd "$B" && timeout "$(cap 300)" ctest -L gpu -j4 --timeout 200 --output-on-failure \
    > "$L/ctest-gpu.log" 2>&1)
  echo "ctest rc $?"
  grep -E "tests passed|tests failed|Total Test time" "$L/ctest-gpu.log"
  sed -n '/The following tests/,$p' "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null; then
  for t in "formats/test_spmm gpu quick" "solver/test_solver_vec gpu" "formats/test_spmat_refill gpu"; do
    set -- $t
    [ "$(left)" -lt 20 ] && break
    step "memcheck $*"
    n=$(basename "$1")
    (cd "$B/tests" && timeout "$(cap 60)" compute-sanitizer --tool memcheck --error-exitcode 9 \
      "./$1" "${@:2}" > "$L/memcheck-$n.log" 2>&1)
    echo "memcheck $n: rc $? ($(grep -h "ERROR SUMMARY" "$L/memcheck-$n.log" | tail -1))"
  done
fi
step done
