"""Adaptive sweep (docs/sweeps.md): 401 frequencies from a rational model of
the ports built on at most 15 full solves, against full solves at 9 check
frequencies inside the band, none of them a sample the sweep starts from:
|S_adaptive - S_uniform| <= 1e-3 (the sweep's tolerance).  Both runs mesh at
the band's top (Mesh/frequency), so they solve the same discrete problem.  WR-90 two-port (S21 turns through several radians of phase:
beta L over the band) and the DRA at order 1 (a resonance with a PML)."""
from emtest import check, finish, run, setn, sets, summary, touchstone


def compare(case, name, f0, f1, extra):
    h = (f1 - f0) / 400  # the adaptive grid's step; check at 10 h + 47 h k
    common = sets("Output/fields", "none") + setn("Mesh/frequency", f1) + extra
    _, _, err, d_a = run(case, *common, *setn("Solver/f_start", f0), *setn("Solver/f_stop", f1),
                         *setn("Solver/n_freq", 401), *sets("Solver/sweep", "adaptive"))
    _, _, _, d_u = run(case, *common, *setn("Solver/f_start", f0 + 10 * h),
                       *setn("Solver/f_stop", f0 + 386 * h), *setn("Solver/n_freq", 9))
    sa, su = summary(d_a), summary(d_u)
    sw = sa["sweep"]
    print(f"{name}: {sw['full_solves']} full solves at "
          f"{[round(s['f_hz'] / 1e9, 3) for s in sw['samples']]} GHz, estimate "
          f"{sw['error_estimate']:.2e}, check {sw['last_check']:.2e}")
    check(sw["type"] == "adaptive" and sw["converged"], f"{name}: the adaptive sweep converged")
    check(sw["full_solves"] <= 15, f"{name}: {sw['full_solves']} full solves (at most 15)")
    check(len(sa["frequencies"]) == 401 and all(f["from_model"] for f in sa["frequencies"]),
          f"{name}: 401 frequencies from the model")
    check(su["sweep"]["type"] == "uniform", f"{name}: the reference is a uniform sweep")
    ext = f".s{len(sa['ports'])}p"
    fa, Sa = touchstone(f"{d_a}/{case.split('/')[-1][:-4]}{ext}")
    fu, Su = touchstone(f"{d_u}/{case.split('/')[-1][:-4]}{ext}")
    check(len(fa) == 401 and len(fu) == 9, f"{name}: 401 and 9 frequencies in the Touchstone files")
    worst = 0
    for i, f in enumerate(fu):
        k = 10 + 47 * i
        check(abs(fa[k] - f) < 1, f"{name}: check frequency {f / 1e9:.4f} GHz on the adaptive grid")
        check(all(abs(s["f_hz"] - f) > h for s in sw["samples"][:3]),
              f"{name}: {f / 1e9:.4f} GHz is not a starting sample")
        n = len(Su[i])
        e = max(abs(Sa[k][p][q] - Su[i][p][q]) for p in range(n) for q in range(n))
        worst = max(worst, e)
        print(f"{name}: {f / 1e9:.3f} GHz: |S_adaptive - S_uniform| = {e:.2e}")
    # Touchstone keeps 10 significant digits: far below the tolerance
    check(worst <= 1e-3, f"{name}: max |S_adaptive - S_uniform| = {worst:.2e} <= 1e-3")


compare("cases/waveguide.geo", "WR-90", 7e9, 13e9, [])
compare("cases/dra.geo", "DRA order 1", 4.5e9, 7.5e9,
        setn("Solver/order", 1) + sets("Farfield/compute", "off"))
finish()
