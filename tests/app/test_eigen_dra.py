"""The default DRA (cases/dra.geo, order 2) with its PML: the HEM11delta
eigenmode (Solver/problem eigen, Eigen/ports open) against a driven run on
the same mesh (docs/eigen.md).

With the port plane open the eigenmodes are the poles of the input
impedance there.  The driven sweep gives Zin(f) at 7 real frequencies; a
rational fit Zin = (a0 + a1 f + a2 f^2) / (f - p) (linear least squares in
p, a0, a1, a2) gives the pole p of the driven solution.  Checks:
- the eigen run has a converged `ok` mode within 0.5 % of Re p in Re f;
- its Im f agrees with Im p within 5 % (Q of the driven pole);
- the input-resistance peak of the sweep (parabola) lies within 3 % of it
  (for a Q ~ 10 mode the peak of Re Zin is not the pole: the residue is
  complex);
- Q against the Mongia-Bhartia fit (REFERENCES.md section 8, infinite
  ground plane, no probe): printed, and within 50 % (the fits are for an
  isolated DRA on an infinite ground; this one sits on a 40 mm plate next
  to a probe: no closer agreement is expected).
"""
import csv
import math
import os

import numpy as np

from emtest import C0, check, finish, run, setn, sets

SWEEP = [*setn("Solver/f_start", 5.0e9), *setn("Solver/f_stop", 6.5e9), *setn("Solver/n_freq", 7)]

_, _, _, d = run("cases/dra.geo", *SWEEP, *sets("Output/fields", "none"),
                 *sets("Farfield/compute", "off"), timeout=1700)
with open(os.path.join(d, "ports.csv")) as fh:
    rows = list(csv.DictReader(l for l in fh if not l.startswith("#")))
f = np.array([float(r["f_Hz"]) for r in rows]) / 1e9
z = np.array([complex(float(r["Zin1_re"]), float(r["Zin1_im"])) for r in rows])
for fi, zi in zip(f, z):
    print(f"driven {fi:6.3f} GHz  Zin = {zi.real:8.3f} {zi.imag:+8.3f}j ohm")
# z (f - p) = a0 + a1 f + a2 f^2  ->  z f = p z + a0 + a1 f + a2 f^2
M = np.column_stack([z, np.ones_like(f), f, f * f]).astype(complex)
sol, *_ = np.linalg.lstsq(M, z * f, rcond=None)
p = sol[0]
fit = (sol[1] + sol[2] * f + sol[3] * f * f) / (f - p)
fit_err = np.max(np.abs(fit - z)) / np.max(np.abs(z))
print(f"pole of Zin: {p.real:.5f} {p.imag:+.5f}j GHz (Q {p.real / (2 * p.imag):.3f}), fit error {fit_err:.2e}")
check(fit_err < 0.02, f"one pole and a quadratic describe Zin over the sweep (max rel. misfit {fit_err:.2e})")
i = int(np.argmax(z.real))
f_peak = None
if 0 < i < len(f) - 1:
    c = np.polyfit(f[i - 1:i + 2], z.real[i - 1:i + 2], 2)
    f_peak = -c[1] / (2 * c[0])
    print(f"input-resistance peak at {f_peak:.4f} GHz")

_, stdout, _, e = run("cases/dra.geo", *SWEEP, *sets("Solver/problem", "eigen"),
                      *setn("Eigen/target", 5.8e9), *setn("Eigen/n", 3), timeout=1700)
print(stdout)
with open(os.path.join(e, "modes.csv")) as fh:
    modes = list(csv.DictReader(fh))
ok = [m for m in modes if m["flag"] == "ok"]
check(any(m["flag"] == "pml" for m in modes) or len(ok) == len(modes),
      "every mode is flagged ok or pml")
best = min(ok, key=lambda m: abs(float(m["f_re_Hz"]) / 1e9 - p.real)) if ok else None
check(best is not None, "an ok mode was found near 5.8 GHz")
if best:
    fr, fi_, q = float(best["f_re_Hz"]) / 1e9, float(best["f_im_Hz"]) / 1e9, float(best["Q"])
    print(f"HEM11delta eigenmode: {fr:.5f} {fi_:+.5f}j GHz, Q {q:.3f}, PML share {best['pml_fraction']}")
    check(abs(fr - p.real) / p.real < 0.005,
          f"eigen Re f {fr:.5f} GHz within 0.5% of the driven pole {p.real:.5f} GHz "
          f"({100 * (fr - p.real) / p.real:+.3f}%)")
    check(abs(fi_ - p.imag) / p.imag < 0.05,
          f"eigen Im f {fi_:.5f} GHz within 5% of the driven pole's {p.imag:.5f} GHz "
          f"({100 * (fi_ - p.imag) / p.imag:+.2f}%)")
    check(float(best["residual"]) < 1e-8, f"residual {best['residual']} < 1e-8")
    check(float(best["energy_dra"]) > 0.3, f"the mode lives in the DRA (energy share {best['energy_dra']})")
    if f_peak is not None:
        check(abs(fr - f_peak) / f_peak < 0.03,
              f"eigen Re f {fr:.4f} GHz within 3% of the input-resistance peak {f_peak:.4f} GHz "
              f"({100 * (fr - f_peak) / f_peak:+.2f}%)")
    er, a, h = 10.0, 7.5e-3, 6e-3
    x = a / (2 * h)
    k0a = 6.324 / math.sqrt(er + 2) * (0.27 + 0.36 * x + 0.02 * x * x)
    f_mb = k0a / a * C0 / (2 * math.pi) / 1e9
    q_mb = 0.01007 * er ** 1.3 * (a / h) * (1 + 100 * math.exp(-2.05 * (x - (a / h) ** 2 / 80)))
    print(f"Mongia-Bhartia: f = {f_mb:.4f} GHz, Q = {q_mb:.3f}; eigen: f = {fr:.4f} GHz "
          f"({100 * (fr - f_mb) / f_mb:+.2f}%), Q = {q:.3f} ({100 * (q - q_mb) / q_mb:+.1f}%)")
    check(abs(q - q_mb) / q_mb < 0.5, f"Q {q:.2f} within 50% of Mongia-Bhartia {q_mb:.2f}")
finish()
