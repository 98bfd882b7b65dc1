#!/bin/bash
# device-band.sh - issue 25's band check on one GPU: the default DRA at
# order 3 over its 13 frequencies (4.5-7.5 GHz), the PML at the interior's
# order (uniform) against `PML/basis_order 2` and `1`, same mesh, default
# solver, --device gpu; per frequency |S11| (dB) and Zin, the largest
# differences (acceptance: 0.02 dB and 0.3 %), the unknowns and the
# iterations at 4.5 / 5.75 / 7.5 GHz.  From the repository root, within
# DEADLINE seconds (default 150, the build of emsolve not included when
# $BUILD has it); logs in $OUT/band-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-150}
B=${BUILD:-/tmp/emsolve-build}
L=/tmp/band-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/band-logs.tgz" --exclude="*.vtk" -C /tmp band-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
if [ ! -x "$B/app/emsolve" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
  cmake --build "$B" -j"$(nproc)" --target emsolve > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head -20; exit 1; }
fi
COMMON=(-setnumber Solver/order 3 -setstring Farfield/compute off -setstring Output/fields none
  --device gpu -v)
"$B/app/emsolve" cases/dra.geo "${COMMON[@]}" --out "$L/uniform" --save-mesh /tmp/band.msh \
  > "$L/uniform.log" 2>&1
echo "uniform rc=$? (t=$(($(date +%s) - T0)) s)"
for p in 2 1; do
  [ "$(left)" -lt 30 ] && { echo "skipped pml$p: $(left) s left"; continue; }
  timeout "$(left)" "$B/app/emsolve" cases/dra.geo "${COMMON[@]}" -setstring Mesh/file /tmp/band.msh \
    -setnumber PML/basis_order $p --out "$L/pml$p" > "$L/pml$p.log" 2>&1
  echo "pml$p rc=$? (t=$(($(date +%s) - T0)) s)"
done
python3 - "$L" << 'PY' | tee "$L/band.md"
import json, math, os, sys
L = sys.argv[1]
def load(n):
    try:
        return json.load(open(os.path.join(L, n, "summary.json")))
    except Exception as e:
        print(f"{n}: no summary ({e})")
        return None
u = load("uniform")
if u:
    print("| run | unknowns | max d|S11| (dB) | max dZin / |Zin| | at GHz | iterations 4.5 / 5.75 / 7.5 GHz | wall (s) |")
    print("|---|---|---|---|---|---|---|")
    for n in ["uniform", "pml2", "pml1"]:
        r = load(n)
        if not r:
            continue
        ds = dz = 0
        fz = 0
        for fu, fr in zip(u["frequencies"], r["frequencies"]):
            a, b = fu["ports"][0], fr["ports"][0]
            za, zb = complex(*a["Zin_ohm"]), complex(*b["Zin_ohm"])
            ds = max(ds, abs(a["S_dB"] - b["S_dB"]))
            if abs(za - zb) / abs(za) > dz:
                dz, fz = abs(za - zb) / abs(za), fu["f_hz"] / 1e9
        its = {round(f["f_hz"] / 1e9, 2): f["solves"][0]["iterations"] for f in r["frequencies"]}
        it = " / ".join(str(its.get(g, "-")) for g in (4.5, 5.75, 7.5))
        print(f"| {n} | {r['dofs']['unknowns']} | {ds:.4f} | {100 * dz:.3f} % | {fz:.2f} | {it} | {r['time_s'].get('total', '-')} |")
PY
