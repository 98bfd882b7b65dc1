"""H, the Poynting vector, the surface current and the plane output
(docs/outputs.md) against the TE10 mode of a matched WR-90
(cases/waveguide.geo, two ports, 10 GHz, order 3).  The port mode carries
1 W: E_y = E0 sin(pi x / a) e^{-j beta z}, E0 = sqrt(4 Z_TE / (a b)),
  H_x = -E_y / Z_TE,  H_z = j (pi / a) / (w mu0) E0 cos(pi x / a) e^{-j beta z},
so on the plane z = 15 mm: int S_z dA = 1 - |S11|^2 (= 1), H_x = -E_y / Z_TE
at every point, max |H_z| = (pi / a) E0 / (w mu0); on the walls
|J_s| = |n x H|: at x = 0 and x = a |H_z(0)|, on y = 0 and y = b
sqrt(|H_x|^2 + |H_z|^2) at the point's x.  fields_<f>.vtk carries H_* and
S beside E.  A plane outside the mesh is refused naming Output/plane_at."""
import csv
import math

import numpy as np

from emtest import C0, ETA0, check, finish, freq_tag, run, setn, sets

a, b, f = 22.86e-3, 10.16e-3, 10e9
w = 2 * math.pi * f
k = w / C0
beta = math.sqrt(k * k - (math.pi / a) ** 2)
Z = ETA0 * k / beta
E0 = math.sqrt(4 * Z / (a * b))
MU0 = ETA0 / C0
hz0 = math.pi / a / (w * MU0) * E0

rc, o, e, d = run("cases/waveguide.geo", *setn("Solver/order", 3),
                  *sets("Output/plane_normal", "z"), *setn("Output/plane_at", 15),
                  *setn("Output/plane_points", 41))
tag = freq_tag(f)
with open(f"{d}/plane_{tag}.csv") as fh:
    rows = list(csv.DictReader(ln for ln in fh if not ln.startswith("#")))


def col(name):
    return np.array([float(r[name]) for r in rows])


def ccol(name):
    return col(name + "_re") + 1j * col(name + "_im")


x, y = col("x_m"), col("y_m")
xs, ys = np.unique(x), np.unique(y)
check(len(xs) == 41 and len(ys) == 19 and col("inside").min() == 1,
      f"plane grid {len(xs)} x {len(ys)} over the guide's cross-section, every point inside")
P = np.trapz(np.trapz(col("Sz").reshape(len(ys), len(xs)), xs, axis=1), ys)
print(f"power through the plane {P:.7f} W")
check(abs(P - 1) < 2e-3, f"int S_z dA = {P:.6f} W = 1 W (the port mode's)")
ey, hx, hz = ccol("Ey"), ccol("Hx"), ccol("Hz")
err = np.max(np.abs(hx + ey / Z)) / (E0 / Z)
print(f"H_x + E_y / Z_TE: {err:.1e} of E0 / Z_TE")
check(err < 2e-2, f"H_x = -E_y / Z_TE at every point (max deviation {err:.1e} of the peak)")
check(abs(np.abs(hz).max() / hz0 - 1) < 1e-2,
      f"max |H_z| {np.abs(hz).max():.5f} A/m = (pi/a) E0 / (w mu0) = {hz0:.5f}")

import meshio  # noqa: E402  (Debian's python3-meshio, as test_outputs)

m = meshio.read(f"{d}/fields_{tag}.vtk")
check(all(n in m.point_data for n in ("E_re", "H_re", "H_im", "H_abs", "S")),
      f"fields VTK arrays {sorted(m.point_data)}")
s = meshio.read(f"{d}/surface_{tag}.vtk")
P3, J = s.points, s.point_data["J_abs"]
wall = []
for p, j in zip(P3, J):
    if min(p[0], a - p[0]) < 1e-9:  # side walls: |H_z(0)|
        ref = hz0
    elif min(p[1], b - p[1]) < 1e-9:  # broad walls
        ref = math.hypot(E0 / Z * math.sin(math.pi * p[0] / a), hz0 * math.cos(math.pi * p[0] / a))
    else:
        continue
    wall.append(abs(j - ref) / hz0)
wall = np.array(wall)
print(f"surface current: {len(wall)} wall points, max |J_s| error {wall.max():.1e} of the peak")
check(len(wall) > 100 and wall.max() < 3e-2,
      f"|J_s| = |n x H| of TE10 on the four walls (max error {wall.max():.1e} of max |H_z|)")

rc, o, e, d = run("cases/waveguide.geo", *sets("Output/plane_normal", "z"),
                  *setn("Output/plane_at", 45), expect_ok=False)
check(rc == 1 and "Output/plane_at" in e, f"a plane beyond the mesh refused naming Output/plane_at (rc {rc})")
finish()
