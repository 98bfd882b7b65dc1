#!/bin/bash
# device-blocksolve.sh - issue 28, the block solves' remaining costs (branch
# blocksolve), on the GPU machine from the repository root, one GPU, within
# DEADLINE seconds (default 480, 8 minutes with the build):
#   1. build (CUDA) in /tmp/b-blocksolve; the gpu tests: test_spmm_gpu (every
#      format's SpMM, now also from the interleaved x: CPU reference and, bit
#      for bit, the SpMV, on the awkward matrices, k = 1, 2, 3, 4, 5, 8, 11;
#      em_vecs_interleave vs a host loop; the nine-block operator with and
#      without the interleaved x, k = 2, 3, 4, 5, 8), test_blockop_gpu,
#      test_solver_vec_gpu (em_vec_caxpbypcz bit for bit axpbypcz),
#      test_ksp_block_gpu (lockstep BiCGSTAB with the fused vector work),
#      test_pmg_gpu (the stamp list sized per cycle: one wait per cycle),
#      test_pc_multi_gpu;
#   2. compute-sanitizer memcheck on test_spmm gpu quick (the interleave and
#      interleaved SpMM kernels) and test_solver_vec gpu (caxpbypcz);
#   3. the 2 x 2 DRA array at order 3 (scripts/device-arrays.sh, SKIP_SPMM=1
#      SKIP_TESTS=1): the four ports as one block against port 1 alone, pmg
#      (COCG) and direct (BiCGSTAB), target <= 1.6x; then pmg's block once
#      more with EMSOLVE_SPMM_IL=0 (the products from the columns, as
#      before) and the per-iteration split of every run;
#   4. the default DRA's order-3 system: bench/spmm_bench (the nine-block
#      operator with N = 1, 2, 4, 8, 16 vectors, x interleaved and from the
#      columns, same run), bench/pc_multi_bench pmg --spmm il,cols --profile
#      (the V-cycle's residual products with either x, same preconditioner);
#   5. if time is left: the direct solve's variants at N = 1, 4 on the DRA
#      factor (measured only: where four columns could cost less).
# Summary on stdout; logs in $OUT/blocksolve-logs.tgz.  SKIP_TESTS=1,
# SKIP_SAN=1, SKIP_BENCH=1, SKIP_ARRAY=1, SKIP_AB=1, SKIP_VARIANTS=1 leave a
# part out;
# BUILD=DIR with DIR/app/emsolve built skips the build.
set -uo pipefail
OUT=${OUT:-out/device-blocksolve}
DEADLINE=${DEADLINE:-480}
B=${BUILD:-/tmp/b-blocksolve}
L=/tmp/blocksolve-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/blocksolve-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp blocksolve-logs 2> /dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
G=$(command -v ninja > /dev/null && echo "-G Ninja")
if [ ! -x "$B/app/emsolve" ]; then
  step build
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  timeout "$(cap 200)" cmake --build "$B" -j"$(nproc)" --target emsolve pc_multi_bench spmm_bench \
    test_spmm test_blockop test_solver_vec test_ksp_block test_pmg test_pc_multi em_gpu_probe \
    > "$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
git log -1 --format="commit %h %s" 2> /dev/null | cut -c1-120 | tee "$L/commit.txt"

if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout "$(cap 100)" ctest -R \
    "test_spmm_gpu|test_blockop_gpu|test_solver_vec_gpu|test_ksp_block_gpu|test_pmg_gpu|test_pc_multi_gpu" \
    -j6 --output-on-failure --timeout 95 > "$L/ctest-gpu.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi

if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null; then
  # test_spmm quick: CSR-vector and sliced ELLR-T, k = 1, 3, 5, 8
  for t in formats/test_spmm:quick solver/test_solver_vec:; do
    exe=${t%%:*} arg=${t#*:} name=$(basename "${t%%:*}")
    step "compute-sanitizer memcheck: $exe gpu $arg"
    # shellcheck disable=SC2086
    timeout -k 5 "$(cap "${SAN_CAP:-45}")" compute-sanitizer --tool memcheck --error-exitcode 3 \
      "$B/tests/$exe" gpu $arg > "$L/memcheck-$name.log" 2>&1
    echo "memcheck $name rc=$? (0: clean; 3: errors; 124: out of time)"
    grep -E "ERROR SUMMARY|Invalid|FAILED" "$L/memcheck-$name.log" | head -5
  done
fi

if [ -z "${SKIP_ARRAY:-}" ] && [ "$(left)" -gt 150 ]; then
  step "the 2 x 2 array at order 3: four ports as a block against port 1 alone"
  rm -rf /tmp/arrays-logs
  BUILD="$B" SKIP_SPMM=1 SKIP_TESTS=1 DEADLINE=$(($(left) - 100)) OUT="$L" \
    bash scripts/device-arrays.sh > "$L/arrays.log" 2>&1
  grep -E "^=== " "$L/arrays.log" | tail -2
  cat /tmp/arrays-logs/array-summary.txt 2> /dev/null | tee "$L/array-summary.txt"
  if [ -z "${SKIP_AB:-}" ] && [ -f /tmp/arrays-o3.msh ] && [ "$(left)" -gt 110 ]; then
    step "pmg block again with EMSOLVE_SPMM_IL=0 (products from the columns, as before)"
    EMSOLVE_SPMM_IL=0 timeout -k 10 "$(cap 40)" "$B/app/emsolve" cases/dra_array.geo \
      -setnumber Solver/order 3 -setnumber Solver/frequency 5.8e9 -setstring Output/fields none \
      -setstring Farfield/compute off --device gpu -v -setstring Solver/preconditioner pmg \
      -setstring Solver/method cocg -setstring Solver/precision mixed \
      -setstring Mesh/file /tmp/arrays-o3.msh --out /tmp/arrays-logs/pmg-block-cols \
      > /tmp/arrays-logs/pmg-block-cols.log 2>&1
    echo "pmg-block-cols rc=$?"
  fi
  # per iteration: the block (iterations = its longest column) and port 1
  # alone, operator products / preconditioner / vector work; pmg's split
  python3 - /tmp/arrays-logs << 'PY' | tee "$L/iteration-split.txt"
import json, os, sys
L = sys.argv[1]
one = {}
for pc, lab in (("pmg", "single"), ("pmg", "block"), ("pmg", "block-cols"),
                ("direct", "single"), ("direct", "block")):
    try:
        d = json.load(open(os.path.join(L, f"{pc}-{lab}", "summary.json")))
    except Exception as e:
        print(f"{pc}-{lab}: no summary ({e})")
        continue
    f = d["frequencies"][0]
    sv = f["solves"][:1] if lab == "single" else f["solves"]
    its = max(x["iterations"] for x in sv)
    if its <= 0:
        continue
    t = sum(x["time_s"] for x in sv)
    if lab == "single":
        one[pc] = t
    sp = sum(x["spmv_s"] for x in sv) * 1e3 / its
    pcs = sum(x["preconditioner_s"] for x in sv) * 1e3 / its
    line = (f"{pc:6s} {lab:10s} {t:.2f} s, {its} its: per iteration {t * 1e3 / its:.2f} ms = "
            f"operator {sp:.2f} + pc {pcs:.2f} + vectors {t * 1e3 / its - sp - pcs:.2f}")
    if lab != "single" and pc in one:
        line += f"; / port 1 alone {t / one[pc]:.2f}x"
    p = f.get("preconditioner", {})
    if pc == "pmg" and p.get("applies"):
        n = p["applies"]
        line += (f"; pmg per column-apply ({n}): residual products "
                 f"{p['residual_spmv_s'] * 1e3 / n:.2f}, smoothers {p['smoother_s'] * 1e3 / n:.2f}, "
                 f"coarse {p['coarse_solve_s'] * 1e3 / n:.2f} ms")
    print(line)
PY
  cp /tmp/arrays-logs/*.log /tmp/arrays-logs/runs.txt "$L/" 2> /dev/null
  for d in /tmp/arrays-logs/*/; do
    mkdir -p "$L/$(basename "$d")" && cp "$d/summary.json" "$L/$(basename "$d")/" 2> /dev/null
  done
fi
if [ -z "${SKIP_BENCH:-}" ] && [ "$(left)" -gt 70 ]; then
  step "dump the DRA order-3 system"
  timeout -k 10 "$(cap 60)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out "$L/dump" --dump-matrix /tmp/dra_o3.mat > "$L/dump.log" 2>&1
  step "spmm_bench: the nine-block operator, x interleaved and from the columns"
  timeout -k 10 "$(cap 60)" "$B/bench/spmm_bench" --matrix /tmp/dra_o3.mat --no-cpu --reps 10 \
    --out "$L" > "$L/spmm_bench.log" 2>&1
  echo "spmm_bench rc=$?"
  grep -E "^(variant|nine|csr|sellr)" "$L/spmm_bench.log" | cut -c1-260
  step "pc_multi_bench: pmg's V-cycle, residual products from x interleaved and from the columns"
  timeout -k 10 "$(cap 70)" "$B/bench/pc_multi_bench" --matrix /tmp/dra_o3.mat --device gpu \
    --prec mixed --pc pmg --reps 3 --ns 1,4,8 --variants default --spmm il,cols --profile \
    --out "$L" > "$L/pc_multi_bench.log" 2>&1
  echo "pc_multi_bench rc=$?"
  grep -E "^pmg" "$L/pc_multi_bench.log" | cut -c1-300
  grep -A1 -E "pmg profile" "$L/pc_multi_bench.log" | grep -E "pmg profile|product" | cut -c1-300
  grep -E "differ|rror" "$L/pc_multi_bench.log" | head -5
fi

# item 4, measured only: the direct factor's multi-column solve variants on
# the DRA factor (default = streams + level threads; ownb: the backward
# products by the own kernel for blocks, new; auto adds the interleaved y,
# own kernels for both products and the inverses for blocks), N = 1, 4:
# which keeps four columns nearest one
if [ -z "${SKIP_VARIANTS:-}" ] && [ -f /tmp/dra_o3.mat ] && [ "$(left)" -gt 50 ]; then
  step "pc_multi_bench: the direct solve's variants, N = 1, 4"
  timeout -k 10 "$(cap 60)" "$B/bench/pc_multi_bench" --matrix /tmp/dra_o3.mat --device gpu \
    --prec mixed --pc direct,pmg --reps 3 --ns 1,4 --variants "default,st+tlev+ownb,auto,st+tlev+own" \
    > "$L/pc_multi_variants.log" 2>&1
  echo "pc_multi_bench (variants) rc=$?"
  grep -E "^(direct|pmg)" "$L/pc_multi_variants.log" | cut -c1-200
fi
step finished
