#!/bin/bash
# device-overlap.sh - issue 24's 1M run (the order-3 DRA, ~1.36M unknowns:
# epw 13.3 at 5.8 GHz, auto preconditioner = the GPU direct factor) with
# the set-up overlap off and on (Solver/overlap 0 / 1: the direct factor's
# ordering and symbolic analysis on a thread of their own beside the
# assembly, docs/solvers.md "Overlapped set-up"), each twice (off, on,
# off, on: the page cache and the GPU's clocks alike for both), on one GPU,
# from the repository root; then test_overlap on the GPU (the outputs byte
# for byte alike with 0 and 1).  Prints the stage tables side by side
# (stage_table.py, with "overlapped"), each run's wall and S11, and whether
# the S11 files are identical; logs in $OUT/overlap-logs.tgz.  About 4 min
# with the build (BUILD, default /tmp/b-overlap, reused when built).
set -uo pipefail
OUT=${OUT:-out/device-overlap}
B=${BUILD:-/tmp/b-overlap}
L=/tmp/overlap-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/overlap-logs.tgz" --exclude="*.vtk" -C /tmp overlap-logs 2> /dev/null' EXIT
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
if [ ! -x "$B/app/emsolve" ]; then
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  cmake --build "$B" -j"$(nproc)" --target emsolve em_gpu_probe > "$L/build.log" 2>&1 || { tail -20 "$L/build.log"; exit 1; }
fi
PY=$(command -v python3)
run() { # LABEL OVERLAP
  local lab=$1 t0
  t0=$(date +%s.%N)
  timeout 120 "$B/app/emsolve" cases/dra.geo --device gpu --verbose --out "$L/$lab" \
    -setnumber Solver/order 3 -setnumber Mesh/elements_per_wavelength 13.3 \
    -setnumber Mesh/frequency 5.8e9 -setnumber Solver/frequency 5.8e9 \
    -setnumber Solver/overlap "$2" > "$L/$lab.out" 2> "$L/$lab.log"
  echo "$lab: rc $? wall $($PY -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s" | tee -a "$L/walls.txt"
}
run off1 0
run on1 1
run off2 0
run on2 1
args=()
for lab in off1 on1 off2 on2; do [ -f "$L/$lab/summary.json" ] && args+=("$lab=$L/$lab:$L/$lab.log"); done
$PY scripts/stage_table.py "${args[@]}" | tee "$L/stages.txt"
for lab in off1 on1 off2 on2; do echo "$lab: $(grep -h "S11" "$L/$lab.out" | grep -v "^#" | head -1)"; done
cmp -s <(grep -v "^!" "$L/off1/dra.s1p") <(grep -v "^!" "$L/on1/dra.s1p") &&
  echo "dra.s1p: identical with and without the overlap" || echo "dra.s1p: DIFFERENT"
grep -h "overlap: waited\|(overlapped)" "$L/on1.log" | head -4
(cd "$B" && timeout 200 ctest -R "test_overlap_gpu" --output-on-failure > "$L/ctest.log" 2>&1)
grep -E "tests passed|Failed|\*\*\*" "$L/ctest.log" | head -4
