"""Issue 24: every stage of a run is timed, logged and tabled.

The order-2 DRA (the default mesh) at two frequencies, direct factor, far
field and fields on, with -v:
- no silent gap: wherever two consecutive log lines are more than 0.5 s
  apart, the second states a duration ("N.NN s") covering all but 0.5 s of
  the gap (a stage's end line, an iteration line with its seconds);
- summary.json "stages_s" names every stage of docs/outputs.md, none
  negative; the stages and "other" add up to "total" (they are exclusive);
  "other" (what no stage claims) stays small;
- the second frequency refills: no ordering or symbolic time is added.
At the default verbosity (one frequency), every stage that took over 0.6 s
has its line."""
import re

from emtest import check, finish, run, setn, sets, summary

STAGES = ["parse", "mesh", "setup", "dofmap", "assembly", "operator", "ordering", "symbolic",
          "numeric", "pc_setup", "solve", "post", "farfield", "writing"]
LINE = re.compile(r"^\[\s*(\d+\.\d+)s\] (.*)$")
DUR = re.compile(r"(\d+(?:\.\d+)?) s\b")


def gaps(err):
    """(gap, previous line, line) for every gap over 0.5 s no duration explains."""
    bad, t_prev, prev = [], 0.0, "(start)"
    for raw in err.splitlines():
        m = LINE.match(raw)
        if not m:
            continue
        t, text = float(m.group(1)), m.group(2)
        g = t - t_prev
        if g > 0.5:
            d = max([float(x) for x in DUR.findall(text)] or [0.0])
            if d < g - 0.5:
                bad.append((g, prev, text))
        t_prev, prev = t, text
    return bad


def stage_table(out):
    return summary(out)["stages_s"]


common = [*setn("Solver/order", 2), *sets("Solver/preconditioner", "direct"),
          *sets("Solver/method", "gmres")]

# -v, two frequencies: the gaps, the table, the refill
rc, _, err, out = run("cases/dra.geo", *common, *setn("Solver/f_start", 5.7e9),
                      *setn("Solver/f_stop", 5.9e9), *setn("Solver/n_freq", 2), "-v")
bad = gaps(err)
for g, prev, text in bad[:10]:
    print(f"  silent {g:.2f} s before: {text!r} (after {prev!r})")
check(not bad, f"-v log: {len(bad)} gap(s) over 0.5 s without a duration that covers them")
st = stage_table(out)
missing = [k for k in STAGES + ["other", "total"] if k not in st]
check(not missing, f"stages_s has every stage (missing: {missing})")
check(all(v >= 0 for v in st.values()), "no stage time is negative")
check(st.get("overlapped", -1) >= 0, "stages_s has 'overlapped' (stages beside others)")
parts = sum(st[k] for k in STAGES) + st["other"] - st.get("overlapped", 0)
check(abs(parts - st["total"]) <= 0.02 * st["total"] + 0.05,
      f"stages + other - overlapped = {parts:.2f} s, total {st['total']:.2f} s")
check(st["other"] <= max(0.5, 0.03 * st["total"]),
      f"other (no stage) {st['other']:.2f} s of {st['total']:.2f} s")
for k in ["mesh", "assembly", "operator", "ordering", "symbolic", "numeric", "solve"]:
    check(st[k] > 0, f"stage {k} was timed ({st[k]:.3f} s)")
# the analysis once (first frequency), the numeric factorization twice

check(len(re.findall(r"direct: nd ordering", err)) == 1, "the ordering ran once for two frequencies")
check(len(re.findall(r"direct: numeric factorization \d", err)) == 2, "two numeric factorizations")

# default verbosity: each stage over 0.6 s has its line (those that run
# once at one frequency: operator, assembly, post run in two parts)
rc, _, err, out = run("cases/dra.geo", *common, *setn("Solver/frequency", 5.8e9))
st = stage_table(out)
for k in ["parse", "mesh", "setup", "dofmap", "ordering", "symbolic", "numeric", "solve",
          "farfield"]:
    if st[k] > 0.6:
        check(re.search(rf"\] {k}: \d+\.\d+ s", err) is not None,
              f"default log: stage {k} ({st[k]:.2f} s) has its line")
finish()
