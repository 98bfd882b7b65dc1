"""Helpers of the tests of issue 32 ("never lose a result"): the files of an
output directory with their bytes, a run started in the background and
stopped at a chosen moment, the journal's progress."""
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import time

from emtest import DEVICE, EMSOLVE, SRC, check

WG = "cases/waveguide.geo"
# the run's folder of an unfinished result (docs/outputs.md, "Staging")
PARTIAL = ".emsolve.partial"


def fast(*extra):
    """Order 1, no fields: the cheapest WR-90 run."""
    return ["-setnumber", "Solver/order", "1", "-setstring", "Output/fields", "none", *extra]


def band(n, f0=9e9, f1=11e9):
    return ["-setnumber", "Solver/f_start", repr(f0), "-setnumber", "Solver/f_stop", repr(f1),
            "-setnumber", "Solver/n_freq", str(n)]


def tmpdir(tag):
    return os.path.join(tempfile.mkdtemp(prefix=f"emsolve_{tag}_"), "out")


def snapshot(d):
    """{path relative to d: sha256} of the result's files: everything under d
    but the run's own bookkeeping (the lock, the folder of an unfinished
    run), which says nothing about the result."""
    out = {}
    for root, dirs, files in os.walk(d):
        dirs[:] = [x for x in dirs if x != PARTIAL]
        for f in files:
            if f == ".emsolve.lock":
                continue
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def same(a, b, what):
    """a result left byte for byte as it was"""
    lost = sorted(set(a) - set(b))
    new = sorted(set(b) - set(a))
    changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    check(not lost and not new and not changed,
          f"{what}: the earlier result is intact ({len(a)} files; lost {lost[:4]}, new {new[:4]}, "
          f"changed {changed[:4]})")


def copy(src, tag):
    dst = tmpdir(tag)
    shutil.copytree(src, dst)
    return dst


def records(path):
    try:
        with open(path) as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError):
        return None


def journaled(d, base=None):
    """Frequencies in the newest journal of d (a finished run's in d, an
    unfinished one's in its partial folder) whose text is not `base`."""
    best = 0
    for p in (os.path.join(d, PARTIAL, "sweep.journal"), os.path.join(d, "sweep.journal")):
        t = records(p)
        if t is not None and t != base:
            best = max(best, sum(1 for l in t.splitlines() if l.startswith("freq ")))
    return best


class Run:
    """emsolve in the background (its output in files: no pipe to fill), on
    the test's device (emtest.DEVICE: --device gpu on its command line)."""

    def __init__(self, case, out, *args, env=None, preexec_fn=None):
        self.log = tempfile.NamedTemporaryFile("w+", prefix="emsolve_log_", delete=False)
        self.cmd = [EMSOLVE, os.path.join(SRC, case), "--out", out, "--device", DEVICE, *args]
        print("$", " ".join(self.cmd), "&", flush=True)
        self.p = subprocess.Popen(self.cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                  preexec_fn=preexec_fn)
        self.t_signal = None

    def until(self, cond, limit=300, step=0.002):
        """Poll cond() until it holds or the run ends; True when it held with
        the run still going."""
        t0 = time.time()
        while time.time() - t0 < limit:
            if cond():
                return self.p.poll() is None
            if self.p.poll() is not None:
                return False
            time.sleep(step)
        return False

    def peek(self):
        """what the run has logged so far"""
        with open(self.log.name) as f:
            return f.read()

    def signal(self, sig):
        self.t_signal = time.time()
        self.p.send_signal(sig)

    def wait(self, limit=300):
        rc = self.p.wait(timeout=limit)
        self.dt = time.time() - self.t_signal if self.t_signal else None
        self.log.seek(0)
        self.text = self.log.read()
        self.log.close()
        os.unlink(self.log.name)
        print(self.text[-3000:])
        return rc


def kill_after(case, out, k, *args, base=None):
    """Start a run and SIGKILL it once k frequencies are journaled; the number
    journaled then (None when the run ended first)."""
    r = Run(case, out, *args)
    alive = r.until(lambda: journaled(out, base) >= k)
    if alive:
        r.p.send_signal(signal.SIGKILL)
    r.wait()
    return journaled(out, base) if alive else None
