"""Issue 24: a uniform sweep's outputs of each frequency (port quantities,
far field, fields file) on a thread of their own while the next frequency
solves (app/sweep_post.c).

The order-1 DRA over 3 frequencies (the far field at each, the fields
file at the middle one, which is thus written beside the last solve):
- Solver/overlap 0 (in turn), 1 (the default) and 1 with the next
  frequency assembled ahead on a team of one thread (EMSOLVE_AHEAD_CPU=1,
  Solver/ahead_threads 1): every output but summary.json and the journal is
  the same, byte for byte (the outputs are the same function of the same
  solution, whichever thread computes them); on the GPU, whose factor's
  last bits vary from run to run, S11 to 1e-9;
- with the overlap the far field and post lines of the first two
  frequencies say "(overlapped)" and stages_s has overlapped > 0, the last
  frequency's run in turn; without, nothing overlaps; stages + other -
  overlapped = total; the progress lines come in frequency order; the
  journal names all three;
- never lose a result: SIGINT while the second frequency solves (the
  first's outputs on their thread) stops the run with 130, the journal of
  the partial folder names each frequency whose files are all there (at
  least the first), and --resume completes the outputs of the run in turn,
  byte for byte (CPU)."""
import filecmp
import os
import re
import signal

from emtest import DEVICE, check, finish, freq_tag, run, setn, sets, summary
from keep import PARTIAL, Run, records, tmpdir

STAGES = ["parse", "mesh", "setup", "dofmap", "assembly", "operator", "ordering", "symbolic",
          "numeric", "pc_setup", "solve", "post", "farfield", "writing"]
FREQS = [4.5e9, 6e9, 7.5e9]
base = ["cases/dra.geo", *setn("Solver/order", 1), *setn("Solver/n_freq", 3), "-v"]
RUNS = {"in turn": ([*setn("Solver/overlap", 0)], {}),
        "overlap": ([], {}),
        "overlap, ahead on 1 thread": ([*setn("Solver/ahead_threads", 1)],
                                       {"EMSOLVE_AHEAD_CPU": "1"})}

runs = {}
for name, (extra, env) in RUNS.items():
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        rc, _, err, out = run(*base, *extra)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    runs[name] = (err, out)
    st = summary(out)["stages_s"]
    parts = sum(st[k] for k in STAGES) + st["other"] - st["overlapped"]
    check(abs(parts - st["total"]) <= 0.02 * st["total"] + 0.05,
          f"{name}: stages + other - overlapped = {parts:.2f} s, total {st['total']:.2f} s")
    marked = re.findall(r"\] farfield: .*\(overlapped\)", err)
    if name == "in turn":
        check(not marked and st["overlapped"] == 0, f"{name}: nothing overlapped ({marked})")
    else:
        check(len(marked) == 2, f"{name}: the first two far fields overlapped ({len(marked)} lines)")
        check(st["overlapped"] > 0, f"{name}: overlapped {st['overlapped']:.3f} s > 0")
    order = [int(k) for k in re.findall(r"\] frequency (\d)/3, ", err)]
    check(order == [1, 2, 3], f"{name}: the progress lines in frequency order ({order})")
    text = records(os.path.join(out, "sweep.journal")) or ""
    check(sum(1 for l in text.splitlines() if l.startswith("freq ")) == 3,
          f"{name}: the journal names the 3 frequencies")

ref = runs["in turn"][1]
files = sorted(f for f in os.listdir(ref) if f not in ("summary.json", "sweep.journal"))
tags = [freq_tag(f) for f in FREQS]
check(all(f"farfield_{t}.csv" in files for t in tags) and f"fields_{tags[1]}.vtk" in files,
      f"the outputs compared include each far field and the middle fields ({files})")
for name in list(RUNS)[1:]:
    out = runs[name][1]
    if DEVICE == "cpu":
        got = sorted(f for f in os.listdir(out) if f not in ("summary.json", "sweep.journal"))
        check(got == files, f"{name}: the same files ({got})")
        for f in files:
            check(filecmp.cmp(os.path.join(ref, f), os.path.join(out, f), shallow=False),
                  f"{name}: {f} the same bytes as in turn")
    else:
        for k in range(3):
            s = [complex(*summary(o)["frequencies"][k]["ports"][0]["S_row"][0])
                 for o in (ref, out)]
            check(abs(s[0] - s[1]) < 1e-9, f"{name}: S11 at {tags[k]} {s[0]:.12f} / {s[1]:.12f}")

# SIGINT while the second frequency solves, the first's outputs on their thread
d = tmpdir("sweep_post")
r = Run(base[0], d, *base[1:])
check(r.until(lambda: "frequency 2/3:" in r.peek()), "the second frequency is under way")
r.signal(signal.SIGINT)
rc = r.wait(limit=120)
check(rc == 130, f"SIGINT: exit {rc} == 130")
part = os.path.join(d, PARTIAL)
jt = records(os.path.join(part, "sweep.journal")) or ""
nj = sum(1 for l in jt.splitlines() if l.startswith("freq "))
check(nj >= 1, f"SIGINT: the first frequency journaled ({nj})")
for t in tags[:nj]:
    check(os.path.exists(os.path.join(part, f"farfield_{t}.csv")),
          f"SIGINT: the journaled {t}'s far field is there")
if DEVICE == "cpu":
    for t in tags[:nj]:
        for f in (f"farfield_{t}.csv", f"pattern_{t}.csv"):
            check(filecmp.cmp(os.path.join(ref, f), os.path.join(part, f), shallow=False),
                  f"SIGINT: {f} complete (the bytes of the run in turn)")
rc, _, err, out = run(*base, "--resume", out=d)
check(f"resume: {nj} of 3 frequencies done" in err, f"--resume takes up the {nj} journaled")
if DEVICE == "cpu":
    for f in files:
        check(filecmp.cmp(os.path.join(ref, f), os.path.join(d, f), shallow=False),
              f"resumed: {f} the same bytes as in turn")
finish()
