"""Adaptive refinement (Solver/adapt 1, docs/adapt.md) end to end, small:
WR-90 with a dielectric post (cases/wr90_post.geo) at order 1 from a
coarse mesh.  h: three passes, each with more tets, a smaller estimated
error and a smaller change of S than the pass before; adapt.csv holds the
table; the sweep runs on the last mesh, whose VTK carries the error
indicator per cell; --save-mesh writes that mesh and a run on it
(--load-mesh) solves the same problem (S to 1e-9).  p: the tets stay, the
unknowns grow, the estimated error falls, the VTK carries the orders; a
later run into the same folder replaces the result, adapt.csv included.
Bad Adapt/* values are refused before meshing, naming the parameter."""
import csv
import os
import tempfile

import meshio
import numpy as np

from emtest import check, finish, port_z, run, setn, sets, touchstone

CASE = "cases/wr90_post.geo"
BASE = setn("Solver/order", 1) + setn("Mesh/elements_per_wavelength", 4) + \
    setn("Mesh/circle_elements", 8) + setn("Solver/adapt", 1) + setn("Adapt/delta_s", 1e-6)


def table(d):
    with open(os.path.join(d, "adapt.csv")) as f:
        return list(csv.DictReader(f))


# h: three passes
tmp = tempfile.mkdtemp(prefix="emsolve_adapt_")
msh = os.path.join(tmp, "adapted.msh")
rc, out, err, d = run(CASE, *BASE, *setn("Adapt/max_passes", 3), "--save-mesh", msh)
t = table(d)
check(len(t) == 3 and [int(r["pass"]) for r in t] == [0, 1, 2], f"adapt.csv: {len(t)} passes")
tets = [int(r["tets"]) for r in t]
est = [float(r["estimated_error"]) for r in t]
ds = [float(r["max_delta_s"]) for r in t]
print("tets", tets, "estimated error", est, "max |dS|", ds)
check(tets[0] < tets[1] < tets[2], f"h: more tets each pass {tets}")
check(est[0] > est[1] > est[2], f"h: the estimated error falls each pass {est}")
check(ds[2] < ds[1], f"h: max |dS| falls: {ds[1]:.3g} -> {ds[2]:.3g}")
check("adapt pass 2" in err and "not converged after Adapt/max_passes" in err,
      "the table and the not-converged warning in the log")
s = __import__("emtest").summary(d)
check(s["mesh"]["tets"] == tets[2], f"the sweep on the last mesh: {s['mesh']['tets']} tets")
m = meshio.read(os.path.join(d, "fields_10GHz.vtk"))
eta = np.concatenate(m.cell_data["error"])
check(len(eta) == tets[2] * 1 and np.all(np.isfinite(eta)) and eta.min() >= 0 and eta.max() > 0,
      f"VTK cell field 'error': {len(eta)} cells, {eta.min():.3g} .. {eta.max():.3g}")
_, S = touchstone(os.path.join(d, "wr90_post.s2p"), port_z(d))
rc, out, err, d2 = run(CASE, *setn("Solver/order", 1), "--load-mesh", msh)
s2 = __import__("emtest").summary(d2)
_, S2 = touchstone(os.path.join(d2, "wr90_post.s2p"), port_z(d2))
check(s2["mesh"]["tets"] == tets[2], f"--save-mesh: the loaded mesh has {s2['mesh']['tets']} tets")
dS = max(abs(a - b) for ra, rb in zip(S[0], S2[0]) for a, b in zip(ra, rb))
check(dS < 1e-9, f"--load-mesh of the adapted mesh: S equal ({dS:.2g})")

# p: two passes on the same tets; the orders saved beside the mesh
pmsh = os.path.join(tmp, "p.msh")
rc, out, err, d = run(CASE, *BASE, *setn("Adapt/max_passes", 2), *sets("Adapt/kind", "p"),
                      "--save-mesh", pmsh)
t = table(d)
tets = [int(r["tets"]) for r in t]
unk = [int(r["unknowns"]) for r in t]
est = [float(r["estimated_error"]) for r in t]
check(tets[0] == tets[1] and unk[1] > unk[0], f"p: tets {tets}, unknowns {unk}")
check(est[1] < est[0], f"p: the estimated error falls {est}")
m = meshio.read(os.path.join(d, "fields_10GHz.vtk"))
orders = np.concatenate(m.cell_data["order"])
check(set(np.unique(orders)) == {1, 2}, f"p: the VTK's orders {set(np.unique(orders))}")
_, S = touchstone(os.path.join(d, "wr90_post.s2p"), port_z(d))
check("adapt.csv" in __import__("emtest").summary(d)["outputs"], "summary.json lists adapt.csv")
# the run on the saved mesh and orders goes into the adaptive run's folder: its result
# replaces that one, adapt.csv included (an output the commit knows, app/outdir.c)
rc, out, err, d2 = run(CASE, *setn("Solver/order", 1), "--load-mesh", pmsh,
                       *sets("Mesh/orders", pmsh + ".orders"), out=d)
check(not os.path.exists(os.path.join(d, "adapt.csv")) and
      not os.path.exists(os.path.join(d, ".emsolve.partial")),
      "a later run without Solver/adapt: the earlier adapt.csv is gone, no partial folder left")
_, S2 = touchstone(os.path.join(d2, "wr90_post.s2p"), port_z(d2))
s2 = __import__("emtest").summary(d2)
dS = max(abs(a - b) for ra, rb in zip(S[0], S2[0]) for a, b in zip(ra, rb))
check(s2["dofs"]["unknowns"] == unk[1] and dS < 1e-9,
      f"Mesh/orders: {s2['dofs']['unknowns']} unknowns = {unk[1]}, S equal ({dS:.2g})")
bad = os.path.join(tmp, "bad.orders")
with open(pmsh + ".orders") as f, open(bad, "w") as g:
    g.write("".join(f.readlines()[:100]))
o = os.path.join(tempfile.mkdtemp(prefix="emsolve_adapt_"), "out")
rc, out, err, _ = run(CASE, "--load-mesh", pmsh, *sets("Mesh/orders", bad), out=o, expect_ok=False)
check(rc == 1 and "bad.orders" in err and "truncated" in err,
      f"a truncated orders file: exit {rc}, named")

# refused before meshing, nothing written
for args, word in [(sets("Adapt/kind", "q"), "Adapt/kind"),
                   (setn("Adapt/fraction", 1.5), "Adapt/fraction"),
                   (setn("Adapt/max_passes", 0), "Adapt/max_passes"),
                   (setn("Solver/adapt", 2), "Solver/adapt"),
                   (["--load-mesh", msh], "Mesh/file"),
                   (sets("Mesh/orders", bad), "Mesh/orders")]:
    o = os.path.join(tempfile.mkdtemp(prefix="emsolve_adapt_"), "out")
    rc, out, err, _ = run(CASE, *BASE, *args, out=o, expect_ok=False)
    check(rc == 1 and word in err and "meshing" not in err and not os.path.exists(o),
          f"{' '.join(args)}: exit {rc}, names {word}, nothing written")
finish()
