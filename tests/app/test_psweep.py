"""Design sweeps (--sweep, docs/sweeps.md) on the default DRA (cases/dra.geo).

1. Issue 13's acceptance command, `--sweep Geometry/dra_radius=7:0.5:8
   --sweep Materials/dra/eps_r=10,12`, on a coarse order-2 mesh: 6 points,
   sweep.csv and sweep_summary.csv; the HEM11delta resonance (the Re Zin
   peak) of each point against the Mongia-Bhartia closed form (docs/validation.md
   R8) within 2 %, the ratios between points within 1.5 % of the
   closed form's; 3 meshings (eps_r changes reuse the mesh); the sweep plots
   (S11 family, resonance against the radius) through `emsolve --plot`.
2. Impossible geometries (negative radius; a probe wholly inside the DRA)
   are reported with their message and skipped, the other point completes
   (exit code 4: points failed; their number on stdout).
3. Kill after the first point, rerun with --resume: sweep.csv and
   sweep_summary.csv byte-identical to an uninterrupted run (order 1)."""
import csv
import math
import os
import signal
import subprocess
import tempfile
import time

from emtest import C0, EMSOLVE, SRC, check, finish, run, setn, sets

# Coarse mesh (order 2, 3 elements per wavelength), adaptive sweep of 401
# points over 4.9-6.5 GHz: the Re Zin peak lies -0.77 .. -1.94 % from the
# closed form (measured 2026-11-27, docs/sweeps.md), the ratios between
# points within 0.81 % of the closed form's; the issue asks 2 %.
TOL = 0.02
TOL_TREND = 0.015


def mongia_bhartia(a_mm, h_mm, er):
    a, h = a_mm * 1e-3, h_mm * 1e-3
    x = a / (2 * h)
    k0a = 6.324 / math.sqrt(er + 2) * (0.27 + 0.36 * x + 0.02 * x * x)
    return k0a / a * C0 / (2 * math.pi)


def table(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


# coarse mesh, the band sampled every 4 MHz by the adaptive sweep (7 full
# solves a point): the Re Zin peak is the mesh's, not the sampling's (7
# uniform samples 267 MHz apart put it up to 0.6 % off, docs/sweeps.md)
coarse = (setn("Solver/order", 2) + setn("Mesh/elements_per_wavelength", 3)
          + setn("Solver/n_freq", 401) + sets("Solver/sweep", "adaptive")
          + setn("Solver/f_start", 4.9e9) + setn("Solver/f_stop", 6.5e9)
          + sets("Output/fields", "none") + sets("Farfield/compute", "off"))
t0 = time.time()
rc, out, err, d = run("cases/dra.geo", *coarse, "--sweep", "Geometry/dra_radius=7:0.5:8",
                      "--sweep", "Materials/dra/eps_r=10,12", timeout=1500)
print(f"6-point sweep: {time.time() - t0:.0f} s")
check(rc == 0, f"exit code 0: every point solved (got {rc})")
check("6 points, 0 failed, 3 meshings" in out, "3 meshings: the eps_r points reuse the radius's mesh")
rows = table(os.path.join(d, "sweep_summary.csv"))
check(len(rows) == 6, f"sweep_summary.csv has 6 points ({len(rows)})")
f_res = {}
for r in rows:
    a, er = float(r["Geometry/dra_radius"]), float(r["Materials/dra/eps_r"])
    k = int(r["point"])
    check(r["status"] == "ok", f"point {k} (radius {a}, eps_r {er}) ok")
    if not r["f_res_Hz"]:
        check(False, f"point {k}: a Re Zin peak in the band")
        continue
    f, fmb = float(r["f_res_Hz"]), mongia_bhartia(a, 6, er)
    f_res[(a, er)] = (f, fmb)
    print(f"radius {a} mm eps_r {er}: Re Zin peak {f / 1e9:.4f} GHz, Mongia-Bhartia "
          f"{fmb / 1e9:.4f} GHz ({100 * (f - fmb) / fmb:+.2f} %), Q {r['Q']}, "
          f"|S11| min {float(r['f_s11min_Hz']) / 1e9 if r['f_s11min_Hz'] else float('nan'):.4f} GHz")
    check(abs(f - fmb) / fmb < TOL, f"point {k}: HEM11delta within {100 * TOL:.0f} % of the closed form")
    check(os.path.exists(os.path.join(d, f"point_{k}", "point.done")), f"point {k}: completion marker")
check(sorted(f_res) == [(a, e) for a in (7.0, 7.5, 8.0) for e in (10.0, 12.0)],
      f"the 6 points of 7:0.5:8 x 10,12: {sorted(f_res)}")
# the trend: ratios between points against the closed form's ratios
ref = f_res.get((7.5, 10.0))
for key, (f, fmb) in f_res.items():
    if ref and key != (7.5, 10.0):
        rs, rm = f / ref[0], fmb / ref[1]
        check(abs(rs / rm - 1) < TOL_TREND,
              f"trend {key} / (7.5, 10): {rs:.4f} vs closed form {rm:.4f} ({100 * (rs / rm - 1):+.2f} %)")
sw = table(os.path.join(d, "sweep.csv"))
check(len(sw) == 6 * 401, f"sweep.csv: 6 points x 401 frequencies ({len(sw)} rows)")
with open(os.path.join(d, "sweep.csv")) as fh:
    head = fh.read(400)
check("Hz" in head and "ohm" in head and "dB" in head, "sweep.csv header names the units")
# the plots: the S11 family and the resonance against the radius
p = subprocess.run([EMSOLVE, "--plot", d], capture_output=True, text=True, timeout=300)
if p.returncode != 0 and "matplotlib" in p.stderr and not os.environ.get("CI"):
    print("python3-matplotlib missing: the plot checks are skipped (CI fails here)")
else:
    check(p.returncode == 0, f"emsolve --plot on the sweep ({p.stderr.strip()[-200:]})")
    for name in ("sweep_s11", "sweep_resonance"):
        for ext in ("png", "svg"):
            f = os.path.join(d, "plots", f"{name}.{ext}")
            check(os.path.exists(f) and os.path.getsize(f) > 1000, f"plots/{name}.{ext} written")
            check(not os.path.exists(f + ".tmp"), f"plots/{name}.{ext}: no temporary left")

# 2. impossible geometries reported and skipped, the others complete
cheap = (setn("Solver/order", 1) + setn("Mesh/elements_per_wavelength", 3)
         + setn("Solver/n_freq", 3) + setn("Solver/f_start", 5.5e9)
         + setn("Solver/f_stop", 6.0e9) + sets("Output/fields", "none")
         + sets("Farfield/compute", "off") + sets("Solver/sweep", "uniform"))
rc, out, err, d = run("cases/dra.geo", *cheap, "--sweep", "Geometry/dra_radius=-1,7.5",
                      "--sweep", "Geometry/probe_inset=0.5,2", expect_ok=False, timeout=900)
check(rc == 4 and "4 points, 3 failed" in out, f"exit code 4: points failed, 3 of them (got {rc})")
rows = {(float(r["Geometry/dra_radius"]), float(r["Geometry/probe_inset"])): r
        for r in table(os.path.join(d, "sweep_summary.csv"))}
for key, want in (((-1, 0.5), "must be > 0"), ((-1, 2), "must be > 0"),
                  ((7.5, 2), "must cross the DRA wall")):
    r = rows.get(key, {})
    check(r.get("status") == "failed" and want in r.get("message", ""),
          f"radius {key[0]}, inset {key[1]}: failed with its reason ({r.get('message')!r})")
    k = r.get("point", "x")
    check(os.path.exists(os.path.join(d, f"point_{k}", "point.failed"))
          and not os.path.exists(os.path.join(d, f"point_{k}", "point.done")),
          f"point {k}: point.failed, no completion marker")
r = rows.get((7.5, 0.5), {})
check(r.get("status") == "ok" and r.get("f_s11min_Hz"), f"radius 7.5, inset 0.5: solved ({r.get('status')})")
check(len(table(os.path.join(d, "sweep.csv"))) == 3, "sweep.csv: the one good point's 3 frequencies")

# 3. kill after the first point, --resume
cheap = (setn("Solver/order", 1) + setn("Mesh/elements_per_wavelength", 3)
         + setn("Solver/n_freq", 3) + setn("Solver/f_start", 5.5e9)
         + setn("Solver/f_stop", 6.0e9) + sets("Output/fields", "none")
         + sets("Farfield/compute", "off") + sets("Solver/sweep", "uniform"))
spec = ["--zip", "--sweep", "Geometry/dra_radius=7.5,8", "--sweep", "Materials/dra/eps_r=10,12"]
rc, _, _, dref = run("cases/dra.geo", *cheap, *spec, timeout=900)
base = tempfile.mkdtemp(prefix="emsolve_psweep_")
dk = os.path.join(base, "out")
cmd = [EMSOLVE, os.path.join(SRC, "cases/dra.geo"), "--out", dk, "--device", "cpu"] + cheap + spec
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
marker = os.path.join(dk, "point_0", "point.done")
t0 = time.time()
while not os.path.exists(marker) and p.poll() is None and time.time() - t0 < 900:
    time.sleep(0.05)
killed = p.poll() is None
p.send_signal(signal.SIGKILL)
p.wait()
check(killed and not os.path.exists(os.path.join(dk, "point_1", "point.done")),
      "killed after the first point, before the second completed")
rc, out, err, _ = run("cases/dra.geo", *cheap, *spec, "--resume", out=dk, timeout=900)
check("skipped (--resume)" in err and "sweep point 2/2" in err,
      "--resume skipped point 1 and ran point 2")
for name in ("sweep.csv", "sweep_summary.csv"):
    with open(os.path.join(dref, name), "rb") as a, open(os.path.join(dk, name), "rb") as b:
        check(a.read() == b.read(), f"{name} after kill + --resume identical to an uninterrupted run")
finish()
