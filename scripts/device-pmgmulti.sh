#!/bin/bash
# device-pmgmulti.sh - issue 28, pmg with several columns (branch pmgmulti),
# on the GPU machine from the repository root, one GPU, within DEADLINE
# seconds (default 400, under 7 minutes):
#   1. build (CUDA) in /tmp/b-pmgmulti; the gpu tests: test_pc_multi_gpu,
#      test_ksp_block_gpu (lockstep COCG / BiCGSTAB vs single solves, now
#      with the fused column-set vector ops), test_pmg_gpu (with the V-cycle
#      profile's bookkeeping), test_solver_vec_gpu (em_vec_cdots bit for bit
#      the per-set dots, em_vec_caxpby vs host loops, 1/3/4/16/17 sets);
#   2. compute-sanitizer memcheck on test_solver_vec gpu (the new cdots and
#      caxpby kernels) and test_pmg gpu (the V-cycle's event stamps);
#   3. bench/pc_multi_bench on the default DRA's order-3 matrix, pmg with
#      its single coarse factor (--prec mixed, the default solve variants
#      inv+st), N = 1, 4, 8, --profile: the V-cycle per part (zero, the
#      levels' product / gather / smoother / scatter, the coarse product /
#      gather / solve / scatter) and per level, ms per cycle, and the coarse
#      factor's own solve profile;
#   4. the 2 x 2 DRA array at order 3 (scripts/device-arrays.sh, SKIP_SPMM=1
#      SKIP_TESTS=1): the four ports as one block against port 1 alone, pmg
#      and direct, then the lockstep's per-iteration split (operator
#      products, preconditioner, vector work) and pmg's (residual products,
#      smoothers, coarse solves) from the runs' summary.json.
# Summary on stdout; logs in $OUT/pmgmulti-logs.tgz.  SKIP_TESTS=1,
# SKIP_SAN=1, SKIP_BENCH=1, SKIP_ARRAY=1 leave a part out; NS, REPS change
# the bench; BUILD=DIR with DIR/app/emsolve built skips the build.
set -uo pipefail
OUT=${OUT:-out/device-pmgmulti}
DEADLINE=${DEADLINE:-400}
B=${BUILD:-/tmp/b-pmgmulti}
L=/tmp/pmgmulti-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/pmgmulti-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp pmgmulti-logs 2> /dev/null' EXIT
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
    test_pc_multi test_ksp_block test_pmg test_solver_vec em_gpu_probe > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
git log -1 --format="commit %h %s" 2> /dev/null | cut -c1-120 | tee "$L/commit.txt"

if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout "$(cap 100)" ctest -R "test_pc_multi_gpu|test_ksp_block_gpu|test_pmg_gpu|test_solver_vec_gpu" \
    -j4 --output-on-failure --timeout 95 > "$L/ctest-gpu.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi

if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null; then
  for t in test_solver_vec test_pmg; do
    step "compute-sanitizer memcheck: $t gpu"
    timeout -k 5 "$(cap "${SAN_CAP:-45}")" compute-sanitizer --tool memcheck --error-exitcode 3 \
      "$B/tests/solver/$t" gpu > "$L/memcheck-$t.log" 2>&1
    echo "memcheck $t rc=$? (0: clean; 3: errors; 124: out of time)"
    grep -E "ERROR SUMMARY|Invalid|FAILED" "$L/memcheck-$t.log" | head -5
  done
fi

if [ -z "${SKIP_BENCH:-}" ] && [ "$(left)" -gt 60 ]; then
  step "dump the DRA order-3 system"
  timeout -k 10 "$(cap 60)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out "$L/dump" --dump-matrix /tmp/dra_o3.mat > "$L/dump.log" 2>&1
  step "pc_multi_bench: pmg, a block of N columns against N applies, with the V-cycle profile"
  timeout -k 10 "$(cap 90)" "$B/bench/pc_multi_bench" --matrix /tmp/dra_o3.mat --device gpu \
    --prec mixed --pc "${PCS:-direct,pmg}" --reps "${REPS:-3}" --ns "${NS:-1,4,8}" \
    --variants "${VARIANTS:-default,st+inv+tgrad}" --profile \
    --out "$L" > "$L/pc_multi_bench.log" 2>&1
  echo "pc_multi_bench rc=$?"
  grep -E "^(pmg|direct)" "$L/pc_multi_bench.log" | cut -c1-300
  # the V-cycle per part and level at each N, and the coarse factor's solve
  grep -A2 -E "pmg profile" "$L/pc_multi_bench.log" | cut -c1-400
  grep -A1 -E "^  profile " "$L/pc_multi_bench.log" | cut -c1-300
  grep -E "differ|rror" "$L/pc_multi_bench.log" | head -5
fi

if [ -z "${SKIP_ARRAY:-}" ] && [ "$(left)" -gt 100 ]; then
  step "the 2 x 2 array at order 3: four ports as a block against port 1 alone"
  BUILD="$B" SKIP_SPMM=1 SKIP_TESTS=1 DEADLINE=$(($(left) - 5)) OUT="$L" \
    bash scripts/device-arrays.sh > "$L/arrays.log" 2>&1
  grep -E "^=== " "$L/arrays.log" | tail -3
  cat /tmp/arrays-logs/array-summary.txt 2> /dev/null | tee "$L/array-summary.txt"
  # per iteration: the block (iterations = its longest column) and port 1
  # alone, operator products / preconditioner / vector work; pmg's split
  python3 - /tmp/arrays-logs << 'PY' | tee "$L/iteration-split.txt"
import json, os, sys
L = sys.argv[1]
for pc in ("pmg", "direct"):
    for lab in ("block", "single"):
        try:
            d = json.load(open(os.path.join(L, f"{pc}-{lab}", "summary.json")))
        except Exception as e:
            print(f"{pc}-{lab}: no summary ({e})")
            continue
        f = d["frequencies"][0]
        sv = f["solves"] if lab == "block" else f["solves"][:1]
        its = max(x["iterations"] for x in sv)
        if its <= 0:
            continue
        sp = sum(x["spmv_s"] for x in sv) * 1e3 / its
        pcs = sum(x["preconditioner_s"] for x in sv) * 1e3 / its
        tot = sum(x["time_s"] for x in sv) * 1e3 / its
        line = (f"{pc:6s} {'4-port block' if lab == 'block' else 'port 1 alone':12s} {its} its: "
                f"per iteration {tot:.2f} ms = operator {sp:.2f} + pc {pcs:.2f} + vectors "
                f"{tot - sp - pcs:.2f}")
        p = f.get("preconditioner", {})
        if pc == "pmg" and p.get("applies"):
            # the V-cycle's timers cover every column of the run: per column-apply
            n = p["applies"]
            line += (f"; pmg per column-apply ({n}): residual products "
                     f"{p['residual_spmv_s'] * 1e3 / n:.2f}, smoothers {p['smoother_s'] * 1e3 / n:.2f}, "
                     f"coarse {p['coarse_solve_s'] * 1e3 / n:.2f} ms")
        print(line)
PY
fi
step finished
