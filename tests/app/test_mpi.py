"""emsolve under mpirun (docs/mpi.md): the files of a P-rank run are those
of the serial run, byte for byte (issue 26's acceptance; the oracle is the
serial run itself: the ranks must not change a single bit of the results).

1. A design sweep of the DRA (order 1, coarse mesh, 3 frequencies, no far
   field, no fields): eps_r 9..12 zipped with the radius 7.5, -1, 7.5, 7.5 mm,
   so that one point fails (the case refuses a radius <= 0): serially, then
   on 2 ranks; sweep.csv, sweep_summary.csv and every point's ports.csv,
   dra.s1p and marker the same, the exit code (1 failed point) the same.
2. The same sweep on 2 ranks as without a shared file system
   (EMSOLVE_DIST_SHIP=1: rank 1 runs in a scratch folder and sends its
   files), killed (SIGKILL) once a point is complete, resumed with 1 rank
   (--resume): the same files again.
3. One geometry's frequencies over 2 ranks (eps_r 12, radius 7.5: point 3's
   values, and its mesh is sized at eps_r 12 too): dra.s1p and ports.csv
   equal point 3's of the serial sweep, byte for byte.
4. Adaptive refinement (Solver/adapt 1, two passes) on 2 ranks: rank 0's
   alone (rank 1 idle); dra.s1p, ports.csv and adapt.csv (but its times)
   those of the serial run.

Every run has OMP_NUM_THREADS=1: the solver's OpenMP reductions depend on
the thread count (docs/sweeps.md, --jobs)."""
import filecmp
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from emtest import EMSOLVE, SRC, check, finish, setn, sets

MPIEXEC = os.environ.get("EM_MPIEXEC") or shutil.which("mpiexec") or shutil.which("mpirun")
if not MPIEXEC:
    print("mpiexec not found (openmpi-bin): this test needs an MPI build", file=sys.stderr)
    sys.exit(1)
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_btl_vader_single_copy_mechanism="none",
           OMPI_MCA_rmaps_base_oversubscribe="1")
TMP = tempfile.mkdtemp(prefix="emsolve_test_mpi_")
ENV["TMPDIR"] = TMP  # the ranks' scratch folders, left behind by the kill
# a uniform sweep of 3 frequencies everywhere (a design sweep's points run
# the adaptive one by default)
COMMON = (["--device", "cpu"] + setn("Solver/order", 1) + setn("Solver/n_freq", 3) +
          sets("Solver/sweep", "uniform") +
          setn("Mesh/elements_per_wavelength", 3) + sets("Output/fields", "none") +
          sets("Farfield/compute", "off"))
SWEEP = ["--zip", "--sweep", "Materials/dra/eps_r=9,10,11,12",
         "--sweep", "Geometry/dra_radius=7.5,-1,7.5,7.5"]
CASE = os.path.join(SRC, "cases/dra.geo")


def cmd(out, *extra, ranks=0):
    c = [EMSOLVE, CASE, "--out", out] + COMMON + list(extra)
    return ([MPIEXEC, "--oversubscribe", "-np", str(ranks)] + c) if ranks else c


def run(out, *extra, ranks=0):
    c = cmd(out, *extra, ranks=ranks)
    print("$", " ".join(c), flush=True)
    t0 = time.time()
    p = subprocess.run(c, capture_output=True, text=True, env=ENV, timeout=900)
    print(f"  exit {p.returncode}, {time.time() - t0:.1f} s", flush=True)
    if p.returncode not in (0, 3, 4):
        print(p.stderr[-2000:], flush=True)
    return p


def same(a, b, names):
    for n in names:
        pa, pb = os.path.join(a, n), os.path.join(b, n)
        check(os.path.exists(pb) and filecmp.cmp(pa, pb, shallow=False),
              f"{os.path.relpath(pb, TMP)} byte-identical to the serial run's")


POINT_FILES = [f"point_{k}/{n}" for k in (0, 2, 3) for n in ("ports.csv", "dra.s1p", "point.done")]
SWEEP_FILES = ["sweep.csv", "sweep_summary.csv", "point_1/point.failed"] + POINT_FILES

# 1. the serial sweep, then 2 ranks
ref = os.path.join(TMP, "serial")
p = run(ref, *SWEEP)
check(p.returncode == 4, f"serial sweep: exit 4 (a failed point), got {p.returncode}")
check("must be > 0" in open(os.path.join(ref, "point_1/point.failed")).read(),
      "the impossible point failed with the case's reason")
two = os.path.join(TMP, "mpi2")
p = run(two, *SWEEP, ranks=2)
check(p.returncode == 4, f"2 ranks: exit 4 (the serial run's), got {p.returncode}")
check("design sweep on 2 ranks: 4 of 4 points to solve" in p.stderr, "the points shared (log)")
check(re.search(r"\[rank 1, point [0-3]\] ", p.stderr) and "[rank 0, point 0] " in p.stderr,
      "log lines tagged with rank and point")
check(sum(int(n) for n in re.findall(r"\] solved (\d+) points", p.stderr)) == 4,
      "every point solved once, by one rank or the other")
check(p.stdout.count("# design sweep: 4 points, 1 failed") == 1, "rank 0 alone writes stdout")
same(ref, two, SWEEP_FILES)

# 2. 2 ranks without a shared folder, killed once a point is done, resumed on 1
kill = os.path.join(TMP, "killed")
c = cmd(kill, *SWEEP, ranks=2)
print("$ EMSOLVE_DIST_SHIP=1", " ".join(c), flush=True)
q = subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                     env=dict(ENV, EMSOLVE_DIST_SHIP="1"), start_new_session=True)
t0 = time.time()
while not any(os.path.exists(os.path.join(kill, f"point_{k}", "point.done")) for k in range(4)):
    if q.poll() is not None or time.time() - t0 > 600:
        break
    time.sleep(0.02)
# every process of the run (mpirun and its ranks share its session)
for pid in [int(d) for d in os.listdir("/proc") if d.isdigit()]:
    try:
        if os.getsid(pid) == q.pid:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
q.communicate()
done = [k for k in range(4) if os.path.exists(os.path.join(kill, f"point_{k}", "point.done"))]
print(f"killed after {time.time() - t0:.1f} s with points {done} complete", flush=True)
check(q.returncode == -signal.SIGKILL, f"the 2-rank sweep was killed (return code {q.returncode})")
check(0 < len(done) < 3, f"killed in the middle: {len(done)} of 3 good points complete")
p = run(kill, *SWEEP, "--resume")
check(p.returncode == 4, f"resumed with 1 rank: exit 4 (a failed point), got {p.returncode}")
check(p.stderr.count("skipped (--resume)") == len(done), "the complete points are skipped")
same(ref, kill, SWEEP_FILES)

# 3. one geometry's frequencies on 2 ranks
freq = os.path.join(TMP, "freq2")
p = run(freq, *setn("Materials/dra/eps_r", 12), *setn("Geometry/dra_radius", 7.5), ranks=2)
check(p.returncode == 0, f"frequencies on 2 ranks: exit 0, got {p.returncode}")
check("3 frequencies to solve on 2 ranks" in p.stderr and "[rank 1] frequency 2/3" in p.stderr,
      "rank 1 solved the second frequency (log)")
for n in ("dra.s1p", "ports.csv"):
    pa, pb = os.path.join(ref, "point_3", n), os.path.join(freq, n)
    check(filecmp.cmp(pa, pb, shallow=False), f"{n} of 2 ranks = the serial point 3's, byte for byte")

# 4. adaptive refinement (Solver/adapt 1) on 2 ranks: rank 0's alone, the serial result
ADAPT = (setn("Materials/dra/eps_r", 12) + setn("Geometry/dra_radius", 7.5) +
         setn("Solver/adapt", 1) + setn("Adapt/max_passes", 2))
aser, apar = os.path.join(TMP, "adapt1"), os.path.join(TMP, "adapt2")
p = run(aser, *ADAPT)
check(p.returncode == 0 and "adapt pass 1" in p.stderr, f"adaptive serial run: exit {p.returncode}")
p = run(apar, *ADAPT, ranks=2)
check(p.returncode == 0, f"adaptive refinement on 2 ranks: exit 0, got {p.returncode}")
check("adaptive refinement (Solver/adapt) is rank 0's alone" in p.stderr and
      "[rank 1] nothing to do in this run" in p.stderr, "rank 1 idle (log)")
same(aser, apar, ["dra.s1p", "ports.csv"])


def adapt_rows(d):  # adapt.csv without its time columns
    with open(os.path.join(d, "adapt.csv")) as f:
        return [r.split(",")[:10] for r in f.read().splitlines()]


check(adapt_rows(aser) == adapt_rows(apar), "adapt.csv of 2 ranks = the serial one's (but times)")

if not os.environ.get("EM_KEEP"):
    shutil.rmtree(TMP, ignore_errors=True)
finish()
