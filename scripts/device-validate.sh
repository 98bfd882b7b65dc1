#!/bin/bash
# device-validate.sh - on the GPU machine, from the repository root: build
# with CUDA, run the gpu-labelled tests, run them again under
# compute-sanitizer (memcheck), quick SpMV and solver benchmarks, and an
# end-to-end emsolve run on the GPU compared with the CPU.  Every step has a
# time limit inside DEADLINE seconds (default 560); logs are bundled into
# $OUT/logs.tgz (the device tool returns few files), summaries on stdout.
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-560}
LOG=/tmp/emsolve-device-logs
rm -rf "$LOG"; mkdir -p "$OUT" "$LOG"
trap 'tar czf "$OUT/logs.tgz" -C /tmp emsolve-device-logs 2>/dev/null' EXIT
. scripts/device-setup.sh
BUILD=${BUILD:-build-gpu}
T0=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
step() { echo "=== $* (t=$(( $(date +%s) - T0 ))s)"; }
cap() { local want=$1 l; l=$(left); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 5 ] && want=5; echo "$want"; }
step "device"; nvidia-smi > "$LOG/nvidia-smi.txt" 2>&1; grep -E "NVIDIA|MiB" "$LOG/nvidia-smi.txt" | head -3
step "configure + build"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$LOG/configure.log" 2>&1 || { tail -30 "$LOG/configure.log"; exit 1; }
timeout "$(cap 240)" cmake --build "$BUILD" -j"$(nproc)" > "$LOG/build.log" 2>&1 || { grep -E "error|Error" "$LOG/build.log" | head -30; exit 1; }
step "gpu tests"
timeout "$(cap 120)" ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 90 > "$LOG/gpu-tests.log" 2>&1
grep -E "Test +#|tests passed|tests failed" "$LOG/gpu-tests.log" | tail -25
step "compute-sanitizer memcheck"
ctest --test-dir "$BUILD" -L gpu --show-only=json-v1 > "$LOG/gpu-tests.json"
timeout "$(cap 140)" python3 - "$LOG" "$(cap 140)" <<'PY' > "$LOG/sanitizer.log" 2>&1
import json, subprocess, sys, time
log, budget = sys.argv[1], float(sys.argv[2])
t_end = time.time() + budget - 5
for t in json.load(open(f"{log}/gpu-tests.json"))["tests"]:
    if time.time() > t_end - 10:
        print(f"{t['name']:32s} skipped (time)", flush=True); continue
    cmd = ["compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "99",
           "--print-limit", "10"] + t["command"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=min(40, t_end - time.time()))
        rc, txt = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, txt = "timeout", ""
    open(f"{log}/san_{t['name']}.txt", "w").write(txt)
    errs = [l.strip() for l in txt.splitlines() if "ERROR SUMMARY" in l or "Invalid" in l][:4]
    print(f"{t['name']:32s} rc={rc} {time.time() - t0:5.1f}s " + " | ".join(errs), flush=True)
PY
cat "$LOG/sanitizer.log"
step "spmv bench (small)"
timeout "$(cap 70)" "$BUILD/bench/spmv_bench" --fem-box 12 --order 3 --prec double --reps 10 --out "$LOG/spmv-small" > "$LOG/spmv-small.log" 2>&1; echo "rc=$?"
grep -vE "^\s*$" "$LOG/spmv-small.log" | tail -40
step "solve bench (small)"
timeout "$(cap 70)" "$BUILD/bench/solve_bench" --gen 24 --budget 55 --out "$LOG/solve-small" > "$LOG/solve-small.log" 2>&1; echo "rc=$?"
tail -25 "$LOG/solve-small.log"
step "emsolve end to end: GPU vs CPU"
for dev in gpu cpu; do
  timeout "$(cap 40)" "$BUILD/app/emsolve" cases/waveguide.geo --device $dev --out "$LOG/wg-$dev" -setnumber Solver/order 3 -setstring Output/fields none > "$LOG/wg-$dev.log" 2>&1
  echo "$dev rc=$?"; grep -E "device:|ilu0|converged|stopped|f = |error" "$LOG/wg-$dev.log" | head -8
done
step "done"
