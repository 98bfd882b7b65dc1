"""One antenna solved by 2 MPI ranks together (issue 27, docs/mpi.md "One
case over several ranks"): the DRA at order 2 on a coarse mesh, one
frequency, solved by one rank (the serial path: direct factor) and by two
(Solver/distributed auto: fewer frequencies than ranks; the unknowns split
by METIS parts, the distributed operator, BiCGSTAB with the V-cycle over
the ranks).  The oracle is the serial run: both converge to 1e-10, so S11
must agree to 1e-8 (issue 27's acceptance); rank 0 writes the same files.
Each rank assembles its own rows only: the ranks' rows add up to the
unknowns, each from fewer tets than the mesh has; rank 1 meshes nothing
(rank 0 sends its mesh).  Rank 0 analyses the coarse level from the mesh
while the ranks assemble, and the gathered level has that pattern (the
analysis is taken: log).  --dump-matrix is refused on 2 ranks (no rank
holds the whole matrix), with a message and exit 1.
Solver/distributed off on 2 ranks with one frequency leaves rank 1 idle and
gives the serial files byte for byte.  Excitation/ports on 2 ranks: the
WR-90 section (order 2) with port 2 alone, distributed, gives S_12 and S_22
within 1e-8 of the serial run that drives both ports, S_11 and S_21 not
solved (null); both ports over 2 ranks as one lockstep block give the
serial S within 1e-8.  Each rank builds its local blocks' formats on a
thread beside the V-cycle's set-up (model/dfsys_opbeside.c: log line per
rank, "(overlapped)", the join's wait); EMSOLVE_OPBESIDE=0 builds them in
order, and dra.s1p is the same byte for byte (the same call on the same
blocks).  OMP_NUM_THREADS=1 on every run."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from emtest import EMSOLVE, SRC, check, finish, setn, sets

MPIEXEC = os.environ.get("EM_MPIEXEC") or shutil.which("mpiexec") or shutil.which("mpirun")
if not MPIEXEC:
    print("mpiexec not found (openmpi-bin): this test needs an MPI build", file=sys.stderr)
    sys.exit(1)
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_btl_vader_single_copy_mechanism="none",
           OMPI_MCA_rmaps_base_oversubscribe="1")
TMP = tempfile.mkdtemp(prefix="emsolve_test_dsolve_")
ENV["TMPDIR"] = TMP
CASE = os.path.join(SRC, "cases/dra.geo")
COMMON = (["--device", "cpu"] + setn("Solver/order", 2) + setn("Mesh/elements_per_wavelength", 2) +
          setn("PML/elements", 2) + setn("Geometry/margin", 3) + setn("Solver/n_freq", 1) +
          setn("Solver/f_start", 6e9) + setn("Solver/f_stop", 6e9) +
          setn("Solver/tolerance", 1e-10) + sets("Output/fields", "none"))


def run(out, *extra, ranks=0, env=ENV):
    c = [EMSOLVE, CASE, "--out", out] + COMMON + list(extra)
    if ranks:
        c = [MPIEXEC, "--oversubscribe", "-np", str(ranks)] + c
    p = subprocess.run(c, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
    return p


def s11(out):
    """S11 of the Touchstone file (real, imaginary)"""
    for line in open(os.path.join(out, "dra.s1p")):
        if line.strip() and line[0] not in "!#":
            v = [float(x) for x in line.split()]
            return complex(v[1], v[2])
    return None


one, two, off = (os.path.join(TMP, n) for n in ("one", "two", "off"))
p = run(one)
check(p.returncode == 0, f"1 rank: exit 0, got {p.returncode}")
p = run(two, "--verbose", ranks=2)
check(p.returncode == 0, f"2 ranks: exit 0, got {p.returncode}")
check("every solve shared among them" in p.stderr, "2 ranks: the distributed solve was chosen")
check("coarse level of" in p.stderr and "gathered to rank 0" in p.stderr,
      "the V-cycle's coarse level gathered to rank 0 (log)")
check("factor on its analysis made ahead" in p.stderr,
      "rank 0 factored the coarse level on the analysis it made from the mesh beside the "
      "assembly (Solver/overlap; the gathered level's pattern is the mesh's)")
m = re.search(r"distributed operator: 2 ranks, (\d+)\.\.(\d+) unknowns each", p.stderr)
check(m and int(m.group(1)) > 0, "both ranks own unknowns")
rows = re.findall(r"\[rank (\d)\] assembly: order 2, the rows of (\d+) of (\d+) unknowns "
                  r"\(\d+ fixed\) from (\d+) of (\d+) tets", p.stderr)
check(sorted(r[0] for r in rows) == ["0", "1"], f"each rank assembles its own rows (log): {rows}")
if len(rows) == 2:
    n = int(rows[0][2])
    check(sum(int(r[1]) for r in rows) == n and all(int(r[2]) == n for r in rows),
          f"the ranks' rows add up to the {n} unknowns")
    check(all(0 < int(r[3]) < int(r[4]) for r in rows), "each rank assembles a part of the tets")
check("[rank 1] mesh:" in p.stderr and "from rank 0" in p.stderr
      and "[rank 1] meshing" not in p.stderr, "rank 1 meshes nothing: rank 0's mesh")
if p.returncode == 0:
    a, b = s11(one), s11(two)
    check(a is not None and b is not None and abs(a - b) <= 1e-8,
          f"S11 of 2 ranks {b} within 1e-8 of 1 rank's {a} (|diff| {abs(a - b):.2e})")
    names = lambda d: sorted(f for f in os.listdir(d) if not f.startswith("."))
    check(names(one) == names(two), f"the same files: {names(one)} / {names(two)}")
BESIDE = (r"\[rank (\d)\] operator: [0-9.]+ s the blocks' formats on a thread beside the "
          r"V-cycle's set-up \(overlapped\), the join waited [0-9.]+ s")
check(sorted(re.findall(BESIDE, p.stderr)) == ["0", "1"],
      "each rank built its formats beside the V-cycle's set-up and joined them (log)")
ordr = os.path.join(TMP, "inorder")
q = run(ordr, "--verbose", ranks=2, env=dict(ENV, EMSOLVE_OPBESIDE="0"))
check(q.returncode == 0, f"2 ranks, EMSOLVE_OPBESIDE=0: exit 0, got {q.returncode}")
check(not re.findall(BESIDE, q.stderr) and
      len(re.findall(r"\[rank \d\] operator: .* s the blocks' formats, ", q.stderr)) == 2,
      "EMSOLVE_OPBESIDE=0: each rank built its formats in order (log)")
if p.returncode == 0 and q.returncode == 0:
    with open(os.path.join(two, "dra.s1p"), "rb") as f1, open(os.path.join(ordr, "dra.s1p"), "rb") as f2:
        check(f1.read() == f2.read(), "the formats beside or in order: dra.s1p byte for byte")
p = run(os.path.join(TMP, "dump"), "--dump-matrix", os.path.join(TMP, "A.mtx"), ranks=2)
check(p.returncode == 1 and "--dump-matrix" in p.stderr and "distributed" in p.stderr
      and not os.path.exists(os.path.join(TMP, "A.mtx"))
      and not os.path.exists(os.path.join(TMP, "dump")),
      f"--dump-matrix refused on 2 ranks (exit {p.returncode})")
p = run(off, *sets("Solver/distributed", "off"), ranks=2)
check(p.returncode == 0, f"2 ranks, Solver/distributed off: exit 0, got {p.returncode}")
check("every solve shared" not in p.stderr, "off: no distributed solve")
if p.returncode == 0:
    with open(os.path.join(one, "dra.s1p"), "rb") as f1, open(os.path.join(off, "dra.s1p"), "rb") as f2:
        check(f1.read() == f2.read(), "off: dra.s1p byte for byte the serial one")

# Excitation/ports: the distributed solve of port 2 alone against the serial full run
WG = os.path.join(SRC, "cases/waveguide.geo")
WGA = (["--device", "cpu"] + setn("Solver/order", 2) + setn("Solver/tolerance", 1e-10) +
       sets("Output/fields", "none"))
wf, wd = os.path.join(TMP, "wg_full"), os.path.join(TMP, "wg_port2")
p1 = subprocess.run([EMSOLVE, WG, "--out", wf] + WGA, capture_output=True, text=True, env=ENV,
                    timeout=300)
p2 = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EMSOLVE, WG, "--out", wd] + WGA +
                    sets("Solver/distributed", "on") + sets("Excitation/ports", "2"),
                    capture_output=True, text=True, env=ENV, timeout=300)
check(p1.returncode == 0 and p2.returncode == 0,
      f"waveguide: serial exit {p1.returncode}, 2 ranks with port 2 exit {p2.returncode}")
if p1.returncode == 0 and p2.returncode == 0:
    rows = lambda d: json.load(open(os.path.join(d, "summary.json")))["frequencies"][0]["ports"]
    a, b = rows(wf), rows(wd)
    d = max(abs(complex(*a[i]["S_row"][1]) - complex(*b[i]["S_row"][1])) for i in range(2))
    check(d <= 1e-8, f"2 ranks, port 2 alone: S_12, S_22 within 1e-8 of the serial full run "
          f"(max |diff| {d:.2e})")
    check(all(b[i]["S_row"][0] == [None, None] for i in range(2)), "S_11, S_21 not solved: null")
    check("every solve shared among them" in p2.stderr and "port2 driven" in p2.stderr,
          "the distributed solve drove port 2 alone (log)")

# both ports as one block over the ranks (lockstep BiCGSTAB: each
# iteration's reductions of both columns in one sum over the ranks) against
# the serial full run
wb = os.path.join(TMP, "wg_block")
p3 = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EMSOLVE, WG, "--out", wb, "--verbose"] +
                    WGA + sets("Solver/distributed", "on"),
                    capture_output=True, text=True, env=ENV, timeout=300)
check(p3.returncode == 0, f"waveguide, both ports over 2 ranks: exit {p3.returncode}")
if p1.returncode == 0 and p3.returncode == 0:
    a, b = rows(wf), rows(wb)
    d = max(abs(complex(*a[i]["S_row"][j]) - complex(*b[i]["S_row"][j]))
            for i in range(2) for j in range(2))
    check(d <= 1e-8, f"2 ranks, both ports as a block: S within 1e-8 of the serial run "
          f"(max |diff| {d:.2e})")
    check("port1 .. port2 together" in p3.stderr, "the ports solved as one block (log)")

if not os.environ.get("EM_KEEP"):
    shutil.rmtree(TMP, ignore_errors=True)
finish()
