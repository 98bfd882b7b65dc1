"""Resume (docs/sweeps.md): kill -9 a uniform sweep in the middle, run the
same command with --resume, and the final Touchstone and ports.csv are
byte-identical to an uninterrupted run's; a journal of another parameter set
is refused with a message; SIGINT stops after the current frequency.  The
adaptive sweep keeps each full solve (sweep.sample<k>.bin): killed after
some, resumed, its final files are byte-identical too."""
import filecmp
import os
import signal
import subprocess
import tempfile
import time

from emtest import EMSOLVE, SRC, check, finish, run, setn, sets

N = 11
args = (setn("Solver/f_start", 8e9) + setn("Solver/f_stop", 12e9) + setn("Solver/n_freq", N) +
        sets("Output/fields", "none"))
_, _, _, full = run("cases/waveguide.geo", *args)


def journaled(d):
    """frequencies in the journal of the unfinished run (its partial folder,
    docs/outputs.md "Staging")"""
    try:
        with open(os.path.join(d, ".emsolve.partial", "sweep.journal")) as f:
            return sum(1 for l in f if l.startswith("freq "))
    except FileNotFoundError:
        return 0


def start(out, *extra, a=None):
    cmd = [EMSOLVE, os.path.join(SRC, "cases/waveguide.geo"), "--out", out, "--device", "cpu",
           *(a or args), *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(p, d, k, limit=600):
    t0 = time.time()
    while journaled(d) < k and p.poll() is None and time.time() - t0 < limit:
        time.sleep(0.01)


out = os.path.join(tempfile.mkdtemp(prefix="emsolve_test_"), "out")
p = start(out)
wait_for(p, out, 3)
p.send_signal(signal.SIGKILL)
p.communicate()
k = journaled(out)
print(f"killed with {k} of {N} frequencies journaled")
check(p.returncode == -signal.SIGKILL, f"the run was killed (return code {p.returncode})")
check(3 <= k < N, f"killed in the middle: {k} of {N} journaled")
check(not any(n.endswith(".s2p") for n in os.listdir(out)), "no Touchstone before the end")

rc, _, err, _ = run("cases/waveguide.geo", *args, "--resume", out=out)
check(f"resume: {k} of {N} frequencies done" in err, "the resumed run reads the journal")
check(not any(f"frequency {i}/{N}," in err for i in range(1, k + 1)) and
      f"frequency {k + 1}/{N}," in err, "only the frequencies not journaled are solved")
for name in ("waveguide.s2p", "ports.csv"):
    check(filecmp.cmp(os.path.join(full, name), os.path.join(out, name), shallow=False),
          f"{name} byte-identical to the uninterrupted run")

# another parameter set: refused, the journal left as it was
before = open(os.path.join(out, "sweep.journal")).read()
rc, _, err, _ = run("cases/waveguide.geo", *args, *setn("Solver/order", 1), "--resume", out=out,
                    expect_ok=False)
check(rc != 0, f"a journal of another parameter set is refused (exit {rc})")
check("another case file or parameter set" in err, "the message says why")
check(open(os.path.join(out, "sweep.journal")).read() == before, "the journal is untouched")

# SIGINT: stops after the frequency under way, journal complete, non-zero exit
out2 = os.path.join(tempfile.mkdtemp(prefix="emsolve_test_"), "out")
p = start(out2)
wait_for(p, out2, 2)
p.send_signal(signal.SIGINT)
_, err = p.communicate(timeout=600)
k2 = journaled(out2)
print(f"SIGINT: {k2} of {N} journaled, exit {p.returncode}")
check(p.returncode not in (0, None) and p.returncode > 0, f"SIGINT: clean non-zero exit {p.returncode}")
check("--resume" in err and "interrupted" in err, "SIGINT: the message says how to go on")
check(2 <= k2 < N, f"SIGINT: stopped after the current frequency ({k2} of {N})")
rc, _, _, _ = run("cases/waveguide.geo", *args, "--resume", out=out2)
check(not os.path.exists(os.path.join(out2, ".emsolve.partial")), "after --resume no partial folder")
for name in ("waveguide.s2p", "ports.csv"):
    check(filecmp.cmp(os.path.join(full, name), os.path.join(out2, name), shallow=False),
          f"after SIGINT + --resume: {name} byte-identical")

# the adaptive sweep: killed after 4 full solves, resumed
aargs = (setn("Solver/f_start", 7e9) + setn("Solver/f_stop", 13e9) + setn("Solver/n_freq", 401) +
         sets("Output/fields", "none") + sets("Solver/sweep", "adaptive"))
_, _, _, afull = run("cases/waveguide.geo", *aargs)
check(not any(n.startswith("sweep.sample") for n in os.listdir(afull)),
      "a complete adaptive sweep removes its sample files")
out3 = os.path.join(tempfile.mkdtemp(prefix="emsolve_test_"), "out")
p = start(out3, a=aargs)
t0 = time.time()
part3 = os.path.join(out3, ".emsolve.partial")
while (not os.path.exists(os.path.join(part3, "sweep.sample3.bin")) and p.poll() is None and
       time.time() - t0 < 600):
    time.sleep(0.005)
p.send_signal(signal.SIGKILL)
p.communicate()
ns = sum(1 for n in os.listdir(part3) if n.startswith("sweep.sample") and ".tmp." not in n)
print(f"adaptive: killed with {ns} samples kept")
check(p.returncode == -signal.SIGKILL and ns >= 4, f"adaptive: killed after {ns} full solves")
rc, _, err, _ = run("cases/waveguide.geo", *aargs, "--resume", out=out3)
check(err.count("read from sweep.sample") == ns, f"adaptive: {ns} solves read back, not redone")
for name in ("waveguide.s2p", "ports.csv"):
    check(filecmp.cmp(os.path.join(afull, name), os.path.join(out3, name), shallow=False),
          f"adaptive, killed and resumed: {name} byte-identical")
finish()
