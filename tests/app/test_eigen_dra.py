"""The default DRA (cases/dra.geo, order 2) with its PML: the HEM11delta
eigenmode (Solver/problem eigen, Eigen/ports open) against a driven run on
the same mesh (docs/eigen.md).

With the port plane open the eigenmodes are the poles of the input
impedance at that plane.  The driven sweep (reference plane at the port:
Ports/port1/deembed 0) gives Zin(f) at 9 real frequencies; a rational fit
Zin = (a0 + a1 f + a2 f^2 + a3 f^3) / (f - p) (linear least squares) gives
the pole p of the driven solution.  Checks:
- an `ok` mode labelled as a horizontal dipole (HEM11delta) within 1e-3 of
  Re p (observed 2e-4) and 3 % of Im p (observed 1.5 %: the driven PML
  stretch follows the frequency, the eigen one is frozen at the target);
- the other HEM11delta polarization (not fed by the probe) is there too;
- Q against the Mongia-Bhartia fit (docs/validation.md R8, infinite
  ground plane, no probe): printed, and within 50 % (observed +42 %: the
  fit is for an isolated DRA on an infinite ground; this one sits on a
  40 mm plate next to a probe and its open 8 mm feed).
- the peak of the driven input resistance at the port plane (deembed 0)
  within 0.5 % of the eigenmode's Re f (issue 14; observed +0.48 %): a fine
  sweep 5.55 - 5.75 GHz (11 points, 20 MHz apart, Mesh/frequency 6.1 GHz:
  the same mesh, checked by the unknown count), the peak of Re Zin from
  the rational fit (one pole and a cubic) on a 1 kHz grid, cross-checked
  by a quartic fit of Re Zin alone (2e-4).  An ideal parallel resonance
  peaks at f0 = |f_pole| while Re f_pole = f0 sqrt(1 - 1/(4 Q^2)), 0.11 %
  lower at Q 10.7; the rest (+0.37 %) is the probe's coupling, whose
  frequency dependence tilts Re Zin (docs/eigen.md).
The default case reports Zin 4 mm up the coax (deembed 4, the plate's
underside); its input-resistance peak is printed for comparison, it is not
the pole of the open port plane.
"""
import csv
import math
import os
import re

import numpy as np

from emtest import C0, check, finish, run, setn, sets

SWEEP = [*setn("Solver/f_start", 5.3e9), *setn("Solver/f_stop", 6.1e9), *setn("Solver/n_freq", 9)]

_, _, _, d = run("cases/dra.geo", *SWEEP, *setn("Ports/port1/deembed", 0), *sets("Output/fields", "none"),
                 *sets("Farfield/compute", "off"), timeout=1700)
with open(os.path.join(d, "ports.csv")) as fh:
    rows = list(csv.DictReader(l for l in fh if not l.startswith("#")))
f = np.array([float(r["f_Hz"]) for r in rows]) / 1e9
z = np.array([complex(float(r["Zin1_re_ohm"]), float(r["Zin1_im_ohm"])) for r in rows])
for fi, zi in zip(f, z):
    print(f"driven {fi:6.3f} GHz  Zin(port plane) = {zi.real:8.3f} {zi.imag:+8.3f}j ohm")
M = np.column_stack([z] + [f ** k for k in range(4)]).astype(complex)
sol, *_ = np.linalg.lstsq(M, z * f, rcond=None)
p = sol[0]
misfit = np.max(np.abs(sum(sol[1 + k] * f ** k for k in range(4)) / (f - p) - z)) / np.max(np.abs(z))
print(f"pole of Zin: {p.real:.5f} {p.imag:+.5f}j GHz (Q {p.real / (2 * p.imag):.3f}), fit misfit {misfit:.1e}")
check(misfit < 2e-3, f"one pole and a cubic describe Zin over the sweep (misfit {misfit:.1e})")
# the same Zin moved 4 mm up the air coax (the default case's reference plane)
z0, l = 50.1402, 4e-3
t = np.tan(2 * np.pi * f * 1e9 / C0 * l)
zb = z0 * (z - 1j * z0 * t) / (z0 - 1j * z * t)
i = int(np.argmax(zb.real))
if 0 < i < len(f) - 1:
    c = np.polyfit(f[i - 1:i + 2], zb.real[i - 1:i + 2], 2)
    print(f"input-resistance peak at the plate (deembed 4 mm): {-c[1] / (2 * c[0]):.4f} GHz")

# the fine sweep around the mode at the port plane, on the same mesh
_, _, log_fine, d2 = run("cases/dra.geo", *setn("Solver/f_start", 5.55e9), *setn("Solver/f_stop", 5.75e9),
                         *setn("Solver/n_freq", 11), *setn("Mesh/frequency", 6.1e9),
                         *setn("Ports/port1/deembed", 0), *sets("Output/fields", "none"),
                         *sets("Farfield/compute", "off"), timeout=1700)
with open(os.path.join(d2, "ports.csv")) as fh:
    rows2 = list(csv.DictReader(l for l in fh if not l.startswith("#")))
f2 = np.array([float(r["f_Hz"]) for r in rows2]) / 1e9
z2 = np.array([complex(float(r["Zin1_re_ohm"]), float(r["Zin1_im_ohm"])) for r in rows2])
M2 = np.column_stack([z2] + [f2 ** k for k in range(4)]).astype(complex)
sol2, *_ = np.linalg.lstsq(M2, z2 * f2, rcond=None)
fg = np.linspace(f2[0], f2[-1], 200001)
zg = sum(sol2[1 + k] * fg ** k for k in range(4)) / (fg - sol2[0])
f_peak = fg[np.argmax(zg.real)]
c4 = np.polyfit(f2 - f2.mean(), z2.real, 4)
f_peak4 = fg[np.argmax(np.polyval(c4, fg - f2.mean()))]
print(f"Re Zin peak at the port plane: {f_peak:.5f} GHz (rational fit), {f_peak4:.5f} GHz (quartic)")
check(0 < np.argmax(z2.real) < len(f2) - 1, "the fine sweep brackets the Re Zin peak")
check(abs(f_peak - f_peak4) / f_peak < 2e-4, f"the two peak fits agree ({(f_peak4 - f_peak) / f_peak:+.1e})")
n_fine = re.findall(r"(\d+) unknowns", log_fine)

_, stdout, _, e = run("cases/dra.geo", *SWEEP, *sets("Solver/problem", "eigen"),
                      *setn("Eigen/target", 5.8e9), *setn("Eigen/n", 3), timeout=1700)
print(stdout)
with open(os.path.join(e, "modes.csv")) as fh:
    modes = list(csv.DictReader(fh))
ok = [m for m in modes if m["flag"] == "ok"]
best = min(ok, key=lambda m: abs(float(m["f_re_Hz"]) / 1e9 - p.real)) if ok else None
check(best is not None, "an ok mode was found near 5.8 GHz")
if best:
    fr, fi_, q = float(best["f_re_Hz"]) / 1e9, float(best["f_im_Hz"]) / 1e9, float(best["Q"])
    print(f"HEM11delta eigenmode: {fr:.5f} {fi_:+.5f}j GHz, Q {q:.3f}, PML share {best['pml_fraction']}, "
          f"{best['dipole']}")
    check(best["dipole"] in ("P_x", "P_y"), f"the fed mode is a horizontal dipole ({best['dipole']})")
    check(abs(fr - p.real) / p.real < 1e-3,
          f"eigen Re f {fr:.5f} GHz vs the driven pole {p.real:.5f} GHz ({(fr - p.real) / p.real:+.1e})")
    check(abs(fi_ - p.imag) / p.imag < 0.03,
          f"eigen Im f {fi_:.5f} GHz vs the driven pole's {p.imag:.5f} GHz ({(fi_ - p.imag) / p.imag:+.1e})")
    check(float(best["residual"]) < 1e-8, f"residual {best['residual']} < 1e-8")
    n_eig = re.findall(r"(\d+) unknowns", stdout)
    check(n_fine and n_eig and n_fine[0] == n_eig[0],
          f"the fine sweep and the eigen run share the mesh ({n_fine[:1]} / {n_eig[:1]} unknowns)")
    f0 = abs(complex(fr, fi_))
    print(f"Re Zin peak {f_peak:.5f} GHz vs eigen Re f {fr:.5f} GHz ({100 * (f_peak - fr) / fr:+.3f} %), "
          f"vs |f| = f0 of an ideal parallel resonance {f0:.5f} GHz ({100 * (f_peak - f0) / f0:+.3f} %)")
    check(abs(f_peak - fr) / fr < 5e-3,
          f"driven Re Zin peak at the port plane {f_peak:.5f} GHz within 0.5 % of the eigenmode's Re f {fr:.5f} GHz "
          f"({100 * (f_peak - fr) / fr:+.3f} %)")
    other = [m for m in ok if m is not best and m["dipole"] in ("P_x", "P_y") and m["dipole"] != best["dipole"]]
    check(len(other) == 1, "the other HEM11delta polarization is found too")
    er, a, h = 10.0, 7.5e-3, 6e-3
    x = a / (2 * h)
    k0a = 6.324 / math.sqrt(er + 2) * (0.27 + 0.36 * x + 0.02 * x * x)
    f_mb = k0a / a * C0 / (2 * math.pi) / 1e9
    q_mb = 0.01007 * er ** 1.3 * (a / h) * (1 + 100 * math.exp(-2.05 * (x - (a / h) ** 2 / 80)))
    print(f"Mongia-Bhartia: f = {f_mb:.4f} GHz, Q = {q_mb:.3f}; eigen: f = {fr:.4f} GHz "
          f"({100 * (fr - f_mb) / f_mb:+.2f}%), Q = {q:.3f} ({100 * (q - q_mb) / q_mb:+.1f}%)")
    check(abs(q - q_mb) / q_mb < 0.5, f"Q {q:.2f} within 50% of Mongia-Bhartia {q_mb:.2f}")
finish()
