"""Plane-wave scattering through the emsolve command (Excitation/type
planewave): a PEC sphere at k a = 1, order 3, the quarter model of
tests/data/mie_sphere.geo with its symmetry planes given to the far field
(Farfield/mirror_x pec, mirror_y pmc).  The bistatic RCS in rcs_<f>GHz.csv must
match the Mie series - computed here with scipy's spherical Bessel functions,
independently of the C helper of the library test - within 1 % at theta = 0,
60, 90, 120, 180 deg in the planes phi = 0 and 90 (docs/validation.md R6;
the mesh at h_s = 0.07 a gives 0.6 % at most, docs/farfield.md).  Then the
plots: Output/plots 1 wrote rcs_<f>GHz.png/.svg, `emsolve --plot DIR` rewrites
them, and --plot on a missing directory or together with a case fails with
a message."""
import csv
import math
import os
import shutil
import subprocess

import numpy as np
from scipy.special import spherical_jn, spherical_yn

from emtest import C0, EMSOLVE, check, finish, freq_tag, run, setn, sets, summary


def mie_pec(x, nmax=30):
    n = np.arange(1, nmax + 1)
    jn, yn = spherical_jn(n, x), spherical_yn(n, x)
    djn, dyn = spherical_jn(n, x, True), spherical_yn(n, x, True)
    psi, dpsi = x * jn, jn + x * djn
    xi, dxi = x * (jn + 1j * yn), (jn + 1j * yn) + x * (djn + 1j * dyn)
    return dpsi / dxi, psi / xi  # a_n, b_n


def sigma_norm(a, b, x, theta, phi):
    """sigma / (pi a^2) for incidence along +z, E along x."""
    mu = math.cos(theta)
    pi = [0.0, 1.0]
    for n in range(2, len(a) + 1):
        pi.append((2 * n - 1) / (n - 1) * mu * pi[-1] - n / (n - 1) * pi[-2])
    s1 = s2 = 0
    for n in range(1, len(a) + 1):
        tau = n * mu * pi[n] - (n + 1) * pi[n - 1]
        c = (2 * n + 1) / (n * (n + 1))
        s1 += c * (a[n - 1] * pi[n] + b[n - 1] * tau)
        s2 += c * (a[n - 1] * tau + b[n - 1] * pi[n])
    return 4 / x ** 2 * (abs(s2) ** 2 * math.cos(phi) ** 2 + abs(s1) ** 2 * math.sin(phi) ** 2)


try:
    import matplotlib  # noqa: F401  (the plots need Debian's python3-matplotlib)
    have_mpl = True
except ImportError:
    have_mpl = False
    print("python3-matplotlib missing: the plot checks are skipped")

radius = 1.0
f = C0 / (2 * math.pi * radius)  # k a = 1
args = (setn("Geometry/unit", 1) + setn("Solver/frequency", f) + setn("Solver/order", 3)
        + setn("Materials/air/eps_r", 1) + sets("Excitation/type", "planewave")
        + sets("Farfield/mirror_x", "pec") + sets("Farfield/mirror_y", "pmc")
        + setn("Mesh/sphere_size", 0.07) + setn("Output/plots", 1 if have_mpl else 0)
        + sets("Output/fields", "none"))
rc, out, err, d = run("tests/data/mie_sphere.geo", *args, timeout=600)
rcs = f"rcs_{freq_tag(f)}"  # the outputs carry the frequency in their names
a, b = mie_pec(1.0)
check(abs(sigma_norm(a, b, 1.0, math.pi, 0) - 3.637567) < 2e-6, "scipy Mie backscatter 3.637567")
rows = {}
with open(os.path.join(d, f"{rcs}.csv")) as fh:
    lines = [l for l in fh if not l.startswith("#")]
for r in csv.DictReader(lines):
    rows[(float(r["theta_deg"]), float(r["phi_deg"]))] = r
check(len(rows) == 37 * 72, f"{rcs}.csv: {len(rows)} rows on the 5 x 5 deg grid")
worst = 0
for phi in (0.0, 90.0):
    for th in (0.0, 60.0, 90.0, 120.0, 180.0):
        r = rows[(th, phi)]
        sig = float(r["sigma_m2"])
        ref = math.pi * radius ** 2 * sigma_norm(a, b, 1.0, math.radians(th), math.radians(phi))
        err_rel = sig / ref - 1
        worst = max(worst, abs(err_rel))
        print(f"phi {phi:3.0f} theta {th:3.0f}: sigma {sig:.6f} m^2, Mie {ref:.6f} m^2, "
              f"{100 * err_rel:+.3f} %")
        check(abs(err_rel) < 0.01, f"RCS at phi {phi:g}, theta {th:g} within 1 % of Mie")
        check(abs(float(r["sigma_dBsm"]) - 10 * math.log10(sig)) < 1e-9, "dBsm column")
print(f"largest error {100 * worst:.3f} %")
check("bistatic RCS" in out, "stdout reports the RCS")
s = summary(d)
check(s["frequencies"][0]["solves"][0]["excitation"] == "planewave", "summary names the plane wave")
for name in (f"{rcs}.csv", f"{rcs}.vtk"):
    check(name in s["outputs"], f"summary lists {name}")
with open(os.path.join(d, f"{rcs}.vtk")) as fh:
    head = fh.read(200)
check(head.startswith("# vtk DataFile Version 3.0") and "POLYDATA" in head, f"{rcs}.vtk is VTK")
if not have_mpl:
    finish()
for ext in ("png", "svg"):
    p = os.path.join(d, "plots", f"{rcs}.{ext}")
    check(os.path.getsize(p) > 1000 if os.path.exists(p) else False, f"Output/plots wrote {p}")

# emsolve --plot on the same directory, then the errors
shutil.rmtree(os.path.join(d, "plots"))
p = subprocess.run([EMSOLVE, "--plot", d], capture_output=True, text=True, timeout=300)
check(p.returncode == 0, f"--plot {d}: exit {p.returncode} ({p.stderr.strip()[-200:]})")
check(os.path.exists(os.path.join(d, "plots", f"{rcs}.svg")), f"--plot rewrote {rcs}.svg")
p = subprocess.run([EMSOLVE, "--plot", d + "_missing"], capture_output=True, text=True)
check(p.returncode == 1 and "not a directory" in p.stderr, f"--plot missing dir: {p.stderr!r}")
p = subprocess.run([EMSOLVE, "--plot", d, "cases/dra.geo"], capture_output=True, text=True)
check(p.returncode == 2 and "--plot" in p.stderr, f"--plot with a case: {p.stderr!r}")
empty = d + "_empty"
os.makedirs(empty, exist_ok=True)
p = subprocess.run([EMSOLVE, "--plot", empty], capture_output=True, text=True)
check(p.returncode == 1 and "nothing to plot" in p.stderr, f"--plot empty dir: {p.stderr!r}")
finish()
