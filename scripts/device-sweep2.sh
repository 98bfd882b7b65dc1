#!/bin/bash
# device-sweep2.sh - issue 24's default 13-frequency order-3 DRA sweep
# (`emsolve cases/dra.geo -setnumber Solver/order 3 --device gpu`, target
# < 15 s) after the sweep2 branch, on one GPU within about 7 minutes (build ~2, tests <= 2.5, memcheck <= 1, sweeps ~1.5), from
# the repository root:
#   1. build (CUDA) in /tmp/b-sweep2 (BUILD: an existing build to reuse);
#   2. the gpu tests of what changed: the value refill (kept staging, values
#      uploaded from page-locked memory: test_spmat_refill_gpu), the direct
#      factor (the kept transposed entries: test_direct_gpu), the frequency
#      system (test_fsys_gpu, test_fsys_block_gpu), the outputs beside the
#      next solve (test_sweep_post_gpu), test_overlap_gpu, test_dra_gpu;
#      then compute-sanitizer memcheck of test_spmat_refill gpu (capped);
#   3. the sweep: a warm-up (default), "new" (the default), "new-all"
#      (new with Solver/ahead_threads 0: the assembly ahead and the outputs
#      on every thread), "new-4" (ahead_threads 4); walls, stage tables
#      (stage_table.py), per-frequency refill, value check and far-field
#      lines, and S11 of each against the warm-up's (the GPU factor's last
#      bits vary from run to run: agreement to ~1e-12 expected).  The "old"
#      run (EMSOLVE_SWEEP2=0, bench/results/2026-11-28-h200-4) went with
#      that switch.
# SKIP_TESTS / SKIP_SAN leave steps out.  Logs: $OUT/sweep2-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-sweep2}
B=${BUILD:-/tmp/b-sweep2}
L=/tmp/sweep2-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/sweep2-logs.tgz" --exclude="*.vtk" -C /tmp sweep2-logs 2> /dev/null' EXIT
T0=$(date +%s)
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
PY=
for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c "import numpy" 2> /dev/null && { PY=$p; break; }
done
[ -z "$PY" ] && PY=$(command -v python3)
[ -d /opt/emdeps/python ] && export PYTHONPATH=/opt/emdeps/python${PYTHONPATH:+:$PYTHONPATH}
if [ ! -x "$B/app/emsolve" ]; then
  step build
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON -DEM_PYTHON3="$PY" \
    > "$L/configure.log" 2>&1
  cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head; exit 1; }
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout 150 ctest -R "test_spmat_refill_gpu|test_direct_gpu|test_fsys_gpu|test_fsys_block_gpu|test_sweep_post_gpu|test_overlap_gpu|test_dra_gpu" \
    -j4 --timeout 140 --output-on-failure > "$L/ctest-gpu.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null; then
  step "memcheck test_spmat_refill gpu"
  timeout 60 compute-sanitizer --tool memcheck --leak-check no "$B/tests/formats/test_spmat_refill" gpu \
    > "$L/memcheck-spmat_refill.log" 2>&1
  echo "memcheck test_spmat_refill gpu: rc $? ($(grep -E "ERROR SUMMARY" "$L/memcheck-spmat_refill.log" | tail -1))"
fi
step sweep
run() { # LABEL then environment assignments and extra arguments
  local lab=$1 t0 rc
  shift
  local env=() extra=()
  for a in "$@"; do [[ $a == *=* ]] && env+=("$a") || extra+=("$a"); done
  t0=$(date +%s.%N)
  env "${env[@]}" timeout 100 "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    --device gpu --verbose "${extra[@]}" --out "$L/$lab" > "$L/$lab.out" 2> "$L/$lab.log"
  rc=$?
  echo "$lab: rc $rc wall $($PY -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s" | tee -a "$L/walls.txt"
}
run warmup
run new
run new-all -setnumber Solver/ahead_threads 0
run new-4 -setnumber Solver/ahead_threads 4
args=()
for lab in new new-all new-4; do
  [ -f "$L/$lab/summary.json" ] && args+=("$lab=$L/$lab:$L/$lab.log")
done
$PY scripts/stage_table.py "${args[@]}" | tee "$L/stages.txt"
for lab in new new-all; do
  echo "$lab operator per frequency (s):" $(grep -o "operator: [0-9.]* s, refilled" "$L/$lab.log" |
    awk '{printf "%s ", $2}')
  echo "$lab value checks per frequency (s):" $(grep -o "equilibrated in [0-9.]* s" "$L/$lab.log" |
    awk '{printf "%s ", $3}')
  echo "$lab numeric per frequency (s):" $(grep -o "numeric: [0-9.]* s" "$L/$lab.log" |
    awk '{printf "%s ", $2}')
  echo "$lab beside the first factorization:" $(grep -o "operator: .*beside the factorization[^;]*" "$L/$lab.log" | head -3)
  echo "$lab far field per frequency:" $(grep -o "farfield: [0-9.]* s[^,]*" "$L/$lab.log" | head -3)
done
$PY - "$L" << 'EOF'
import json, sys
L = sys.argv[1]
def s11(lab):
    d = json.load(open(f"{L}/{lab}/summary.json"))
    return [complex(*f["ports"][0]["S_row"][0]) for f in d["frequencies"]]
try:
    a = s11("warmup")
    for lab in ("new", "new-all", "new-4"):
        b = s11(lab)
        print(f"S11 {lab} vs warmup: {len(b)} frequencies, max |dS11| {max(abs(x - y) for x, y in zip(a, b)):.2e}")
except Exception as e:
    print("S11 comparison failed:", e)
EOF
step done
