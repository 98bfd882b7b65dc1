"""Issue 32, cases 1, 2 and 7, and a full disk: a run stages its outputs and
swaps them in only when complete, so a complete earlier result in its output
directory keeps every byte whatever the run does (refused --resume, no-op
--resume, a kill, a write error), and a resumed run ends with the files of
an uninterrupted one.  WR-90 at order 1, 9 frequencies (about 1 s a run)."""
import filecmp
import os
import resource
import signal
import subprocess

from emtest import check, finish, run, setn, sets, summary
from keep import (PARTIAL, WG, band, copy, fast, journaled, kill_after, same, snapshot, tmpdir,
                  Run)

N = 9
ARGS = [*fast(), *band(N), *sets("Output/fields", "all"), *setn("Output/line_points", 3),
        *setn("Output/line_to_z", 30)]

# the complete result every probe starts from: 9 fields and 9 line files
_, _, _, ref = run(WG, *ARGS)
names = sorted(snapshot(ref))
check(len([n for n in names if n.startswith("fields_")]) == N and
      len([n for n in names if n.startswith("line_")]) == N, f"the reference holds {names}")

# ------------------------------------------------ 1. refused --resume, no-op --resume
d = copy(ref, "refused")
before = snapshot(d)
for what, extra in (("another parameter set", setn("Materials/air/eps_r", 1.5)),
                    ("another frequency list", setn("Solver/n_freq", 5))):
    rc, _, err, _ = run(WG, *ARGS, *extra, "--resume", out=d, expect_ok=False)
    check(rc == 1 and "--resume" in err, f"--resume with {what}: refused (exit {rc})")
    same(before, snapshot(d), f"--resume with {what} refused")
rc, _, err, _ = run(WG, *ARGS, "--resume", out=d, expect_ok=False)
check(rc == 0, f"a no-op --resume of a complete run: exit {rc}")
same(before, snapshot(d), "a no-op --resume")
check(sorted(os.listdir(d)) == sorted(os.listdir(ref)), "a no-op --resume leaves no file of its own")

# a torn journal: refused, the rest untouched
with open(os.path.join(d, "sweep.journal")) as f:
    text = f.read()
with open(os.path.join(d, "sweep.journal"), "w") as f:
    f.write(text[: len(text) - 500])
before = snapshot(d)
rc, _, err, _ = run(WG, *ARGS, "--resume", out=d, expect_ok=False)
check(rc == 1 and "journal" in err, f"--resume on a torn journal: refused (exit {rc})")
same(before, snapshot(d), "--resume on a torn journal refused")

# ------------------------------------- 2. a resumed run ends with an uninterrupted run's files
d = tmpdir("resumed")
k = kill_after(WG, d, 3, *ARGS)
check(k is not None and 3 <= k < N, f"killed with {k} of {N} frequencies journaled")
rc, _, err, _ = run(WG, *ARGS, "--resume", out=d)
check(sorted(snapshot(d)) == names, f"resumed: the files of the uninterrupted run ({sorted(snapshot(d))})")
for n in names:
    if n.endswith((".s2p", ".csv")):
        check(os.path.exists(os.path.join(d, n)) and
              filecmp.cmp(os.path.join(ref, n), os.path.join(d, n), shallow=False),
              f"resumed: {n} byte-identical to the uninterrupted run's")
check(not os.path.exists(os.path.join(d, PARTIAL)), "resumed: nothing left of the unfinished run")

# an interrupted re-run into a folder of good results leaves them as they were
d = copy(ref, "rerun")
before = snapshot(d)
with open(os.path.join(d, "sweep.journal")) as f:
    base = f.read()
k = kill_after(WG, d, 3, *ARGS, base=base)
check(k is not None and k >= 3, f"re-run killed with {k} frequencies journaled")
same(before, snapshot(d), "a re-run killed in the middle")
# ... and --resume finishes it: the new result in place of the old, whole
rc, _, err, _ = run(WG, *ARGS, "--resume", out=d)
check(sorted(snapshot(d)) == names, "the killed re-run resumed: the files of a complete run")

# ------------------------------------------ a full disk: a write error at any output
d = copy(ref, "full")
before = snapshot(d)


def small_files():
    """every file this process writes is limited to 6 kB (RLIMIT_FSIZE: a
    write beyond fails with EFBIG once SIGXFSZ is ignored, as a full disk
    fails with ENOSPC)"""
    resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000))


for what, extra, needle in (("a fields file", setn("Solver/n_freq", 1), "fields_9GHz.vtk"),
                            ("the journal", sets("Output/fields", "none") + setn("Output/line_points", 0),
                             "sweep.journal")):
    r = Run(WG, d, *ARGS, *extra, preexec_fn=small_files)
    rc = r.wait()
    check(rc == 1 and needle in r.text, f"a write error at {what}: exit {rc}, the message names {needle}")
    same(before, snapshot(d), f"a write error at {what}")
# the frequency journaled before the disk filled is kept: --resume goes on once there is room
check(journaled(d) >= 1, "a write error at the journal: the frequencies done are kept")
rc, _, err, _ = run(WG, *ARGS, *sets("Output/fields", "none"), *setn("Output/line_points", 0), "--resume",
                    out=d)
check("resume: 1 of 9" in err, "--resume after the write error goes on from the kept frequency")
check(sorted(snapshot(d)) == ["ports.csv", "summary.json", "sweep.journal", "waveguide.s2p"],
      f"... and ends with the new result alone ({sorted(snapshot(d))})")
check(not os.path.exists(os.path.join(d, PARTIAL)), "... and no partial folder")

# more files than summary.json lists (64): 70 line files, the result whole (today: "too many
# output files" after the last frequency, the whole result lost)
rc, _, err, d = run(WG, *fast(), *band(70), *setn("Output/line_points", 2), *setn("Output/line_to_z", 30),
                    expect_ok=False)
s = summary(d) if os.path.exists(os.path.join(d, "summary.json")) else {}
lines = [n for n in os.listdir(d) if n.startswith("line_")] if os.path.exists(d) else []
check(rc == 0 and len(lines) == 70 and s.get("outputs_not_listed", 0) + len(s.get("outputs", [])) == 73,
      f"70 frequencies with a line file each: exit {rc}, {len(lines)} line files, summary.json lists "
      f"{len(s.get('outputs', []))} + {s.get('outputs_not_listed')}")

# --------------------------------------- 7. stale temporaries, a lock of a reused pid
d = copy(ref, "stale")
dead = subprocess.Popen(["true"])
dead.wait()
junk = [f"fields_10GHz.vtk.tmp.{dead.pid}", f"sweep.journal.tmp.{dead.pid}"]
for n in junk:
    with open(os.path.join(d, n), "w") as f:
        f.write("half")
rc, _, err, _ = run(WG, *ARGS, out=d, expect_ok=False)
check(rc == 0, f"a run beside stale temporaries: exit {rc}")
left = [n for n in os.listdir(d) if ".tmp." in n]
check(not left, f"the temporaries of a killed run are removed ({left})")

# a lock whose pid lives but is another process now (the pid was reused)
holder = subprocess.Popen(["sleep", "60"])
with open(os.path.join(d, ".emsolve.lock"), "w") as f:
    f.write(f"{holder.pid} 12345\n")  # started at boot tick 12345: not this process
rc, _, err, _ = run(WG, *fast(), out=d, expect_ok=False)
check(rc == 0, f"a lock holding a reused pid is stale (exit {rc})")
check(not os.path.exists(os.path.join(d, ".emsolve.lock")), "the stale lock is gone after the run")
holder.kill()
holder.wait()
finish()
