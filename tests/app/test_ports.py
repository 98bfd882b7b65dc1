"""Port quantities against closed forms (docs/validation.md, "Ports").

1. Lumped port on a parallel-plate line (tests/data/lumped_line.geo, TEM,
   Z0 = eta0 / sqrt(eps_r) h / w, k = k0 sqrt(eps_r)) shorted at len:
   Zin = j Z0 tan(k len), the same for reference R = 50 and R = 10000, and
   Re Zin = 0 (lossless).  Two lumped ports with R = Z0: S11 = 0,
   S21 = exp(-j k len).  A 1 mm strip port in the same end: Re Zin = 0 and
   Zin independent of R, where the field over the gap is not uniform.
2. Shorted air coax stub (tests/data/coax_line.geo, Geometry/short = 1):
   emsolve's own Zin = j Z0 tan(k len), Z0 = eta0 ln(b/a) / 2 pi.
3. z0 renormalisation: the coax line's Touchstone with z0 = 75 ohm equals
   S' = (Z - R')(Z + R')^-1, Z = R (1 + S)(1 - S)^-1 of the default run.
4. WR-90 closed by a PEC short at d: S11 = -exp(-2 j beta d), magnitude
   and phase, beta = sqrt(k0^2 - (pi/a)^2)."""
import cmath
import math

import numpy as np

from emtest import C0, ETA0, check, finish, run, setn, summary, touchstone, port_z

NONE = ["-setstring", "Output/fields", "none"]


def zin(out):
    z = summary(out)["frequencies"][0]["ports"][0]["Zin_ohm"]
    return complex(z[0], z[1])


# 1. lumped port on a parallel-plate line
f, er, w, h, ln = 3e9, 2.2, 4e-3, 2e-3, 12e-3
k = 2 * math.pi * f / C0 * math.sqrt(er)
z0 = ETA0 / math.sqrt(er) * h / w
zref = 1j * z0 * math.tan(k * ln)
zs = {}
for r in [50, 10000]:
    rc, o, e, d = run("tests/data/lumped_line.geo", *NONE, *setn("Ports/port1/z0", r))
    zs[r] = zin(d)
    err = abs(zs[r] - zref) / abs(zref)
    print(f"lumped stub R = {r}: Zin = {zs[r]:.6f}, reference {zref:.6f} (rel {err:.1e})")
    check(err < 5e-7, f"lumped stub R = {r}: Zin = j Z0 tan(k len) within 5e-7 (rel {err:.1e})")
    check(abs(zs[r].real) < 1e-6 * abs(zs[r]), f"lumped stub R = {r}: Re Zin = {zs[r].real:.2e} = 0")
dz = abs(zs[50] - zs[10000]) / abs(zs[50])
check(dz < 1e-9, f"lumped Zin independent of the reference R (rel {dz:.1e})")
# a 1 mm strip in the 4 mm wide end: the gap field is not uniform (a
# resistive sheet of R there dissipates more than |V|^2 / 2R and its Zin
# moves with R); still lossless, still the structure's own impedance
zs = {}
for r in [50, 10000]:
    rc, o, e, d = run("tests/data/lumped_line.geo", *NONE, *setn("Ports/port1/z0", r),
                      *setn("Geometry/port_width", 1))
    zs[r] = zin(d)
    print(f"lumped strip R = {r}: Zin = {zs[r]:.6f}")
    check(abs(zs[r].real) < 1e-6 * abs(zs[r]), f"lumped strip R = {r}: Re Zin = {zs[r].real:.2e} = 0")
dz = abs(zs[50] - zs[10000]) / abs(zs[50])
check(dz < 1e-9, f"lumped strip: Zin independent of the reference R (rel {dz:.1e})")
rc, o, e, d = run("tests/data/lumped_line.geo", *NONE, *setn("Geometry/far", 1),
                  *setn("Ports/port1/z0", z0), *setn("Ports/port2/z0", z0))
freqs, S = touchstone(f"{d}/lumped_line.s2p", port_z(d))
s11, s21, s12 = S[0][0][0], S[0][1][0], S[0][0][1]
ref21 = cmath.exp(-1j * k * ln)
print(f"lumped line: S11 {abs(s11):.1e}, S21 {s21:.8f} (reference {ref21:.8f})")
check(abs(s11) < 3e-7, f"lumped line with R = Z0: |S11| = {abs(s11):.1e} < 3e-7")
check(abs(s21 - ref21) < 5e-8, f"lumped line: S21 = exp(-j k len) within 5e-8 ({abs(s21 - ref21):.1e})")
check(abs(s12 - s21) < 1e-9, "lumped line: reciprocal, S12 = S21")

# 2. shorted coax stub: emsolve's own Zin
ra, rb, lc, fc = 1.0e-3, 2.3e-3, 20e-3, 3e9
zc = ETA0 / (2 * math.pi) * math.log(rb / ra)
kc = 2 * math.pi * fc / C0
rc, o, e, d = run("tests/data/coax_line.geo", *NONE, *setn("Geometry/short", 1))
zs = zin(d)
zref = 1j * zc * math.tan(kc * lc)
err = abs(zs - zref) / abs(zref)
print(f"coax stub: Zin = {zs:.5f}, reference {zref:.5f} (rel {err:.1e})")
check(err < 6e-3, f"coax stub: Zin = j Z0 tan(k len) within 6e-3 (rel {err:.1e})")
# the port's Robin term also absorbs the evanescent part of the faceted
# coax's field: 0.3 % of |Zin| appears as resistance (falls with the mesh)
check(abs(zs.real) < 6e-3 * abs(zs), f"coax stub: Re Zin = {zs.real:.2e} < 6e-3 |Zin| (lossless)")

# 3. z0 renormalisation of a two-port
rc, o, e, d = run("tests/data/coax_line.geo", *NONE)
freqs, S0 = touchstone(f"{d}/coax_line.s2p", port_z(d))
rm = summary(d)["ports"][0]["z_mode_ohm"][0]
rc, o, e, d = run("tests/data/coax_line.geo", *NONE, *setn("Ports/port1/z0", 75),
                  *setn("Ports/port2/z0", 75))
freqs, S1 = touchstone(f"{d}/coax_line.s2p", port_z(d))
S, one = np.array(S0[0]), np.eye(2)
Z = rm * (one + S) @ np.linalg.inv(one - S)
Sr = (Z - 75 * one) @ np.linalg.inv(Z + 75 * one)
dev = np.abs(np.array(S1[0]) - Sr).max()
print(f"renormalised to 75 ohm: S11 {S1[0][0][0]:.6f}, formula {Sr[0, 0]:.6f} (max dev {dev:.1e})")
check(dev < 1e-9, f"Touchstone at z0 = 75 ohm = the renormalisation formula ({dev:.1e})")

# 4. WR-90 with a PEC short
a, fw = 22.86e-3, 10e9
k0 = 2 * math.pi * fw / C0
beta = math.sqrt(k0 ** 2 - (math.pi / a) ** 2)
for order, tmag, tphi in [(2, 5e-5, 1e-3), (3, 2e-8, 1e-5)]:
    ld = 25e-3
    rc, o, e, d = run("cases/waveguide.geo", *NONE, *setn("Geometry/termination", 2),
                      *setn("Geometry/length", ld * 1e3), *setn("Solver/order", order),
                      *setn("Mesh/elements_per_wavelength", 10))
    freqs, S = touchstone(f"{d}/waveguide.s1p", port_z(d))
    s11 = S[0][0][0]
    ref = -cmath.exp(-2j * beta * ld)
    dphi = cmath.phase(s11 / ref)
    print(f"WR-90 short order {order}: S11 {s11:.6f}, reference {ref:.6f}, "
          f"|S11| - 1 = {abs(s11) - 1:.1e}, phase error {dphi:.1e} rad")
    check(abs(abs(s11) - 1) < tmag, f"WR-90 short order {order}: |S11| = 1 within {tmag:.0e}")
    check(abs(dphi) < tphi, f"WR-90 short order {order}: arg S11 = pi - 2 beta d within {tphi:.0e} rad")
finish()
