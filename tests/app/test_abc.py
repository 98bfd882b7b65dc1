"""First-order absorbing boundary (Boundary/outer = abc) against its
reflection formula (docs/validation.md, "ABC").

WR-90 open at z = L (cases/waveguide.geo, Geometry/termination = 3; the
walls stay PEC).  TE10 is two plane waves at angle theta to the axis,
cos theta = beta / k0; n x curl E + j k0 n x n x E = 0 reflects
Gamma = (beta - k0) / (beta + k0) = (cos theta - 1) / (cos theta + 1), so
S11 = Gamma exp(-2 j beta L): 7, 9.5 and 12 GHz are 69.5, 43.6 and 33.1
degrees."""
import cmath
import math

from emtest import C0, check, finish, run, setn, touchstone, port_z

a, L = 22.86e-3, 30e-3
args = setn("Geometry/termination", 3) + ["-setstring", "Boundary/outer", "abc"]
args += setn("Solver/f_start", 7e9) + setn("Solver/f_stop", 12e9) + setn("Solver/n_freq", 3)
args += setn("Solver/order", 2) + ["-setstring", "Output/fields", "none"]
rc, out, err, d = run("cases/waveguide.geo", *args)
freqs, S = touchstone(f"{d}/waveguide.s1p", port_z(d))
check(len(freqs) == 3, f"three frequencies ({len(freqs)})")
for f, s in zip(freqs, S):
    k0 = 2 * math.pi * f / C0
    beta = math.sqrt(k0 ** 2 - (math.pi / a) ** 2)
    gamma = (beta - k0) / (beta + k0)
    ref = gamma * cmath.exp(-2j * beta * L)
    s11 = s[0][0]
    dev = abs(s11 - ref)
    th = math.degrees(math.acos(beta / k0))
    print(f"{f / 1e9:.1f} GHz, {th:.1f} deg: |S11| {abs(s11):.6f}, first-order formula "
          f"{abs(gamma):.6f}, |S11 - ref| {dev:.1e}")
    check(dev < 1e-3, f"{th:.1f} deg: S11 = Gamma exp(-2j beta L) within 1e-3 ({dev:.1e})")
finish()
