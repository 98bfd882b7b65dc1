#!/bin/bash
# device-arrays2.sh - issue 28's multi-column preconditioner applies on the
# GPU machine, from the repository root, one GPU, within DEADLINE seconds
# (default 360):
#   1. build (CUDA) in /tmp and the gpu-labelled tests of the block applies:
#      test_pc_multi_gpu (direct solves with N = 1, 3, 16, 17 columns against
#      one-column solves, 1e-12, and a plain supernodal reference, double and
#      single factors, the cuBLAS supernodes included; block applies of the
#      direct factor, ILU(0) and six pmg variants against N applies),
#      test_ksp_block_gpu, test_pmg_gpu, test_blockop_gpu (the operator's
#      row-range products, bit for bit), test_fsys_block_gpu,
#      test_pc_conformance_gpu (test_direct_gpu, whose 3-column solves go
#      through the same kernels, runs with every gpu test: it needs the
#      order-2 DRA dumped first);
#   2. the 2 x 2 DRA array at order 3 (cases/dra_array.geo, 1.65M unknowns),
#      the four ports as one block against port 1 alone, pmg (COCG, mixed)
#      and the direct factor (BiCGSTAB, single factor), by
#      scripts/device-arrays.sh (SKIP_SPMM=1 SKIP_TESTS=1): the ratio
#      block / one port on summary.json's time_s.solve (target <= 1.6x);
#   3. with the time left: bench/pc_multi_bench on the default DRA's order-3
#      matrix (emsolve --dump-matrix): per-column cost of the block apply of
#      N = 1..16 columns against N single applies, direct and pmg.
# Summary on stdout; logs, summaries and tables in $OUT/arrays2-logs.tgz.
# SKIP_TESTS=1, SKIP_ARRAY=1, SKIP_BENCH=1 leave a part out; BUILD=DIR with
# DIR/app/emsolve already built skips the build.
set -uo pipefail
OUT=${OUT:-out/device-arrays2}
DEADLINE=${DEADLINE:-360}
B=${BUILD:-/tmp/b-arrays2}
L=/tmp/arrays2-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/arrays2-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp arrays2-logs 2> /dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
G=$(command -v ninja > /dev/null && echo "-G Ninja")
if [ ! -x "$B/app/emsolve" ]; then
  step build
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  timeout "$(cap 200)" cmake --build "$B" -j"$(nproc)" --target emsolve pc_multi_bench \
    test_pc_multi test_ksp_block test_pmg test_blockop test_fsys_block \
    test_pc_conformance em_gpu_probe > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"

if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout "$(cap 90)" ctest -R "test_pc_multi_gpu|test_ksp_block_gpu|test_pmg_gpu|test_blockop_gpu|test_fsys_block_gpu|test_pc_conformance_gpu" \
    -j4 --output-on-failure --timeout 85 > "$L/ctest-gpu.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi

if [ -z "${SKIP_ARRAY:-}" ]; then
  step "the 2 x 2 array at order 3: four ports as a block against port 1 alone"
  # its logs: /tmp/arrays-logs, packed into $L/arrays-logs.tgz
  BUILD="$B" SKIP_SPMM=1 SKIP_TESTS=1 DEADLINE=$(($(left) - 45)) OUT="$L" \
    bash scripts/device-arrays.sh > "$L/arrays.log" 2>&1
  grep -E "^=== " "$L/arrays.log"
  # where the time went: preconditioner applies per column, pmg's split
  python3 - /tmp/arrays-logs << 'PY' | tee "$L/array-split.txt"
import json, os, sys
for lab in ("pmg-block", "pmg-single", "direct-block", "direct-single"):
    try:
        f = json.load(open(os.path.join(sys.argv[1], lab, "summary.json")))["frequencies"][0]
    except Exception as e:
        print(f"{lab}: no summary ({e})")
        continue
    s, pc = f["solves"], f["preconditioner"]
    line = (f"{lab:14s} solve {f['time_s']['solve']:6.2f} s; per column: pc {s[0]['preconditioner_s']:.3f} s, "
            f"spmv {s[0]['spmv_s']:.3f} s, vector {s[0]['vector_s']:.3f} s, {s[0]['iterations']} iterations")
    if "coarse_solve_s" in pc:
        line += (f"; pmg {pc['applies']} V-cycles: coarse {pc['coarse_solve_s']:.2f} s, residual "
                 f"{pc['residual_spmv_s']:.2f} s, smoother {pc['smoother_s']:.2f} s")
    print(line)
PY
fi

if [ -z "${SKIP_BENCH:-}" ] && [ "$(left)" -gt 60 ]; then
  step "dump the DRA order-3 system"
  timeout -k 10 "$(cap 60)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out "$L/dump" --dump-matrix /tmp/dra_o3.mat > "$L/dump.log" 2>&1
  step "pc_multi_bench: block apply of N columns against N applies"
  timeout -k 10 "$(cap 200)" "$B/bench/pc_multi_bench" --matrix /tmp/dra_o3.mat --device gpu \
    --prec mixed --pc direct,pmg --reps 3 --out "$L" 2>&1 | tee "$L/pc_multi_bench.log"
fi
step finished
cat /tmp/arrays-logs/array-summary.txt 2> /dev/null | tee "$L/array-summary.txt"
