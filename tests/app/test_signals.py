"""Issue 32, cases 4 and 5 (signals): SIGINT / SIGTERM are honoured within
a bounded time in every stage - the Krylov iterations of a single frequency,
the direct factorization, the fields writer of the last frequency - with
exit 130 / 143; the earlier result in the directory keeps every byte; a
design sweep stops at the signal (exit 130 / 143, no point recorded as
failed) and --resume finishes it with the tables of an uninterrupted sweep."""
import csv
import re
import filecmp
import glob
import os
import signal
import time

from emtest import DEVICE, check, finish, run, setn, sets
from keep import PARTIAL, WG, band, copy, fast, same, snapshot, tmpdir, Run

LIMIT = 5.0  # seconds from the signal to the exit (loaded CI machines: generous)


def stopped(r, sig, what):
    """The run was under way; it stops within LIMIT with 128 + sig."""
    try:
        rc = r.wait(limit=LIMIT + 8)
    except Exception:  # it ignored the signal: stop it, and fail
        r.p.kill()
        rc = r.wait()
    check(rc == 128 + sig, f"{what}: exit {rc} == {128 + sig}")
    check(r.dt is not None and r.dt < LIMIT, f"{what}: stopped {r.dt:.2f} s after the signal (< {LIMIT})")
    check(signal.Signals(sig).name in r.text, f"{what}: the message names the signal")


# an earlier complete result in the directory the runs below are stopped in
_, _, _, ref = run(WG, *fast(), *band(3))
d = copy(ref, "sig")
before = snapshot(d)

# 1. the Krylov iterations of a single-frequency solve (jacobi at tolerance
#    1e-15 iterates for minutes)
r = Run(WG, d, *setn("Solver/order", 2), *sets("Output/fields", "none"),
        *sets("Solver/preconditioner", "jacobi"), *setn("Solver/tolerance", 1e-15),
        *setn("Solver/max_iterations", 1e7), "-v")
check(r.until(lambda: re.search(r"bicgstab( \[\d+\])?: iteration", r.peek())), "Krylov: the iterations are under way")
r.signal(signal.SIGTERM)
stopped(r, signal.SIGTERM, "SIGTERM in the Krylov iterations")
same(before, snapshot(d), "SIGTERM in the Krylov iterations")
check(not os.path.exists(os.path.join(d, ".emsolve.lock")), "SIGTERM in the Krylov iterations: lock released")

# 2. the direct factorization (order 3, about 2 s of factoring on 2 cores)
r = Run(WG, d, *setn("Solver/order", 3), *sets("Output/fields", "none"),
        *setn("Mesh/elements_per_wavelength", 10), *sets("Solver/preconditioner", "direct"), "-v")
check(r.until(lambda: "direct: n = " in r.peek()), "direct: the numeric factorization is under way")
r.signal(signal.SIGINT)
stopped(r, signal.SIGINT, "SIGINT in the factorization")
same(before, snapshot(d), "SIGINT in the factorization")

# 3. the fields writer of the last frequency of a sweep (ASCII, subdivided:
#    seconds of writing)
r = Run(WG, d, *fast(), *band(2), *sets("Output/fields", "all"), *setn("Output/subdiv", 6),
        *sets("Output/vtk", "ascii"))
tmp = lambda: (glob.glob(os.path.join(d, "*.tmp.*")) +  # noqa: E731
               glob.glob(os.path.join(d, PARTIAL, "*.tmp.*")))
check(r.until(lambda: any("fields_11GHz" in t for t in tmp())),
      "VTK: the last frequency's fields are being written")
r.signal(signal.SIGTERM)
stopped(r, signal.SIGTERM, "SIGTERM in the last frequency's fields writer")
same(before, snapshot(d), "SIGTERM in the fields writer")
check(not tmp(), f"SIGTERM in the fields writer: no temporary left ({tmp()})")
part = os.path.join(d, PARTIAL)
with open(os.path.join(part, "sweep.journal")) as f:
    n_part = sum(1 for l in f if l.startswith("freq "))
check(os.path.exists(os.path.join(part, "fields_9GHz.vtk")) and n_part == 1,
      "SIGTERM in the fields writer: the first frequency is kept (its journal record, its fields)")
check("--resume" in r.text, "SIGTERM in the fields writer: the message says how to go on")

# 4. a design sweep: SIGTERM after its first point; --resume finishes it
SW = [*fast(), "--sweep", "Geometry/length=20,25,30,35"]
_, _, _, full = run(WG, *SW)
d = tmpdir("psweep")
r = Run(WG, d, *SW)
check(r.until(lambda: os.path.exists(os.path.join(d, "point_0", "point.done"))), "sweep: point 0 done")
r.signal(signal.SIGTERM)
stopped(r, signal.SIGTERM, "SIGTERM in a design sweep")
with open(os.path.join(d, "sweep_summary.csv")) as f:
    rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
st = [x["status"] for x in rows]
check("failed" not in st and st[-1] == "pending", f"sweep: no point recorded as failed, the rest pending ({st})")
check("--resume" in r.text, "sweep: the message says how to go on")
rc, _, err, _ = run(WG, *SW, "--resume", out=d)


def numbers(path):
    """The numeric cells of a CSV file, the others as text."""
    out = []
    with open(path) as f:
        for line in f:
            for cell in line.strip().split(","):
                try:
                    out.append(float(cell))
                except ValueError:
                    out.append(cell)
    return out


for n in ("sweep.csv", "sweep_summary.csv"):
    a, b = os.path.join(full, n), os.path.join(d, n)
    if DEVICE == "cpu":
        check(filecmp.cmp(a, b, shallow=False),
              f"sweep stopped and resumed: {n} byte-identical to an uninterrupted sweep's")
    else:
        # the GPU's factorization adds its fronts' updates with atomics: two
        # processes solve the same point to the last bits differently, so the
        # resumed points agree with the uninterrupted run's to rounding
        x, y = numbers(a), numbers(b)
        ok = len(x) == len(y) and all(
            (u == v) if isinstance(u, str) or isinstance(v, str) else
            abs(u - v) <= 1e-9 * max(1.0, abs(u), abs(v)) for u, v in zip(x, y))
        check(ok, f"sweep stopped and resumed on the GPU: {n} equal to an uninterrupted sweep's "
                  f"to 1e-9")
finish()
