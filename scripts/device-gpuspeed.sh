#!/bin/bash
# device-gpuspeed.sh - issue 24 in ONE device call (<= 9 min), from the
# repository root of the device copy (it has .git):
#   1. builds, side by side in /tmp, the tree at main's commit $BASE (177aca2,
#      the "before") and this tree (the "after", emsolve and the gpu tests of
#      the code it touched);
#   2. runs those gpu tests (CSR, block operator, direct pc, pmg, fsys);
#   3. the order-3 DRA at 1.08M unknowns (Mesh/elements_per_wavelength 13.3,
#      5.8 GHz) with pmg (mixed, COCG), --device gpu -v, after and before;
#   4. the default 13-frequency order-3 DRA sweep (-setnumber Solver/order 3
#      --device gpu -v), after and before;
#   5. time allowing, the 5M case (epw 28, pmg mixed COCG) after, then
#      before, then the 1M case with the direct factor after, then before;
#   6. prints the stage tables side by side (scripts/stage_table.py: stages,
#      unknowns, nnz(L) and GFlop of the factor, silent log gaps).
# Each run is skipped when the time left cannot hold it.  Logs, summaries
# and tables in $OUT/gpuspeed-logs.tgz; the tables on stdout.
#   run(command="bash scripts/device-gpuspeed.sh", timeout_s=600)
set -uo pipefail
OUT=${OUT:-out/device}
BASE=${BASE:-177aca2}
DEADLINE=${DEADLINE:-535}
A=/tmp/gs-after
B=/tmp/gs-before
L=/tmp/gpuspeed-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/gpuspeed-logs.tgz" --exclude="*.vtk" -C /tmp gpuspeed-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
. scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
lscpu | grep -E "Model name|^CPU\(s\)" | tee -a "$L/device.txt"
G=$(command -v ninja > /dev/null && echo "-G Ninja")
NJ=$(nproc)

step "builds: before ($BASE) and after, in parallel"
rm -rf /tmp/before-src
git -c safe.directory='*' worktree add --detach -f /tmp/before-src "$BASE" > "$L/worktree.log" 2>&1 ||
  { git -c safe.directory='*' archive "$BASE" | (mkdir -p /tmp/before-src && tar x -C /tmp/before-src); }
(cmake -S /tmp/before-src -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure-before.log" 2>&1 &&
  timeout 330 cmake --build "$B" -j"$NJ" --target emsolve > "$L/build-before.log" 2>&1) &
PB=$!
TESTS="emsolve test_csr_gpu test_blockop_gpu test_direct_pc test_pmg test_fsys_gpu test_nd_compress test_core_permute"
(cmake -S . -B "$A" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure-after.log" 2>&1 &&
  timeout 330 cmake --build "$A" -j"$NJ" --target $TESTS > "$L/build-after.log" 2>&1)
RA=$?
wait $PB
RB=$?
echo "build after rc=$RA, before rc=$RB"
[ $RA -ne 0 ] && { grep -E "error" "$L/build-after.log" | head -20; exit 1; }
[ $RB -ne 0 ] && grep -E "error" "$L/build-before.log" | head -10

step "gpu tests (after)"
(cd "$A" && timeout 120 ctest -R "test_csr_gpu|test_blockop_gpu|test_direct_pc_gpu|test_pmg_gpu|test_fsys_gpu|test_nd_compress|test_core_permute" \
  -j4 --output-on-failure --timeout 100 > "$L/ctest-gpu.log" 2>&1)
grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log" | tail -8

DRA1=(-setnumber Solver/order 3 -setnumber Mesh/elements_per_wavelength 13.3
  -setnumber Mesh/frequency 5.8e9 -setnumber Solver/frequency 5.8e9)
DRA5=(-setnumber Solver/order 3 -setnumber Mesh/elements_per_wavelength 28
  -setnumber Mesh/frequency 5.8e9 -setnumber Solver/frequency 5.8e9)
PMG=(-setstring Solver/preconditioner pmg -setstring Solver/precision mixed -setstring Solver/method cocg)
DIR=(-setstring Solver/preconditioner direct)
# go LABEL BUILD NEED_S [options]: one emsolve run of cases/dra.geo, when
# NEED_S seconds are left; the wall time from the shell
go() {
  local lab=$1 bin=$2/app/emsolve need=$3
  shift 3
  if [ ! -x "$bin" ] || [ "$(left)" -lt "$need" ]; then
    echo "$lab: skipped ($(left) s left)"
    return
  fi
  local t=$(date +%s.%N)
  timeout "$(($(left) - 5))" "$bin" cases/dra.geo --device gpu -v --out "$L/$lab" "$@" > "$L/$lab.log" 2>&1
  local rc=$?
  printf "%-15s rc=%d wall %6.1f s  %s\n" "$lab" $rc "$(awk "BEGIN{print $(date +%s.%N) - $t}")" \
    "$(grep -E '^5\.8 ' "$L/$lab.log" | head -1 | cut -c1-40)"
}
step "1M order-3 DRA, pmg mixed COCG"
go after-1m-pmg "$A" 60 "${DRA1[@]}" "${PMG[@]}"
go before-1m-pmg "$B" 60 "${DRA1[@]}" "${PMG[@]}"
step "default 13-frequency order-3 sweep"
go after-sweep "$A" 50 -setnumber Solver/order 3
go before-sweep "$B" 50 -setnumber Solver/order 3
step "5M order-3 DRA, pmg mixed COCG"
go after-5m-pmg "$A" 90 "${DRA5[@]}" "${PMG[@]}"
go before-5m-pmg "$B" 130 "${DRA5[@]}" "${PMG[@]}"
step "1M order-3 DRA, direct"
go after-1m-dir "$A" 60 "${DRA1[@]}" "${DIR[@]}"
go before-1m-dir "$B" 60 "${DRA1[@]}" "${DIR[@]}"

step "stage tables"
T=()
for c in 1m-pmg 1m-dir sweep 5m-pmg; do
  [ -f "$L/after-$c.log" ] || continue
  python3 scripts/stage_table.py "before=$L/before-$c:$L/before-$c.log" "after=$L/after-$c:$L/after-$c.log" \
    > "$L/table-$c.txt" 2>&1
  echo "--- $c"
  cat "$L/table-$c.txt"
done
grep -h "rows as" "$L"/after-*.log | sed 's/^/after: /' | head -6
step done
