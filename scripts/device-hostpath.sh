#!/bin/bash
# (EMSOLVE_HOSTPATH=0, the old host path, was removed after call 7 of
# bench/results/2026-11-28-h200-5: its 'old' runs are now the default.)
# device-hostpath.sh - issue 24, the host stages between the mesh and the
# GPU factor's fronts (branch hostpath), on one GPU, from the repository
# root, within DEADLINE (default 470) s, one device call:
#   1. build everything (CUDA, a python with numpy / scipy) in /tmp/b-hp;
#   2. the gpu tests this branch touches (test_direct_gpu: the factor's
#      checks beside it against the CPU, asymmetric values and pattern,
#      NaN and an empty row; test_overlap_gpu: the operator takes the
#      analysis' pattern, the checks beside the factor; test_fsys_gpu,
#      test_fsys_block_gpu, test_direct_pc_gpu) and the CPU unit tests of
#      the same pieces (test_direct, test_core_permute);
#   3. the 1M order-3 DRA (issue 24's command) with EMSOLVE_HOSTPATH=0
#      (the operator plans and permutes on its own, the analysis checks
#      the pattern's symmetry, the factor's checks in order: the parallel
#      pattern, sort and merge stay) and twice with the default: the stage
#      table, the chain from the frequency's start (the assembly's
#      pattern) to the values scattered into the fronts, S11, wall.
# SKIP_TESTS leaves step 2 out.  Logs: $OUT/hostpath-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-hostpath}
DEADLINE=${DEADLINE:-470}
B=${BUILD:-/tmp/b-hp}
L=/tmp/hostpath-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/hostpath-logs.tgz" --exclude="*.vtk" --exclude="*.msh" --exclude="farfield_*" --exclude="pattern_*" -C /tmp hostpath-logs 2> /dev/null' EXIT
# shellcheck disable=SC1091
. scripts/device-lib.sh
dev_build 240 || exit 1
if [ -z "${SKIP_TESTS:-}" ]; then
  R='^(test_direct_gpu|test_overlap_gpu|test_fsys_gpu|test_fsys_block_gpu|test_direct_pc_gpu|test_direct|test_core_permute|dump_dra_o2)$'
  step "ctest -R $R -j4"
  (cd "$B" && timeout "$(cap 240)" ctest -R "$R" -j4 --timeout 200 --output-on-failure \
    > "$L/ctest.log" 2>&1)
  echo "ctest rc $?"
  grep -E "Test +#|tests passed|tests failed" "$L/ctest.log"
  sed -n '/The following tests/,$p' "$L/ctest.log"
fi
R=$(command -v python3)
run() { # LABEL env... -- emsolve args
  local lab=$1 t0
  shift
  t0=$(date +%s.%N)
  timeout -k 10 "$(cap 90)" env "$@" > "$L/$lab.out" 2> "$L/$lab.log"
  echo "$lab: rc $? wall $($R -c "print(f'{$(date +%s.%N) - $t0:.2f}')") s" | tee -a "$L/walls.txt"
}
M1="$B/app/emsolve cases/dra.geo --device gpu --verbose -setnumber Solver/order 3
    -setnumber Mesh/elements_per_wavelength 13.3 -setnumber Mesh/frequency 5.8e9
    -setnumber Solver/frequency 5.8e9"
labs="old new new2"
step "issue 24: the 1M run with EMSOLVE_HOSTPATH=0, then the default twice"
# shellcheck disable=SC2086
run old EMSOLVE_HOSTPATH=0 $M1 --out "$L/old"
# shellcheck disable=SC2086
run new $M1 --out "$L/new"
# shellcheck disable=SC2086
[ "$(left)" -gt 40 ] && run new2 $M1 --out "$L/new2"
args=()
for lab in $labs; do
  [ -f "$L/$lab/summary.json" ] && args+=("$lab=$L/$lab:$L/$lab.log")
done
[ ${#args[@]} -gt 0 ] && $R scripts/stage_table.py "${args[@]}" | tee "$L/stages.txt"
for lab in $labs; do
  [ -f "$L/$lab.log" ] || continue
  $R - "$L/$lab.log" "$lab" << 'PY'
import re, sys
t = open(sys.argv[1]).read()
def at(pat):
    m = re.search(r"\[\s*([\d.]+)s\] " + pat, t)
    return float(m.group(1)) if m else float("nan")
a, j, v = at("frequency 1/1:"), at("overlap: waited|direct: GPU factor in"), at("direct: .*scattered")
print(f"{sys.argv[2]}: the frequency's start {a:.2f} s -> analysis joined ~{j:.2f} s -> values in "
      f"the fronts {v:.2f} s: chain {v - a:.2f} s")
PY
  echo "$lab: $(grep -v "^[!#]" "$L/$lab/"*.s1p 2> /dev/null | head -1)"
done
for lab in $labs; do
  echo "--- $lab"
  grep -h "frequency 1/1\|assembly: \|operator: \|overlap: \|ordering: \|symbolic: \|direct: \|numeric: \|pc_setup: \|frequency 1/1, " \
    "$L/$lab.log" | grep -v "block A" | cut -c1-200
  tail -c 300 "$L/$lab.log" | tail -2 | cut -c1-170
done
step done
