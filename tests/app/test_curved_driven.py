"""Curved tets (Mesh/geometry_order 2) in driven and plane-wave runs
(docs/physics.md, "Curved tets"): ports, their Robin terms and modal
measures, PEC Dirichlet data and the NF2FF surface on the map.

1. The shorted air coax stub of test_ports (tests/data/coax_line.geo,
   b/a = 2.3, 20 mm, 3 GHz, order 2): Zin = j Z0 tan(k len),
   Z0 = eta0 ln(b/a) / 2 pi.  With straight tets the polygonal conductors
   are another line (observed 2.9e-3 off, Re Zin 0.45 ohm); curved ones
   follow the circles (observed 1.7e-4: Im Zin 2e-5 off, Re Zin 0.025 ohm).
2. The PEC sphere at k a = 1 of test_scatter (quarter model, order 3,
   h_s = 0.07 a): the bistatic RCS at every angle of the cuts phi = 0 and
   90 against the Mie series (scripts/mie_compare.py, independent of the
   C helper).  Straight tets: 0.6 % (the inscribed polyhedron); curved:
   observed 0.045 %."""
import math
import os
import sys

from emtest import C0, ETA0, SRC, check, finish, run, setn, sets, summary

sys.path.insert(0, os.path.join(SRC, "scripts"))
import mie_compare  # noqa: E402

NONE = sets("Output/fields", "none")
f, ln = 3e9, 20e-3
k = 2 * math.pi * f / C0
zref = 1j * ETA0 / (2 * math.pi) * math.log(2.3) * math.tan(k * ln)
res = {}
for go in (1, 2):
    rc, o, e, d = run("tests/data/coax_line.geo", *NONE, *setn("Geometry/short", 1),
                      *setn("Mesh/geometry_order", go))
    z = complex(*summary(d)["frequencies"][0]["ports"][0]["Zin_ohm"])
    res[go] = abs(z - zref) / abs(zref)
    print(f"coax stub, geometry_order {go}: Zin {z:.5f}, closed form {zref:.5f} (rel {res[go]:.1e})")
check(res[2] < 5e-4, f"curved coax stub: Zin within 5e-4 of j Z0 tan(k len) ({res[2]:.1e})")
check(res[1] > 10 * res[2], f"straight tets are > 10x further off ({res[1]:.1e})")

radius = 1.0
fm = C0 / (2 * math.pi * radius)  # k a = 1
rc, o, e, d = run("tests/data/mie_sphere.geo", *setn("Geometry/unit", 1), *setn("Solver/frequency", fm),
                  *setn("Solver/order", 3), *setn("Materials/air/eps_r", 1),
                  *sets("Excitation/type", "planewave"), *sets("Farfield/mirror_x", "pec"),
                  *sets("Farfield/mirror_y", "pmc"), *setn("Mesh/sphere_size", 0.07),
                  *setn("Mesh/geometry_order", 2), *NONE, timeout=600)
rows, worst = mie_compare.compare(d, 1.0, quiet=True)
check(len(rows) == 74, f"{len(rows)} angles in the two cuts")
print(f"curved PEC sphere, k a = 1: largest RCS error {100 * worst:.3f} % over both cuts")
check(worst < 2e-3, f"curved PEC sphere at k a = 1: RCS within 0.2 % of Mie at every angle "
      f"({100 * worst:.3f} %)")
a, b = mie_compare.coefficients(1.0)
check(abs(mie_compare.sigma_norm(a, b, 1.0, math.pi, 0) - 3.637567) < 2e-6,
      "the series' check value (PEC, k a = 1, backscatter 3.637567)")
finish()
