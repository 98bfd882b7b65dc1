#!/bin/bash
# device-house.sh - every gpu-labelled test on the GPU machine (issue 23):
# the C suites on the GPU backend (conformance, solver, direct, pmg, eigen)
# and the physics tests of tests/app again with --device gpu (DRA, WR-90,
# coax, eigen, scatter, ...).  From the repository root, about 8 minutes:
# build (at most 5), `ctest -L gpu` 4 tests at a time, a pass/fail summary
# on stdout, the logs in $OUT/house-solver-logs.tgz.
#
# The lead runs it with the device tool, e.g.
#   run(command="bash scripts/device-house.sh", carry=[".device"], timeout_s=600)
# .device/ holds ../shared/gpu/pack-deps.sh's emdeps.tar.xz (Gmsh, METIS) and
# scripts/pack-device-extras.sh's extras.tar.xz (LAPACK, M4RI, and meshio +
# rich for the tests that read VTK back: test_outputs_gpu,
# test_eigen_curved_gpu).  Environment: OUT, BUILD (/tmp/b-house), DEADLINE
# (seconds in all, 480), JOBS (tests at once, 4), TESTS (a ctest -R regex to
# run fewer).
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-480}
B=${BUILD:-/tmp/b-house}
J=${JOBS:-4}
L=/tmp/house-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/house-solver-logs.tgz" --exclude="*.vtk" -C /tmp house-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
. scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
git log -1 --format='commit %h %s' 2> /dev/null | tee "$L/commit.txt"

# A python3 with numpy and scipy for tests/app (Debian's here; the image's
# there); meshio from the extras where that python lacks it.
PY=
for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c "import numpy, scipy" 2> /dev/null && { PY=$p; break; }
done
if [ -z "$PY" ]; then
  echo "no python3 with numpy and scipy: the tests/app gpu tests will fail"
else
  if ! "$PY" -c "import meshio" 2> /dev/null && [ -d /opt/emdeps/python ]; then
    export PYTHONPATH=/opt/emdeps/python${PYTHONPATH:+:$PYTHONPATH}
  fi
  "$PY" -c "import meshio" 2> /dev/null ||
    echo "meshio missing (scripts/pack-device-extras.sh packs it): test_outputs_gpu and" \
      "test_eigen_curved_gpu will fail"
  echo "python: $PY ($("$PY" -c 'import numpy, scipy; print("numpy", numpy.__version__, "scipy", scipy.__version__)'))"
fi

G=$(command -v ninja > /dev/null && echo "-G Ninja")
if [ ! -x "$B/app/emsolve" ]; then
  step build
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} \
    > "$L/configure.log" 2>&1 || { tail -20 "$L/configure.log"; exit 1; }
  grep -E "missing|LAPACK|M4RI" "$L/configure.log" | head -10
  timeout "$(cap 300)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
    { grep -E "error|Error" "$L/build.log" | head -20; exit 1; }
fi

step "ctest -L gpu -j$J"
(cd "$B" && ctest -L gpu -N | tail -1)
(cd "$B" && timeout "$(cap 600)" ctest -L gpu ${TESTS:+-R "$TESTS"} -j"$J" --timeout 300 \
  --output-on-failure > "$L/ctest-gpu.log" 2>&1)
echo "ctest rc $?"
cp "$B/Testing/Temporary/LastTest.log" "$L/" 2> /dev/null

step summary
# one line per test: status and seconds, the slowest first; then the verdict
grep -E "^ *[0-9]+/[0-9]+ Test +#" "$L/ctest-gpu.log" |
  sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.* *(\*\*\*)?(.*[^ ]) +([0-9.]+) sec$/\4 \1 \3/' |
  sort -rn | awk '{s = $1; n = $2; $1 = $2 = ""; printf "%8.1f s  %-28s%s\n", s, n, $0}' |
  tee "$L/summary.txt"
grep -E "tests passed|tests failed|Total Test time" "$L/ctest-gpu.log"
sed -n '/The following tests/,$p' "$L/ctest-gpu.log"
# physics tests: their failed checks
grep -hE "^FAIL:" "$L/ctest-gpu.log" | head -30
step done
