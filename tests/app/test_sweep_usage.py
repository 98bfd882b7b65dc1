"""Issue 32, case 5 (design sweeps, but signals: test_signals.py): a --sweep
naming an unknown parameter, a group the case lacks, or giving a word to a
number parameter is a usage error (exit 2, "did you mean", before any
point runs); an empty item is refused; failed points have their own exit
code (4), apart from usage errors; the sweep's top level is locked against
a second sweep into the same folder.  WR-90 at order 1."""
import csv
import os
import resource
import subprocess
import time

from emtest import check, finish, run, setn
from keep import WG, fast, tmpdir, Run


def usage(what, spec, needles):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc, out, err, d = run(WG, *fast(), "--sweep", spec, expect_ok=False, timeout=120)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    dt = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    check(rc == 2, f"{what}: exit {rc} == 2 (usage)")
    for n in needles:
        check(n in err, f"{what}: the message names '{n}'")
    check(not os.path.exists(d), f"{what}: no point ran, nothing written")
    check(dt < 5, f"{what}: refused in {dt:.2f} s CPU, before any point")


usage("misspelt name", "Solver/frequncy=9e9,10e9", ["Solver/frequncy", "did you mean", "Solver/frequency"])
usage("a group the case lacks", "Materials/nosuch/eps_r=1,2", ["Materials/nosuch/eps_r", "nosuch", "air"])
usage("a word for a number", "Geometry/length=20,abc", ["Geometry/length", "'abc'"])
usage("an empty item", "Geometry/length=20,,30", ["Geometry/length", "empty"])
usage("a trailing comma", "Geometry/length=20,30,", ["Geometry/length", "empty"])

# failed points: their own exit code, apart from 1 (error) and 2 (usage)
rc, out, err, d = run(WG, *fast(), "--sweep", "Geometry/length=30,-5", expect_ok=False)
check(rc == 4, f"a sweep with a failed point: exit {rc} == 4")
check("2 points, 1 failed" in out, "the failed points counted on stdout")

# the top level is locked: a second sweep into the same folder is refused
d = tmpdir("lock")
SW = [*fast(), "--sweep", "Geometry/length=20,25,30,35,40"]
r = Run(WG, d, *SW)
check(r.until(lambda: os.path.exists(os.path.join(d, "point_0"))), "first sweep under way")
rc, out, err, _ = run(WG, *SW, out=d, expect_ok=False)
check(rc == 1 and "in use" in err, f"a second sweep into the same folder: refused (exit {rc})")
rc = r.wait()
check(rc == 0, f"the first sweep finishes undisturbed (exit {rc})")
with open(os.path.join(d, "sweep_summary.csv")) as f:
    st = [x["status"] for x in csv.DictReader(l for l in f if not l.startswith("#"))]
check(st == ["ok"] * 5, f"its summary says every point ok ({st})")
finish()
