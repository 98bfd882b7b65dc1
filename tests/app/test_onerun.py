"""Issue 24, a single run's host stages:
- one frequency: the assembly keeps no frequency-independent cache (its -v
  line is absent; a two-frequency sweep's has it), and S11 is the cached
  sweep's at the same frequency up to the rounding of S - k0^2 T (1e-10:
  formed per element instead of after the sum; 1e-9 on the GPU, whose
  factor is not bit-reproducible run to run);
- the fields file's error estimate runs on a thread of its own beside the
  far field (its stage line says "(overlapped)"; with Solver/overlap 0
  nothing overlaps), and on the CPU every output but summary.json and the
  journal is the same, byte for byte, with and without it (two
  frequencies, the fields at both); on the GPU the error fields are
  present in both and S11 agrees to 1e-9;
- on the GPU with EMSOLVE_DEVICE_EARLY=1 (off by default: measured
  slower) the device opens while the case meshes: one device line, S11 as
  without it (1e-9);
- no stage over 0.5 s without its log line (stages_s adds up).
The order-1 DRA with the direct factor."""
import filecmp
import os
import re

from emtest import DEVICE, check, finish, run, setn, sets, summary

STAGES = ["parse", "mesh", "setup", "dofmap", "assembly", "operator", "ordering", "symbolic",
          "numeric", "pc_setup", "solve", "post", "farfield", "writing"]
base = ["cases/dra.geo", *setn("Solver/order", 1), *sets("Solver/preconditioner", "direct"), "-v"]


def s11(out, i=0):
    return complex(*summary(out)["frequencies"][i]["ports"][0]["S_row"][0])


def error_field(out, name):
    """The VTK's cell field "error" (ASCII or binary: compared as bytes)."""
    with open(os.path.join(out, name), "rb") as f:
        data = f.read()
    k = data.find(b"SCALARS error")
    e = data.find(b"POINT_DATA", k)
    return data[k:e]


def parts_add_up(name, out):
    st = summary(out)["stages_s"]
    parts = sum(st[k] for k in STAGES) + st["other"] - st["overlapped"]
    check(abs(parts - st["total"]) <= 0.02 * st["total"] + 0.05,
          f"{name}: stages + other - overlapped = {parts:.2f} s, total {st['total']:.2f} s")


# one frequency: no cache; the estimate overlapped
_, _, err1, out1 = run(*base, *setn("Solver/frequency", 5.8e9))
check("frequency-independent part" not in err1, "one frequency: the assembly cache not built")
parts_add_up("one frequency", out1)
marked = re.findall(r"\] post: .*error estimate \(overlapped\)", err1)
check(len(marked) == 1, f"one frequency: the error estimate overlapped ({len(marked)} lines)")
if DEVICE == "gpu":
    check(len(re.findall(r"\] device: ", err1)) == 1, "gpu: one device line")
    os.environ["EMSOLVE_DEVICE_EARLY"] = "1"
    try:
        _, _, err, out = run(*base, *setn("Solver/frequency", 5.8e9))
    finally:
        os.environ.pop("EMSOLVE_DEVICE_EARLY", None)
    check(len(re.findall(r"\] device: ", err)) == 1, "gpu, the device opened early: one device line")
    d = abs(s11(out) - s11(out1))
    check(d < 1e-9, f"gpu, the device opened early: S11 within {d:.1e}")

# two frequencies, the fields at both, the overlap on (the default) and off:
# the sweep keeps the cache; byte for byte on the CPU
two = {}
for overlap in (1, 0):
    _, _, err, out = run(*base, *setn("Solver/f_start", 5.6e9), *setn("Solver/f_stop", 5.8e9),
                         *setn("Solver/n_freq", 2), *sets("Output/fields", "all"),
                         *setn("Solver/overlap", overlap))
    two[overlap] = out
    name = f"two frequencies, Solver/overlap {overlap}"
    check("frequency-independent part" in err, f"{name}: the assembly cache built")
    parts_add_up(name, out)
    if not overlap:
        check("(overlapped)" not in err, f"{name}: nothing overlapped")
d = abs(s11(out1) - s11(two[1], 1))
tol = 1e-10 if DEVICE == "cpu" else 1e-9
check(d < tol, f"one frequency: S11 without the cache within {d:.1e} of the cached sweep's")
a, b = two[1], two[0]
files = sorted(f for f in os.listdir(a) if f not in ("summary.json", "sweep.journal"))
vtk = [f for f in files if f.startswith("fields_")]
check(len(vtk) == 2 and any(f.endswith(".s1p") for f in files), f"two fields files and S11 ({files})")
if DEVICE == "cpu":
    for f in files:
        check(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False),
              f"{f}: the same bytes with the estimate overlapped and in order")
else:
    for i in range(2):
        d = abs(s11(a, i) - s11(b, i))
        check(d < 1e-9, f"gpu, frequency {i}: S11 within {d:.1e}")
    for f in vtk:
        check(len(error_field(a, f)) > 100 and len(error_field(a, f)) == len(error_field(b, f)),
              f"gpu, {f}: the error field present in both")
finish()
