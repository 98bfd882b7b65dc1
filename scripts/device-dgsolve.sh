#!/bin/bash
# device-dgsolve.sh - issue 28's GPU direct solves with several columns
# (em_direct_gsolve variants and their profile) on the GPU machine, from the
# repository root, one GPU, within DEADLINE seconds (default 360):
#   1. build (CUDA) in /tmp/b-dgsolve; the gpu tests of the direct solves and
#      block applies: test_pc_multi_gpu (N = 1, 3, 16, 17 columns against
#      one-column solves and a plain reference, double and single factors,
#      every solve variant, supernodes of 191 / 192 / 193 columns),
#      test_direct_gpu (with its dumped order-2 DRA), test_ksp_block_gpu,
#      test_pmg_gpu; compute-sanitizer memcheck on test_pc_multi gpu direct
#      (the direct solves, every variant);
#   2. bench/pc_multi_bench on the default DRA's order-3 matrix (emsolve
#      --dump-matrix), direct and pmg with single factors (--prec mixed),
#      N = 1, 4, 8, the variants old (no variant), st (the wide
#      supernodes on streams), inv (their triangles by GEMM
#      with the stored L11^-1, trinv), inv+st (the default), il (interleaved y), own (own
#      kernels for the big supernodes' products), il+own, all (il+own+st),
#      then the profile of every variant and N (--profile: where one
#      solve's time goes);
#   3. with the time left, the 2 x 2 DRA array at order 3 (the default variants:
#      streams and trinv): the four ports as one block against port 1 alone, pmg and
#      direct, by scripts/device-arrays.sh (SKIP_SPMM=1 SKIP_TESTS=1).
# Summary on stdout; logs in $OUT/dgsolve-logs.tgz.  SKIP_TESTS=1,
# SKIP_SAN=1, SKIP_BENCH=1, SKIP_ARRAY=1 leave a part out; VARIANTS, NS,
# REPS change the bench; BUILD=DIR with DIR/app/emsolve built skips the
# build.
set -uo pipefail
OUT=${OUT:-out/device-dgsolve}
DEADLINE=${DEADLINE:-360}
B=${BUILD:-/tmp/b-dgsolve}
L=/tmp/dgsolve-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/dgsolve-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp dgsolve-logs 2> /dev/null' EXIT
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
    test_pc_multi test_direct_gpu test_ksp_block test_pmg em_gpu_probe > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
git log -1 --format="commit %h %s" 2> /dev/null | tee "$L/commit.txt"

if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout "$(cap 90)" ctest -R "test_pc_multi_gpu|test_direct_gpu|test_ksp_block_gpu|test_pmg_gpu" \
    -j4 --output-on-failure --timeout 85 > "$L/ctest-gpu.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi

if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null; then
  step "compute-sanitizer memcheck: test_pc_multi gpu"
  timeout -k 5 "$(cap "${SAN_CAP:-80}")" compute-sanitizer --tool memcheck --error-exitcode 3 \
    "$B/tests/solver/test_pc_multi" gpu direct > "$L/memcheck.log" 2>&1
  echo "memcheck rc=$? (0: clean; 3: errors; 124: out of time)"
  grep -E "ERROR SUMMARY|Invalid|FAILED" "$L/memcheck.log" | head -5
fi

if [ -z "${SKIP_BENCH:-}" ] && [ "$(left)" -gt 60 ]; then
  step "dump the DRA order-3 system"
  timeout -k 10 "$(cap 60)" "$B/app/emsolve" cases/dra.geo -setnumber Solver/order 3 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out "$L/dump" --dump-matrix /tmp/dra_o3.mat > "$L/dump.log" 2>&1
  step "pc_multi_bench: variants of the GPU solves, block of N columns against N applies"
  timeout -k 10 "$(cap 150)" "$B/bench/pc_multi_bench" --matrix /tmp/dra_o3.mat --device gpu \
    --prec mixed --pc direct,pmg --reps "${REPS:-3}" --ns "${NS:-1,4,8}" \
    --variants "${VARIANTS:-old,st,inv,inv+st,il,own,il+own,all}" --profile --out "$L" \
    > "$L/pc_multi_bench.log" 2>&1
  echo "pc_multi_bench rc=$?"
  # the decision: a block of N columns against ONE column's apply (the
  # target: N = 4 at <= 1.4-1.5x), per pc and variant
  python3 - "$L/pc_multi.json" << 'PY' | tee "$L/variants.txt"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no pc_multi.json ({e})")
    sys.exit(0)
print(f"{d['source']}: {d['unknowns']} unknowns; ms of one apply of N columns, and / the 1-column apply")
for r in d["results"]:
    one = r.get("N1", {}).get("block_ms") or r.get("N1", {}).get("singles_ms")
    line = f"  {r['pc']:40s}"
    for N in (1, 2, 4, 8, 16):
        x = r.get(f"N{N}")
        if x and one:
            line += f" N={N} {x['block_ms']:8.2f} ms {x['block_ms'] / one:5.2f}x |"
    print(line + f" block vs singles {r['diff']:.1e}")
PY
  # where one solve's time goes: the profile of old, st and inv+st (the
  # default, streams and trinv) at N = 1 and 4 (fwd-trsm / bwd-trsm: the
  # GEMM by L11^-1 under inv)
  grep -A4 -E "profile .*\[(old|st|inv\+st)\], N = (1|4):" "$L/pc_multi_bench.log" | grep -vE "costliest|levels \(" |
    cut -c1-400
  grep -E "differ|error|rror" "$L/pc_multi_bench.log" | head -5
fi

if [ -z "${SKIP_ARRAY:-}" ] && [ "$(left)" -gt 120 ]; then
  step "the 2 x 2 array at order 3: four ports as a block against port 1 alone (the default variants)"
  BUILD="$B" SKIP_SPMM=1 SKIP_TESTS=1 DEADLINE=$(($(left) - 10)) OUT="$L" \
    bash scripts/device-arrays.sh > "$L/arrays.log" 2>&1
  grep -E "^=== " "$L/arrays.log" | tail -3
  cat /tmp/arrays-logs/array-summary.txt 2> /dev/null | tee "$L/array-summary.txt"
fi
step finished
