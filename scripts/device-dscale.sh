#!/bin/bash
# device-dscale.sh - issue 27's strong and weak scaling of one antenna over
# the GPUs of one host (nvidia-h100-x4 or the h200 kinds), from the
# repository root, in one call of at most DEADLINE (560) s:
#   1. build (CUDA + MPI: the machine's Open MPI, else .device/mpi.tar.xz),
#      then every mesh the runs need made at once in the background
#      (--save-mesh by a cheap order-1 run, one Gmsh each: strong EPW_STRONG,
#      weak the three EPW_WEAK), so that meshing overlaps the checks and
#      every run times the same mesh;
#   2. test_dsolve on 4 ranks (CPU: the parts rank 0 sends, the halo SpMV,
#      the distributed Krylov methods and V-cycle against the serial ones);
#   3. unless SKIP_SMALL=1: the order-2 DRA (coarse mesh) on 1 GPU and over
#      2 GPUs: S11 must agree to 1e-8 (the device path of the V-cycle's
#      coarse level: rank 0's permutations on the GPU);
#   4. unless SKIP_STRONG=1: strong scaling, order-3 DRA at EPW_STRONG 36.2
#      (4,873,527 unknowns) on 1 GPU (plain emsolve) and over 2 and 4
#      (Solver/distributed on): targets >= 1.6x on 2, >= 2.8x on 4;
#   5. unless SKIP_WEAK=1: weak scaling, ~3M unknowns per GPU (EPW_WEAK
#      "30.3 38.85 51.1": ~3M on 1 GPU, ~6M on 2, ~12M on 4; N ~ epw^2.54
#      measured there): efficiency = (N_P / P / t_P) / (N_1 / t_1), target
#      >= 75 % at 4.
# Every run: 5.8 GHz, pmg, COCG, Solver/precision mixed, the PML at order 1
# (PML/basis_order 1, PML/elements_only 1: issue 25's large-run set-up).
# Tables on stdout (unknowns, stages from summary.json, iterations, S11,
# speed-up or efficiency), each distributed run's per-rank stage lines and
# its S11 against 1 GPU; logs in $OUT/dscale-logs.tgz.  Call (the lead):
#   run(command="bash scripts/device-dscale.sh", kind="nvidia-h100-x4", carry=[".device"])
# Expected time on 4 H200s with a fresh build: ~2.5 min build, ~0.5 min
# checks, strong ~1.7 min, weak ~2.5 min (~7.5 min); a part skipped saves
# its share.  NG=2 runs the 1- and 2-GPU columns only.
# What the rank lines show (dscale2): rank 0's coarse ordering and
# symbolic analysis as "(overlapped)" lines during the assembly, the coarse
# level's line ending "on its analysis made ahead", no "overlap: waited"
# line over ~0.1 s, and the coarse level's "s the matrix" near 0.05 s.
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-560}
B=${BUILD:-/tmp/b-dscale}
L=/tmp/dscale-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/dscale-logs.tgz" --exclude="*.msh" --exclude="*.vtk" -C /tmp dscale-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
. scripts/device-setup.sh
[ "$EM_MPI_FROM" = none ] && {
  echo "no MPI on this machine and no .device/mpi.tar.xz: run scripts/pack-device-mpi.sh first"
  exit 1
}
echo "MPI: $EM_MPI_FROM; $(mpirun --version 2>&1 | head -1)"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader 2> /dev/null | tee "$L/gpus.txt"
NG=${NG:-$(wc -l < "$L/gpus.txt")}
EPW_STRONG=${EPW_STRONG:-36.2}
read -r -a EPW_WEAK <<< "${EPW_WEAK:-30.3 38.85 51.1}"
echo "host: $(nproc) cores, $NG GPUs; strong at epw $EPW_STRONG, weak at epw ${EPW_WEAK[*]}"
G=$(command -v ninja > /dev/null && echo "-G Ninja")
if [ ! -x "$B/app/emsolve" ] || [ ! -x "$B/tests/model/test_dsolve" ]; then
  step build
  # the python with numpy, as device-lib.sh finds it: the app-level gpu tests
  # of this build need it (the seventh session's call 4 ran test_array_gpu
  # from this build without it)
  PY=
  for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
    [ -x "$p" ] && "$p" -c "import numpy, scipy" 2> /dev/null && { PY=$p; break; }
  done
  # shellcheck disable=SC2086
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON -DEMSOLVE_MPI=ON ${PY:+-DEM_PYTHON3=$PY} \
    > "$L/configure.log" 2>&1 ||
    { tail -20 "$L/configure.log"; exit 1; }
  timeout "$(cap 300)" cmake --build "$B" -j"$(nproc)" --target emsolve test_dsolve > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
MPIRUN=(mpirun --allow-run-as-root --bind-to none)
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# the meshes, all at once in the background (Gmsh is serial; 4 threads each
# for the order-1 assembly of the meshing run)
PMLA=(-setnumber PML/basis_order 1 -setnumber PML/elements_only 1)
declare -A MPID
mesh_bg() { # EPW: $L/mesh-EPW.msh, made in the background
  [ -n "${MPID[$1]:-}" ] && return
  (OMP_NUM_THREADS=4 timeout "$(cap 200)" "$B/app/emsolve" cases/dra.geo --out "$L/meshrun-$1" \
    --device cpu --quiet --save-mesh "$L/mesh-$1.msh" -setnumber Mesh/elements_per_wavelength "$1" \
    -setnumber Mesh/frequency 5.8e9 -setnumber Solver/frequency 5.8e9 -setnumber Solver/order 1 \
    "${PMLA[@]}" -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 \
    -setstring Farfield/compute off -setstring Output/fields none > /dev/null 2> "$L/meshrun-$1.log") &
  MPID[$1]=$!
}
mesh_wait() { # EPW: 0 when its mesh is there
  local t0
  t0=$(date +%s)
  wait "${MPID[$1]}" 2> /dev/null
  [ -f "$L/mesh-$1.msh" ] || { echo "mesh at epw $1 failed: $(tail -2 "$L/meshrun-$1.log")"; return 1; }
  echo "mesh at epw $1 ready (waited $(($(date +%s) - t0)) s)"
}
step "meshes in the background"
[ -z "${SKIP_STRONG:-}" ] && mesh_bg "$EPW_STRONG"
if [ -z "${SKIP_WEAK:-}" ]; then for e in "${EPW_WEAK[@]}"; do mesh_bg "$e"; done; fi

step "test_dsolve on 4 ranks (CPU)"
OMP_NUM_THREADS=2 timeout 90 "${MPIRUN[@]}" -np 4 "$B/tests/model/test_dsolve" 4 > "$L/test_dsolve.log" 2>&1
echo "test_dsolve: rc $? ($(grep -c "halo SpMV" "$L/test_dsolve.log") SpMV checks)"

# run LABEL NP ARGS...: one solve of the DRA (NP 0: plain emsolve, 1 GPU)

run() {
  local lab=$1 np=$2 t0 rc
  shift 2
  local cmd=("$B/app/emsolve" cases/dra.geo --out "$L/$lab" --device gpu --verbose
    -setnumber Solver/n_freq 1 -setnumber Solver/f_start 5.8e9 -setnumber Solver/f_stop 5.8e9
    -setnumber Mesh/frequency 5.8e9 -setstring Solver/method cocg -setstring Solver/precision mixed
    -setstring Farfield/compute off -setstring Output/fields none "$@")
  [ "$np" -gt 0 ] && cmd=("${MPIRUN[@]}" -np "$np" "${cmd[@]}" -setstring Solver/distributed on)
  t0=$(date +%s.%N)
  timeout "$(cap 240)" "${cmd[@]}" > "$L/$lab.out" 2> "$L/$lab.log"
  rc=$?

  echo "$lab: ranks $np rc $rc wall $(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s"
  [ "$rc" != 0 ] && tail -6 "$L/$lab.log" | sed 's/^/    /' | cut -c1-240
}
table() { # MODE LABEL...: MODE strong (speed-up) or weak (efficiency), against the first
  python3 - "$L" "$@" << 'PY'
import json, os, sys
L, mode, labs = sys.argv[1], sys.argv[2], sys.argv[3:]
base = None
print(f"{'run':9s} {'GPUs':>4s} {'unknowns':>9s} {'total_s':>8s} {'assem':>6s} {'oper':>6s} {'pc':>6s} "
      f"{'solve':>6s} {'its':>4s} {'S11':>24s} {'speed-up' if mode == 'strong' else 'efficiency':>10s}")
for k, lab in enumerate(labs):
    P = [1, 2, 4][k]
    try:
        j = json.load(open(os.path.join(L, lab, "summary.json")))
        t = j["time_s"]
        n = j["dofs"]["unknowns"] if isinstance(j.get("dofs"), dict) else 0
        s = [l for l in open(os.path.join(L, lab, "dra.s1p")) if l.strip() and l[0] not in "!#"][0].split()
        s11 = complex(float(s[1]), float(s[2]))
        its = j["frequencies"][0]["solves"][0]["iterations"]
        tot = t["total"]
        rate = n / P / tot
        base = base or (tot if mode == "strong" else rate)
        fig = f"{base / tot:9.2f}x" if mode == "strong" else f"{100 * rate / base:9.1f}%"
        print(f"{lab:9s} {P:4d} {n:9d} {tot:8.2f} {t['assembly']:6.2f} {t['operator']:6.2f} "
              f"{t['preconditioner_setup']:6.2f} {t['solve']:6.2f} {its:4d} "
              f"{s11.real:+.8f}{s11.imag:+.8f}j {fig}")
    except Exception as e:
        print(f"{lab:9s} {P:4d} (no result: {e})")
PY
}
s11diff() {
  python3 - "$L/$1/dra.s1p" "$L/$2/dra.s1p" << 'PY'
import sys
def s(p):
    for l in open(p):
        if l.strip() and l[0] not in "!#":
            v = l.split(); return complex(float(v[1]), float(v[2]))
try:
    a, b = s(sys.argv[1]), s(sys.argv[2])
    print(f"  |S11 difference| {abs(a - b):.2e} ({'within' if abs(a - b) <= 1e-8 else 'NOT within'} 1e-8)")
except Exception as e:
    print("  S11 comparison failed:", e)
PY
}
ranks() { # LABEL: rank lines of a distributed run (stages, rows, coarse level, waits, memory)
  [ -f "$L/$1.log" ] && grep -h "METIS parts\|the rows of\|\] assembly: [0-9.]* s\|\] operator: [0-9.]* s\|operator: [0-9.]* s the\|coarse level of\|\] pc_setup: [0-9.]* s\|distributed solve:\|pmg: [0-9]* V-cycles\|(overlapped)\|overlap: \|frequency-independent part" "$L/$1.log" |
    sed "s/^/  $1: /" | cut -c1-250
}

if [ -z "${SKIP_SMALL:-}" ]; then
  step "GPU correctness: order-2 DRA (coarse mesh) on 1 GPU and over 2 GPUs"
  SMALL=(-setnumber Solver/order 2 -setnumber Mesh/elements_per_wavelength 3 -setnumber Solver/tolerance 1e-10
    -setstring Solver/preconditioner pmg)
  run small-1 0 "${SMALL[@]}"
  run small-2 2 "${SMALL[@]}"
  s11diff small-1 small-2
  grep -h "coarse level of\|distributed solve:" "$L/small-2.log" | grep "rank 0" | sed 's/^/  /' | cut -c1-250
fi

# every mesh made before the timed runs (a Gmsh still running would take a
# core and memory bandwidth from them)
for e in ${MPID[@]+"${!MPID[@]}"}; do mesh_wait "$e" > /dev/null; done
if [ -z "${SKIP_STRONG:-}" ]; then
  step "strong scaling: order-3 DRA, epw $EPW_STRONG (~4.87M unknowns)"
  if mesh_wait "$EPW_STRONG"; then
    BIG=(-setnumber Solver/order 3 -setnumber Mesh/elements_per_wavelength "$EPW_STRONG"
      -setstring Solver/preconditioner pmg "${PMLA[@]}" --load-mesh "$L/mesh-$EPW_STRONG.msh")
    run strong-1 0 "${BIG[@]}"
    [ "$(left)" -gt 60 ] && run strong-2 2 "${BIG[@]}"
    [ "$NG" -ge 4 ] && [ "$(left)" -gt 50 ] && run strong-4 4 "${BIG[@]}"
    table strong strong-1 strong-2 strong-4
    for r in strong-2 strong-4; do ranks "$r"; done
    grep -h "\] assembly: [0-9.]* s\|pmg: [0-9]* V-cycles" "$L/strong-1.log" 2> /dev/null | sed "s/^/  strong-1: /" | cut -c1-250
    for r in strong-2 strong-4; do [ -f "$L/$r/dra.s1p" ] && echo "$r against strong-1:" && s11diff strong-1 "$r"; done
    echo "targets: >= 1.6x on 2 GPUs, >= 2.8x on 4"
  fi
fi

if [ -z "${SKIP_WEAK:-}" ]; then
  step "weak scaling: ~3M unknowns per GPU (epw ${EPW_WEAK[*]})"
  W=(-setnumber Solver/order 3 -setstring Solver/preconditioner pmg "${PMLA[@]}")
  mesh_wait "${EPW_WEAK[0]}" && run weak-1 0 "${W[@]}" --load-mesh "$L/mesh-${EPW_WEAK[0]}.msh"
  [ "$(left)" -gt 60 ] && mesh_wait "${EPW_WEAK[1]}" &&
    run weak-2 2 "${W[@]}" --load-mesh "$L/mesh-${EPW_WEAK[1]}.msh"
  [ "$NG" -ge 4 ] && [ "$(left)" -gt 60 ] && mesh_wait "${EPW_WEAK[2]}" &&
    run weak-4 4 "${W[@]}" --load-mesh "$L/mesh-${EPW_WEAK[2]}.msh"
  table weak weak-1 weak-2 weak-4
  for r in weak-2 weak-4; do ranks "$r"; done
  echo "weak-scaling efficiency = (unknowns/GPU/s on P GPUs) / (on 1); target >= 75 % at 4"
fi
for p in ${MPID[@]+"${MPID[@]}"}; do kill "$p" 2> /dev/null; done
step "done"
