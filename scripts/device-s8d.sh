#!/bin/bash
# device-s8d.sh - the huge pages A/B on the 2 x 2 array's direct block
# (one GPU): call 4's block spent 0.127 s in "norms, vectors and uploads"
# (0.025 s in call 3 before core/mem.c's huge pages, on another host).
# Build of emsolve alone, the mesh once, then the block with
# EMSOLVE_HUGEPAGES=1 / 0 alternated and port 1 alone; the -v block lines.
set -uo pipefail
OUT=${OUT:-out/device-s8d}
B=/tmp/b-s8d
L=/tmp/s8d-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s8d-logs.tgz" --exclude="*.msh" -C /tmp s8d-logs 2> /dev/null' EXIT
# shellcheck disable=SC1091
. scripts/device-setup.sh > /dev/null
T0=$(date +%s)
G=$(command -v ninja > /dev/null && echo "-G Ninja")
# shellcheck disable=SC2086
cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
timeout 100 cmake --build "$B" -j"$(nproc)" --target emsolve > "$L/build.log" 2>&1 ||
  { grep error "$L/build.log" | head; exit 1; }
echo "built in $(($(date +%s) - T0)) s; THP $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
A=(cases/dra_array.geo -setnumber Solver/order 3 -setnumber Solver/frequency 5.8e9 -setstring Output/fields none
  -setstring Farfield/compute off --device gpu -v -setstring Solver/preconditioner direct
  -setstring Solver/method bicgstab -setstring Solver/precision mixed)
M=/tmp/s8d-arr.msh
r() { # LABEL HP ARGS
  local lab=$1 hp=$2 mesh=(-setstring Mesh/file "$M")
  shift 2
  [ -f "$M" ] || mesh=(--save-mesh "$M")
  EMSOLVE_HUGEPAGES=$hp timeout 40 "$B/app/emsolve" "${A[@]}" "${mesh[@]}" --out "$L/$lab" "$@" > "$L/$lab.log" 2>&1
  echo "$lab hp=$hp rc $? $(grep -h "block of 4\|solve: [0-9.]* s, 4\|converged after" "$L/$lab.log" | head -1 | cut -c12-150)"
}
r blk-a 1
r blk-b 0
r blk-c 1
r blk-d 0
r one-a 1 -setnumber Solver/rhs_block 1
r one-b 0 -setnumber Solver/rhs_block 1
echo "done in $(($(date +%s) - T0)) s"
