#!/bin/bash
# device-bench-direct.sh - on the GPU machine, from the repository root: the
# GPU sparse LDL^T end to end.  Build with CUDA, the gpu-labelled tests
# (test_direct_gpu compares the GPU factor with the CPU one, the order-2 DRA
# system included), compute-sanitizer memcheck on test_direct_gpu, then the
# order-3 DRA at ~584k unknowns (Mesh/elements_per_wavelength 11) written by
# emsolve (which solves it on the GPU on the way: the app path), and
# direct_bench on that system: numeric factorization on all host cores and
# on the GPU in the same run (median of REPEAT), the device's ZGEMM rate,
# solves with 1 and 8 right-hand sides.  Logs under $OUT; a summary last.
# Environment: OUT (default out/device), DEADLINE seconds (default 570),
# EPW (11), REPEAT (3), SKIP_TESTS=1 to go straight to the bench.
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-570}
EPW=${EPW:-11}
REPEAT=${REPEAT:-3}
mkdir -p "$OUT"
LOGS=$OUT
OUT=/tmp/direct-logs # everything here, bundled at the end (the tool returns few files)
mkdir -p "$OUT"
trap 'tar czf "$LOGS/direct-logs.tgz" -C /tmp direct-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
. scripts/device-setup.sh
B=${BUILD:-/tmp/emsolve-build}
step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
nproc | sed 's/^/host cores: /' | tee -a "$OUT/device.txt"
step "configure + build"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$OUT/configure.log" 2>&1 ||
  { tail -20 "$OUT/configure.log"; exit 1; }
timeout "$(cap 300)" cmake --build "$B" -j"$(nproc)" > "$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  step "gpu tests"
  timeout "$(cap 240)" ctest --test-dir "$B" -L gpu --output-on-failure --timeout 200 \
    > "$OUT/gpu-tests.log" 2>&1
  grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" "$OUT/gpu-tests.log" | head -20
  EM_TEST_VERBOSE=1 timeout "$(cap 120)" "$B/tests/solver/test_direct_gpu" gpu "$B/dra_o2.mat" \
    > "$OUT/test-direct-gpu-verbose.log" 2>&1
  echo "test_direct_gpu rc=$?"; cat "$OUT/test-direct-gpu-verbose.log" | tail -20
  step "compute-sanitizer memcheck: test_direct_gpu"
  timeout "$(cap 150)" compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 \
    "$B/tests/solver/test_direct_gpu" gpu > "$OUT/sanitizer-direct.log" 2>&1
  echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|Invalid|error" "$OUT/sanitizer-direct.log" | head -5
fi
step "order-3 DRA, epw $EPW: emsolve --device gpu (mesh, assembly, GPU factor, solve)"
M=/tmp/dra_o3_epw$EPW.mat
timeout "$(cap 240)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
  -setnumber Mesh/elements_per_wavelength "$EPW" -setnumber Solver/frequency 5.8e9 \
  -setstring Output/fields none --device gpu --out /tmp/dra_o3_out --dump-matrix "$M" \
  > "$OUT/emsolve-dra-o3.log" 2>&1
echo "emsolve rc=$?"
grep -E "unknowns|direct:|f = |error|warning" "$OUT/emsolve-dra-o3.log" | head -20
step "direct_bench: CPU (all cores) vs GPU, double and single"
EM_VERBOSE=1 timeout "$(cap 300)" "$B/bench/direct_bench" --matrix "$M" --device both \
  --prec both --repeat "$REPEAT" --nrhs 8 --no-krylov > "$OUT/direct-bench.log" \
  2> "$OUT/direct-bench-verbose.log"
echo "direct_bench rc=$?"
cat "$OUT/direct-bench.log"
grep "GPU level" "$OUT/direct-bench-verbose.log" | head -"${LEVELS:-30}"
for dev in gpu cpu; do
  step "the default 13-frequency order-3 DRA sweep, mesh to S11, --device $dev"
  [ "$(left)" -lt 100 ] && { echo "skipped: $(left) s left"; continue; }
  TV=""; [ -x /usr/bin/time ] && TV="/usr/bin/time -v -o $OUT/sweep-o3-$dev.time"
  ts=$(date +%s.%N)
  $TV timeout "$(cap 200)" "$B/app/emsolve" \
    cases/dra.geo -setnumber Solver/order 3 --device $dev --out /tmp/sweep-o3-$dev \
    -setstring Output/fields none > "$OUT/sweep-o3-$dev.log" 2>&1
  echo "emsolve rc=$? wall $(python3 -c "print(round($(date +%s.%N) - $ts, 1))") s"
  [ -n "$TV" ] && grep -E "Maximum resident" "$OUT/sweep-o3-$dev.time"
  grep -E "ordering|numeric factorization" "$OUT/sweep-o3-$dev.log" | head -3
  grep -E "^[0-9]" "$OUT/sweep-o3-$dev.log" | head -13
  cp /tmp/sweep-o3-$dev/summary.json "$OUT/sweep-o3-$dev-summary.json" 2>/dev/null
  python3 -c "
import json; s = json.load(open('/tmp/sweep-o3-$dev/summary.json'))
print('  time split:', {k: round(v, 2) for k, v in s['time_s'].items()})
print('  per frequency:', [round(sum(f['time_s'].values()), 2) for f in s['frequencies']])
" 2>/dev/null
done
step "done"
