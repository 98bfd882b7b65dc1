"""Order per region (Materials/<volume>/order, PML/basis_order) end to end.

1. A WR-90 thru line of two air halves (tests/data/wr90_regions.geo), one
   mesh (Mesh/elements_per_wavelength 8) at four order assignments: uniform
   1, uniform 2, near half 2 / far half 1, near 1 / far 2.  Analytic
   reference (docs/validation.md R2): |S21| = 1, arg S21 = -beta L.  The
   phase error of a discretisation is its numerical dispersion integrated
   along the line, so each half contributes its own: the two mixed runs
   must each carry about half of the uniform order-1 error (0.3 .. 0.7 of
   it: a region whose order was ignored would give ~0 or ~all of it), and
   together the uniform order-1 plus order-2 errors (to 10 % of the
   order-1 error).  The interface between the orders must not reflect more
   than the order-1 line's own ports do (|S11| < 0.05), the uniform order 2
   must hit the analytic phase (< 2e-3 rad), and the log must list the
   unknowns of each region, adding up to the total.
2. WR-90 + PML section (cases/waveguide.geo, termination 1) at order 2
   with PML/basis_order 1: the layer still absorbs (analytic: the
   continuous floor R0^(beta/k0) ~ 1e-10; measured -31 dB on this mesh,
   bound -25 dB) with fewer unknowns than the uniform order 2.
3. pmg (PMG/pml_coarse auto) at order 3 with the PML at order 2: converges
   as with the whole PML in its coarse set, S equal to the direct solve's,
   and --dry-run reports the same coarse-set size as the run.
4. PML/basis_order -1 (auto, opt-in): at Solver/order 3 the PML takes
   order 2, at order 2 nothing changes.  WR-90 + PML at 10 GHz against the
   analytic reference (|S11| = 0 above the continuous floor R0^(beta/k0),
   -90.6 dB; Zin = Z_TE = eta0 k0 / beta): uniform order 3 reads -88 dB and
   Zin to 0.003 %, auto -59 dB and 0.2 % (bounds -80 dB / 0.05 % and
   -50 dB / 0.5 %): why auto is not the default (docs/physics.md)."""
import cmath
import math
import re

from emtest import C0, check, finish, run, setn, sets, summary

A, F, LEN = 22.86e-3, 10e9, 60e-3
K0 = 2 * math.pi * F / C0
BETA = math.sqrt(K0 ** 2 - (math.pi / A) ** 2)


def thru(order, far):
    rc, out, err, d = run("tests/data/wr90_regions.geo", *setn("Solver/order", order),
                          *setn("Materials/far/order", far), *setn("Mesh/elements_per_wavelength", 8),
                          *sets("Output/fields", "none"))
    s = summary(d)
    S = [complex(*x) for x in s["frequencies"][0]["ports"][0]["S_row"]]
    phase = cmath.phase(S[1] * cmath.exp(1j * BETA * LEN))
    return S, phase, err


runs = {}
for order, far in [(1, 0), (2, 0), (2, 1), (1, 2)]:
    runs[(order, far)] = thru(order, far)
    S, ph, _ = runs[(order, far)]
    print(f"order {order}, far {far or order}: |S11| = {abs(S[0]):.2e}, |S21| - 1 = "
          f"{abs(S[1]) - 1:.2e}, phase error {ph:+.4e} rad")

e1, e2 = runs[(1, 0)][1], runs[(2, 0)][1]
m21, m12 = runs[(2, 1)][1], runs[(1, 2)][1]
check(abs(e2) < 2e-3, f"uniform order 2: arg S21 + beta L = {e2:+.2e} rad (analytic 0)")
check(abs(e1) > 20 * abs(e2), f"uniform order 1 disperses: {e1:+.3e} rad against {e2:+.1e} at order 2")
for name, m in [("near 2 / far 1", m21), ("near 1 / far 2", m12)]:
    check(0.3 < m / e1 < 0.7, f"{name}: phase error {m:+.3e} rad = {m / e1:.2f} of the order-1 line's")
check(abs((m21 + m12) - (e1 + e2)) < 0.1 * abs(e1),
      f"the halves' errors add up: {m21 + m12:+.4e} against {e1 + e2:+.4e} rad")
for near, far in [(2, 1), (1, 2)]:
    S = runs[(near, far)][0]
    check(abs(S[0]) < 0.05 and abs(abs(S[1]) - 1) < 0.02,
          f"near {near} / far {far}: |S11| = {abs(S[0]):.2e}, |S21| = {abs(S[1]):.4f}")

err = runs[(2, 1)][2]
tot = re.search(r"order 2 \(highest; order per region\): (\d+) unknowns", err)
reg = {name: (int(o), int(n)) for name, o, n in re.findall(r"region (\w+): order (\d+), (\d+) unknowns", err)}
check(tot is not None and reg.get("near", (0,))[0] == 2 and reg.get("far", (0,))[0] == 1 and
      sum(n for _, n in reg.values()) == int(tot.group(1)),
      f"log: unknowns per region {reg} add up to {tot.group(1) if tot else None}")

# 2. the PML at order 1 behind an order-2 guide
rc, out, err, d = run("cases/waveguide.geo", *setn("Geometry/termination", 1), *setn("Solver/order", 2),
                      *setn("PML/basis_order", 1), *setn("Mesh/elements_per_wavelength", 8),
                      *sets("Output/fields", "none"))
s = summary(d)
s11 = abs(complex(*s["frequencies"][0]["ports"][0]["S_row"][0]))
floor = 1e-6 ** (BETA / K0)
check(floor < s11 < 10 ** (-25 / 20),
      f"WR-90 + PML at order 1: |S11| = {20 * math.log10(s11):.1f} dB, between the continuous floor "
      f"{20 * math.log10(floor):.0f} dB and -25 dB")
reg = {name: (int(o), int(n)) for name, o, n in re.findall(r"region (\w+): order (\d+), (\d+) unknowns", err)}
check(reg.get("pml", (0,))[0] == 1 and reg.get("air", (0,))[0] == 2,
      f"log: the PML at order 1, the guide at 2: {reg}")

# 3. pmg with PMG/pml_coarse auto on WR-90 + PML, order 3 with the PML at
# order 2: the coarse set is the order-1 space and the PML's orders 1-2
# (the interface's order-3 functions smoothed), the cycle converges as with
# every PML unknown in it (57 COCG iterations measured; bound 70), S equal
# to the direct solve's, and --dry-run's coarse column is that set's size
wg = ["cases/waveguide.geo", *setn("Geometry/termination", 1), *setn("Solver/order", 3),
      *setn("PML/basis_order", 2), *sets("Output/fields", "none")]
_, _, _, dd = run(*wg, *sets("Solver/preconditioner", "direct"))
_, _, _, dp = run(*wg, *sets("Solver/preconditioner", "pmg"), *sets("Solver/method", "cocg"),
                  *setn("Solver/max_iterations", 200))
fd, fp = summary(dd)["frequencies"][0], summary(dp)["frequencies"][0]
its = fp["solves"][0]["iterations"]
nc = fp["preconditioner"]["coarse_unknowns"]
ds = abs(complex(*fd["ports"][0]["S_row"][0]) - complex(*fp["ports"][0]["S_row"][0]))
check(fp["converged"] and its <= 70 and ds < 1e-6,
      f"pmg, PML at order 2, pml_coarse auto: {its} iterations, |S11 - direct| = {ds:.1e}")
sp = summary(dp)
check(sp["dofs"]["by_order"][0] < nc < sp["dofs"]["unknowns"] / 2,
      f"coarse set {nc}: above the order-1 space ({sp['dofs']['by_order'][0]}), below half of "
      f"{sp['dofs']['unknowns']}")
rc, out, err, _ = run(*wg, "--sweep", "Geometry/pml_length=15", "--dry-run")
row = [l.split() for l in out.splitlines() if l.startswith("point_0")]
check(row and int(row[0][3]) == sp["dofs"]["unknowns"] and int(row[0][4]) == nc,
      f"--dry-run: unknowns {row[0][3] if row else None}, coarse {row[0][4] if row else None} "
      f"= the run's {sp['dofs']['unknowns']}, {nc}")
# 4. PML/basis_order -1 (auto): 2 in the PML at order 3, the same as the
# explicit 2; the reflection and Zin against the analytic reference at both
ZTE = 376.730313668 * K0 / BETA


def wg_pml(order, pml):
    rc, out, err, d = run("cases/waveguide.geo", *setn("Geometry/termination", 1),
                          *setn("Solver/order", order), *setn("PML/basis_order", pml),
                          *sets("Output/fields", "none"))
    s = summary(d)
    p = s["frequencies"][0]["ports"][0]
    reg = {n: int(o) for n, o, _ in re.findall(r"region (\w+): order (\d+), (\d+) unknowns", err)}
    return abs(complex(*p["S_row"][0])), complex(*p["Zin_ohm"]), s["dofs"]["unknowns"], reg


def db(x):
    return 20 * math.log10(x)


u3, za3, n3, r3 = wg_pml(3, 0)
a3, zx3, na3, ra3 = wg_pml(3, -1)
e3 = wg_pml(3, 2)
a2, _, na2, ra2 = wg_pml(2, -1)
_, _, n2, _ = wg_pml(2, 0)
print(f"WR-90 + PML, order 3: PML 3 |S11| {db(u3):.1f} dB, Zin {za3:.2f}; auto {db(a3):.1f} dB, "
      f"Zin {zx3:.2f}; Z_TE {ZTE:.3f} ohm, floor {db(floor):.1f} dB")
check(ra3 == {"air": 3, "pml": 2} and na3 == e3[2] < n3 and a3 == e3[0],
      f"auto at order 3: the PML at order 2 ({ra3}), {na3} unknowns against {n3}, S11 as with "
      f"PML/basis_order 2")
check(not ra2 and na2 == n2, f"auto at order 2: uniform order 2 ({na2} = {n2} unknowns)")
check(floor < u3 < 1e-4 and abs(za3 - ZTE) / ZTE < 5e-4,
      f"PML at order 3: |S11| {db(u3):.1f} dB in (floor, -80 dB), Zin {abs(za3 - ZTE) / ZTE:.1e} off Z_TE")
check(floor < a3 < 10 ** (-50 / 20) and abs(zx3 - ZTE) / ZTE < 5e-3,
      f"PML at order 2 (auto): |S11| {db(a3):.1f} dB in (floor, -50 dB), Zin "
      f"{abs(zx3 - ZTE) / ZTE:.1e} off Z_TE")
finish()
