#!/bin/bash
# device-bench-1m.sh - on the GPU machine, from the repository root: the
# acceptance benchmarks at scale.  Builds with CUDA (unless already built),
# runs the gpu-labelled tests, assembles a >= 1M-unknown order-3 system with
# emsolve itself (a WR-90 line, --dump-matrix), then the SpMV benchmark and
# the solver benchmark on that matrix.
#
#   STEP=spmv  scripts/device-bench-1m.sh    build, gpu tests, matrix, SpMV
#   STEP=solve scripts/device-bench-1m.sh    (same machine, warm) solver
#
# Logs and the benchmarks' .json/.md go to $OUT (the device tool brings them
# back); summaries on stdout.
set -uo pipefail
OUT=${OUT:-out/device}
STEP=${STEP:-spmv}
BUILD=${BUILD:-build-gpu}
MAT=${MAT:-$BUILD/wr90_o3.emm}
# WR-90 at 10 GHz, order 3: 180 mm of guide at 20 elements per wavelength
# is ~1.05M unknowns and ~83M nonzeros.
LEN=${LEN:-180}
EPW=${EPW:-20}
mkdir -p "$OUT"
. scripts/device-setup.sh
T0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - T0 ))s)"; }

build() {
  step "configure + build"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$OUT/configure.log" 2>&1 \
    || { tail -30 "$OUT/configure.log"; exit 1; }
  cmake --build "$BUILD" -j"$(nproc)" > "$OUT/build.log" 2>&1 \
    || { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
}
matrix() {
  [ -s "$MAT" ] && return
  step "assemble the order-3 system (emsolve --dump-matrix)"
  "$BUILD/app/emsolve" cases/waveguide.geo --device cpu --out "$OUT/wr90" --dump-matrix "$MAT" \
    -setnumber Solver/order 3 -setnumber Geometry/length "$LEN" \
    -setnumber Mesh/elements_per_wavelength "$EPW" -setstring Solver/preconditioner jacobi \
    -setnumber Solver/max_iterations 1 -setstring Output/fields none > "$OUT/assemble.log" 2>&1
  echo "rc=$?"; grep -E "mesh:|unknowns|nnz|matrix written|error" "$OUT/assemble.log" | head -8
  rm -rf "$OUT/wr90"
}
step "device"; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)|Socket|NUMA node\(s\)" > "$OUT/cpu.txt"; cat "$OUT/cpu.txt"
build
if [ "$STEP" = spmv ]; then
  step "gpu tests"
  ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 120 > "$OUT/gpu-tests.log" 2>&1
  grep -E "Test +#|tests passed|tests failed" "$OUT/gpu-tests.log" | tail -25
  step "compute-sanitizer: block operator"
  t=$(find "$BUILD" -name test_blockop_gpu -type f | head -1)
  compute-sanitizer --tool memcheck --error-exitcode 99 "$t" gpu > "$OUT/sanitizer-blockop.log" 2>&1
  echo "rc=$?"; grep -E "ERROR SUMMARY|passed|failed" "$OUT/sanitizer-blockop.log" | tail -3
  matrix
  step "spmv bench"
  "$BUILD/bench/spmv_bench" --matrix "$MAT" --prec "${PREC:-both}" --reps 20 --out "$OUT/spmv" \
    > "$OUT/spmv.log" 2>&1
  echo "rc=$?"; sed -n '/^matrix/,$p' "$OUT/spmv.log" | tail -60
else
  matrix
  step "solve bench"
  "$BUILD/bench/solve_bench" --matrix "$MAT" --tol 1e-8 --budget "${BUDGET:-480}" \
    --gpu-cap "${GPU_CAP:-60}" --cpu-cap "${CPU_CAP:-150}" ${SOLVE_ARGS:-} \
    --out "$OUT/solve" > "$OUT/solve.log" 2>&1
  echo "rc=$?"; grep -vE "iteration +[0-9]+ " "$OUT/solve.log" | tail -45
fi
step "done"
