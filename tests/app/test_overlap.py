"""Issue 24: Solver/overlap - the direct factor's ordering and symbolic
analysis on a thread of their own while the first frequency assembles
(model/fsys_overlap.c).

The order-1 DRA with the direct factor, overlap 0 and 1:
- every output but summary.json and the journal is the same, byte for
  byte (S11, ports, far field, the fields): the analysis is a function of
  the pattern, whichever thread makes it.  On the GPU, whose factor adds
  fronts with atomics (two runs of one command differ in S11's last bits:
  H200, 2026-11-28, the 1M DRA -0.19340443729602 / ...594 without the
  overlap), the analysis is compared instead (the factor's supernodes,
  nnz(L), flops: the same line in both logs) and S11 to 1e-9;
- with 1 the analysis' stage lines say "(overlapped)" and stages_s has
  overlapped > 0; with 0 none does and overlapped is 0; in both the stages
  and "other" less "overlapped" add up to "total";
- the ordering ran once in each;
- with 1 the first operator takes the row order, the permuted pattern and
  the value map the analysis' thread made (the same bytes out);
- on the GPU the factor's value checks and symmetry test run beside it
  (solver/direct/direct_beside.c);
- on the GPU with 1 the first operator is built on a thread beside the
  factorization (model/fsys_opbeside.c: the small DRA's factor and
  operator fit together), with 0 in order after it; the same beside pmg's
  set-up (order 2), S11 to 1e-8 either way.
pmg on one rank (WR-90 with its PML, order 2, two frequencies): the coarse
level's analysis made beside the assembly is taken by the V-cycle (its -v
line), every output the same bytes on the CPU with 0 and 1 (S to 1e-8 on
the GPU), the stages add up; PMG/coarse 2 at order 2: the same error with
both, and no analysis started for it.
With ILU(0) (no direct factor) nothing overlaps."""
import filecmp
import os
import re

from emtest import DEVICE, check, finish, run, setn, sets, summary

STAGES = ["parse", "mesh", "setup", "dofmap", "assembly", "operator", "ordering", "symbolic",
          "numeric", "pc_setup", "solve", "post", "farfield", "writing"]
base = ["cases/dra.geo", *setn("Solver/order", 1), *setn("Solver/frequency", 5.8e9), "-v"]
common = [*base, *sets("Solver/preconditioner", "direct")]

runs = {}
for ov in (0, 1):
    rc, _, err, out = run(*common, *setn("Solver/overlap", ov))
    runs[ov] = (err, out)
    st = summary(out)["stages_s"]
    parts = sum(st[k] for k in STAGES) + st["other"] - st["overlapped"]
    check(abs(parts - st["total"]) <= 0.02 * st["total"] + 0.05,
          f"overlap {ov}: stages + other - overlapped = {parts:.2f} s, total {st['total']:.2f} s")
    check(len(re.findall(r"direct: nd ordering", err)) == 1, f"overlap {ov}: one ordering")
    marked = re.findall(r"\] (?:ordering|symbolic): .*\(overlapped\)", err)
    if ov:
        # a stage line shows from 0.05 s with -v: the ordering's does here
        check(len(marked) >= 1, f"overlap 1: the analysis' stage lines say overlapped "
                                f"({len(marked)} lines)")
        check(st["overlapped"] > 0, f"overlap 1: overlapped {st['overlapped']:.3f} s > 0")
        check(st["ordering"] > 0 and st["symbolic"] > 0, "overlap 1: ordering and symbolic timed")
    else:
        check(not marked and st["overlapped"] == 0, "overlap 0: nothing overlapped")
    took = "row order and pattern from the analysis' thread" in err
    check(took == bool(ov), f"overlap {ov}: the operator {'took' if took else 'did not take'} "
                            f"the thread's permuted pattern")
    if DEVICE != "cpu":
        check("checks and the symmetry test beside the factorization" in err
              and "symmetric to 0.0e+00" in err,
              f"overlap {ov}: the factor's checks beside it, A symmetric")
        beside = "operator: built on a thread of its own beside the factorization" in err
        check(beside == bool(ov), f"overlap {ov}: the operator {'' if beside else 'not '}built "
                                  f"beside the GPU factorization")

a, b = runs[0][1], runs[1][1]
files = sorted(f for f in os.listdir(a) if f not in ("summary.json", "sweep.journal"))
check(any(f.endswith(".s1p") for f in files) and any(f.startswith("fields") for f in files),
      f"the outputs compared include S11 and the fields ({files})")
if DEVICE == "cpu":
    for f in files:
        check(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False),
              f"{f}: the same bytes with and without the overlap")
else:
    ana = [re.findall(r"direct: n = .*", runs[ov][0]) for ov in (0, 1)]
    check(len(ana[0]) == 1 and ana[0] == ana[1],
          f"the same analysis with and without the overlap ({ana})")
    s = [complex(*summary(runs[ov][1])["frequencies"][0]["ports"][0]["S_row"][0]) for ov in (0, 1)]
    check(abs(s[0] - s[1]) < 1e-9, f"S11 {s[0]:.12f} / {s[1]:.12f} with and without the overlap")

# on the GPU the operator also goes beside pmg's set-up (order 2: two groups),
# with overlap 1 only, and the V-cycle's S11 does not depend on it
if DEVICE != "cpu":
    pm = ["cases/dra.geo", *setn("Solver/order", 2), *setn("Solver/frequency", 5.8e9), "-v",
          *sets("Solver/preconditioner", "pmg"), *setn("Solver/tolerance", 1e-10)]
    s_pmg = {}
    for ov in (0, 1):
        rc, _, err, out = run(*pm, *setn("Solver/overlap", ov))
        beside = "operator: built on a thread of its own beside pmg's set-up" in err
        check(beside == bool(ov), f"pmg, overlap {ov}: the operator {'' if beside else 'not '}"
                                  f"built beside the V-cycle's set-up")
        s_pmg[ov] = complex(*summary(out)["frequencies"][0]["ports"][0]["S_row"][0])
    check(abs(s_pmg[0] - s_pmg[1]) < 1e-8,
          f"pmg: S11 {s_pmg[0]:.10f} / {s_pmg[1]:.10f} with the operator beside and in order")

# pmg on one rank: the coarse level's ordering and symbolic analysis beside
# the assembly (fsys_overlap.c, the pattern from the mesh: fsys_coarse.c),
# taken by the V-cycle's coarse factor; WR-90 with its PML (the PML's
# unknowns join the coarse set: PMG/pml_coarse auto) at order 2, a sweep of
# two frequencies (the second refactors on the kept analysis); with 1 and
# with 0 every output the same bytes on the CPU
wg = ["cases/waveguide.geo", *setn("Geometry/termination", 1), *setn("Solver/order", 2),
      *setn("Solver/f_start", 9e9), *setn("Solver/f_stop", 11e9), *setn("Solver/n_freq", 2),
      *sets("Solver/preconditioner", "pmg"), *sets("Output/fields", "none"), "-v",
      *(setn("Solver/tolerance", 1e-10) if DEVICE != "cpu" else [])]
wruns = {}
for ov in (0, 1):
    rc, _, err, out = run(*wg, *setn("Solver/overlap", ov))
    wruns[ov] = (err, out)
    took = re.findall(r"pmg: the coarse factor on its analysis made ahead", err)
    check(len(took) == ov, f"pmg, overlap {ov}: the coarse analysis made ahead taken {len(took)} times")
    check("not used" not in err, f"pmg, overlap {ov}: nothing made ahead dropped")
    check(len(re.findall(r"direct: nd ordering", err)) == 1, f"pmg, overlap {ov}: one ordering")
    check(("V-cycle's coarse level's ordering and symbolic analysis begin" in err) == bool(ov),
          f"pmg, overlap {ov}: the thread {'started' if ov else 'not started'}")
    st = summary(out)["stages_s"]
    parts = sum(st[k] for k in STAGES) + st["other"] - st["overlapped"]
    check(abs(parts - st["total"]) <= 0.02 * st["total"] + 0.05,
          f"pmg, overlap {ov}: stages + other - overlapped = {parts:.2f} s, total {st['total']:.2f} s")
    check((st["overlapped"] > 0) == bool(ov), f"pmg, overlap {ov}: overlapped {st['overlapped']:.3f} s")
a, b = wruns[0][1], wruns[1][1]
files = sorted(f for f in os.listdir(a) if f not in ("summary.json", "sweep.journal"))
check(any(f.endswith(".s1p") for f in files) and len(summary(b)["frequencies"]) == 2,
      f"pmg: the outputs compared include S at two frequencies ({files})")
if DEVICE == "cpu":
    for f in files:
        check(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False),
              f"pmg: {f}: the same bytes with and without the overlap")
else:
    for k in range(2):
        s = [complex(*summary(wruns[ov][1])["frequencies"][k]["ports"][0]["S_row"][0]) for ov in (0, 1)]
        check(abs(s[0] - s[1]) < 1e-8, f"pmg, f{k}: S11 {s[0]:.10f} / {s[1]:.10f}")
# a V-cycle that refuses its coarse groups (PMG/coarse 2 at order 2): the
# same error either way, and no analysis made ahead for it
errs = {}
for ov in (0, 1):
    rc, _, err, out = run(*wg, *setn("PMG/coarse", 2), *setn("Solver/overlap", ov), expect_ok=False)
    msg = [l.split("] ", 1)[-1] for l in err.splitlines() if "PMG/coarse = 2" in l]
    errs[ov] = (rc, msg)
    check(rc != 0 and msg, f"PMG/coarse 2, overlap {ov}: exit {rc}, {msg}")
    check("beside the assembly" not in err, f"PMG/coarse 2, overlap {ov}: no analysis ahead")
check(errs[0] == errs[1], f"PMG/coarse 2: the same error with and without the overlap ({errs})")

# (ILU(0) does not converge here in 5 iterations: exit 3, the results written)
# (no fields file: its error estimate would overlap the far field, test_onerun.py)
rc, _, err, out = run(*base, *sets("Solver/preconditioner", "ilu0"), *setn("Solver/overlap", 1),
                      *sets("Output/fields", "none"),
                      *setn("Solver/max_iterations", 5), expect_ok=False)
check(rc in (0, 3), f"ilu0: exit {rc}")
check("(overlapped)" not in err and summary(out)["stages_s"]["overlapped"] == 0,
      "ilu0: nothing overlapped")
finish()
