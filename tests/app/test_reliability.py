"""Probes of issue 18: bad input, faults and the run's outputs.  Each probe
checks the exit code, that the message names the culprit, and that no file
is left behind (or that the files say what is wrong with them).

Exit codes (docs/usage.md): 0 results, all converged; 1 error, nothing
written; 2 usage; 3 results written but flagged (not converged, or a
reflection above 1); 128 + n killed by signal n (SIGINT 130, SIGTERM 143)."""
import csv
import json
import math
import os
import re
import resource
import signal
import subprocess
import tempfile
import time

from emtest import (EMSOLVE, SRC, C0, check, finish, port_z, renormalise, run, setn, sets,
                    summary, touchstone, touchstone_r)

WG, DRA = "cases/waveguide.geo", "cases/dra.geo"
FAST = setn("Solver/order", 1) + sets("Output/fields", "none")


def fails(what, case, args, needles, within=None):
    """A probe that must fail: exit 1, the needles in the message, no file;
    within: the CPU seconds it may take (CPU, not wall time: the machine
    running the tests may be loaded)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc, out, err, d = run(case, *args, expect_ok=False, timeout=300)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    dt = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    check(rc == 1, f"{what}: exit code {rc} == 1")
    for n in needles:
        check(n.lower() in err.lower(), f"{what}: message names '{n}'")
    check(not os.path.exists(d), f"{what}: nothing written to {d}")
    check("  at " not in err, f"{what}: no trace without -v")
    if within:
        check(dt < within, f"{what}: failed in {dt:.2f} s (CPU) < {within} s")
    return err


# ---------------------------------------------------------------- validation
fails("misspelt material group", WG, setn("Materials/ar/eps_r", 2), ["Materials/ar/eps_r", "'ar'", "air"])
fails("port that does not exist", WG, sets("Ports/port7/type", "coax"), ["Ports/port7/type", "port7"])
fails("misspelt parameter", WG, setn("Solver/frequncy", 9e9), ["Solver/frequncy", "did you mean", "Solver/frequency"])
fails("only Solver/f_start", WG, setn("Solver/f_start", 9e9), ["Solver/f_start", "Solver/f_stop"])
fails("negative geometry", WG, setn("Geometry/a", -22.86), ["Geometry/a", "must be"])
fails("NaN geometry", WG, ["-setnumber", "Geometry/a", "nan"], ["Geometry/a", "finite"])
fails("PML thickness 0", DRA, setn("Geometry/pml_thickness", 0), ["Geometry/pml_thickness", "> 0"])
fails("PML thickness < 0", DRA, setn("Geometry/pml_thickness", -5), ["Geometry/pml_thickness"])
fails("GHz typed for Hz", DRA, setn("Solver/frequency", 5.8), ["5.8 Hz", "Hz", "5.8e9"], within=2.0)
fails("frequency 1e15", DRA, setn("Solver/frequency", 1e15), ["Hz", "10 THz"], within=5.0)
fails("absurd mesh", DRA, setn("Mesh/elements_per_wavelength", 1e6), ["absurd", "tetrahedra", "--force"],
      within=5.0)
fails("f_start = f_stop with n_freq 3", WG,
      setn("Solver/f_start", 9e9) + setn("Solver/f_stop", 9e9) + setn("Solver/n_freq", 3),
      ["Solver/n_freq", "differ"], within=5.0)
fails("line probe outside the mesh", WG,
      FAST + setn("Output/line_points", 5) + setn("Output/line_to_z", 100), ["Output/line", "outside the mesh"])

with tempfile.TemporaryDirectory() as tmp:
    exit_geo = os.path.join(tmp, "exit.geo")
    with open(exit_geo, "w") as fh:
        fh.write('SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 10, 10, 10};\n'
                 'Physical Volume("air") = {1};\nExit;\n')
    fails("a case that calls Exit", exit_geo, setn("Solver/frequency", 1e10), ["exit.geo", "Exit"])
    nan_msh = os.path.join(tmp, "nan.msh")
    with open(nan_msh, "w") as fh:
        fh.write('$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 1 "air"\n'
                 '$EndPhysicalNames\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 nan\n$EndNodes\n'
                 '$Elements\n1\n1 4 2 1 1 1 2 3 4\n$EndElements\n')
    fails("a NaN node coordinate", nan_msh, setn("Materials/air/eps_r", 1) + setn("Solver/frequency", 1e9),
          ["nan.msh", "node 4", "nan"])

# Solver/preconditioner none is a documented choice: it runs (and, unpreconditioned
# within few iterations, is flagged rather than failing)
rc, out, err, d = run(WG, *FAST, *sets("Solver/preconditioner", "none"),
                      *setn("Solver/max_iterations", 20), expect_ok=False)
check(rc in (0, 3) and "NULL" not in err, f"preconditioner none runs (rc {rc})")
check(summary(d)["frequencies"][0]["preconditioner"]["type"] == "none", "summary: preconditioner none")

# ---------------------------------------------------------------- exit codes
rc, out, err, d = run(WG, *FAST, *sets("Solver/preconditioner", "jacobi"),
                      *setn("Solver/max_iterations", 2), expect_ok=False)
check(rc == 3, f"not converged: exit code {rc} == 3")
with open(os.path.join(d, "waveguide.s2p")) as fh:
    ts = fh.read()
check(re.search(r"^! FLAGGED 1e\+10 Hz: not converged", ts, re.M) is not None,
      "not converged: the Touchstone file says so")
with open(os.path.join(d, "ports.csv")) as fh:
    rows = list(csv.DictReader(fh))
check("not_converged" in rows[0]["flag"], f"not converged: ports.csv flag '{rows[0]['flag']}'")
# a reflection above 1 at this passive guide is flagged, and only then
above = float(rows[0]["S11_dB"]) > 0 or float(rows[0]["S22_dB"]) > 0
check(above == ("S_gt_1" in rows[0]["flag"]), f"|S_pp| > 1 flagged exactly when it happens ({rows[0]['flag']})")
s = summary(d)
check(s["exit_code"] == 3 and "not_converged" in s["frequencies"][0]["flags"],
      "not converged: summary.json exit_code 3 and the frequency's flags")
check("(not converged)" in out, "not converged: stdout says so")

# ------------------------------------ port impedances per frequency (sweep)
sweep = FAST + setn("Solver/f_start", 9e9) + setn("Solver/f_stop", 11e9) + setn("Solver/n_freq", 3)
rc, out, err, d = run(WG, *sweep)
s = summary(d)
with open(os.path.join(d, "ports.csv")) as fh:
    rows = list(csv.DictReader(fh))
check(set(["f_Hz", "S11_dB", "S11_deg", "Zin1_re_ohm", "Zin1_im_ohm", "Zref1_ohm", "flag"]) <= set(rows[0]),
      f"ports.csv header with units: {list(rows[0])}")
zr = port_z(d)
check(abs(zr[0][0] - zr[2][0]) > 0.1 * zr[2][0], f"the waveguide impedance changes over the sweep: {zr}")
for k, fr in enumerate(s["frequencies"]):
    zs = complex(*fr["ports"][0]["Zin_ohm"])
    zc = complex(float(rows[k]["Zin1_re_ohm"]), float(rows[k]["Zin1_im_ohm"]))
    check(abs(zc - zs) < 1e-9 * abs(zs), f"{fr['f_hz'] / 1e9:g} GHz: ports.csv Zin {zc:.4f} = summary {zs:.4f}")
    check(abs(float(rows[k]["Zref1_ohm"]) - zr[k][0]) < 1e-9 * zr[k][0], f"{fr['f_hz'] / 1e9:g} GHz: Zref column")
    # Zin from S on that frequency's own reference, and the TE10 wave impedance
    k0 = 2 * math.pi * fr["f_hz"] / C0
    zte = 376.730313668 * k0 / math.sqrt(k0 ** 2 - (math.pi / 22.86e-3) ** 2)
    check(abs(zr[k][0] - zte) < 1e-6 * zte, f"{fr['f_hz'] / 1e9:g} GHz: port impedance {zr[k][0]:.4f} = "
          f"Z_TE10 {zte:.4f}")
# the default Touchstone file (Output/touchstone_z0 0): S on the ports' own
# impedances (generalised S), each row's references stated (issue 28)
path = os.path.join(d, "waveguide.s2p")
freqs, Sown_t, refs = touchstone(path, refs=True)
for k, fr in enumerate(s["frequencies"]):
    Sown = [[complex(*v) for v in p["S_row"]] for p in fr["ports"]]
    err_ = max(abs(Sown_t[k][i][j] - Sown[i][j]) for i in range(2) for j in range(2))
    check(err_ < 1e-12 and max(abs(refs[k][i] - zr[k][i]) for i in range(2)) < 1e-9 * zr[k][0],
          f"{fr['f_hz'] / 1e9:g} GHz: Touchstone S on the ports' own impedances {refs[k]} = the "
          f"run's S ({err_:.1e})")
# renormalised on request
rc, out, err, d = run(WG, *sweep, *setn("Output/touchstone_z0", 50))
path = os.path.join(d, "waveguide.s2p")
check(touchstone_r(path) == 50, "Touchstone reference 50 ohm (Output/touchstone_z0 50)")
freqs, S50 = touchstone(path)
for k, fr in enumerate(summary(d)["frequencies"]):
    Sown = [[complex(*v) for v in p["S_row"]] for p in fr["ports"]]
    back = renormalise(S50[k], [50, 50], zr[k])
    err_ = max(abs(back[i][j] - Sown[i][j]) for i in range(2) for j in range(2))
    check(err_ < 1e-9, f"{fr['f_hz'] / 1e9:g} GHz: Touchstone S (50 ohm) renormalised back = the run's S "
          f"({err_:.1e})")

# ------------------------------------------------------- output directory
d = tempfile.mkdtemp(prefix="emsolve_rel_") + "/out"
os.makedirs(d)
for n in ["fields_1.vtk", "fields_2.vtk", "waveguide.s2p", "notes.txt"]:
    open(os.path.join(d, n), "w").close()
rc, out, err, _ = run(WG, *setn("Solver/order", 1), out=d)
left = sorted(os.listdir(d))
# (surface_<f>GHz.vtk: the walls' currents, Output/surface_current 1 by default)
check(left == ["fields_10GHz.vtk", "notes.txt", "ports.csv", "summary.json", "surface_10GHz.vtk",
               "sweep.journal", "waveguide.s2p"],
      f"earlier outputs of the case removed, the user's file kept: {left}")
with open(os.path.join(d, "fields_10GHz.vtk"), "rb") as fh:
    check(b"f = 1e+10 Hz" in fh.read(300), "the fields file names its frequency")
check(summary(d)["frequencies"][0]["fields_vtk"] == "fields_10GHz.vtk", "summary.json names the fields file")

holder = subprocess.Popen(["sleep", "60"])
with open(os.path.join(d, ".emsolve.lock"), "w") as fh:
    fh.write(f"{holder.pid}\n")
rc, out, err, _ = run(WG, *FAST, out=d, expect_ok=False)
check(rc == 1 and "in use" in err and str(holder.pid) in err, f"a locked directory is refused (rc {rc})")
check(sorted(os.listdir(d)) == sorted(left + [".emsolve.lock"]), "the refused run touched nothing")
holder.kill()
holder.wait()
rc, out, err, _ = run(WG, *FAST, out=d, expect_ok=False)
check(rc == 0 and not os.path.exists(os.path.join(d, ".emsolve.lock")),
      f"a stale lock (its process gone) is taken over and released (rc {rc})")

dump = os.path.join(os.path.dirname(d), "A.mtx")
rc, out, err, d2 = run(WG, *FAST, "--dump-matrix", dump, *sets("Solver/preconditioner", "direct"),
                       *setn("Solver/memory_limit", 1e-6), expect_ok=False)
check(rc == 1 and not os.path.exists(dump) and not os.path.exists(d2),
      f"a failed run leaves neither its --dump-matrix file nor its directory (rc {rc})")

# SIGINT / SIGTERM: stop between stages, remove what the run wrote, exit 128 + n
for sig in (signal.SIGINT, signal.SIGTERM):
    d3 = tempfile.mkdtemp(prefix="emsolve_sig_") + "/out"
    p = subprocess.Popen([EMSOLVE, os.path.join(SRC, DRA), "--out", d3, "--device", "cpu"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()  # the run is under way (its handlers installed) once it talks
    p.send_signal(sig)
    o, e = p.communicate(timeout=600)
    e = first + e
    check(p.returncode == 128 + sig, f"{sig.name}: exit {p.returncode} == {128 + sig}")
    check(sig.name in e, f"{sig.name}: the message names the signal")
    check(not os.path.exists(d3), f"{sig.name}: no file and no directory left")

# ----------------------------------------------------------------- the face
rc, out, err, d = run(WG, *setn("Solver/order", 1), *setn("Solver/f_start", 9e9),
                      *setn("Solver/f_stop", 11e9), *setn("Solver/n_freq", 3), "-q")
check(rc == 0 and err == "" and "S_i1" in out and "S-matrix" in out,
      "-q: nothing on stderr, the results (the S-matrix of the two ports) on stdout")
rc, out, err, d = run(WG, *setn("Solver/order", 1), *setn("Solver/f_start", 9e9),
                      *setn("Solver/f_stop", 11e9), *setn("Solver/n_freq", 3))
lines = [l for l in err.splitlines() if l.startswith("[")]
fl = [l for l in lines if "frequency " in l and "GHz:" in l]
check(len(fl) == 3 and len(lines) <= 8, f"default: one line per frequency ({len(fl)}) and few in all ({len(lines)})")
check("left" in fl[0] and "elapsed" in fl[0], f"a frequency line says the time spent and left: {fl[0]}")
rc, out, err, d = run(WG, *setn("Solver/order", 1), "-v")
check("bicgstab" in err, "-v: the solver's detail")
rc, out, err, d = run(WG, *setn("Solver/order", 7), "-v", expect_ok=False)
check(rc == 1 and "  at " in err, "-v: an error with its trace")

p = subprocess.run([EMSOLVE, "--list-params", os.path.join(SRC, WG)], capture_output=True, text=True)
lp = {l.split()[0]: l for l in p.stdout.splitlines() if l and not l.startswith(" ")}
check(p.returncode == 0 and " Hz " in lp.get("Solver/frequency", ""), "--list-params: the unit of Solver/frequency")
check("broad side, mm" in lp.get("Geometry/a", ""), "--list-params: the case's Help string")
check("relative residual" in lp.get("Solver/tolerance", ""), "--list-params: emsolve's description")

# ------------------------------------------- docs/case-files.md minimal case
with open(os.path.join(SRC, "docs", "case-files.md")) as fh:
    m = re.search(r"```\n(// slab.geo\n.*?)```", fh.read(), re.S)
check(m is not None, "docs/case-files.md has the minimal slab case")
with tempfile.TemporaryDirectory() as tmp:
    slab = os.path.join(tmp, "slab.geo")
    with open(slab, "w") as fh:
        fh.write(m.group(1))
    p = subprocess.run([EMSOLVE, "--list-params", slab], capture_output=True, text=True)
    check(p.returncode == 0 and "[10 .. 50]" in p.stdout, "--list-params: the declared range")
    fails("outside the declared Max", slab, setn("Geometry/width", 60), ["Geometry/width", "10 .. 50"])
    rc, out, err, d = run(slab)
    s = summary(d)["frequencies"][0]["ports"]
    s11, s21 = complex(*s[0]["S_row"][0]), complex(*s[0]["S_row"][1])
    # the slab as a transmission-line section of TE10 waves (docs/validation.md:
    # the wave impedance of TE10 is proportional to 1 / beta)
    f, a, t, er = 10e9, 22.86e-3, 6e-3, 2.2
    k0 = 2 * math.pi * f / C0
    b1, b2 = math.sqrt(k0 ** 2 - (math.pi / a) ** 2), math.sqrt(er * k0 ** 2 - (math.pi / a) ** 2)
    r = (b1 - b2) / (b1 + b2)
    e = complex(math.cos(2 * b2 * t), -math.sin(2 * b2 * t))
    ref = abs(r * (1 - e) / (1 - r * r * e))
    check(abs(abs(s11) - ref) < 5e-4, f"slab |S11| {abs(s11):.5f} = transmission line {ref:.5f} within 5e-4")
    check(abs(abs(s11) ** 2 + abs(s21) ** 2 - 1) < 1e-3, "slab: lossless, |S11|^2 + |S21|^2 = 1")
finish()
