#!/bin/bash
# device-seeds-a.sh - issue 31 items 1 and 2 (seeds 000 and 002) on one GPU
# (H100 or H200), from the repository root, within DEADLINE seconds
# (default 350: under 6 minutes with the build):
#   1. build (CUDA) in $BUILD (/tmp/b-seeds-a) and the gpu-labelled tests
#      of these items: test_carveout_gpu (every L1 / shared carveout and T,
#      bit for bit the driver default's SpMV), test_solve_formats_gpu
#      (seed 000's study on a small SPD system: every SpMV format with both
#      GPU triangular solves converges to 1e-8), test_sellrt_gpu;
#   2. seed 002: the default DRA's order-3 matrix (emsolve --dump-matrix),
#      `spmv_bench --study cache` in double and single: sliced ELLR-T T = 1,
#      2, 4, 8 under the carveouts drv / 0 / 50 / 100 % shared, the nine
#      blocks with T per block against one T, beside cuSPARSE CSR and the
#      copy bandwidth of the same run;
#   3. seed 000: SPD curl-curl + mass (k0^2 = -1) at order 1 (n = 12, 30:
#      ~10k, ~200k rows) and order 2 (n = 7, 17), written as Matrix Market
#      and read back by `solve_bench --matrix FILE.mtx --formats ...`
#      (ILU(0) CG and BiCGSTAB, SpMV in CSR, CSR-vector, sliced ELLR-T, HYB,
#      HEC, AUTO, cuSPARSE; triangular solves levels and cuSPARSE; total
#      time with transfers), and `spmv_bench --quick` on each (HEC against
#      cuSPARSE CSR, the SpMV alone);
#   4. HYB / HEC with their new GPU lanes (T per row in the ELL part, TT
#      per tail row) on the order-3 box of 12 against cuSPARSE (house.md's
#      matrix: before, HEC 0.179 ms, cuSPARSE 0.140 ms), and the gpu tests of
#      every format (test_hyb_gpu, conformance, refill, SpMM, blockop).
# Summary on stdout; logs and tables in $OUT/seeds-a-logs.tgz.  Knobs:
# SKIP_TESTS=1, SKIP_CACHE=1, SKIP_BOX=1, SKIP_SPD=1; SPD="12:1 7:2 30:1 17:2";
# ORDERING (natural) for the ILU; REPS (20) for the SpMV medians.
set -uo pipefail
OUT=${OUT:-out/device-seeds-a}
DEADLINE=${DEADLINE:-350}
B=${BUILD:-/tmp/b-seeds-a}
L=/tmp/seeds-a-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/seeds-a-logs.tgz" --exclude="*.mat" --exclude="*.mtx" --exclude="*.vtk" -C /tmp seeds-a-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
G=$(command -v ninja > /dev/null && echo "-G Ninja")
if [ ! -x "$B/bench/solve_bench" ]; then
  step build
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  timeout "$(cap 200)" cmake --build "$B" -j"$(nproc)" --target emsolve spmv_bench solve_bench \
    test_carveout_gpu test_sellrt_gpu test_hyb_gpu test_spmat_conformance_gpu \
    test_spmat_refill_gpu test_spmm_gpu test_blockop_gpu > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"

if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout "$(cap 100)" ctest -R \
    "test_carveout_gpu|test_solve_formats_gpu|test_spmv_cache_gpu|test_sellrt_gpu|test_hyb_gpu|test_spmat_conformance_gpu|test_spmat_refill_gpu|test_spmm_gpu|test_blockop_gpu" \
    -j3 --output-on-failure --timeout 90 > "$L/ctest-gpu.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi

# ---------------------------------------------- seed 002 on the DRA order 3
if [ -z "${SKIP_CACHE:-}" ]; then
  step "dump the DRA order-3 system (jacobi, 1 iteration: only the matrix is wanted)"
  timeout -k 15 "$(cap 100)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out "$L/dump" --dump-matrix /tmp/dra_o3.mat > "$L/dump.log" 2>&1
  step "spmv_bench --study cache on the DRA order-3 matrix (double, single)"
  timeout -k 15 "$(cap 120)" "$B/bench/spmv_bench" --matrix /tmp/dra_o3.mat --study cache \
    --prec both --reps "${REPS:-20}" --out "$L/cache" > "$L/cache.log" 2>&1
  echo "rc=$?"
  sed -n '/^matrix /,$p' "$L/cache.log"
fi

# ------------- HYB / HEC with T lanes per row: the matrix of house.md's table
# (order-3 box of 12, 200 988 rows; HEC 0.179, HYB 0.190, cuSPARSE 0.140 ms
# on 2026-11-27 with a thread per row)
if [ -z "${SKIP_BOX:-}" ]; then
  step "spmv_bench --fem-box 12 --order 3 --quick (double): HEC / HYB against cuSPARSE"
  timeout -k 10 "$(cap 60)" "$B/bench/spmv_bench" --fem-box 12 --order 3 --quick --prec double \
    --reps "${REPS:-20}" --out "$L/box12" > "$L/box12.log" 2>&1
  echo "rc=$?"
  grep -E "^(csr|csr-vector|sellr-t|auto|hyb|hec|bitmap|cusparse)" "$L/box12.log"
fi

# ----------------------------------------------- seed 000 on SPD FEM matrices
if [ -z "${SKIP_SPD:-}" ]; then
  for s in ${SPD:-12:1 7:2 30:1 17:2}; do
    n=${s%:*} p=${s#*:} f=/tmp/spd-o$p-n$n.mtx
    [ "$(left)" -lt 25 ] && { echo "SPD $s: skipped (time)"; continue; }
    step "SPD order $p, n = $n: write $f"
    timeout -k 10 "$(cap 60)" "$B/bench/solve_bench" --fem-spd "$s" --write-mtx "$f" --write-only --out "$L/spd-o$p-n$n-gen" > "$L/spd-o$p-n$n-gen.log" 2>&1
    grep -E "matrix written|error" "$L/spd-o$p-n$n-gen.log"
    step "SPD order $p, n = $n: ILU(0) CG / BiCGSTAB by SpMV format (from the .mtx)"
    timeout -k 10 "$(cap 90)" "$B/bench/solve_bench" --matrix "$f" --no-cpu \
      --formats csr,csr-vector,sellr-t,hyb,hec,auto,cusparse --methods cg,bicgstab \
      --trsv levels,cusparse --ordering "${ORDERING:-natural}" --max-it 3000 \
      --out "$L/spd-o$p-n$n" > "$L/spd-o$p-n$n.log" 2>&1
    echo "rc=$?"
    sed -n '/^be /,$p' "$L/spd-o$p-n$n.log"
    step "SPD order $p, n = $n: spmv_bench --quick (double)"
    timeout -k 10 "$(cap 40)" "$B/bench/spmv_bench" --matrix "$f" --quick --prec double \
      --reps "${REPS:-20}" --out "$L/spmv-o$p-n$n" > "$L/spmv-o$p-n$n.log" 2>&1
    grep -E "^(csr|csr-vector|sellr-t|auto|hyb|hec|cusparse)" "$L/spmv-o$p-n$n.log" | grep -v "^  "
  done
fi
step "done"
