"""Issue 32, case 6: no silent wrong answer.  A loaded mesh refuses a
geometry value it was not made with; a journal record changed by one hex
digit is caught by its checksum; Eigen/target in GHz for Hz is refused with
the hint; a physical group naming an entity the model lacks is refused; an
absurd mesh density is refused; a huge loss tangent is named as the cause
of an absurd mesh, not the mesh density.  WR-90 at order 1."""
import os
import tempfile

from emtest import check, finish, run, setn
from keep import WG, band, copy, fast, same, snapshot


def refused(what, case, args, needles, out=None):
    rc, _, err, d = run(case, *args, out=out, expect_ok=False, timeout=300)
    check(rc == 1, f"{what}: exit {rc} == 1")
    for n in needles:
        check(n in err, f"{what}: the message names '{n}'")
    return d


tmp = tempfile.mkdtemp(prefix="emsolve_silent_")

# a loaded mesh cannot follow a geometry value
msh = os.path.join(tmp, "wg.msh")
run(WG, *fast(), "--save-mesh", msh)
refused("--load-mesh with Geometry/length 60", WG,
        [*fast(), "--load-mesh", msh, *setn("Geometry/length", 60)], ["Geometry/length", "wg.msh"])
rc, _, err, _ = run(WG, *fast(), "--load-mesh", msh, expect_ok=False)
check(rc == 0, f"--load-mesh without a geometry override runs (exit {rc})")

# a journal record with one hex digit changed
_, _, _, ref = run(WG, *fast(), *band(3))
d = copy(ref, "digit")
path = os.path.join(d, "sweep.journal")
with open(path) as f:
    lines = f.read().split("\n")
k = next(i for i, l in enumerate(lines) if l.startswith("freq 1 "))
w = lines[k].split(" ")
h = w[3]
j = 40  # inside S of the record
w[3] = h[:j] + ("0" if h[j] != "0" else "1") + h[j + 1:]
lines[k] = " ".join(w)
with open(path, "w") as f:
    f.write("\n".join(lines))
before = snapshot(d)
refused("a journal record with a changed digit", WG, [*fast(), *band(3), "--resume"],
        ["journal", "frequency 1", "checksum"], out=d)
same(before, snapshot(d), "a corrupt journal refused")

# Eigen/target in GHz for Hz (WR-90's band: 10 GHz)
refused("Eigen/target 9", WG, [*fast(), "-setstring", "Solver/problem", "eigen", *setn("Eigen/target", 9),
                               *setn("Eigen/max_restarts", 3)], ["Eigen/target", "9e9"])

# a physical group naming a volume the model does not have
geo = os.path.join(tmp, "missing.geo")
with open(geo, "w") as f:
    f.write('SetFactory("OpenCASCADE");\n'
            'DefineConstant[f = {10e9, Name "Solver/frequency"}, e1 = {1, Name "Materials/air/eps_r"},\n'
            '  e2 = {4, Name "Materials/diel/eps_r"}, t1 = {"waveguide", Name "Ports/port1/type"},\n'
            '  t2 = {"waveguide", Name "Ports/port2/type"}];\n'
            'Box(1) = {0, 0, 0, 22.86, 10.16, 30};\ne = 1e-6;\n'
            'Physical Volume("air") = {1};\nPhysical Volume("diel") = {99};\n'
            'Physical Surface("port1") = Surface In BoundingBox{-e, -e, -e, 22.86 + e, 10.16 + e, e};\n'
            'Physical Surface("port2") = Surface In BoundingBox{-e, -e, 30 - e, 22.86 + e, 10.16 + e, 30 + e};\n')
refused("Physical Volume(\"diel\") = {99}", geo, fast(), ["Physical Volume(\"diel\")", "holds no volume"])

# mesh densities
refused("Mesh/elements_per_wavelength 1e-6", WG, [*fast(), *setn("Mesh/elements_per_wavelength", 1e-6)],
        ["Mesh/elements_per_wavelength"])
refused("a huge loss tangent", WG, [*fast(), *setn("Materials/air/tan_delta", 1e6)],
        ["Materials/air/tan_delta"])
finish()
