"""cases/cavity.geo, the probe-fed PEC box cavity (docs/validation.md,
"Cavity"): the shipped case runs, and near its TE101 resonance
(f_101 = c/2 sqrt(1/a^2 + 1/d^2) = 8.885173 GHz for 22.86 x 25 mm) the input
impedance is a parallel resonance Z = R / (1 + 2 j Q (f - f0) / f0) plus a
slowly varying probe reactance.  With PEC walls all loss is the air's
tan_delta = 2e-3, so the unloaded Q = 1 / tan_delta = 500; the probe (2.5 mm
into a 10.16 mm high cavity) pulls f0 a little below f_101.  Passive:
|S11| <= 1 and Re Zin > 0 at every frequency."""
import math

import numpy as np
from scipy.optimize import least_squares

from emtest import C0, check, finish, run, setn, summary

a, d, tand = 22.86e-3, 25e-3, 2e-3
f101 = C0 / 2 * math.sqrt(1 / a ** 2 + 1 / d ** 2)
check(abs(f101 - 8.885173e9) < 1e3, f"reference f_101 = {f101 / 1e9:.6f} GHz")
args = setn("Solver/f_start", 8.70e9) + setn("Solver/f_stop", 8.90e9) + setn("Solver/n_freq", 11)
rc, out, err, dd = run("cases/cavity.geo", *args, "-setstring", "Output/fields", "none")
fr = summary(dd)["frequencies"]
f = np.array([x["f_hz"] for x in fr])
Z = np.array([complex(*x["ports"][0]["Zin_ohm"]) for x in fr])
S = np.array([complex(*x["ports"][0]["S_row"][0]) for x in fr])
check(bool(np.all(np.abs(S) <= 1)), f"passive: max |S11| = {np.abs(S).max():.4f} <= 1")
check(bool(np.all(Z.real > 0)), f"lossy: min Re Zin = {Z.real.min():.3f} > 0")


def model(p, f):
    R, Q, f0, X0, X1 = p
    return R / (1 + 2j * Q * (f - f0) / f0) + 1j * (X0 + X1 * (f - f0) / 1e9)


def resid(p):
    r = (model(p, f) - Z) / np.abs(Z).max()
    return np.concatenate([r.real, r.imag])


i = int(np.argmax(Z.real))
fit = least_squares(resid, [Z.real[i], 300, f[i], 0, 0], x_scale=[100, 100, 1e7, 10, 10])
R, Q, f0 = fit.x[:3]
misfit = np.abs(resid(fit.x)).max()
print(f"fit: f0 {f0 / 1e9:.5f} GHz (f_101 {f101 / 1e9:.5f}), Q {Q:.1f} (1/tan_delta "
      f"{1 / tand:.0f}), R {R:.1f} ohm, misfit {misfit:.1e}")
check(misfit < 2e-2, f"a parallel resonance fits Zin (misfit {misfit:.1e} < 2e-2)")
check(0.98 * f101 < f0 < f101, f"f0 = {f0 / 1e9:.4f} GHz: below f_101 by the probe, within 2 %")
check(abs(Q * tand - 1) < 0.1, f"unloaded Q = {Q:.0f} = 1/tan_delta = 500 within 10 % "
      f"({Q * tand - 1:+.3f})")
finish()
