#!/bin/bash
# device-s7b.sh - issue 28 on one GPU, from the repository root, within
# DEADLINE (default 570) s:
#   1. build (incremental in /tmp/b-s7) and the gpu tests of the direct
#      solves and the blocks (TESTS overrides the regex);
#   2. the 2 x 2 array at order 3 (cases/dra_array.geo, 5.8 GHz, far field
#      off, the mesh made once): port 1 alone (Solver/rhs_block 1) and the
#      four ports as one block, direct (BiCGSTAB) and pmg (COCG), mixed
#      precision, with the GPU solves' variants of EMSOLVE_GSOLVE (DVARS,
#      PVARS: label=variant, "default" the build's);
#   3. bench/pc_multi_bench on the array's dumped system: the direct
#      solves' variants, N = 1, 4 (BVARS).
# Logs: $OUT/s7b-logs.tgz; the table in s7b-logs/summary.txt.
set -uo pipefail
OUT=${OUT:-out/device-s7b}
DEADLINE=${DEADLINE:-570}
B=${BUILD:-/tmp/b-s7}
L=/tmp/s7b-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s7b-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" --exclude="farfield_*" --exclude="pattern_*" -C /tmp s7b-logs 2> /dev/null' EXIT
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
if [ -f "$B/CMakeCache.txt" ]; then
  step "incremental build"
  timeout "$(cap 240)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head; exit 1; }
else
  dev_build 260 || exit 1
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  R=${TESTS:-test_direct_gpu|test_pc_multi_gpu|test_pmg_gpu|test_ksp_block_gpu|test_fsys_block_gpu|test_array_gpu}
  step "gpu tests: $R"
  (cd "$B" && timeout "$(cap 200)" ctest -R "$R" -j4 --timeout 190 --output-on-failure > "$L/ctest-gpu.log" 2>&1)
  echo "ctest rc $?"
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi
ARR="-setnumber Solver/order 3 -setnumber Solver/frequency 5.8e9 -setstring Output/fields none
     -setstring Farfield/compute off --device gpu -v"
MESH=/tmp/s7-arr-o3.msh
DPC="-setstring Solver/preconditioner direct -setstring Solver/method bicgstab -setstring Solver/precision mixed"
PPC="-setstring Solver/preconditioner pmg -setstring Solver/method cocg -setstring Solver/precision mixed"
# run LABEL ENV-ASSIGNMENTS... -- emsolve options
run() {
  local lab=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  [ "$(left)" -lt 40 ] && { echo "$lab: skipped (time)"; return 0; }
  step "$lab ${envs[*]}"
  local mesh=(-setstring Mesh/file "$MESH")
  [ -f "$MESH" ] || mesh=(--save-mesh "$MESH")
  # shellcheck disable=SC2086
  env "${envs[@]}" timeout -k 10 "$(cap 90)" "$B/app/emsolve" cases/dra_array.geo $ARR "${mesh[@]}" \
    --out "$L/$lab" "$@" > "$L/$lab.log" 2>&1
  echo "$lab rc=$?"
}
if [ -z "${SKIP_RUNS:-}" ]; then
  for rep in ${REPS:-1}; do
    sfx=$([ "$rep" = 1 ] || echo "-$rep")
    run "d-one$sfx" X=1 -- $DPC -setnumber Solver/rhs_block 1
    for v in ${DVARS:-default=default}; do run "d-blk-${v%%=*}$sfx" "EMSOLVE_GSOLVE=${v#*=}" -- $DPC; done
    run "p-one$sfx" X=1 -- $PPC -setnumber Solver/rhs_block 1
    for v in ${PVARS:-default=default}; do run "p-blk-${v%%=*}$sfx" "EMSOLVE_GSOLVE=${v#*=}" -- $PPC; done
  done
  [ -n "${PIL:-}" ] && run p-blk-spmmil EMSOLVE_SPMM_IL=1 -- $PPC
  "${PY:-python3}" - "$L" << 'PY' | tee "$L/summary.txt"
import json, os, sys, glob
L = sys.argv[1]
one = {}
for d in sorted(glob.glob(os.path.join(L, "*", "summary.json")), key=lambda p: ("-one" not in p, p)):
    lab = os.path.basename(os.path.dirname(d))
    try:
        j = json.load(open(d))
    except Exception as e:
        print(lab, "no summary", e); continue
    f = j["frequencies"][0]
    sv = f["solves"]
    t = f["time_s"]
    its = [x["iterations"] for x in sv]
    res = ["%.1e" % x["true_relative_residual"] for x in sv]
    rep = lab.rsplit("-", 1)[1] if lab.rsplit("-", 1)[1].isdigit() else "1"
    if "-one" in lab:
        one[(lab[0], rep)] = sv[0]["time_s"]  # each block against its own repetition's port 1
        print(f"{lab:16s} port 1 alone {sv[0]['time_s']:.3f} s (its {its[0]}, res {res[0]}); all four one after another {t['solve']:.3f} s; pc set-up {t['preconditioner_setup']:.2f} s")
    else:
        r = t["solve"] / one[(lab[0], rep)] if (lab[0], rep) in one else float("nan")
        print(f"{lab:16s} block {t['solve']:.3f} s = {r:.2f}x port 1 alone (its {its}, res {res}); pc set-up {t['preconditioner_setup']:.2f} s")
PY
fi
if [ -z "${SKIP_BENCH:-}" ] && [ "$(left)" -gt 70 ]; then
  step "dump the array's order-3 system"
  timeout -k 10 "$(cap 60)" "$B/app/emsolve" cases/dra_array.geo $ARR -setstring Mesh/file "$MESH" \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 \
    --out /tmp/s7b-dump --dump-matrix /tmp/arr_o3.mat > "$L/dump.log" 2>&1
  step "pc_multi_bench on the array: direct variants"
  timeout -k 10 "$(cap 200)" "$B/bench/pc_multi_bench" --matrix /tmp/arr_o3.mat --device gpu \
    --prec mixed --pc direct --reps 3 --ns 1,4 \
    --variants "${BVARS:-default,st+tlev+inv2,il2+own2+st+inv2+tlev,own2+st+inv2+tlev,il2+own2+st+inv2+tlev+imax2048}" \
    > "$L/pc_multi.log" 2>&1
  echo "pc_multi_bench rc=$?"
  grep -E "^(direct|pmg)" "$L/pc_multi.log" | cut -c1-230
fi
step done
