"""Shared helpers of the end-to-end tests: run emsolve, read its outputs."""
import csv
import json
import os
import subprocess
import sys
import tempfile

SRC = os.environ.get("EM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EMSOLVE = os.environ.get("EMSOLVE", os.path.join(SRC, "build", "app", "emsolve"))
C0 = 299792458.0
ETA0 = 376.730313668

failures = []
SKIP = 77  # ctest's SKIP_RETURN_CODE


def _device():
    """The device this run of the test computes on: `--device cpu|gpu` on
    its command line (tests/app/CMakeLists.txt registers the physics tests
    once per device; the gpu ones carry the label gpu), cpu without."""
    a = sys.argv
    d = a[a.index("--device") + 1] if "--device" in a[1:-1] else "cpu"
    if d not in ("cpu", "gpu"):
        raise SystemExit(f"emtest: --device {d}: use cpu or gpu")
    return d


DEVICE = _device()


def _gpu_or_skip():
    """With --device gpu: exit 77 (skipped) where no GPU answers, before
    anything is meshed; EM_GPU_PROBE (set by ctest) is a program that asks
    core's em_device_open, as emsolve does (exit 77 and the reason when no
    GPU answers).  Without it the first run's refusal decides (run)."""
    probe = os.environ.get("EM_GPU_PROBE")
    if DEVICE != "gpu" or not probe:
        return
    p = subprocess.run([probe], capture_output=True, text=True, timeout=120)
    print(p.stdout.strip(), p.stderr.strip(), flush=True)
    if p.returncode == SKIP:
        sys.exit(SKIP)
    if p.returncode != 0:
        raise SystemExit(f"emtest: the GPU probe {probe} failed with {p.returncode}")


_gpu_or_skip()


def check(cond, msg):
    """Record a failed expectation (the test goes on, exits 1 at the end)."""
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)
    else:
        print("ok:", msg)


def finish():
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    sys.exit(0)


def run(case, *args, out=None, expect_ok=True, timeout=900):
    """Run emsolve on a case with --device DEVICE; returns (returncode,
    stdout, stderr, outdir).  A --device gpu run that emsolve refuses for
    want of a GPU skips the test (exit 77)."""
    if out is None:
        out = tempfile.mkdtemp(prefix="emsolve_test_")
        out = os.path.join(out, "out")
    cmd = [EMSOLVE, os.path.join(SRC, case), "--out", out, "--device", DEVICE] + list(args)
    print("$", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    sys.stderr.write(p.stderr[-4000:])
    if DEVICE == "gpu" and p.returncode != 0 and "--device gpu: " in p.stderr:
        print("skipped: no GPU answers", flush=True)  # emsolve refused: see its stderr above
        sys.exit(SKIP)
    if expect_ok and p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        raise SystemExit(f"emsolve failed with {p.returncode}")
    return p.returncode, p.stdout, p.stderr, out


def topology(err):
    """The Betti numbers that the run's log gives (post/topology.c): the
    volume's (b0, b1, b2, b3) and {port: (b0, b1)}; None when absent."""
    import re
    m = re.search(r"topology \(Z2 ranks, \w+\): b0 (\d+)\s+b1 (\d+)\s+b2 (\d+)\s+b3 (\d+)", err)
    ports = {g[0]: (int(g[1]), int(g[2]))
             for g in re.findall(r"topology: (\S+) \(\w+\) b0 (\d+)\s+b1 (\d+)", err)}
    return (tuple(int(x) for x in m.groups()) if m else None), ports


def check_topology(err, volume, ports):
    """The Betti numbers logged (with -v) equal the case's known topology."""
    vol, got = topology(err)
    check(vol == volume, f"log: volume Betti numbers {vol} = {volume}")
    for name, want in ports.items():
        check(got.get(name) == want, f"log: {name} b0, b1 {got.get(name)} = {want}")


def setn(name, value):
    return ["-setnumber", name, repr(float(value))]


def sets(name, value):
    return ["-setstring", name, value]


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def freq_tag(f):
    """The frequency as output file names carry it: 5.75e9 -> '5.75GHz'."""
    return f"{f * 1e-9:.9g}GHz"


def port_z(out):
    """Each frequency's port reference impedances (ohm) from summary.json:
    what S in summary.json and ports.csv is referenced to."""
    return [[p["z_ref_ohm"] for p in fr["ports"]] for fr in summary(out)["frequencies"]]


def renormalise(S, R, Rn):
    """S on real references R renormalised to Rn (power waves, as
    post/port_sparams.c): Z = sqrt R (1+S)(1-S)^-1 sqrt R,
    S' = Rn^-1/2 (Z - Rn)(Z + Rn)^-1 Rn^1/2."""
    import numpy as np
    S = np.array(S, dtype=complex)
    n = len(S)
    I = np.eye(n)
    sR, sRn = np.diag(np.sqrt(R)), np.diag(np.sqrt(Rn))
    Z = sR @ (I + S) @ np.linalg.inv(I - S) @ sR
    return (np.linalg.inv(sRn) @ (Z - np.diag(Rn)) @ np.linalg.inv(Z + np.diag(Rn)) @ sRn).tolist()


def touchstone_r(path):
    """The reference impedance on a Touchstone file's option line."""
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                w = line.split()
                return float(w[w.index("R") + 1])
    raise ValueError(f"{path}: no option line")


def touchstone_refs(path):
    """Per frequency, per port: the references of a Touchstone file's rows
    (the option line's R, or 2.0's [Reference], or the comment line
    "! references of this frequency (ohm): ..." after a row)."""
    return touchstone(path, refs=True)[2]


def touchstone(path, zref=None, refs=False):
    """Frequencies and S matrices from a Touchstone 1.1 or 2.0 file (RI
    format); with zref (per frequency, per port: port_z(out)) S renormalised
    from each row's references (touchstone_refs) to those."""
    freqs, rows, row_refs = [], [], []
    nports = int(path.rsplit(".s", 1)[1][:-1])
    per = 1 + 2 * nports * nports
    base = None
    vals = []
    with open(path) as f:
        for line in f:
            if line.startswith("! references of this frequency"):
                row_refs[-1] = [float(v) for v in line.split(":")[1].split()]
                continue
            if line.startswith("[Reference]"):
                base = [float(v) for v in line.split()[1:]]
                continue
            if line.startswith("#") and base is None:
                base = [touchstone_r(path)] * nports
            line = line.split("!")[0].strip()
            if not line or line.startswith(("#", "[")):
                continue
            vals.extend(float(v) for v in line.split())
            if len(vals) == per:
                freqs.append(vals[0])
                c = [complex(vals[1 + 2 * i], vals[2 + 2 * i]) for i in range(nports * nports)]
                if nports == 2:  # the order for 2 ports (2.0: 21_12): S11 S21 S12 S22
                    S = [[c[0], c[2]], [c[1], c[3]]]
                else:
                    S = [[c[i * nports + j] for j in range(nports)] for i in range(nports)]
                rows.append(S)
                row_refs.append(list(base))
                vals = []
    if zref is not None:
        rows = [renormalise(S, r, z) for S, r, z in zip(rows, row_refs, zref)]
    if refs:
        return freqs, rows, row_refs
    return freqs, rows


def line_csv(path):
    pts = []
    with open(path) as f:
        rd = csv.reader(l for l in f if not l.startswith("#"))
        next(rd)
        for r in rd:
            v = [float(x) for x in r]
            pts.append((v[0], v[1:4], [complex(v[4], v[5]), complex(v[6], v[7]),
                                        complex(v[8], v[9])]))
    return pts
