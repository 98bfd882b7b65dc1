#!/bin/bash
# device-results.sh - issue 32's GPU part on the GPU machine: a cancel
# request (emsolve's SIGINT / SIGTERM flag) stops the GPU Krylov methods
# within an iteration and the GPU direct factorization between levels
# (test_solver_cancel_gpu), and emsolve --device gpu honours SIGINT /
# SIGTERM within 2 s in the Krylov iterations, the factorization and the
# fields writer, the earlier result untouched (test_signals_gpu).  From the
# repository root, about 4 minutes: build (at most 5 min when not built),
# the two tests, a pass/fail summary on stdout, the logs in
# $OUT/results-logs.tgz.
#
# The lead runs it with the device tool, e.g.
#   run(command="bash scripts/device-results.sh", carry=[".device"], timeout_s=600)
# (.device/ as for scripts/device-house.sh: ../shared/gpu/pack-deps.sh's
# emdeps.tar.xz, scripts/pack-device-extras.sh's extras.tar.xz).
# Environment: OUT, BUILD (/tmp/b-results; /tmp/b-house is reused when
# built), DEADLINE (seconds in all, 480).
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-480}
B=${BUILD:-/tmp/b-results}
L=/tmp/results-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/results-logs.tgz" --exclude="*.vtk" -C /tmp results-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
. scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
git log -1 --format='commit %h %s' 2> /dev/null | tee "$L/commit.txt"

PY=
for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c "import numpy" 2> /dev/null && { PY=$p; break; }
done
[ -z "$PY" ] && echo "no python3 with numpy: test_signals_gpu will fail"

G=$(command -v ninja > /dev/null && echo "-G Ninja")
if [ ! -x "$B/app/emsolve" ]; then
  step build
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} \
    > "$L/configure.log" 2>&1 || { tail -20 "$L/configure.log"; exit 1; }
  timeout "$(cap 300)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
    { grep -E "error|Error" "$L/build.log" | head -20; exit 1; }
fi

step "ctest test_solver_cancel_gpu test_signals_gpu"
(cd "$B" && timeout "$(cap 400)" ctest -R "^(test_solver_cancel_gpu|test_signals_gpu)$" -j2 \
  --timeout 300 --output-on-failure > "$L/ctest.log" 2>&1)
echo "ctest rc $?"
grep -E "Test +#|tests passed|tests failed" "$L/ctest.log"
# the checks: every line, the failed ones first
grep -hE "^FAIL:" "$L/ctest.log" | head -30
grep -hE "^ok: .*(stopped|exit)" "$L/ctest.log" | head -20
step done
