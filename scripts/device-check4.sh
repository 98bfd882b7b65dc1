#!/bin/bash
# device-check4.sh - the third session's closing check on one GPU, from the
# repository root, within about 9 minutes:
#   1. build (CUDA, with a python that has numpy / scipy) in /tmp/b-check4;
#   2. every gpu-labelled test, 4 at a time (ctest -L gpu);
#   3. issue 24's sweep: scripts/device-sweepfast.sh (the default 13-frequency
#      order-3 DRA sweep: warm-up and default, stage table);
#   4. issue 24's 1M run: scripts/device-overlap.sh (overlap 0 / 1 twice,
#      stage tables, S11 bytes).
# SKIP_TESTS=1, SKIP_SWEEP=1, SKIP_1M=1 leave a part out.  Logs in
# $OUT/check4-logs.tgz (the sub-scripts' archives inside).
set -uo pipefail
OUT=${OUT:-out/device-check4}
B=${BUILD:-/tmp/b-check4}
L=/tmp/check4-logs
mkdir -p "$OUT" "$L"
trap 'cp /tmp/sweepfast-logs.tgz /tmp/overlap-logs.tgz "$L"/ 2> /dev/null;
      tar czf "$OUT/check4-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp check4-logs 2> /dev/null' EXIT
T0=$(date +%s)
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
  cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head; exit 1; }
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  step "ctest -L gpu -j4"
  (cd "$B" && timeout "${TEST_CAP:-240}" ctest -L gpu -j4 --timeout 200 --output-on-failure \
    > "$L/ctest-gpu.log" 2>&1)
  echo "ctest rc $?"
  grep -E "tests passed|tests failed|Total Test time" "$L/ctest-gpu.log"
  sed -n '/The following tests/,$p' "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_SWEEP:-}" ]; then
  step "issue 24: the 13-frequency sweep"
  BUILD="$B" OUT=/tmp bash scripts/device-sweepfast.sh 2>&1 | tee "$L/sweepfast.txt" | tail -40
fi
if [ -z "${SKIP_1M:-}" ]; then
  step "issue 24: the 1M run"
  BUILD="$B" OUT=/tmp bash scripts/device-overlap.sh 2>&1 | tee "$L/overlap.txt" | tail -45
fi
step done
