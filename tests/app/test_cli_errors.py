"""Bad input: every case below must fail with a non-zero exit, a message that
names the culprit, and nothing written into the output directory."""
import os
import subprocess

from emtest import EMSOLVE, SRC, check, finish, run

CASES = [
    # (what, case, extra args, substrings the message must contain)
    ("missing file", "tests/data/does_not_exist.geo", [], ["does_not_exist.geo"]),
    ("geo syntax error", "tests/data/bad_syntax.geo", [], ["bad_syntax.geo"]),
    ("unknown parameter", "cases/waveguide.geo", ["-setnumber", "Solver/frobnicate", "1"],
     ["Solver/frobnicate", "Solver/order"]),
    ("number override of a string", "cases/waveguide.geo",
     ["-setnumber", "Ports/port1/type", "3"], ["Ports/port1/type"]),
    ("no volume", "tests/data/no_volume.geo", [], ["no_volume.geo", "volume"]),
    ("no port", "tests/data/no_port.geo", [], ["port"]),
    ("port without type", "tests/data/port_no_type.geo", [], ["port1", "Ports/port1/type"]),
    ("material without eps_r", "tests/data/no_eps.geo", [], ["dra", "Materials/dra/eps_r"]),
    ("frequency <= 0", "cases/waveguide.geo", ["-setnumber", "Solver/frequency", "-1"],
     ["Solver/frequency"]),
    ("order out of range", "cases/waveguide.geo", ["-setnumber", "Solver/order", "4"],
     ["Solver/order"]),
    ("unknown method", "cases/waveguide.geo", ["-setstring", "Solver/method", "cg"],
     ["cg"]),
    ("PML not touching the interior", "tests/data/pml_apart.geo", [], ["pml", "touch"]),
    ("port not planar", "tests/data/port_bent.geo", [], ["port1", "planar"]),
    ("direct factor over the memory limit", "cases/waveguide.geo",
     ["-setstring", "Solver/preconditioner", "direct", "-setnumber", "Solver/memory_limit",
      "1e-4"], ["direct factorization needs", "GiB"]),
    ("waveguide port below cut-off", "cases/waveguide.geo",
     ["-setnumber", "Solver/frequency", "5e9"], ["port1", "cut off"]),
    ("plane wave on a closed case (ports are loads, but no PML)", "cases/waveguide.geo",
     ["-setstring", "Excitation/type", "planewave"], ["planewave", "PML"]),
    ("far-field step", "cases/waveguide.geo", ["-setnumber", "Farfield/theta_step", "7"],
     ["Farfield/theta_step", "180"]),
    ("unknown mirror", "cases/waveguide.geo", ["-setstring", "Farfield/mirror_x", "pcm"],
     ["Farfield/mirror_x", "pmc"]),
    ("ground without its mirror", "cases/waveguide.geo",
     ["-setnumber", "Farfield/infinite_ground", "1"], ["Farfield/infinite_ground", "mirror_z"]),
    ("unknown NF2FF surface", "cases/waveguide.geo", ["-setstring", "Farfield/surface", "box"],
     ["Farfield/surface", "box"]),
    ("far field of a closed PEC box", "cases/waveguide.geo",
     ["-setstring", "Farfield/compute", "on"], ["Farfield/compute", "radiates"]),
]

for what, case, args, needles in CASES:
    rc, out, err, outdir = run(case, *args, expect_ok=False, timeout=300)
    check(rc != 0, f"{what}: exit code {rc} != 0")
    check("Segmentation" not in err and rc < 128 and rc > 0, f"{what}: no crash (rc {rc})")
    for n in needles:
        check(n.lower() in err.lower(), f"{what}: message names '{n}'")
    check(not os.path.exists(outdir), f"{what}: nothing written to {outdir}")

# not an error: 'auto' takes the order-group V-cycle when the direct factor
# does not fit (order 2: pmg, whose order-1 factor does fit), ILU(0) at order 1
for order, want in [("2", "pmg"), ("1", "ilu0")]:
    rc, out, err, outdir = run("cases/waveguide.geo", "-setnumber", "Solver/memory_limit", "1e-3",
                               "-setnumber", "Solver/order", order,
                               "-setstring", "Output/fields", "none", timeout=300)
    pcs = [f["preconditioner"]["type"]
           for f in __import__("emtest").summary(outdir)["frequencies"]]
    check(rc == 0 and f"auto: {want} instead" in err and pcs == [want],
          f"auto over the memory limit at order {order}: {want} with a warning (got {pcs}, rc {rc})")

# usage errors: exit 2 with a message
for args, needle in [(["--frobnicate", "cases/dra.geo"], "--frobnicate"),
                     (["-setnumber", "Solver/order", "three", "cases/dra.geo"], "three"),
                     ([], "no case"),
                     (["--save-mesh", "m.msh", "--sweep", "Materials/dra/eps_r=8,10",
                       "cases/dra.geo"], "--save-mesh m.msh with --sweep"),
                     (["cases/dra.geo", "--load-mesh"], "--load-mesh needs a value")]:
    p = subprocess.run([EMSOLVE] + args, capture_output=True, text=True, cwd=SRC)
    check(p.returncode == 2, f"usage error {args}: exit {p.returncode} == 2")
    check(needle in p.stderr, f"usage error {args}: message names '{needle}'")
finish()
