"""Periodic boundaries with a Floquet phase (docs/physics.md, "Periodic
cells") against closed forms.

1. A unit cell of an infinite dielectric slab (tests/app/cases/slab_cell.geo:
   eps_r 4, d = 5 mm, cell 3 mm, PML above and below, the sides periodic
   pairs xlo -> xhi and ylo -> yhi), a plane wave from above at 30 deg from
   the normal (Excitation/theta 150), 10 GHz, order 3.  The scattered field
   above the slab is the reflected wave, below it the transmitted minus the
   incident one; their tangential E (E_x for TM, E_y for TE) against the
   transmission-line form of the Fresnel coefficients of the slab,
     Z_i = w mu0 / k_zi (TE) or k_zi / (w eps0 eps_i) (TM),
     [V, I](d) = [[cos, j Z2 sin], [j sin / Z2, cos]] (k_z2 d) [T, T / Z1](0),
     1 + G = V(d), (1 - G) / Z1 = I(d),
   at every point of a line through the cell, to 1e-3.
2. The lumped-port line of test_ports (tests/data/lumped_line.geo) with
   periodic sides instead of magnetic walls, scan angle 0: the same
   Zin = j Z0 tan(k len) (the port drives a periodic cell).
3. Bad input: sides meshed without Periodic Surface, Solver/method cocg,
   an unknown partner: a message naming the culprit, exit 1."""
import cmath
import csv
import math

from emtest import C0, ETA0, check, finish, freq_tag, run, setn, sets, summary

f, er, d, gap = 10e9, 4.0, 5e-3, 6e-3
w = 2 * math.pi * f
k = w / C0
thi = math.radians(30)
kx, kz1, kz2 = k * math.sin(thi), k * math.cos(thi), k * math.sqrt(er - math.sin(thi) ** 2)
EPS0, MU0 = 1 / (ETA0 * C0), ETA0 / C0


def fresnel(pol):
    if pol == "TE":
        z1, z2 = w * MU0 / kz1, w * MU0 / kz2
    else:
        z1, z2 = kz1 / (w * EPS0), kz2 / (w * EPS0 * er)
    c, s = math.cos(kz2 * d), math.sin(kz2 * d)
    a, b = c + 1j * z2 / z1 * s, 1j * s / z2 + c / z1
    t = 2 / (a + z1 * b)
    return t * a - 1, t


line = (setn("Output/line_points", 69) + setn("Output/line_from_x", 1.1)
        + setn("Output/line_from_y", 1.3) + setn("Output/line_from_z", -5.9)
        + setn("Output/line_to_x", 1.1) + setn("Output/line_to_y", 1.3)
        + setn("Output/line_to_z", 10.9))
CELL = "tests/app/cases/slab_cell.geo"
base = [CELL, *setn("Geometry/cell", 3), *setn("Solver/order", 3), *sets("Output/fields", "none")]
for pol, psi, comp, v0 in [("TM", 0, 4, math.cos(math.radians(150))), ("TE", 90, 6, 1.0)]:
    rc, o, e, out = run(*base, *setn("Excitation/polarization", psi), *line, "-v")
    check("Woodbury rank" in e, f"{pol}: the periodic solve ran ({pol})")
    G, T = fresnel(pol)
    worst_r = worst_t = 0
    with open(f"{out}/line_{freq_tag(f)}.csv") as fh:
        rows = list(csv.reader(ln for ln in fh if not ln.startswith("#")))[1:]
    for r in rows:
        x, z = float(r[1]), float(r[3])
        es = complex(float(r[comp]), float(r[comp + 1]))
        vd = v0 * cmath.exp(-1j * (kx * x - kz1 * d))  # the incident tangential E at z = d
        if d + 0.5e-3 < z < d + gap - 0.5e-3:
            worst_r = max(worst_r, abs(es / (vd * cmath.exp(-1j * kz1 * (z - d))) - G))
        elif -gap + 0.5e-3 < z < -0.5e-3:
            vinc = v0 * cmath.exp(-1j * (kx * x - kz1 * z))
            worst_t = max(worst_t, abs((es + vinc) / (vd * cmath.exp(1j * kz1 * z)) - T))
    print(f"{pol}: Fresnel R {G:.6f}, T {T:.6f}; worst point {worst_r:.1e} / {worst_t:.1e}")
    check(worst_r < 1e-3, f"{pol} slab at 30 deg: reflection within 1e-3 at every point ({worst_r:.1e})")
    check(worst_t < 1e-3, f"{pol} slab at 30 deg: transmission within 1e-3 at every point ({worst_t:.1e})")

# 2. the lumped port in a periodic cell at scan angle 0
fl, erl, wl, hl, ll = 3e9, 2.2, 4e-3, 2e-3, 12e-3
kl = 2 * math.pi * fl / C0 * math.sqrt(erl)
zref = 1j * ETA0 / math.sqrt(erl) * hl / wl * math.tan(kl * ll)
rc, o, e, out = run("tests/data/lumped_line.geo", *setn("Geometry/periodic_sides", 1),
                    *sets("Boundary/xlo/periodic", "xhi"), *sets("Output/fields", "none"))
z = complex(*summary(out)["frequencies"][0]["ports"][0]["Zin_ohm"])
check(abs(z - zref) / abs(zref) < 5e-7, f"periodic sides, scan 0: Zin {z:.5f} = j Z0 tan(k len) "
      f"{zref:.5f} ({abs(z - zref) / abs(zref):.1e})")

# 3. bad input
for args, words in [([CELL, *setn("Geometry/periodic_mesh", 0)], ["periodic pair 'xlo' -> 'xhi'", "Periodic Surface"]),
                    ([CELL, *sets("Solver/method", "cocg")], ["periodic", "cocg"]),
                    ([CELL, *sets("Boundary/xlo/periodic", "nowhere")], ["Boundary/xlo/periodic", "nowhere"])]:
    rc, o, e, out = run(*args, expect_ok=False)
    check(rc == 1 and all(wd in e for wd in words), f"refused with exit 1 naming {words} (rc {rc})")
finish()
