#!/bin/bash
# device-meshspeed.sh - issue 24 item 4 on the GPU machine's 16 host cores
# (no GPU used), from the repository root, within DEADLINE (default 240) s:
# builds bench/mesh_bench (CPU only) in /tmp/b-meshspeed, then meshes the
# 1M-unknown order-3 DRA (5.8 GHz, 13.3 elements per wavelength) 3 times
# per variant, each in a fresh process (address-space layout randomised):
#   together    Mesh/volume_meshing together (Gmsh's one call, the former
#               mesher), 1 thread;
#   apart-1/4/16  surfaces, then volumes, meshed apart in 1, 4, 16 child
#               processes (the default, auto, does so here: ~95k tets
#               expected; as many processes as OpenMP threads);
#   hxt         Mesh/algorithm3d hxt (one thread in Gmsh 4.8; not
#               reproducible: its hashes differ), for reference.
# Prints one table (wall s of the mesh stage, tets, 3E+6F+3T, quality
# min/mean, mesh hash): the apart rows must share one hash across the runs
# and the process counts; then the per-volume times of one apart-16 run.
# Logs: $OUT/meshspeed-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-meshspeed}
DEADLINE=${DEADLINE:-240}
B=${BUILD:-/tmp/b-meshspeed}
L=/tmp/meshspeed-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/meshspeed-logs.tgz" -C /tmp meshspeed-logs 2> /dev/null' EXIT
# shellcheck disable=SC1091
. scripts/device-lib.sh # left, step, device-setup (CPU only here: no dev_build)
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
if [ ! -x "$B/bench/mesh_bench" ]; then
  step build
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  # shellcheck disable=SC2086
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=OFF > "$L/configure.log" 2>&1
  timeout 150 cmake --build "$B" -j"$(nproc)" --target mesh_bench > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head; exit 1; }
fi
M="$B/bench/mesh_bench cases/dra.geo -setnumber Solver/order 3 -f 5.8e9 -epw 13.3"
step "mesh stage, 3 fresh processes per variant"
printf "%-9s %3s %8s %8s %9s %6s %6s %s\n" variant run wall_s tets 3E+6F+3T q_min q_mean hash
for v in "together:-together -threads 1" "apart-1:-threads 1" "apart-4:-threads 4" \
  "apart-16:-threads 16" "hxt:-hxt -threads 1"; do
  name=${v%%:*}
  for r in 1 2 3; do
    [ "$(left)" -lt 15 ] && { echo "out of time"; break 2; }
    # shellcheck disable=SC2086
    $M ${v#*:} > "$L/$name-$r.txt" 2> "$L/$name-$r.err"
    tail -1 "$L/$name-$r.txt" | awk -v n="$name" -v r="$r" \
      '{printf "%-9s %3s %8s %8s %9s %6s %6s %s\n", n, r, $1, $3, $7, $8, $9, $10}'
  done
done
step "one apart-16 run with -v: the volumes' times"
# shellcheck disable=SC2086
$M -threads 16 -v > "$L/apart-16-v.txt" 2> "$L/apart-16-v.err"
grep -E "meshed apart|  volume [0-9]+:|meshed dra in|mesh: [0-9]" \
  "$L/apart-16-v.err" | sed 's/^\[ *[0-9.]*s\] //'
step finished
