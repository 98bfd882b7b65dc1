#!/bin/bash
# device-mpi.sh - issue 26 on a multi-GPU machine (nvidia-h100-x4, or the
# h200 kinds), from the repository root, in one call of at most 9 minutes:
#   1. build (CUDA + MPI: the machine's Open MPI, else .device/mpi.tar.xz),
#      test_dist on 4 ranks (the MPI layer itself);
#   2. an 8-point order-3 DRA design sweep (Materials/dra/eps_r = 8 .. 11.5,
#      5 frequencies, no far field, no fields) on 1 GPU (plain emsolve), 2
#      and 4 GPUs (mpirun -np 2 / 4, one GPU per rank): wall times and
#      speed-ups (targets >= 1.8x on 2, >= 3.4x on 4), and whether the 2-
#      and 4-GPU sweep.csv equal the 1-GPU one byte for byte;
#   3. if time is left: one case's 13 frequencies (the default order-3 DRA,
#      no far field) on 1 and 4 GPUs.
# Summary on stdout; logs in $OUT/mpi-logs.tgz.  ORDER, NF, DEVICE and
# EXTRA (more options) change the runs (a CPU smoke test: DEVICE=cpu ORDER=1
# EXTRA="-setnumber Mesh/elements_per_wavelength 3" NG=4).  Call (the lead):
#   run(command="bash scripts/device-mpi.sh", kind="nvidia-h100-x4", carry=[".device"])
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-530}
B=${BUILD:-/tmp/b-mpi}
L=/tmp/mpi-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/mpi-logs.tgz" --exclude="*.vtk" -C /tmp mpi-logs 2>/dev/null' EXIT
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
ORDER=${ORDER:-3} NF=${NF:-5} DEVICE=${DEVICE:-gpu}
read -r -a EXTRA <<< "${EXTRA:-}"
echo "host: $(nproc) cores, $NG GPUs"
G=$(command -v ninja > /dev/null && echo "-G Ninja")
if [ ! -x "$B/app/emsolve" ] || [ ! -x "$B/tests/dist/test_dist" ]; then
  step build
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON -DEMSOLVE_MPI=ON > "$L/configure.log" 2>&1 ||
    { tail -20 "$L/configure.log"; exit 1; }
  grep -E "emsolve: (MPI|CUDA)" "$L/configure.log"
  timeout "$(cap 300)" cmake --build "$B" -j"$(nproc)" --target emsolve test_dist > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
# every rank's host threads: the node's cores split among its ranks
# (app/rank.c); --bind-to none lets them (Open MPI binds to cores otherwise)
MPIRUN=(mpirun --allow-run-as-root --bind-to none)
# a container may forbid the cross-process reads of the shared-memory
# transport's single-copy path (ob1/vader only; UCX ignores it)
export OMPI_MCA_btl_vader_single_copy_mechanism=none
step "test_dist on 4 ranks"
if ! timeout 60 "${MPIRUN[@]}" -np 4 "$B/tests/dist/test_dist" 4 > "$L/test_dist.log" 2>&1; then
  tail -5 "$L/test_dist.log"
  echo "retrying with Open MPI's ob1 / shared memory transports (UCX off)"
  export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
  timeout 60 "${MPIRUN[@]}" -np 4 "$B/tests/dist/test_dist" 4 > "$L/test_dist-ob1.log" 2>&1
fi
grep -h "test_dist:" "$L"/test_dist*.log

# run LABEL NP DIR-ARGS...: wall time of one command (NP 0: plain emsolve)
declare -A WALL RC
run() {
  local lab=$1 np=$2 t0 rc
  shift 2
  local cmd=("$B/app/emsolve" cases/dra.geo --out "$L/$lab" --device "$DEVICE" "$@" "${EXTRA[@]}")
  [ "$np" -gt 0 ] && cmd=("${MPIRUN[@]}" -np "$np" "${cmd[@]}")
  t0=$(date +%s.%N)
  timeout "$(cap 240)" "${cmd[@]}" > "$L/$lab.out" 2> "$L/$lab.log"
  rc=$?
  WALL[$lab]=$(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')")
  RC[$lab]=$rc
  printf "%-10s ranks %d  rc %d  wall %6.1f s\n" "$lab" "$np" "$rc" "${WALL[$lab]}"
}

SWEEP=(--sweep "Materials/dra/eps_r=8:0.5:11.5" -setnumber Solver/order "$ORDER" -setnumber Solver/n_freq "$NF" -setstring Solver/sweep uniform
  -setstring Output/fields none -setstring Farfield/compute off)
step "8-point order-$ORDER DRA design sweep on 1, 2, 4 GPUs ($NF frequencies each)"
run sweep-1 0 "${SWEEP[@]}"
run sweep-2 2 "${SWEEP[@]}"
[ "$NG" -ge 4 ] && run sweep-4 4 "${SWEEP[@]}"
grep -h "rank .* of .* on .*GPU" "$L"/sweep-4.log 2> /dev/null | sed 's/^/  /'
grep -h "design sweep:" "$L"/sweep-*.out | sed 's/^/  /'
python3 - "$L" "${WALL[sweep-1]}" "${WALL[sweep-2]:-0}" "${WALL[sweep-4]:-0}" << 'PY'
import csv, os, sys
L, w1, w2, w4 = sys.argv[1], *map(float, sys.argv[2:])
for n, w, target in ((2, w2, 1.8), (4, w4, 3.4)):
    if w > 0:
        s = w1 / w
        print(f"speed-up on {n} GPUs: {s:.2f}x (target >= {target}x: {'met' if s >= target else 'NOT met'})")
def stages(d):  # seconds summed over the points: where each run spends its time
    import glob, json
    t = {}
    for f in glob.glob(os.path.join(L, d, "point_*", "summary.json")):
        for k, v in json.load(open(f))["time_s"].items():
            t[k] = t.get(k, 0) + v
    return " ".join(f"{k} {v:.1f}" for k, v in t.items())
for d in ("sweep-1", "sweep-2", "sweep-4"):
    if os.path.isdir(os.path.join(L, d)):
        print(f"{d}: stage sums over the points (s): {stages(d)}")
def rows(d):
    with open(os.path.join(L, d, "sweep.csv")) as f:
        return [r for r in csv.reader(l for l in f if not l.startswith("#"))]
try:
    ref = rows("sweep-1")
    for d in ("sweep-2", "sweep-4"):
        if not os.path.exists(os.path.join(L, d, "sweep.csv")):
            continue
        got = rows(d)
        same = open(os.path.join(L, d, "sweep.csv"), "rb").read() == open(os.path.join(L, "sweep-1", "sweep.csv"), "rb").read()
        diff = max(abs(float(a) - float(b)) / max(1, abs(float(a)))
                   for ra, rb in zip(ref[1:], got[1:]) for a, b in zip(ra[-5:], rb[-5:]))
        print(f"{d}/sweep.csv vs 1 GPU: {'byte-identical' if same else 'differs'}, "
              f"largest relative difference {diff:.2e} ({len(got) - 1} rows)")
except Exception as e:
    print("sweep.csv comparison failed:", e)
PY

if [ "$(left)" -gt 150 ]; then
  step "one case, 13 frequencies (order $ORDER, no far field) on 1 and 4 GPUs"
  FREQ=(-setnumber Solver/order "$ORDER" -setstring Farfield/compute off -setstring Output/fields none)
  run freq-1 0 "${FREQ[@]}"
  [ "$NG" -ge 4 ] && [ "$(left)" -gt 60 ] && run freq-4 4 "${FREQ[@]}"
  if [ -f "$L/freq-4/dra.s1p" ]; then
    python3 -c "print(f'speed-up of 13 frequencies on 4 GPUs: {${WALL[freq-1]} / ${WALL[freq-4]}:.2f}x')"
    cmp -s "$L/freq-1/dra.s1p" "$L/freq-4/dra.s1p" && echo "dra.s1p: 4 GPUs = 1 GPU, byte for byte" ||
      echo "dra.s1p: 4 GPUs differs from 1 GPU (GPU rounding differs between runs?)"
  fi
fi
step done
