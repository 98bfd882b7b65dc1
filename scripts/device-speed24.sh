#!/bin/bash
# device-speed24.sh - issue 24's commands on one GPU, from the repository
# root, with an emsolve already built (BUILD, default /tmp/b-dgsolve) or
# built here: the order-3 DRA at ~1.36M unknowns (epw 13.3 at 5.8 GHz, the
# case's defaults otherwise), the default 13-frequency order-3 sweep, and,
# for comparison, the 1M run with the opt-in PML/basis_order -1 (order 2 in
# the PML).  Single runs; the stage tables side by side (stage_table.py)
# and S11 on stdout; logs and summaries in $OUT/speed24-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-speed24}
B=${BUILD:-/tmp/b-dgsolve}
L=/tmp/speed24-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/speed24-logs.tgz" --exclude="*.vtk" -C /tmp speed24-logs 2> /dev/null' EXIT
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
if [ ! -x "$B/app/emsolve" ]; then
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  cmake --build "$B" -j"$(nproc)" --target emsolve > "$L/build.log" 2>&1 || { tail -20 "$L/build.log"; exit 1; }
fi
PY=$(command -v python3)
run() { # LABEL ARGS...
  local lab=$1 t0
  shift
  t0=$(date +%s.%N)
  timeout 120 "$B/app/emsolve" cases/dra.geo --device gpu --verbose --out "$L/$lab" "$@" \
    > "$L/$lab.out" 2> "$L/$lab.log"
  echo "$lab: rc $? wall $($PY -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s"
}
ONE=(-setnumber Solver/order 3 -setnumber Mesh/elements_per_wavelength 13.3
  -setnumber Mesh/frequency 5.8e9 -setnumber Solver/frequency 5.8e9)
run 1m "${ONE[@]}"
run sweep -setnumber Solver/order 3
[ -z "${SKIP_AUTO:-}" ] && run 1m-pmlauto "${ONE[@]}" -setnumber PML/basis_order -1
args=()
for lab in 1m sweep 1m-pmlauto; do [ -f "$L/$lab/summary.json" ] && args+=("$lab=$L/$lab:$L/$lab.log"); done
$PY scripts/stage_table.py "${args[@]}" | tee "$L/stages.txt"
grep -h "S11" "$L"/1m.out "$L"/1m-pmlauto.out 2> /dev/null | grep -v "^#" | head -4
