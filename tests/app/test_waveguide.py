"""WR-90 at 10 GHz (REFERENCES.md section 2).

Two matched waveguide ports: |S21| = 1, |S11| < -50 dB at order >= 2, and
arg S21 = -beta L; the propagation constant fitted from the computed field
along the guide within 1e-4 of beta = sqrt(k0^2 - (pi/a)^2)."""
import cmath
import math

import numpy as np

from emtest import C0, check, finish, line_csv, run, setn, touchstone

a, b, L, f = 22.86e-3, 10.16e-3, 30e-3, 10e9
k0 = 2 * math.pi * f / C0
beta = math.sqrt(k0 ** 2 - (math.pi / a) ** 2)
check(abs(beta - 158.238256) < 1e-5, f"reference beta {beta:.6f} = 158.238256 rad/m")

for order, epw in [(2, 10), (3, 8)]:
    args = setn("Solver/order", order) + setn("Mesh/elements_per_wavelength", epw)
    # the field on the guide axis, away from the ports
    args += setn("Output/line_points", 41)
    args += setn("Output/line_from_x", a / 2e-3) + setn("Output/line_from_y", b / 2e-3)
    args += setn("Output/line_from_z", 5) + setn("Output/line_to_x", a / 2e-3)
    args += setn("Output/line_to_y", b / 2e-3) + setn("Output/line_to_z", 25)
    args += ["-setstring", "Output/fields", "none"]
    rc, out, err, d = run("cases/waveguide.geo", *args)
    freqs, S = touchstone(f"{d}/waveguide.s2p")
    s11, s21 = S[0][0][0], S[0][1][0]
    s11_db = 20 * math.log10(abs(s11))
    print(f"order {order}: S11 {s11_db:.1f} dB, |S21| {abs(s21):.6f}, arg S21 "
          f"{math.degrees(cmath.phase(s21)):.3f} deg")
    check(s11_db < -50, f"order {order}: |S11| = {s11_db:.1f} dB < -50 dB")
    check(abs(abs(s21) - 1) < 1e-3, f"order {order}: |S21| = {abs(s21):.6f} = 1 within 1e-3")
    # arg S21 = -beta L (mod 2 pi)
    dphi = cmath.phase(s21 * cmath.exp(1j * beta * L))
    check(abs(dphi) < 1e-3 * beta * L, f"order {order}: arg S21 + beta L = {dphi:.2e} rad")
    # beta from the axial field: Ey(z) = A exp(-j beta z) (a matched guide), least squares
    # on the unwrapped phase
    pts = line_csv(f"{d}/line_0.csv")
    z = np.array([p[1][2] for p in pts])
    ey = np.array([p[2][1] for p in pts])
    ph = np.unwrap(np.angle(ey))
    slope = np.polyfit(z, ph, 1)[0]
    fit = -slope
    check(abs(fit - beta) / beta < 1e-4,
          f"order {order}: fitted beta {fit:.6f} vs {beta:.6f} rad/m (rel {abs(fit - beta) / beta:.1e})")
    amp = np.abs(ey)
    check(amp.std() / amp.mean() < 1e-3, f"order {order}: |Ey| constant along a matched guide "
          f"(spread {amp.std() / amp.mean():.1e})")
finish()
