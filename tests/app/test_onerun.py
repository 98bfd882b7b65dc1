"""Issue 24, a single run's host stages (EMSOLVE_ONERUN=0: as before):
- one frequency: the assembly keeps no frequency-independent cache (its -v
  line is absent; with EMSOLVE_ONERUN=0 present), and S11 is the cached
  run's up to the rounding of S - k0^2 T (1e-10: formed per element
  instead of after the sum);
- the fields file's error estimate runs on a thread of its own beside the
  far field (its stage line says "(overlapped)"; with EMSOLVE_ONERUN=0
  not), and on the CPU every output but summary.json and the journal is
  the same, byte for byte, with and without it (two frequencies, the
  fields at both: the cache then in both runs); on the GPU, whose factor
  is not bit-reproducible run to run, the error fields to 1e-6 and S11 to
  1e-9;
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


def run_ab(old, *args):
    env = os.environ.copy()
    if old:
        os.environ["EMSOLVE_ONERUN"] = "0"
    else:
        os.environ.pop("EMSOLVE_ONERUN", None)
    try:
        return run(*base, *args)
    finally:
        os.environ.clear()
        os.environ.update(env)


def s11(out, i=0):
    return complex(*summary(out)["frequencies"][i]["ports"][0]["S_row"][0])


def error_field(out, name):
    """The VTK's cell field "error" (ASCII or binary: compared as bytes)."""
    with open(os.path.join(out, name), "rb") as f:
        data = f.read()
    k = data.find(b"SCALARS error")
    e = data.find(b"POINT_DATA", k)
    return data[k:e]


# one frequency: the cache's line, S11
one = {}
for old in (1, 0):
    rc, _, err, out = run_ab(old, *setn("Solver/frequency", 5.8e9))
    one[old] = (err, out)
    cached = "frequency-independent part" in err
    check(cached == bool(old), f"one frequency, EMSOLVE_ONERUN={'0' if old else 'unset'}: the "
                               f"assembly cache {'built' if cached else 'not built'}")
    st = summary(out)["stages_s"]
    parts = sum(st[k] for k in STAGES) + st["other"] - st["overlapped"]
    check(abs(parts - st["total"]) <= 0.02 * st["total"] + 0.05,
          f"one frequency: stages + other - overlapped = {parts:.2f} s, total {st['total']:.2f} s")
    if DEVICE == "gpu":
        check(len(re.findall(r"\] device: ", err)) == 1, "gpu: one device line")
if DEVICE == "gpu":
    os.environ["EMSOLVE_DEVICE_EARLY"] = "1"
    try:
        _, _, err, out = run_ab(0, *setn("Solver/frequency", 5.8e9))
    finally:
        os.environ.pop("EMSOLVE_DEVICE_EARLY", None)
    check(len(re.findall(r"\] device: ", err)) == 1, "gpu, the device opened early: one device line")
    d = abs(s11(out) - s11(one[0][1]))
    check(d < 1e-9, f"gpu, the device opened early: S11 within {d:.1e}")
d = abs(s11(one[0][1]) - s11(one[1][1]))
check(d < 1e-10, f"one frequency: S11 without the cache within {d:.1e} of the cached run's")
marked = re.findall(r"\] post: .*error estimate \(overlapped\)", one[0][0])
check(len(marked) == 1, f"default: the error estimate overlapped ({len(marked)} lines)")
check("(overlapped)" not in re.sub(r".*\] (?:ordering|symbolic): .*\n", "", one[1][0]),
      "EMSOLVE_ONERUN=0: only the analysis overlaps")

# two frequencies, the fields at both: byte for byte on the CPU
two = {}
for old in (1, 0):
    two[old] = run_ab(old, *setn("Solver/f_start", 5.6e9), *setn("Solver/f_stop", 5.8e9),
                      *setn("Solver/n_freq", 2), *sets("Output/fields", "all"))[3]
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
