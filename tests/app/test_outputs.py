"""The files of a run: legacy VTK (ASCII and BINARY) read back by meshio with
the right point/cell counts and consistent field arrays; summary.json with
the nine order blocks whose sizes add up; Touchstone and CSV present."""
import math
import os

import meshio
import numpy as np

from emtest import check, finish, run, setn, summary

for enc in ["ascii", "binary"]:
    args = setn("Solver/order", 3) + setn("Mesh/elements_per_wavelength", 4)
    args += ["-setstring", "Output/vtk", enc, "-setstring", "Output/fields", "all"]
    rc, out, err, d = run("cases/waveguide.geo", *args)
    s = __import__("emtest").summary(d)
    n_tet = s["mesh"]["tets"]
    sub = 3
    m = meshio.read(os.path.join(d, "fields_10GHz.vtk"))
    cells = sum(len(c.data) for c in m.cells if c.type == "tetra")
    check(cells == n_tet * sub ** 3, f"{enc}: {cells} cells = tets x 3^3 = {n_tet * sub ** 3}")
    pts_per_parent = (sub + 1) * (sub + 2) * (sub + 3) // 6
    check(len(m.points) == n_tet * pts_per_parent,
          f"{enc}: {len(m.points)} points = tets x {pts_per_parent}")
    re, im, ab = m.point_data["E_re"], m.point_data["E_im"], m.point_data["E_abs"]
    mag = np.sqrt((re ** 2 + im ** 2).sum(axis=1))
    check(np.all(np.isfinite(re)) and np.all(np.isfinite(im)), f"{enc}: fields finite")
    check(np.allclose(mag, ab.ravel(), rtol=1e-5, atol=1e-9), f"{enc}: E_abs = |E|")
    check(mag.max() > 0, f"{enc}: the field is not zero (max |E| {mag.max():.3g} V/m)")
    mat = np.concatenate([cd for cd in m.cell_data["material"]])
    check(set(np.unique(mat)) == {0}, f"{enc}: material ids {set(np.unique(mat))}")
    blocks = s["blocks"]
    check(len(blocks) == 9, f"summary lists {len(blocks)} = 9 blocks at order 3")
    by = s["dofs"]["by_order"]
    for bl in blocks:
        check(bl["rows"] == by[bl["i"] - 1] and bl["cols"] == by[bl["j"] - 1],
              f"block A{bl['i']}{bl['j']} is {bl['rows']} x {bl['cols']}")
    check(sum(bl["nnz"] for bl in blocks) == s["matrix"]["nnz"], "block nnz add up")
    check(sum(by) == s["dofs"]["unknowns"], "order groups add up to the unknowns")
    for fn in ["waveguide.s2p", "ports.csv", "summary.json"]:
        check(os.path.exists(os.path.join(d, fn)), f"{fn} written")
    check(not any(".tmp." in x for x in os.listdir(d)), "no temporary files left")

# A sweep case asked for one frequency on the command line solves that one;
# a sweep writes the fields of its middle frequency by default.
rc, out, err, d = run("cases/dra.geo", "-setnumber", "Solver/order", "1",
                      "-setnumber", "Solver/frequency", "5.8e9")
fr = [f["f_hz"] for f in summary(d)["frequencies"]]
check(fr == [5.8e9], f"-setnumber Solver/frequency on a sweep case: solved {fr}")
check(os.path.exists(os.path.join(d, "fields_5.8GHz.vtk")), "fields of the one frequency written")
rc, out, err, d = run("cases/dra.geo", "-setnumber", "Solver/order", "1",
                      "-setnumber", "Solver/n_freq", "3")
check(sorted(x for x in os.listdir(d) if x.startswith("fields_")) == ["fields_6GHz.vtk"],
      f"a 3-frequency sweep writes the middle one's fields: {os.listdir(d)}")
finish()
