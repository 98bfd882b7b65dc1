#!/bin/bash
# device-final.sh MODE - one session's closing measurements on the GPU
# machine, from the repository root (logs bundled into $OUT/final-logs.tgz,
# summaries on stdout).
#   MODE=tests  build, every gpu-labelled test, compute-sanitizer memcheck of
#               the tests named in SAN (ctest names; their ctest arguments).
#   MODE=bench  the default 13-frequency order-3 DRA sweep on the GPU
#               (issue 10's target); the default-DRA uniform sweep on the
#               host cores, this tree against the tree in BASE_DIR (the
#               code before the sweep engine, issue 11), with the old
#               default's 10 mm PML and no far field in both so that the
#               same problem is timed; GF(2) elimination GPU / CPU / M4RI
#               (issue 15); then scripts/device-bench-pmg.sh MEM=1 (issue 9).
set -uo pipefail
MODE=${1:-tests}
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-560}
B=${BUILD:-/tmp/b-final}
L=/tmp/final-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/final-logs-$MODE.tgz" --exclude="*.vtk" -C /tmp final-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
. scripts/device-setup.sh
G=$(command -v ninja > /dev/null && echo "-G Ninja")
if [ ! -x "$B/app/emsolve" ]; then
  step build
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  timeout "$(cap 300)" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
if [ "$MODE" = tests ]; then
  step "ctest -L gpu"
  (cd "$B" && timeout "$(cap 300)" ctest -L gpu -j4 --output-on-failure --timeout 240 > "$L/ctest-gpu.log" 2>&1)
  grep -E "tests passed|tests failed|\(Failed\)|\*\*\*|Not Run" "$L/ctest-gpu.log" | tail -20
  step "compute-sanitizer memcheck"
  (cd "$B" && ctest -L gpu --show-only=json-v1 > "$L/gpu-tests.json")
  timeout "$(cap 300)" python3 - "$L" "$(cap 300)" "${SAN:-}" << 'PY' | tee "$L/sanitizer.log"
import json, subprocess, sys, time, os
log, budget, want = sys.argv[1], float(sys.argv[2]), sys.argv[3].split()
t_end = time.time() + budget - 5
for t in json.load(open(f"{log}/gpu-tests.json"))["tests"]:
    if t["name"] not in want: continue
    if time.time() > t_end - 10:
        print(f"{t['name']:28s} skipped (time)", flush=True); continue
    cwd = next((p["value"] for p in t.get("properties", []) if p["name"] == "WORKING_DIRECTORY"), None)
    cmd = ["compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "99", "--print-limit", "10"] + t["command"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=dict(os.environ, EM_TEST_SMALL="1"),
                           timeout=min(120, t_end - time.time()))
        rc, txt = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, txt = "timeout", ""
    open(f"{log}/san_{t['name']}.txt", "w").write(txt)
    errs = [l.strip() for l in txt.splitlines() if "ERROR SUMMARY" in l][:2]
    print(f"{t['name']:28s} rc={rc} {time.time() - t0:5.1f}s " + " | ".join(errs), flush=True)
PY
  step done
  exit 0
fi
# ---------------------------------------------------------------- bench
# sweep LABEL BIN DIR [options]: emsolve's default case run in DIR, wall time
sweep() {
  local lab=$1 bin=$2 dir=$3
  shift 3
  local ts rc
  ts=$(date +%s.%N)
  (cd "$dir" && timeout "$(cap 200)" "$bin" cases/dra.geo --out "$L/$lab" "$@" > "$L/$lab.log" 2>&1)
  rc=$?
  python3 - "$L/$lab" "$rc" "$(python3 -c "print($(date +%s.%N) - $ts)")" << 'PY'
import json, sys
d, rc, wall = sys.argv[1], sys.argv[2], float(sys.argv[3])
try:
    s = json.load(open(d + "/summary.json"))
except Exception as e:
    print(f"{d.split('/')[-1]:24s} rc={rc} wall {wall:6.1f} s (no summary: {e})"); sys.exit()
fr = s["frequencies"]
tot = lambda k: sum(f["time_s"].get(k, 0) for f in fr)
print(f"{d.split('/')[-1]:24s} rc={rc} wall {wall:6.1f} s  unknowns {s.get('dofs', {}).get('unknowns', '?')}  "
      f"mesh {s['time_s'].get('mesh', 0):.1f}  assembly {tot('assembly'):.1f}  operator {tot('operator'):.1f}  "
      f"pc {tot('preconditioner_setup'):.1f}  solve {tot('solve'):.1f}  post {tot('post'):.1f} s; "
      f"S11 at {fr[6]['f_hz']/1e9:.3f} GHz {fr[6]['ports'][0]['S_dB']:.4f} dB")
PY
}
if [ "${SKIP_O3:-0}" != 1 ]; then
  step "order-3 default sweep, GPU (issue 10)"
  sweep o3-gpu "$B/app/emsolve" . -setnumber Solver/order 3 --device gpu
  sweep o3-gpu-2 "$B/app/emsolve" . -setnumber Solver/order 3 --device gpu
fi
# the old default's PML; FF=off: no far field (the base computes it by default)
OLDPML=(-setnumber Geometry/pml_thickness 10 -setnumber PML/elements 0 -setstring Farfield/compute "${FF:-auto}")
if [ -n "${BASE_DIR:-}" ] && [ -d "$BASE_DIR" ]; then
  step "base build ($BASE_DIR)"
  cmake -S "$BASE_DIR" -B /tmp/b-base $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=OFF > "$L/base-configure.log" 2>&1
  timeout "$(cap 200)" cmake --build /tmp/b-base -j"$(nproc)" --target emsolve > "$L/base-build.log" 2>&1 ||
    { grep -E "error" "$L/base-build.log" | head; }
  step "default uniform sweep on the host cores: new vs base (issue 11)"
  for k in 1 2; do
    sweep o2-cpu-new-$k "$B/app/emsolve" . --device cpu "${OLDPML[@]}"
    sweep o2-cpu-base-$k /tmp/b-base/app/emsolve "$BASE_DIR" --device cpu
  done
fi
[ "${SKIP_GF2:-0}" = 1 ] || { step "GF(2): GPU / CPU / M4RI (issue 15)"
(cd "$B" && OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=spread timeout "$(cap 120)" bench/gf2_bench --sizes 4096,8192,16384,32768 > "$L/gf2_bench.md" 2>&1
  echo "gf2_bench rc $?" >> "$L/gf2_bench.md")
cat "$L/gf2_bench.md"; }
step "pmg memory at ~1M unknowns (issue 9)"
OUT=$L/pmg DEADLINE=$(left) BUILD=$B MEM=1 RUN_ARGS="${PMG_RUN_ARGS:-}" SKIP_BASE=1 EPW=${EPW:-14.5} EPW_BIG= \
  BIG_ARGS= bash scripts/device-bench-pmg.sh ${PMG_EXTRA:-}
step done
