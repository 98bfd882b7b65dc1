#!/bin/bash
# device-array16.sh - issue 27's last acceptance item: a 4 x 4 DRA array
# (cases/dra_array.geo, 16 coax ports) of >= 20M unknowns at order 3
# solved for port 1 alone (Excitation/ports 1: the other 15 ports matched
# loads, one right-hand side) on the lent GPUs, distributed (mpirun -np 4,
# Solver/distributed on, rank 0 meshes and drives), one frequency 5.8 GHz,
# pmg + COCG in mixed precision, no far field, no field files.  On
# nvidia-h100-x4 (or h200-x4), from the repository root, in one call:
#   run(command="bash scripts/device-array16.sh", kind="nvidia-h100-x4", carry=[".device"])
# It prints the unknowns, the wall time, the stage times (summary.json
# stages_s), the Krylov iterations, S11 and per rank the host memory peak
# and the distributed operator's share (the log lines of model/dfsys.c and
# app/run.c), and per GPU the memory peak (nvidia-smi sampled every
# second); logs in $OUT/array16-logs.tgz (no *.vtk, *.msh).
#
# The size: Mesh/elements_per_wavelength EPW.  Unknowns of the 4 x 4 array
# at order 3, meshed on the CPU (emsolve --sweep ... --dry-run, Mesh/
# frequency 5.8 GHz; pmg's exact coarse level in brackets): EPW 2: 4.17M,
# 3: 4.64M, 4: 5.24M, 8: 7.29M (0.95M), 12: 11.46M (2.27M), 17: 19.64M
# (5.62M).  The probes (Mesh/probe_size 0.5 mm) and the DRAs (eps_r 10)
# fix a floor, so N is not c EPW^3 alone: N = 4.24M + 0.0425M EPW^2 +
# 0.00063M EPW^3 through EPW 8, 12, 17 gives 21.7M at EPW 18, the default
# (~6M coarse unknowns, factored on rank 0's GPU: if that does not fit,
# EXTRA="-setstring PMG/pml_coarse 1" or EPW=17.5, ~20.6M).
# Override with EPW=..., EXTRA (more emsolve arguments), DEADLINE (default
# 420 s, the emsolve run's limit), NP (ranks, 4), NX/NY (4), ORDER (3), DEVICE (gpu),
# BUILD (an existing build directory with app/emsolve; default: build
# /tmp/b-array16), SETUP=0 (do not source scripts/device-setup.sh: a test
# on a machine without .device).  A CPU rehearsal of this script's logic:
#   SETUP=0 BUILD=build NP=2 DEVICE=cpu NX=2 NY=2 ORDER=1 EPW=3 bash scripts/device-array16.sh
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-420}
NP=${NP:-4}
NX=${NX:-4}
NY=${NY:-4}
ORDER=${ORDER:-3}
EPW=${EPW:-18}
DEVICE=${DEVICE:-gpu}
B=${BUILD:-/tmp/b-array16}
L=/tmp/array16-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/array16-logs.tgz" --exclude="*.vtk" --exclude="*.msh" -C /tmp array16-logs 2>/dev/null' EXIT
T0=$(date +%s)
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ "${SETUP:-1}" = 1 ] && . scripts/device-setup.sh
command -v mpirun > /dev/null || { echo "no mpirun on this machine (scripts/pack-device-mpi.sh)"; exit 1; }
echo "MPI: ${EM_MPI_FROM:-PATH}; $(mpirun --version 2>&1 | head -1)"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader 2> /dev/null | tee "$L/gpus.txt"
echo "host: $(nproc) cores; array ${NX} x ${NY}, order $ORDER, EPW $EPW, $NP ranks, --device $DEVICE"
if [ ! -x "$B/app/emsolve" ]; then
  step build
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  CUDA=$([ "$DEVICE" = gpu ] && echo ON || echo OFF)
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=$CUDA -DEMSOLVE_MPI=ON > "$L/configure.log" 2>&1 ||
    { tail -20 "$L/configure.log"; exit 1; }
  cmake --build "$B" -j"$(nproc)" --target emsolve > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
MPIRUN=(mpirun --allow-run-as-root --bind-to none --oversubscribe -x OMP_NUM_THREADS)
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(($(nproc) / NP > 0 ? $(nproc) / NP : 1))}
# the GPUs' memory, sampled every second while the run lasts
if [ -s "$L/gpus.txt" ]; then
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -l 1 > "$L/gpu_mem.csv" 2> /dev/null &
  SMI=$!
fi
step "solve: mpirun -np $NP, the ${NX} x ${NY} array for port 1 (limit $DEADLINE s)"
R=$L/array16
rm -rf "$R"
t0=$(date +%s.%N)
timeout "$DEADLINE" "${MPIRUN[@]}" -np "$NP" "$B/app/emsolve" cases/dra_array.geo --out "$R" \
  --device "$DEVICE" --verbose \
  -setnumber Geometry/nx "$NX" -setnumber Geometry/ny "$NY" -setnumber Solver/order "$ORDER" \
  -setnumber Solver/n_freq 1 -setnumber Solver/f_start 5.8e9 -setnumber Solver/f_stop 5.8e9 \
  -setnumber Mesh/frequency 5.8e9 -setnumber Mesh/elements_per_wavelength "$EPW" \
  -setstring Excitation/ports 1 -setstring Solver/preconditioner pmg -setstring Solver/method cocg \
  -setstring Solver/precision mixed -setstring Farfield/compute off -setstring Output/fields none \
  -setstring Solver/distributed on ${EXTRA:-} > "$L/array16.out" 2> "$L/array16.log"
RCODE=$?
WALL=$(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')")
[ -n "${SMI:-}" ] && kill "$SMI" 2> /dev/null
echo "rc $RCODE$([ $RCODE = 124 ] && echo ' (timed out)'), wall $WALL s"
python3 - "$L" "$R" << 'PY'
import json, os, re, sys
L, R = sys.argv[1], sys.argv[2]
log = open(os.path.join(L, "array16.log"), errors="replace").read()
out = open(os.path.join(L, "array16.out"), errors="replace").read()
m = re.search(r"\[rank 0\] order \d[^:]*: (\d+) unknowns", log) or re.search(r"order \d[^:]*: (\d+) unknowns", log)
print("unknowns:", m.group(1) if m else "? (not reached)")
for pat in (r"mesh: \d+ tets[^\n]*", r"excitation: [^\n]*", r"distributed operator: [^\n]*",
            r"frequency 1/1, [^\n]*"):
    for line in re.findall(r"\[rank 0\] " + pat, log)[:1]:
        print(" ", line[:300])
its = re.findall(r"(\d+) iterations", log)
print("iterations (last):", its[-1] if its else "?")
try:
    j = json.load(open(os.path.join(R, "summary.json")))
    print("excited ports:", j.get("excited_ports"))
    st = j.get("stages_s", {})
    print("stages_s:", ", ".join(f"{k} {v:.1f}" for k, v in st.items() if v and v >= 0.05))
    p1 = j["frequencies"][0]["ports"][0]
    s = complex(*p1["S_row"][0])
    print(f"S11: {s.real:+.6f}{s.imag:+.6f}j ({p1['S_dB']:.2f} dB), Zin {p1['Zin_ohm']}")
    print("S_i1 (dB):", " ".join(f"{20 * __import__('math').log10(abs(complex(*r['S_row'][0]))):.1f}"
                                 for r in j["frequencies"][0]["ports"]))
except Exception as e:
    print("no summary.json:", e)
print("per rank:")
for pat in (r"\[rank (\d+)\] distributed solve: this rank's host memory peak ([0-9.]+ GiB)",):
    for r, v in re.findall(pat, log):
        print(f"  rank {r}: host memory peak {v}")
for line in re.findall(r"\[rank \d+\] (?:memory|distributed solve: [0-9.]+ s|assembly: order)[^\n]*", log):
    print(" ", line[:260])
try:
    peak = {}
    for l in open(os.path.join(L, "gpu_mem.csv")):
        i, v = [x.strip() for x in l.split(",")]
        peak[i] = max(peak.get(i, 0), int(v))
    print("GPU memory peak (MiB):", ", ".join(f"GPU {i}: {v}" for i, v in sorted(peak.items())))
except Exception:
    print("GPU memory: not sampled (no nvidia-smi)")
PY
grep -h "error\|warning" "$L/array16.log" | head -5
step done
