"""scripts/emplot.py on a synthetic output directory whose numbers are
known (issue 33: plots as an antenna engineer reads them).

- The pattern cuts are the planes phi = 0 and 90 deg against theta (not
  "angle from the maximum"): the far-field grid holds an x-directed short
  dipole, D = 1.5 (1 - sin^2 theta cos^2 phi), whose cut phi = 0 is
  1.5 cos^2 theta and phi = 90 the constant 1.5; the cut's negative
  angles are phi + 180.
- The ring labels go where the traces are not: for a pattern with no back
  lobe they land in the back half.
- The Smith chart is at the Touchstone reference (summary.json's
  touchstone_z0_ohm, 75 ohm here), its grid labelled (+j0.5 ...); the
  reflection plot has the -10 dB line and marks an adaptive sweep's full
  solves; the sweep plot names the swept parameter's unit (sweep.csv's
  units line); every file expected is written, PNG and SVG (the 3D
  pattern PNG only), none left under a temporary name.
Exit 77 (skipped) without matplotlib."""
import csv
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

from emtest import SRC, check, finish

SCRIPT = os.path.join(SRC, "scripts", "emplot.py")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
try:
    import matplotlib  # noqa: F401
    import numpy as np
except ImportError:
    print("skipped: no matplotlib")
    sys.exit(77)

spec = importlib.util.spec_from_file_location("emplot", SCRIPT)
emplot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(emplot)

d = os.path.join(tempfile.mkdtemp(prefix="emsolve_plots_"), "out")
os.makedirs(d)


def write(name, header, rows, comment=None):
    with open(os.path.join(d, name), "w", newline="") as fh:
        if comment:
            fh.write(comment + "\n")
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


# ports.csv: a parallel RLC at 5 GHz (R 60 ohm, Q 10) behind nothing, 401
# model rows of an adaptive sweep with its 8 full solves in summary.json
f = np.linspace(4e9, 6e9, 401)
R, Q, f0 = 60.0, 10.0, 5e9
z = R / (1 + 1j * Q * (f / f0 - f0 / f))
s = (z - 50) / (z + 50)
write("ports.csv", ["f_Hz", "S11_dB", "S11_deg", "Zin1_re_ohm", "Zin1_im_ohm", "Zref1_ohm", "flag"],
      [[fi, 20 * math.log10(abs(si)), math.degrees(np.angle(si)), zi.real, zi.imag, 50, "ok"]
       for fi, si, zi in zip(f, s, z)])
samples = [4e9, 6e9, 5e9, 4.6e9, 5.3e9, 4.9e9, 5.1e9, 5.6e9]
with open(os.path.join(d, "summary.json"), "w") as fh:
    json.dump({"case": {"name": "synthetic"}, "touchstone_z0_ohm": 75.0,
               "parameters": {"Geometry/unit": 0.001},
               "sweep": {"type": "adaptive", "samples": [{"f_hz": x} for x in samples]}}, fh)
# antenna.csv: two rows
write("antenna.csv", ["f_Hz", "directivity_dBi", "gain_dBi", "realized_gain_dBi", "efficiency", "mismatch",
                      "copol"],
      [[4.5e9, 1.76, 1.70, 1.0, 0.986, 0.85, "x"], [5.5e9, 1.76, 1.72, 1.5, 0.991, 0.95, "x"]])
# farfield_5GHz.csv: the x-directed dipole on a 5 deg grid
rows = []
for th in range(0, 181, 5):
    for ph in range(0, 360, 5):
        t, p = math.radians(th), math.radians(ph)
        g = 1.5 * (1 - (math.sin(t) * math.cos(p)) ** 2)
        dbi = 10 * math.log10(g) if g > 0 else float("-inf")
        rows.append([th, ph, 0, 0, 0, 0, dbi, dbi - 0.1, dbi - 1, dbi, dbi - 30])
write("farfield_5GHz.csv", ["theta_deg", "phi_deg", "Ftheta_re", "Ftheta_im", "Fphi_re", "Fphi_im",
                            "directivity_dBi", "gain_dBi", "realized_gain_dBi", "co_dBi", "cross_dBi"],
      rows, "# far field at f = 5000000000 Hz: synthetic")
# a design sweep over a radius in mm
write("sweep.csv", ["point", "Geometry/dra_radius", "f_Hz", "S11_dB", "S11_deg", "Zin_re_ohm", "Zin_im_ohm"],
      [[k, 7 + k, fi, -10, 0, 50, 0] for k in range(2) for fi in (5e9, 6e9)],
      "# emsolve design sweep\n# units: Geometry/dra_radius mm")
write("sweep_summary.csv", ["point", "Geometry/dra_radius", "status", "f_res_Hz", "f_s11min_Hz"],
      [[0, 7, "ok", 5.9e9, 5.91e9], [1, 8, "ok", 5.6e9, 5.61e9]])

# the cuts: theta in the planes phi = 0 and 90, negative = phi + 180
_, th, ph, co, cx, tot, what = emplot.read_farfield(os.path.join(d, "farfield_5GHz.csv"))
check(what == "realized gain", f"the cuts show the realized gain ({what})")
a, y = emplot.cut(th, ph, co + 1, 0.0)  # co + 1: the directivity (realized = D - 1 here)
want = [10 * math.log10(1.5 * math.cos(math.radians(x)) ** 2) if abs(abs(x) - 90) > 1e-9 else -math.inf
        for x in a]
err0 = max(abs(u - v) for u, v in zip(y, want) if math.isfinite(v))
check(list(a[:3]) == [-180, -175, -170] and a[-1] == 180 and err0 < 1e-9,
      f"cut phi = 0: theta -180..180, = 1.5 cos^2 theta ({err0:.1e} dB)")
a, y = emplot.cut(th, ph, co + 1, 90.0)
check(max(abs(v - 10 * math.log10(1.5)) for v in y) < 1e-9, "cut phi = 90: the constant 1.76 dBi")
# ring labels where the traces are not: a pattern without a back lobe
ang = np.arange(-180, 181, 5.0)
front = np.where(np.abs(ang) < 90, 5 * np.cos(np.radians(ang)), -40.0)
at = emplot.rlabel_angle([(ang, front)], [-25, -15, -5, 5], -35, 5)
check(95 < at < 265, f"ring labels at {at} deg: in the back half, away from the trace")

p = subprocess.run([PY, SCRIPT, d], capture_output=True, text=True, timeout=250)
print(p.stdout, p.stderr)
if p.returncode == 3:
    print("skipped: the plot script finds no matplotlib")
    sys.exit(77)
check(p.returncode == 0, f"emplot.py exit 0 ({p.returncode})")
plots = os.path.join(d, "plots")
for name in ("s11", "smith", "zin", "gain", "pattern_5GHz", "cuts_5GHz", "sweep_s11", "sweep_resonance"):
    for ext in ("png", "svg"):
        fp = os.path.join(plots, f"{name}.{ext}")
        check(os.path.exists(fp) and os.path.getsize(fp) > 2000, f"{name}.{ext} written")
check(os.path.exists(os.path.join(plots, "pattern3d_5GHz.png")), "pattern3d_5GHz.png written")
check(not [x for x in os.listdir(plots) if x.endswith(".tmp")], "no temporary file left")


def svg(name):
    with open(os.path.join(plots, f"{name}.svg")) as fh:
        return fh.read()


sm = svg("smith")
check("Z0 = 75 ohm" in sm and "+j0.5" in sm and "37.5" in sm,
      "Smith chart at the Touchstone's 75 ohm, its reactance arcs labelled (+j0.5 = 37.5 ohm)")
check("GHz" in sm and "full solves" in sm, "Smith chart: frequency markers, the full solves marked")
s11 = svg("s11")
check("-10 dB" in s11 and "full solves" in s11 and "model (adaptive sweep)" in s11,
      "s11: the -10 dB line, the model and its full solves told apart")
pat = svg("pattern_5GHz")
check("phi = 0 deg" in pat and "phi = 90 deg" in pat and "E-plane" in pat and "cross-polar" in pat
      and "dBi" in pat, "pattern: the phi = 0 / 90 cuts, E/H-plane, co and cross, dBi")
cuts = svg("cuts_5GHz")
check("theta (deg" in cuts and "realized gain (dBi)" in cuts, "cuts: theta and dBi on the axes")
g = svg("gain")
check("directivity D" in g and "gain G" in g and "efficiency (%)" in g, "gain: D, G and the efficiency axis")
check("Geometry/dra_radius (mm)" in svg("sweep_resonance"), "sweep_resonance: the radius in mm")
finish()
