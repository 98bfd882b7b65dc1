"""A matched air coaxial line with a coax port at each end (docs/validation.md
R5): Z0 = eta0/(2 pi) ln(b/a); |S11| < -55 dB and emsolve's Zin
(summary.json) within 0.5% of Z0.  The log's Betti numbers: the line is a
ring, 1 1 0 0, its ports annuli (b0 1, b1 1).  Then port1 meshed with
dense facets on one side only (Mesh/side_size): its area centroid is off
the axis, yet the circles fitted to its outline give the same impedance
eta0 ln(b/a)/2pi (the nearest / farthest vertex from the centroid gave
50.49 ohm for 49.94: an adaptive pass's remeshed port)."""
import math

from emtest import ETA0, check, check_topology, finish, port_z, run, setn, touchstone

ra, rb = 1.0e-3, 2.3e-3
z0 = ETA0 / (2 * math.pi) * math.log(rb / ra)
rc, out, err, d = run("tests/data/coax_line.geo", "-setstring", "Output/fields", "none", "-v")
check_topology(err, (1, 1, 0, 0), {"port1": (1, 1), "port2": (1, 1)})
s = __import__("emtest").summary(d)
zmode = s["ports"][0]["z_mode_ohm"][0]
check(abs(zmode - z0) < 1e-9 * z0, f"port impedance {zmode:.6f} = eta0 ln(b/a)/2pi = {z0:.6f}")
freqs, S = touchstone(f"{d}/coax_line.s2p", port_z(d))
s11 = S[0][0][0]
zr = s["frequencies"][0]["ports"][0]["Zin_ohm"]  # emsolve's own Zin
zin = complex(zr[0], zr[1])
print(f"S11 {20 * math.log10(abs(s11)):.1f} dB, Zin {zin:.3f} ohm, Z0 {z0:.3f}")
check(20 * math.log10(abs(s11)) < -55, f"|S11| = {20 * math.log10(abs(s11)):.1f} dB < -55 dB")
check(abs(zin - z0) < 0.005 * z0, f"Zin = {zin:.3f} within 0.5% of Z0 = {z0:.3f}")
check(abs(abs(S[0][1][0]) - 1) < 1e-3, f"|S21| = {abs(S[0][1][0]):.5f} = 1")

rc, out, err, d = run("tests/data/coax_line.geo", *setn("Solver/order", 1), *setn("Geometry/length", 8),
                      *setn("Mesh/circle_elements", 12), *setn("Mesh/side_size", 0.15),
                      "-setstring", "Output/fields", "none", "-setstring", "Farfield/compute", "off")
s = __import__("emtest").summary(d)
for p in s["ports"]:
    zm = p["z_mode_ohm"][0]
    check(abs(zm - z0) < 1e-9 * z0, f"uneven facets: {p['name']} impedance {zm:.6f} = {z0:.6f}")
finish()
