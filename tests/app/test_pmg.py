"""The order-group V-cycle (Solver/preconditioner pmg) end to end, against
the sparse direct factor on the same mesh: the default DRA at order 2 at
4.5, 5.8 and 7.5 GHz (below, at and above the HEM11delta resonance), WR-90
with a PML section and the coax line.  Each pmg run must converge to a true
relative residual <= 1e-8 within its iteration bound (a little above what
was measured: docs/solvers.md) and give S (and Zin) equal to the direct
solve's to 1e-6.  COCG (pmg is complex symmetric) at 5.8 GHz too.  With
PMG/pml_coarse 0 (the PML smoothed, not solved exactly) the same DRA system
does not converge in 150 iterations: the test that the PML in the coarse
solve is what makes the cycle work."""
from emtest import check, finish, run, setn, sets, summary


def solve(case, pc, *args, method="gmres", max_it=150):
    rc, out, err, outdir = run(case, *sets("Solver/preconditioner", pc), *sets("Solver/method", method),
                               *setn("Solver/max_iterations", max_it), *setn("Solver/restart", 200),
                               *sets("Output/fields", "none"), *args, expect_ok=False, timeout=600)
    s = summary(outdir)
    f = s["frequencies"][0]
    sv = f["solves"]
    return rc, f, sv


# (label, case, extra arguments, iteration bound)
CASES = [
    ("DRA 4.5 GHz", "cases/dra.geo", setn("Solver/frequency", 4.5e9), 55),
    ("DRA 5.8 GHz", "cases/dra.geo", setn("Solver/frequency", 5.8e9), 55),
    ("DRA 7.5 GHz", "cases/dra.geo", setn("Solver/frequency", 7.5e9), 55),
    ("WR-90 + PML", "cases/waveguide.geo", setn("Geometry/termination", 1), 35),
    ("coax line", "tests/data/coax_line.geo", [], 60),
]

for label, case, args, bound in CASES:
    _, fd, _ = solve(case, "direct", *args)
    rc, fp, sv = solve(case, "pmg", *args)
    its = max(x["iterations"] for x in sv)
    res = max(x["true_relative_residual"] for x in sv)
    check(rc == 0 and fp["converged"] and res <= 1e-8 and its <= bound,
          f"{label}: pmg converged in {its} iterations (bound {bound}), true residual {res:.2e}")
    for pd, pp in zip(fd["ports"], fp["ports"]):
        ds = max(abs(complex(*a) - complex(*b)) for a, b in zip(pd["S_row"], pp["S_row"]))
        zd, zp = complex(*pd["Zin_ohm"]), complex(*pp["Zin_ohm"])
        check(ds <= 1e-6 and abs(zd - zp) <= 1e-6 * abs(zd),
              f"{label} {pd['name']}: |S_pmg - S_direct| = {ds:.1e}, Zin {zp:.6f} vs {zd:.6f}")

rc, fp, sv = solve("cases/dra.geo", "pmg", *setn("Solver/frequency", 5.8e9), method="cocg")
check(fp["converged"] and sv[0]["iterations"] <= 60,
      f"DRA 5.8 GHz: COCG + pmg in {sv[0]['iterations']} iterations")

rc, fp, sv = solve("cases/dra.geo", "pmg", *setn("Solver/frequency", 5.8e9), *sets("PMG/pml_coarse", "0"))
check(not fp["converged"] and sv[0]["true_relative_residual"] > 1e-6,
      f"DRA 5.8 GHz, PML smoothed: no convergence in 150 iterations "
      f"(residual {sv[0]['true_relative_residual']:.1e})")
finish()
