"""Excitation/ports: only the ports listed are driven (issues 27, 28;
docs/case-files.md, docs/outputs.md).  The oracle is the run that drives
every port: with the others matched loads a wave port's solve is the same
linear system and right-hand side either way, so the columns of S it gives
(S_12, S_22 for port 2 of the WR-90 section) must equal the full run's to
1e-10 (the direct solve; S_11 and S_22 differ by ~1e-3 on the unstructured
mesh, so a column taken from the wrong port fails).  What a subset leaves
out: no Touchstone file, ports.csv with port 2's columns only, summary.json
"excited_ports" [2] and null for S_21, S_11; "1,2" is "all" (the same
bytes of waveguide.s2p).  Bad values (0, 3 of 2 ports, abc, a port twice,
an empty entry) are refused with exit 1 and a message naming the value
(and the number of ports where it is past them); the complete earlier
result in --out stays byte for byte, as it does when a --resume asks for
another Excitation/ports (another parameter set: the journal refuses).
The adaptive sweep with port 2 alone (Solver/sweep_tol 1e-6) matches the
uniform sweep's S_12 and S_22 within 1e-5.  The 2 x 1 DRA array at order 1 (coarse) with
port 2 driven and Array/weights 0,1: the embedded pattern F2 equals the
full run's (1e-8 relative), the array pattern equals F2 (the weights pick
port 2's solution), no active.csv, no F1 columns."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from emtest import DEVICE, EMSOLVE, SRC, check, finish, setn, sets

TMP = tempfile.mkdtemp(prefix="emsolve_test_excite_")
WG = os.path.join(SRC, "cases/waveguide.geo")
ENV = dict(os.environ, OMP_NUM_THREADS="2")


def run(case, out, *args):
    c = [EMSOLVE, case, "--out", out, "--device", DEVICE] + list(args)
    print("$", " ".join(c), flush=True)
    p = subprocess.run(c, capture_output=True, text=True, env=ENV, timeout=600)
    if p.returncode:
        sys.stderr.write(p.stdout[-2000:] + p.stderr[-3000:])
    return p


def smat(out):
    """S[i][j] (None where not solved) of the first frequency, summary.json"""
    s = json.load(open(os.path.join(out, "summary.json")))
    rows = s["frequencies"][0]["ports"]
    c = lambda v: None if v is None or v[0] is None else complex(v[0], v[1])
    return [[c(v) for v in r["S_row"]] for r in rows], s


def tree(d):
    """every file under d with its bytes"""
    r = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            r[os.path.relpath(p, d)] = open(p, "rb").read()
    return r


WGA = setn("Solver/order", 1) + sets("Output/fields", "none")
full, sub, both = (os.path.join(TMP, n) for n in ("full", "sub", "both"))
p = run(WG, full, *WGA)
check(p.returncode == 0, f"all ports: exit 0, got {p.returncode}")
p = run(WG, sub, *WGA, *sets("Excitation/ports", "2"))
check(p.returncode == 0, f"Excitation/ports 2: exit 0, got {p.returncode}")
check("port2 driven (1 of 2 ports" in p.stderr and "no waveguide.s2p" in p.stderr,
      "the log says which port is driven and that no Touchstone file is written")
check("# ports driven (Excitation/ports): port2" in p.stdout, "stdout lists the driven port")
if os.path.isdir(full) and os.path.isdir(sub):
    A, _ = smat(full)
    B, js = smat(sub)
    check(abs(A[0][0] - A[1][1]) > 1e-6, f"the oracle tells the ports apart: |S11 - S22| "
          f"{abs(A[0][0] - A[1][1]):.2e}")
    for i in range(2):
        d = abs(B[i][1] - A[i][1])
        check(d <= 1e-10, f"S_{i + 1}2 of port 2 alone equals the full run's (|diff| {d:.2e})")
        check(B[i][0] is None, f"S_{i + 1}1 not solved: null in summary.json")
    check(js["excited_ports"] == [2], f"summary.json excited_ports {js['excited_ports']}")
    check(not os.path.exists(os.path.join(sub, "waveguide.s2p")), "no Touchstone file")
    check(os.path.exists(os.path.join(full, "waveguide.s2p")), "the full run's Touchstone file")
    hdr = next(csv.reader(open(os.path.join(sub, "ports.csv"))))
    check(hdr == ["f_Hz", "S22_dB", "S22_deg", "Zin2_re_ohm", "Zin2_im_ohm", "Zref2_ohm",
                  "S12_dB", "S12_deg", "flag"], f"ports.csv: port 2's columns only: {hdr}")
p = run(WG, both, *WGA, *sets("Excitation/ports", " 1, 2 "))
check(p.returncode == 0 and "Excitation/ports" not in p.stderr, "\"1, 2\" is every port")
if p.returncode == 0:
    check(open(os.path.join(both, "waveguide.s2p"), "rb").read() ==
          open(os.path.join(full, "waveguide.s2p"), "rb").read(), "\"1, 2\": the same .s2p bytes")

# bad values: refused, the complete result in --out untouched
before = tree(full)
for v, want in (("0", "port 0"), ("3", "port 3 of 2"), ("abc", "\"abc\" is not a port number"),
                ("2,2", "port 2 is listed twice"), ("1,,2", "an empty entry"), ("", "empty")):
    p = run(WG, full, *WGA, *sets("Excitation/ports", v))
    check(p.returncode == 1 and f"Excitation/ports = \"{v}\"" in p.stderr and want in p.stderr,
          f"Excitation/ports \"{v}\": exit 1 ({p.returncode}) and a message with '{want}'")
    check(tree(full) == before, f"Excitation/ports \"{v}\": the earlier result intact")
# a design sweep reads port 1's columns of every point: without port 1 it is
# refused before any point runs (no folder made), with it the sweep runs
swp = os.path.join(TMP, "sweep_port2")
p = run(WG, swp, *WGA, *sets("Excitation/ports", "2"), "--sweep", "Materials/air/eps_r=1,1.1")
check(p.returncode == 1 and "design sweep reads port 1" in p.stderr and not os.path.exists(swp),
      f"--sweep with Excitation/ports 2: refused up front (exit {p.returncode}), nothing written")
# a --resume of the complete port-2 run asking for port 1: another run, refused
before = tree(sub)
p = run(WG, sub, *WGA, *sets("Excitation/ports", "1"), "--resume")
check(p.returncode == 1 and "journal" in p.stderr,
      f"--resume with another Excitation/ports refused (exit {p.returncode})")
check(tree(sub) == before, "--resume refused: the earlier result intact")
p = run(WG, sub, *WGA, *sets("Excitation/ports", "2"), "--resume")
check(p.returncode == 0 and tree(sub) == before, "--resume of the same command: nothing to do")

# the adaptive sweep, port 2 alone, against the uniform full sweep
SW = WGA + setn("Solver/n_freq", 5) + setn("Solver/f_start", 9e9) + setn("Solver/f_stop", 11e9)
uni, ada = os.path.join(TMP, "uni"), os.path.join(TMP, "ada")
p1 = run(WG, uni, *SW)
p2 = run(WG, ada, *SW, *sets("Solver/sweep", "adaptive"), *setn("Solver/sweep_tol", 1e-6),
         *sets("Excitation/ports", "2"))
check(p1.returncode == 0 and p2.returncode == 0, "adaptive sweep with port 2: exit 0")
if p1.returncode == 0 and p2.returncode == 0:
    a = json.load(open(os.path.join(uni, "summary.json")))["frequencies"]
    b = json.load(open(os.path.join(ada, "summary.json")))["frequencies"]
    d = max(abs(complex(*x["ports"][i]["S_row"][1]) - complex(*y["ports"][i]["S_row"][1]))
            for x, y in zip(a, b) for i in range(2))
    check(len(a) == len(b) == 5 and d < 1e-5,
          f"adaptive S_12, S_22 of port 2 (tolerance 1e-6) match the uniform full sweep within "
          f"1e-5 (max |diff| {d:.1e})")

# the array: embedded pattern of port 2 and the array pattern of weights 0,1
ARR = os.path.join(SRC, "cases/dra_array.geo")
AA = (setn("Geometry/nx", 2) + setn("Geometry/ny", 1) + setn("Solver/order", 1) +
      setn("Solver/n_freq", 1) + setn("Solver/f_start", 5.8e9) + setn("Solver/f_stop", 5.8e9) +
      setn("Mesh/elements_per_wavelength", 3) + setn("PML/elements", 2) +
      setn("Geometry/margin", 3) + setn("Farfield/theta_step", 15) +
      setn("Farfield/phi_step", 15) + sets("Output/fields", "none"))
af, asub = os.path.join(TMP, "af"), os.path.join(TMP, "asub")
p1 = run(ARR, af, *AA)
p2 = run(ARR, asub, *AA, *sets("Excitation/ports", "2"), *sets("Array/weights", "0,1"))
check(p1.returncode == 0 and p2.returncode == 0, "array runs: exit 0")
if p1.returncode == 0 and p2.returncode == 0:
    rd = lambda d: list(csv.DictReader(l for l in open(os.path.join(d, "array_5.8GHz.csv"))
                                       if not l.startswith("#")))
    ra, rb = rd(af), rd(asub)
    keys = ("F2_theta_re", "F2_theta_im", "F2_phi_re", "F2_phi_im")
    big = max(abs(float(r[k])) for r in ra for k in keys)
    dif = max(abs(float(x[k]) - float(y[k])) for x, y in zip(ra, rb) for k in keys)
    check(len(ra) == len(rb) and dif <= 1e-8 * big,
          f"embedded pattern of port 2 equals the full run's (max diff {dif:.1e} of {big:.3g})")
    same = all(y["array_F" + k[3:]] == y[k] for y in rb for k in keys)
    check(same, "array pattern of weights 0,1 = port 2's embedded pattern, bit for bit")
    check("F1_theta_re" not in rb[0], "no pattern of port 1 (not driven)")
    check(not os.path.exists(os.path.join(asub, "active.csv")) and
          os.path.exists(os.path.join(af, "active.csv")),
          "no active.csv with a subset (the full run has it)")
    check("no active reflection" in p2.stderr, "the log says why there is no active.csv")
p = run(ARR, os.path.join(TMP, "aw"), *AA, *sets("Excitation/ports", "2"),
        *sets("Array/weights", "1,1"))
check(p.returncode == 1 and "Array/weights" in p.stderr and "port1" in p.stderr,
      f"weights on a port not driven: refused with a message (exit {p.returncode})")

if not os.environ.get("EM_KEEP"):
    shutil.rmtree(TMP, ignore_errors=True)
finish()
