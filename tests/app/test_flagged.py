"""Issue 32, case 3 and the eigen half of case 6: a frequency whose solve
did not converge is written, flagged, with NaN where a figure does not
exist (the antenna figures, the pattern), and the run exits 3 - it never
fails and takes the converged frequencies with it; an eigen run with a
mode that did not converge exits 3.  The DRA at order 1 on a coarse mesh
with 2-5 iterations of a weak preconditioner; the PEC box of test_eigen."""
import csv
import math
import os

from emtest import check, finish, run, setn, sets, summary

DRA = "cases/dra.geo"
COARSE = [*setn("Solver/order", 1), *setn("Mesh/elements_per_wavelength", 8)]


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


# 5 jacobi iterations: no field reaches the far-field surface (P_rad = 0:
# the antenna figures do not exist, the pattern has no finite value);
# issue 32 saw "antenna figures: the radiated power 0 W is not positive"
# and "pattern VTK ...: no finite value" (ilu0) drop both frequencies
for pc, it, freqs in (("jacobi", 5, setn("Solver/f_start", 5.6e9) + setn("Solver/f_stop", 6e9) +
                       setn("Solver/n_freq", 2)),):
    rc, out, err, d = run(DRA, *COARSE, *freqs, *sets("Solver/preconditioner", pc),
                          *setn("Solver/max_iterations", it), *sets("Output/fields", "none"),
                          expect_ok=False)
    what = f"{pc}, {it} iterations"
    check(rc == 3, f"{what}: exit {rc} == 3 (flagged, not an error)")
    if not os.path.exists(os.path.join(d, "summary.json")):
        check(False, f"{what}: results written")
        continue
    s = summary(d)
    nf = len(s["frequencies"])
    check(s["exit_code"] == 3 and all("not_converged" in f["flags"] for f in s["frequencies"]),
          f"{what}: summary.json flags every frequency not converged")
    with open(os.path.join(d, "dra.s1p")) as f:
        check(f.read().count("! FLAGGED") == nf, f"{what}: the Touchstone file flags them")
    ant = rows(os.path.join(d, "antenna.csv"))
    check(len(ant) == nf, f"{what}: antenna.csv has a row per frequency ({len(ant)})")
    for a in ant:
        # nothing radiates: the figures do not exist (NaN), the powers are as measured
        check(float(a["P_rad_farfield_W"]) == 0 and math.isnan(float(a["directivity_dBi"])) and
              math.isnan(float(a["beamwidth_E_deg"])),
              f"{what}: {a['f_Hz']} Hz: P_rad {a['P_rad_farfield_W']}, directivity "
              f"{a['directivity_dBi']} (NaN where undefined)")
    for fr in s["frequencies"]:
        tag = f"{fr['f_hz'] * 1e-9:.9g}GHz"
        for n in (f"farfield_{tag}.csv", f"pattern_{tag}.csv"):
            check(os.path.exists(os.path.join(d, n)), f"{what}: {n} written")
    check(not [n for n in os.listdir(d) if ".tmp." in n], f"{what}: no temporary left")

# eigen: a mode that did not converge (no restart allowed) exits 3
rc, out, err, d = run("tests/app/cases/eigen_box.geo", *setn("Solver/order", 1),
                      *setn("Eigen/max_restarts", 0), *setn("Eigen/n", 6), expect_ok=False)
check(rc == 3, f"eigen with unconverged modes: exit {rc} == 3")
with open(os.path.join(d, "modes.csv")) as f:
    flags = [r["flag"] for r in csv.DictReader(f)]
check("unconverged" in flags, f"eigen: modes.csv flags them ({flags})")
finish()
