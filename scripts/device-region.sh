#!/bin/bash
# device-region.sh - issue 25 on one GPU, from the repository root, within
# DEADLINE seconds (default 540 = 9 min, the build included): the order-3
# DRA (5.8 GHz, pmg, COCG, mixed precision) at about 1M unknowns with each
# PML treatment, then the largest sizes that fit with the PML at order 1.
#
#   1M (EPW_1M, default 9 at the case's 7.5 GHz sizing: 1.0M unknowns
#   uniform; every run on the same mesh; SKIP_1M=1 skips these):
#     uniform         every PML unknown in the coarse factor (auto = 3, today)
#     pml2            PML/basis_order 2: the PML's orders 1-2 in the coarse set
#     pml1            PML/basis_order 1: the coarse set is the order-1 space
#     block           uniform, PMG/pml_coarse 1 + PMG/pml_smoother direct (the
#                     PML's own exact factor as a level, beside the order-1
#                     coarse factor)
#     blockilu        the same with ILU(0) of the PML block (stalls on the
#                     CPU: 150 iterations at most, SKIP_ILU=1 skips it)
#   largest: BIG_ARGS (default: PML/basis_order 1 with PML/elements_only 1,
#   the layer kept at its PML/elements across however fine the interior, so
#   the coarse set stays the order-1 space, ~8 % of the unknowns) at
#   EPW_BIG (default "29 40 54": ~5M, ~10M, ~20M unknowns by the CPU's
#   --dry-run: 12 -> 0.72M, 25 -> 3.6M), each while the time left allows;
#   a size that does not fit the card is refused (that is a result too).
#
# Per run: unknowns, the coarse set (and its share), iterations, true
# residual, S11 / Zin, the stage times, the memory by component (the log's
# "memory:" line), GPU peak (nvidia-smi, sampled) and host peak.  The
# summary lines go to stdout; logs and summaries to $OUT/region-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-540}
EPW_1M=${EPW_1M:-9}
EPW_BIG=${EPW_BIG-29 40 54}
BIG_ARGS=${BIG_ARGS:--setnumber PML/basis_order 1 -setnumber PML/elements_only 1}
mkdir -p "$OUT"
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
. scripts/device-setup.sh
B=${BUILD:-/tmp/emsolve-build}
L=/tmp/region-logs
mkdir -p "$L"
trap 'tar czf "$OUT/region-logs.tgz" -C /tmp region-logs 2>/dev/null' EXIT
if [ ! -x "$B/app/emsolve" ]; then
  step "configure + build"
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  timeout "$(cap 300)" cmake --build "$B" -j"$(nproc)" --target emsolve > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
PMG=(-setstring Solver/preconditioner pmg -setstring Solver/method cocg -setstring Solver/precision
  mixed -setnumber Solver/max_iterations 1000 -setnumber Solver/frequency 5.8e9)
# run LABEL EPW TIMEOUT [options]: one emsolve run on the GPU, memory sampled
run() {
  local lab=$1 epw=$2 tmo=$3
  shift 3
  [ "$(left)" -lt 30 ] && { echo "skipped $lab: $(left) s left"; return; }
  step "$lab: epw $epw $*"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 250 > "$L/$lab.gpumem" &
  local smi=$! ts
  ts=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$L/$lab.maxrss" timeout "$(cap "$tmo")" "$B/app/emsolve" cases/dra.geo \
    -setnumber Solver/order 3 -setnumber Mesh/elements_per_wavelength "$epw" "${PMG[@]}" \
    -setstring Output/fields none --device gpu --verbose --out "$L/$lab" "$@" > "$L/$lab.log" 2>&1
  local rc=$?
  kill $smi 2>/dev/null
  python3 - "$L/$lab" "$rc" "$(python3 -c "print($(date +%s.%N) - $ts)")" "$L/$lab.gpumem" \
    "$L/$lab.maxrss" "$L/$lab.log" <<'PY'
import json, re, sys
d, rc, wall, gm, rss, log = sys.argv[1:7]
wall = float(wall)
text = open(log, errors="replace").read()
mem = [int(x) for x in open(gm).read().split() if x.strip().isdigit()]
try:
    host = int(open(rss).read().split()[-1]) / 2**20
except Exception:
    host = float("nan")
gpu = max(mem or [0]) / 1024
try:
    s = json.load(open(d + "/summary.json"))
except Exception as e:
    last = [l for l in text.splitlines() if "error" in l.lower()][-3:]
    print(f"  rc={rc} wall {wall:.1f} s, GPU peak {gpu:.2f} GiB, host peak {host:.2f} GiB: no summary "
          f"({e}); {' | '.join(last)}")
    sys.exit()
f = s["frequencies"][0]; t = f["time_s"]; pc = f["preconditioner"]; sv = f["solves"][0]
n = s["dofs"]["unknowns"]; nc = pc.get("coarse_unknowns", 0)
print(f"  rc={rc} unknowns {n}, coarse {nc} ({100 * nc / n:.1f} %), {sv['iterations']} iterations "
      f"({sv['reason']}, true residual {sv['true_relative_residual']:.1e}), S11 "
      f"{f['ports'][0]['S_dB']:.4f} dB, Zin {f['ports'][0]['Zin_ohm']}")
print(f"  wall {wall:.1f} s: mesh {s['time_s']['mesh']:.1f}, assembly {t['assembly']:.1f}, operator "
      f"{t['operator']:.1f}, pc setup {t['preconditioner_setup']:.1f}, solve {t['solve']:.1f} s; "
      f"GPU peak {gpu:.2f} GiB (nvidia-smi), host peak {host:.2f} GiB")
if "applies" in pc:
    print(f"  pmg: {pc['applies']} V-cycles, smoother {pc['smoother_s']:.2f} s, coarse solves "
          f"{pc['coarse_solve_s']:.2f} s, residual SpMVs {pc['residual_spmv_s']:.2f} s")
for l in re.findall(r"memory: operator.*", text)[-1:]:
    print("  " + l)
for l in re.findall(r"region \w+: order.*", text):
    print("  " + l)
PY
}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
if [ "${SKIP_1M:-0}" != 1 ]; then
  run uniform "$EPW_1M" 150
  run pml2 "$EPW_1M" 150 -setnumber PML/basis_order 2
  run pml1 "$EPW_1M" 150 -setnumber PML/basis_order 1
  run block "$EPW_1M" 150 -setstring PMG/pml_coarse 1 -setstring PMG/pml_smoother direct
  [ "${SKIP_ILU:-0}" = 1 ] || run blockilu "$EPW_1M" 90 -setstring PMG/pml_coarse 1 \
    -setstring PMG/pml_smoother ilu0 -setnumber Solver/max_iterations 150
fi
for e in $EPW_BIG; do
  [ "$(left)" -lt 120 ] && { echo "skipped epw $e: $(left) s left"; break; }
  # shellcheck disable=SC2086 # BIG_ARGS: options, word-split on purpose
  run "big-epw$e" "$e" 420 $BIG_ARGS
done
step "done"
