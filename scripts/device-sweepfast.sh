#!/bin/bash
# device-sweepfast.sh - issue 24's default 13-frequency order-3 DRA sweep
# (`emsolve cases/dra.geo -setnumber Solver/order 3 --device gpu`) on one
# GPU from the repository root: a warm-up run (GPU, page cache; not
# compared), then the default ("full": the kept value map and the next
# frequency assembled on a second host thread while the GPU refactors,
# model/fsys_next.c).  The A/B runs "before" and "map" (EMSOLVE_SWEEPFAST,
# bench/results/2026-11-28-h200-3) went with that switch.  Prints the
# walls, the stage table (stage_table.py), the per-frequency operator,
# assembly and far-field lines and the first S11 rows;
# plus test_spmat_refill_gpu (the value refill bit for bit as a fresh
# build on the GPU).  Logs in $OUT/sweepfast-logs.tgz.  About 2 minutes
# with a build (BUILD: an existing build directory to reuse).
set -uo pipefail
OUT=${OUT:-out/device-sweepfast}
B=${BUILD:-/tmp/b-sweepfast}
L=/tmp/sweepfast-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/sweepfast-logs.tgz" --exclude="*.vtk" -C /tmp sweepfast-logs 2> /dev/null' EXIT
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
if [ ! -x "$B/app/emsolve" ] || [ ! -x "$B/tests/formats/test_spmat_refill" ]; then
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  cmake --build "$B" -j"$(nproc)" --target emsolve test_spmat_refill > "$L/build.log" 2>&1 ||
    { tail -20 "$L/build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tee "$L/device.txt"
"$B/tests/formats/test_spmat_refill" gpu > "$L/test_spmat_refill_gpu.log" 2>&1
echo "test_spmat_refill_gpu: rc $? ($(tail -1 "$L/test_spmat_refill_gpu.log"))"
PY=$(command -v python3)
run() { # LABEL
  local lab=$1 t0
  t0=$(date +%s.%N)
  timeout 100 "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    --device gpu --verbose --out "$L/$lab" > "$L/$lab.out" 2> "$L/$lab.log"
  echo "$lab: rc $? wall $($PY -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s"
}
run warmup
run full
[ -f "$L/full/summary.json" ] && $PY scripts/stage_table.py "full=$L/full:$L/full.log" | tee "$L/stages.txt"
lab=full
echo "$lab operator per frequency (s):" $(grep -o "operator: [0-9.]* s, refilled" "$L/$lab.log" |
  awk '{printf "%s ", $2}')
echo "$lab assembly per frequency (s):" $(grep -o "assembly: order .*, [0-9.]* s (symbolic\|previous frequency factorized ([0-9.]* s)" "$L/$lab.log" |
  grep -o "[0-9.]* s\( (symbolic\|)\)" | awk '{printf "%s ", $1}')
echo "$lab far field per frequency:" $(grep -o "power balance [0-9.]*; [0-9.]* s ([^)]*)" "$L/$lab.log" | head -3)
grep -v "^[!#]" "$L/full/dra.s1p" | head -3
