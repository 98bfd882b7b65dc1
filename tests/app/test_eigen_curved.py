"""Curved tets (Mesh/geometry_order 2) on Palace's cylindrical cavity
(tests/app/cases/eigen_cylinder.geo, docs/eigen.md): radius a = 27.4 mm,
height 2a, filled with eps_r 2.08, PEC walls.  TM010 has no z or phi
dependence: k = j01 / a, f = c j01 / (2 pi a sqrt(eps_r)) = 2.903636 GHz
(j01 the first zero of J0), whatever the height.

- order 3, Geometry/hmax 8 mm, geometry_order 2: TM010 to 1e-5 (observed
  3.9e-6), labelled P_z (a vertical electric dipole), residual < 1e-10;
- the same mesh with straight tets (geometry_order 1) is off by more than
  1e-3 (observed 5.2e-3): the faceted wall, which the curved tets remove;
- mode_1.vtk of the curved run has its points on the map: the volume of
  its sub-tets is within 1/5 of the straight run's error of pi a^2 2a;
- a box (no curved surface): geometry_order 2 gives the same frequencies as 1;
- Eigen/ports matched runs on curved tets (the port's Robin term follows
  the map); geometry_order 3 is refused.
"""
import csv
import math
import os

import meshio
import numpy as np

from emtest import C0, check, finish, run, setn, sets

CASE = "tests/app/cases/eigen_cylinder.geo"
J01 = 2.404825557695773
A, ER = 27.4e-3, 2.08
F_REF = C0 * J01 / (2 * math.pi * A * math.sqrt(ER))


def mode1(geometry_order):
    _, _, _, out = run(CASE, *setn("Mesh/geometry_order", geometry_order), *setn("Geometry/hmax", 8),
                       *setn("Solver/order", 3), *setn("Eigen/n", 1))
    with open(os.path.join(out, "modes.csv")) as f:
        return list(csv.DictReader(f))[0], os.path.join(out, "mode_1.vtk")


def vtk_volume(path):
    """Sum of the VTK's sub-tet volumes (its points are placed by the map)."""
    m = meshio.read(path)
    x = m.points[np.concatenate([c.data for c in m.cells if c.type == "tetra"])]
    e = x[:, 1:] - x[:, :1]
    return np.abs(np.einsum("ij,ij->i", e[:, 0], np.cross(e[:, 1], e[:, 2]))).sum() / 6


check(abs(F_REF - 2.903636e9) < 1e3, f"TM010 closed form {F_REF / 1e9:.7f} GHz is Palace's 2.903636 GHz")
V = math.pi * A * A * 2 * A
m, vtk2 = mode1(2)
f = float(m["f_re_Hz"])
err = (f - F_REF) / F_REF
check(abs(err) < 1e-5, f"curved: TM010 {f / 1e9:.7f} GHz vs {F_REF / 1e9:.7f} GHz, rel. error {err:+.2e} (< 1e-5)")
check(m["flag"] == "ok" and m["dipole"] == "P_z", f"curved: flag {m['flag']}, dipole {m['dipole']} (ok, P_z)")
check(float(m["residual"]) < 1e-10, f"curved: residual {m['residual']} < 1e-10")
s = float(m["f_im_Hz"])
check(s == 0 and m["Q"] == "inf", f"curved: lossless, Im f {s}, Q {m['Q']}")
m, vtk1 = mode1(1)
f1 = float(m["f_re_Hz"])
err1 = (f1 - F_REF) / F_REF
check(abs(err1) > 1e-3, f"straight control on the same mesh: {f1 / 1e9:.7f} GHz, rel. error {err1:+.2e} (> 1e-3)")
# the VTK of the curved run places its points by the map: its sub-tets
# fill the cylinder much better than the straight tets do
v2, v1 = (vtk_volume(p) / V - 1 for p in (vtk2, vtk1))
check(abs(v2) < abs(v1) / 5, f"mode_1.vtk volume error: curved {v2:+.2e}, straight {v1:+.2e} (curved < 1/5)")

# a box has no curved surface: geometry_order 2 flags no tet curved and
# changes nothing (the same frequencies to the last printed digit)
box = []
for g in (1, 2):
    _, _, _, out = run("tests/app/cases/eigen_box.geo", *setn("Mesh/geometry_order", g),
                       *setn("Materials/slab/eps_r", 1), *setn("Eigen/target", 8e9), *setn("Eigen/n", 2),
                       *setn("Geometry/hmax", 5), *setn("Solver/order", 2), *sets("Output/fields", "none"))
    with open(os.path.join(out, "modes.csv")) as f:
        box.append([r["f_re_Hz"] for r in csv.DictReader(f)])
check(box[0] == box[1] and len(box[0]) == 2, f"straight box: geometry_order 2 gives the same modes {box[1]} as 1 {box[0]}")

# Eigen/ports matched (the port's Robin term on its own map) now runs: the
# probe-fed cavity's loaded mode has a finite Q
rc, out_text, err_text, _ = run("cases/cavity.geo", *sets("Solver/problem", "eigen"),
                                *setn("Eigen/target", 8.8e9), *setn("Eigen/n", 1),
                                *sets("Eigen/ports", "matched"), *setn("Mesh/geometry_order", 2),
                                *sets("Output/fields", "none"))
rows = [ln.split() for ln in out_text.splitlines() if ln[:1] == "1"]
check(rc == 0 and rows and 1 < float(rows[0][3]) < 1e4,
      f"geometry_order 2 with Eigen/ports matched: a loaded mode (Q {rows[0][3] if rows else '?'})")
rc, _, err_text, _ = run(CASE, *setn("Mesh/geometry_order", 3), expect_ok=False)
check(rc != 0 and "Mesh/geometry_order" in err_text, f"geometry_order 3 is refused (rc {rc})")
finish()
