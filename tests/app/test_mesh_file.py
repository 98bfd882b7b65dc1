"""The mesh as a file (docs/usage.md, "Saving and loading the mesh"): a run
with --save-mesh writes the mesh it solved on; a run with --load-mesh (=
Mesh/file) on that file solves the same model: the same mesh and S11 equal
to 1e-10 (the same em_mesh, so the same linear system: MSH 4.1 binary keeps
the coordinates exact).  The DRA at order 1, one frequency: PML volumes,
the coax port, the dielectric.  Bad files fail with a message naming the
file (and the group a foreign mesh lacks), a non-zero exit and no output
directory; no temporary file is left beside a saved mesh.  The mesh file's
bytes are part of the --resume key."""
import os
import shutil
import tempfile

from emtest import check, finish, run, setn, sets, summary

tmp = tempfile.mkdtemp(prefix="emsolve_mesh_file_")
msh = os.path.join(tmp, "dra.msh")
common = (setn("Solver/order", 1) + setn("Solver/frequency", 6e9) +
          sets("Output/fields", "none") + sets("Farfield/compute", "off"))

_, _, err_save, d_save = run("cases/dra.geo", *common, "--save-mesh", msh)
check(os.path.isfile(msh), f"--save-mesh wrote {msh}")
check(sorted(os.listdir(tmp)) == ["dra.msh"], f"nothing else beside it: {os.listdir(tmp)}")
check("mesh written to" in err_save, "the log says where the mesh went")

_, _, err_load, d_load = run("cases/dra.geo", *common, "--load-mesh", msh)
check("mesh read from" in err_load and "mesh sized at" not in err_load,
      "the loading run says it read the mesh, not that it sized one")
a, b = summary(d_save), summary(d_load)
for k in ("vertices", "tets", "edges", "faces"):
    check(a["mesh"].get(k) == b["mesh"].get(k),
          f"same mesh: {k} {a['mesh'].get(k)} / {b['mesh'].get(k)}")
check(b["mesh"]["file"] == msh and a["mesh"]["file"] == "",
      f"summary.json names the mesh file: '{b['mesh']['file']}'")
check("not sized" in b["mesh"]["sized_by"] and "f_stop" in a["mesh"]["sized_by"],
      f"summary.json: sized_by '{b['mesh']['sized_by']}' (loaded) / '{a['mesh']['sized_by']}'")
check(a["matrix"]["nnz"] == b["matrix"]["nnz"], "same matrix pattern")
s_a = complex(*a["frequencies"][0]["ports"][0]["S_row"][0])
s_b = complex(*b["frequencies"][0]["ports"][0]["S_row"][0])
print(f"S11 at 6 GHz: meshed {s_a}, loaded {s_b}, |diff| {abs(s_a - s_b):.3e}")
check(abs(s_a - s_b) <= 1e-10, f"S11 equal to 1e-10 ({abs(s_a - s_b):.2e})")

# Mesh/file in the parameter spelling works the same way
_, _, _, d_param = run("cases/dra.geo", *common, *sets("Mesh/file", msh))
s_c = complex(*summary(d_param)["frequencies"][0]["ports"][0]["S_row"][0])
check(abs(s_c - s_a) <= 1e-10, f"-setstring Mesh/file: S11 equal ({abs(s_c - s_a):.2e})")

# Mesh/file set in the case file: a relative name is taken from the case's
# folder (here a copy of the case with the mesh beside it), not the cwd
from emtest import SRC
cdir = os.path.join(tmp, "case")
os.makedirs(cdir)
with open(os.path.join(SRC, "cases", "dra.geo")) as f:
    text = f.read()
with open(os.path.join(cdir, "dra.geo"), "w") as f:
    f.write(text + '\nDefineConstant[ mesh_file = {"dra_mesh.msh", Name "Mesh/file"} ];\n')
shutil.copy(msh, os.path.join(cdir, "dra_mesh.msh"))
_, _, err_case, d_case = run(os.path.join(cdir, "dra.geo"), *common)
s_d = complex(*summary(d_case)["frequencies"][0]["ports"][0]["S_row"][0])
check("dra_mesh.msh (Mesh/file)" in err_case and abs(s_d - s_a) <= 1e-10,
      f"Mesh/file in the case, relative to its folder: read, S11 equal ({abs(s_d - s_a):.2e})")

# --resume: the loaded mesh's bytes are part of the journal key, so a journal
# made on one mesh is refused when the file now holds another (a coarser DRA
# mesh, sized at 5 GHz), and accepted while it is the same
mine = os.path.join(tmp, "mine.msh")
coarse = os.path.join(tmp, "coarse.msh")
shutil.copy(msh, mine)
_, _, _, d_res = run("cases/dra.geo", *common, "--load-mesh", mine)
run("cases/dra.geo", *common, *setn("Mesh/frequency", 5e9), "--save-mesh", coarse)
_, _, err_same, _ = run("cases/dra.geo", *common, "--load-mesh", mine, "--resume", out=d_res)
check("resume: 1 of 1 frequencies done" in err_same, "--resume on the same mesh file goes on")
shutil.copy(coarse, mine)
rc, _, err_other, _ = run("cases/dra.geo", *common, "--load-mesh", mine, "--resume", out=d_res,
                          expect_ok=False)
check(rc == 1 and "--resume continues the same command only" in err_other,
      f"--resume with another mesh in the same file is refused (exit {rc})")

# a mesh of another case: the lumped line's (no 'air', no 'dra')
line_msh = os.path.join(tmp, "line.msh")
run("tests/data/lumped_line.geo", *sets("Output/fields", "none"), "--save-mesh", line_msh)
trunc = os.path.join(tmp, "trunc.msh")
with open(msh, "rb") as f, open(trunc, "wb") as g:
    g.write(f.read()[: os.path.getsize(msh) // 3])
junk = os.path.join(tmp, "junk.msh")
with open(junk, "w") as f:
    f.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\nthis is not a mesh\n")
BAD = [
    ("missing file", os.path.join(tmp, "none.msh"), ["none.msh", "No such file"]),
    ("truncated file", trunc, ["trunc.msh", "cannot be read"]),
    ("corrupt file", junk, ["junk.msh", "cannot be read"]),
    ("mesh of another case", line_msh, ["line.msh", "lacks the volume group"]),
    ("not a .msh", os.path.join(tmp, "dra.geo"), ["dra.geo", ".msh"]),
]
for what, path, want in BAD:
    out = os.path.join(tempfile.mkdtemp(prefix="emsolve_bad_mesh_"), "out")
    rc, _, err, _ = run("cases/dra.geo", *common, "--load-mesh", path, out=out, expect_ok=False)
    msg = [l for l in err.splitlines() if l.startswith("error:")]
    check(rc == 1, f"{what}: exit code {rc}")
    check(msg and all(w in msg[-1] for w in want), f"{what}: message {msg[-1:]} names {want}")
    check(not os.path.exists(out), f"{what}: no output directory")
finish()
