"""A matched air coaxial line with a coax port at each end (REFERENCES.md
section 5): Z0 = eta0/(2 pi) ln(b/a); |S11| < -40 dB and Zin within 1% of Z0."""
import math

from emtest import ETA0, check, finish, port_z, run, setn, touchstone

ra, rb = 1.0e-3, 2.3e-3
z0 = ETA0 / (2 * math.pi) * math.log(rb / ra)
rc, out, err, d = run("tests/data/coax_line.geo", "-setstring", "Output/fields", "none")
s = __import__("emtest").summary(d)
zmode = s["ports"][0]["z_mode_ohm"][0]
check(abs(zmode - z0) < 1e-9 * z0, f"port impedance {zmode:.6f} = eta0 ln(b/a)/2pi = {z0:.6f}")
freqs, S = touchstone(f"{d}/coax_line.s2p", port_z(d))
s11 = S[0][0][0]
zin = z0 * (1 + s11) / (1 - s11)
print(f"S11 {20 * math.log10(abs(s11)):.1f} dB, Zin {zin:.3f} ohm, Z0 {z0:.3f}")
check(20 * math.log10(abs(s11)) < -40, f"|S11| = {20 * math.log10(abs(s11)):.1f} dB < -40 dB")
check(abs(zin - z0) < 0.01 * z0, f"Zin = {zin:.3f} within 1% of Z0 = {z0:.3f}")
check(abs(abs(S[0][1][0]) - 1) < 1e-3, f"|S21| = {abs(S[0][1][0]):.5f} = 1")
finish()
