"""What emsolve says, issue 33: each message below is checked as a user
meets it.

- Geometry numbers refused naming the parameter before the geometry is
  built (a negative Geometry/ground_size or Geometry/margin said "volume 10
  is in 2 physical volumes"): from the command line and from the case file;
  the case's declared Min / Max.
- --list-params complete: Solver/frequency listed although unset, lengths
  in mm, the group named in a group parameter's description.
- --help: today's file names and the exit codes.
- -v: Gmsh's messages on stderr, none on stdout (the result table).
- The time left leaves the set-up out (the first frequency carries it).
- The console S11 beside the Touchstone file's: the same numbers.
- A flagged (not converged) frequency's antenna row says so.
- An eigen run logs its block detail once.
- A design sweep: the points' log lines tagged, --jobs on the host when no
  GPU answers (without --device cpu), -q without each point's tables.
(The factorization's progress line: tests/solver/test_direct.c; a sub-band
on the command line keeps the case's mesh: test_mesh_frequency.py.)"""
import math
import os
import re
import subprocess
import tempfile

from emtest import DEVICE, EMSOLVE, SRC, check, finish, run, setn, sets

DRA = "cases/dra.geo"
WG = "cases/waveguide.geo"


def emsolve(*args, timeout=600):
    p = subprocess.run([EMSOLVE, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# ------------------------------------------------------- geometry numbers
tmp = tempfile.mkdtemp(prefix="emsolve_msg_")
for what, args, needles in (
        ("negative ground size", setn("Geometry/ground_size", -5), ["Geometry/ground_size", "> 0"]),
        ("negative margin", setn("Geometry/margin", -2), ["Geometry/margin", ">= 0"]),
        ("zero radius", setn("Geometry/dra_radius", 0), ["Geometry/dra_radius", "> 0"]),
        ("outside the case's Max", setn("Geometry/probe_inset", 7),
         ["Geometry/probe_inset", "-5 .. 5", "Min / Max"])):
    out = os.path.join(tmp, "o")
    rc, _, err = emsolve(os.path.join(SRC, DRA), "--out", out, *args)
    check(rc == 1 and all(n in err for n in needles) and "physical volumes" not in err,
          f"{what}: refused naming the parameter ({err.strip()[-160:]})")
    check(not os.path.exists(out), f"{what}: nothing written")
with open(os.path.join(SRC, DRA)) as fh:
    text = fh.read().replace('margin  = {8,', 'margin  = {-3,')
bad = os.path.join(tmp, "dra_bad.geo")
with open(bad, "w") as fh:
    fh.write(text)
rc, _, err = emsolve(bad, "--out", os.path.join(tmp, "o2"))
check(rc == 1 and "Geometry/margin = -3 (case file)" in err,
      f"a negative margin in the case file: refused naming it ({err.strip()[-160:]})")

# ---------------------------------------------------------- --list-params
rc, out, _ = emsolve("--list-params", os.path.join(SRC, DRA))
rows = {l.split()[0]: l for l in out.splitlines() if l and not l.startswith(" ")}
f_row = rows.get("Solver/frequency", "")
check("not set" in f_row and " Hz " in f_row, f"--list-params lists Solver/frequency, unset: {f_row!r}")
for name in ("Geometry/dra_radius", "Geometry/ground_size", "Ports/port1/deembed"):
    check(" mm " in rows.get(name, ""), f"--list-params: {name} in mm ({rows.get(name, '')[:60]!r})")
check("'dra'" in rows.get("Materials/dra/eps_r", ""), "--list-params: eps_r of volume 'dra'")
head = out.split("per-group parameters")[0]
check("'*'" not in head, "--list-params: no \"volume '*'\" among the case's rows")

# ------------------------------------------------------------------ --help
rc, out, _ = emsolve("--help")
check(rc == 0 and "fields_<f>GHz.vtk" in out and "fields_<n>.vtk" not in out,
      "--help names the fields files as they are written")
check("exit codes" in out and all(re.search(rf"^\s+{c}\s", out, re.M) for c in ("0", "1", "2", "3"))
      and "130" in out, "--help lists the exit codes")

# -------------------------------------- -v: Gmsh on stderr, not stdout
common = setn("Solver/order", 1) + sets("Output/fields", "none")
rc, out, err, d = run(WG, *common, "-v")
check("Info" not in out and "gmsh: Info" in err,
      "-v: Gmsh's Info lines on stderr (tagged gmsh:), none on stdout")

# ------------------------------------------------- the time left; S11 side by side
rc, out, err, d = run(WG, *common, *setn("Solver/f_start", 9e9), *setn("Solver/f_stop", 11e9),
                      *setn("Solver/n_freq", 3))
fl = [l for l in err.splitlines() if re.search(r"frequency \d/3", l)]
check(len(fl) == 3 and "set-up included" in fl[0] and "per frequency" in fl[1] and "left" in fl[1],
      f"the first frequency says it carries the set-up; the next ones estimate per frequency: {fl[:2]}")
# the waveguide has two ports: the whole S-matrix on stdout, on the ports'
# own impedances as the Touchstone file (Output/touchstone_z0 0, the
# default), and the header says so
head = [l for l in out.splitlines() if "the Touchstone file: the same" in l]
check(len(head) == 1, "stdout: the header says the Touchstone file has the same reference")
vals = [l for l in out.splitlines() if re.match(r"^\d", l)][:3]
with open(os.path.join(d, "waveguide.s2p")) as fh:
    ts = [l.split() for l in fh if l.strip() and l[0] not in "!#[" and re.match(r"^\s*\d", l)]
for v, t in zip(vals, ts):
    s11 = 20 * math.log10(abs(complex(float(t[1]), float(t[2]))))
    m = re.search(r"(-?\d+\.\d+)\s*/", v)  # the row's first |S_i1| dB: S11
    check(m and abs(float(m.group(1)) - s11) < 1e-3,
          f"{v.split()[0]} GHz: stdout {m and m.group(1)} dB = Touchstone {s11:.4f} dB")
# one port with the Touchstone file at 50 ohm: its |S11| beside the port's own
rc, out, err, d = run(DRA, *common, *setn("Solver/frequency", 5.75e9),
                      *setn("Output/touchstone_z0", 50), *sets("Farfield/compute", "off"))
head = [l for l in out.splitlines() if "|S11|_dB_touchstone" in l]
vals = [l.split() for l in out.splitlines() if re.match(r"^\d", l)][:1]
with open(os.path.join(d, "dra.s1p")) as fh:
    ts = [l.split() for l in fh if l.strip() and l[0] not in "!#["]
check(len(head) == 1 and vals and ts and
      abs(float(vals[0][5]) - 20 * math.log10(abs(complex(float(ts[0][1]), float(ts[0][2]))))) < 1e-3,
      f"one port, Touchstone at 50 ohm: stdout's |S11|_dB_touchstone = the file's ({vals[:1]})")

# ------------------------------------------- a flagged frequency's antenna row
rc, out, err, d = run(DRA, *common, *setn("Solver/frequency", 5.75e9), *sets("Solver/preconditioner", "jacobi"),
                      *setn("Solver/max_iterations", 30), expect_ok=False)
ant = out.split("antenna (port 1 driven)")[-1].splitlines()[2:3]
check(rc == 3 and ant and "(not converged)" in ant[0],
      f"not converged: exit 3 and the antenna row says so ({ant})")

# ----------------------------------------------------- eigen: block detail once
rc, out, err, d = run("tests/app/cases/eigen_box.geo", *setn("Solver/order", 1))
check(err.count("block A11") == 1, f"eigen: the block detail once ({err.count('block A11')})")

# -------------------------------------------------- design sweep: tags, --jobs, -q
LOOP = os.path.join(SRC, "tests/app/cases/loop_wg.geo")
if DEVICE == "cpu":
    o = os.path.join(tmp, "jobs")
    rc, out, err = emsolve(LOOP, "--out", o, "--jobs", "2", *setn("Solver/order", 1))
    if "no GPU answers" in err:
        check(rc == 0 and "--jobs 2: 2 processes" in err and "one after another" not in err,
              "--jobs 2 without --device: two worker processes when no GPU answers")
    else:
        print("a GPU answers here: --jobs runs the points one after another (not checked)")
    check(all(f"point_{k}: " in err for k in range(4)), "every point's log lines carry its tag")
    rc, out, err = emsolve(LOOP, "--out", os.path.join(tmp, "q"), "--device", "cpu", "-q",
                           *setn("Solver/order", 1))
    check(rc == 0 and "# design sweep: 4 points" in out and "S11 and input impedance" not in out
          and "# outputs in" not in out and err == "",
          f"-q: the sweep's summary on stdout, no point's tables, nothing on stderr ({err[:100]!r})")
finish()
