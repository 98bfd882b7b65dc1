#!/bin/bash
# device-s8c.sh - the seventh session's last call, on 4 x H200 (kind
# nvidia-h200-x4), from the repository root, within DEADLINE (585) s:
#   1. issue 27: scripts/device-dscale.sh (its CUDA + MPI build in
#      /tmp/b-dscale, test_dsolve on 4 ranks, the order-2 check, strong
#      1/2/4 GPUs at 4.89M, weak ~3M per GPU), with this session's merges
#      (pmg's coarse analysis ahead on one GPU, the distributed formats
#      beside the pc set-up, large host blocks in huge pages);
#   2. the huge pages A/B (core/mem.c, EMSOLVE_HUGEPAGES=0 against the
#      default) on the one-GPU runs: strong-1 again from its mesh, and issue
#      24's 1M command (Gmsh meshing included), alternated; the THP mode;
#      strong-1 with EMSOLVE_PMG_AHEAD=0 (pmg's coarse analysis in order);
#   3. the rest of the build, gpu tests of the parts touched this session,
#      compute-sanitizer memcheck of test_fsys_block gpu (the block solves'
#      trinv_own kernels and the permutation kernels);
#   4. issue 28's array runs (device-s7b.sh on the same build) in the time
#      left, three repetitions at most.
# Logs: $OUT/s8c-logs.tgz (with dscale-logs.tgz and s7b-logs.tgz inside $OUT).
set -uo pipefail
OUT=${OUT:-out/device-s8c}
DEADLINE=${DEADLINE:-585}
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
L=/tmp/s8c-logs
B=/tmp/b-dscale
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s8c-logs.tgz" --exclude="*.msh" --exclude="*.vtk" -C /tmp s8c-logs 2> /dev/null' EXIT
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag \
  > "$L/thp.txt" 2>&1
echo "THP: $(tr '\n' ' ' < "$L/thp.txt")"

step "1. device-dscale.sh"
DEADLINE=$(($(left) - 330)) OUT="$OUT" bash scripts/device-dscale.sh > "$L/dscale.out" 2>&1
grep -E "^(===|run |strong-[124] |weak-[124] |small|test_dsolve|  \|S11|targets|weak-scaling|mesh at)" \
  "$L/dscale.out" | cut -c1-200
grep -E "\[rank 0\].*(overlapped|waited|formats)" "$L/dscale.out" | cut -c1-200 | head -12
grep -E "strong-1: .*(overlapped|ahead|pmg: [0-9]+ V)" "$L/dscale.out" | cut -c1-200 | head -6

# shellcheck disable=SC1091
. scripts/device-setup.sh > /dev/null
D=/tmp/dscale-logs
step "2. huge pages A/B"
one() { # LABEL HP ARGS...: a one-GPU run, its wall time and stage line
  local lab=$1 hp=$2 ts
  shift 2
  [ "$(left)" -lt 150 ] && { echo "$lab: skipped (time)"; return 0; }
  ts=$(date +%s.%N)
  EMSOLVE_HUGEPAGES=$hp timeout -k 10 "$(cap 60)" "$B/app/emsolve" cases/dra.geo --device gpu -v \
    --out "$L/$lab" -setnumber Solver/order 3 -setnumber Mesh/frequency 5.8e9 \
    -setnumber Solver/frequency 5.8e9 "$@" > "$L/$lab.log" 2>&1
  echo "$lab (EMSOLVE_HUGEPAGES=$hp) rc $? wall $(python3 -c "print(round($(date +%s.%N) - $ts, 2))") s"
  python3 - "$L/$lab/summary.json" << 'PY'
import json, sys
try:
    t = json.load(open(sys.argv[1]))["time_s"]
    print("   ", " ".join(f"{k} {v:.2f}" for k, v in t.items() if isinstance(v, (int, float))))
except Exception as e:
    print("    no summary:", e)
PY
}
PMLA=(-setnumber PML/basis_order 1 -setnumber PML/elements_only 1)
S1=(-setstring Solver/preconditioner pmg -setstring Solver/method cocg -setstring Solver/precision mixed
  "${PMLA[@]}" -setstring Farfield/compute off -setstring Output/fields none --load-mesh "$D/mesh-36.2.msh")
M1=(-setnumber Mesh/elements_per_wavelength 13.3)
if [ -f "$B/app/emsolve" ]; then
  one 1m-hp1 1 "${M1[@]}"
  one 1m-hp0 0 "${M1[@]}"
  [ -f "$D/mesh-36.2.msh" ] && one s1-hp0 0 "${S1[@]}"
  [ -f "$D/mesh-36.2.msh" ] && { export EMSOLVE_PMG_AHEAD=0; one s1-ahead0 1 "${S1[@]}"; unset EMSOLVE_PMG_AHEAD; }
  one 1m-hp1b 1 "${M1[@]}"
  one 1m-hp0b 0 "${M1[@]}"
fi

step "3. build, gpu tests, memcheck"
timeout "$(cap 150)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
  { grep -E "error" "$L/build.log" | head; }
T="test_overlap_gpu|test_onerun_gpu|test_fsys_gpu|test_fsys_block_gpu|test_pmg_gpu|test_pmg_app_gpu"
T="$T|test_array_gpu|test_direct_gpu|test_ksp_block_gpu"
(cd "$B" && timeout "$(cap 130)" ctest -R "^($T)\$" -j4 --timeout 120 --output-on-failure \
  > "$L/ctest-gpu.log" 2>&1)
echo "ctest rc $?"
grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
if [ "$(left)" -gt 150 ]; then
  (cd "$B/tests" && timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 \
    ./model/test_fsys_block gpu > "$L/memcheck-test_fsys_block.log" 2>&1)
  echo "memcheck test_fsys_block gpu rc=$? $(grep -h 'ERROR SUMMARY' "$L/memcheck-test_fsys_block.log" | tail -1)"
fi

step "4. the array (issue 28)"
REPS="1"
[ "$(left)" -gt 150 ] && REPS="1 2"
[ "$(left)" -gt 200 ] && REPS="1 2 3"
BUILD="$B" SKIP_TESTS=1 SKIP_BENCH=1 REPS="$REPS" DEADLINE=$(($(left) - 10)) OUT="$OUT" \
  bash scripts/device-s7b.sh 2>&1 | tail -14
step "done"
