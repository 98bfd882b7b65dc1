#!/usr/bin/python3
"""Parse the Touchstone (.s1p .s2p .s3p .s5p) and ports.csv files written by
post_sample and compare them with the definition of their values in
post_sample.c: S_ij(k) = (1+i+2j+3k)/17 - j (2+ij+k)/29 (0-based), except
S11 = 1 (open) at k = 1 and S11 = 0 (matched) at k = 2; f_k = 1e9 (1+k/7).

Touchstone 1.1: option line "# Hz S RI R 50", values exact; 1- and 2-port
data on one line per frequency in the order S11 S21 S12 S22; 3 and 4 ports
row by row, each row on new lines of at most 4 pairs.  5 ports: Touchstone
2.0 (its keywords in order, a matrix row a line, [End]).
ports.csv: the columns named in its header; |S| in dB, phase in degrees and
Zin = z0 (1+S)/(1-S) recomputed here ("inf" for S11 = 1).

usage: check_tables.py POST_SAMPLE
"""
import math
import os
import subprocess
import sys
import tempfile

failures = []
NFREQ = {1: 5, 2: 4, 3: 3, 5: 3}
Z0 = [50.0, 75.0]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def s_value(k, i, j):
    if i == 0 and j == 0 and k == 1:
        return complex(1, 0)
    if i == 0 and j == 0 and k == 2:
        return complex(0, 0)
    return complex((1 + i + 2 * j + 3 * k) / 17, -((2 + i * j + k) / 29))


def freq(k):
    return 1e9 * (1 + k / 7)


def check_touchstone(path, n):
    lines = open(path).read().split("\n")
    check(lines[-1] == "", f"{path}: no final newline")
    lines = lines[:-1]
    v2 = n > 4  # Touchstone 2.0 beyond 4 ports (one reference here)
    if v2:
        check(lines[0] == "[Version] 2.0" and lines[-1] == "[End]", f"{path}: 2.0 frame")
        kw = [l for l in lines if l.startswith("[")]
        check(kw == ["[Version] 2.0", f"[Number of Ports] {n}", f"[Number of Frequencies] {NFREQ[n]}",
                     "[Reference] " + " ".join(["50"] * n), "[Matrix Format] Full",
                     "[Network Data]", "[End]"], f"{path}: keywords {kw}")
        lines = [l for l in lines if not l.startswith("[")]
    comments = [l for l in lines if l.startswith("!")]
    check(comments[0].startswith(f"! emsolve 0.1.0: {n}-port S-parameters, Touchstone "
                                 f"{'2.0' if v2 else '1.1'}"), f"{comments[0]!r}")
    check(comments[1:] == ["! case: sample", "! second line with tab"], f"comments {comments}")
    opts = [l for l in lines if l.startswith("#")]
    check(opts == ["# Hz S RI R 50"], f"{path}: option line {opts}")
    data = [l for l in lines if not l.startswith(("!", "#"))]
    check(lines.index(opts[0]) < lines.index(data[0]), f"{path}: option line after data")
    # the line structure: per frequency, one line for n <= 2, else per row
    # ceil(n / 4) lines of at most 4 pairs (1.1) or one line (2.0)
    if n <= 2:
        shape = [2 * n * n]
    elif v2:
        shape = [2 * n] * n
    else:
        shape = [2 * min(4, n - 4 * q) for q in range((n + 3) // 4)] * n
    nl = len(shape)
    check(len(data) == nl * NFREQ[n], f"{path}: {len(data)} data lines, expected {nl * NFREQ[n]}")
    if len(data) != nl * NFREQ[n]:
        return
    for k in range(NFREQ[n]):
        block = [l.split() for l in data[k * nl:(k + 1) * nl]]
        check(float(block[0][0]) == freq(k), f"{path}: frequency {block[0][0]} != {freq(k)!r}")
        block[0] = block[0][1:]
        check([len(b) for b in block] == shape, f"{path}: line lengths {[len(b) for b in block]}")
        tok = [float(x) for b in block for x in b]
        if n <= 2:  # column-wise: S11 S21 S12 S22
            order = [(i, j) for j in range(n) for i in range(n)]
        else:
            order = [(i, j) for i in range(n) for j in range(n)]
        for q, (i, j) in enumerate(order):
            got = complex(tok[2 * q], tok[2 * q + 1])
            check(got == s_value(k, i, j), f"{path}: S{i + 1}{j + 1}({k}) = {got!r}, "
                  f"expected {s_value(k, i, j)!r}")


def check_touchstone_ref(path):
    """2 ports referenced to 50 and 75 ohm: Touchstone 2.0, [Two-Port Data
    Order] 21_12 (the 1.1 order S11 S21 S12 S22), [Reference] 50 75; port 2's
    reference 75.5 ohm at frequency 1 in a comment line after its data."""
    lines = open(path).read().split("\n")[:-1]
    kw = [l for l in lines if l.startswith("[")]
    check(kw == ["[Version] 2.0", "[Number of Ports] 2", "[Two-Port Data Order] 21_12",
                 "[Number of Frequencies] 4", "[Reference] 50 75", "[Matrix Format] Full",
                 "[Network Data]", "[End]"], f"{path}: keywords {kw}")
    check(lines.index("# Hz S RI R 50") < lines.index("[Number of Ports] 2"),
          f"{path}: option line after [Number of Ports]")
    body = lines[lines.index("[Network Data]") + 1:lines.index("[End]")]
    data = [l for l in body if not l.startswith("!")]
    check(len(data) == 4, f"{path}: {len(data)} data lines")
    for k, l in enumerate(data):
        tok = [float(x) for x in l.split()]
        check(tok[0] == freq(k), f"{path}: frequency {tok[0]}")
        for q, (i, j) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1)]):
            got = complex(tok[1 + 2 * q], tok[2 + 2 * q])
            check(got == s_value(k, i, j), f"{path}: S{i + 1}{j + 1}({k}) = {got}")
    notes = [i for i, l in enumerate(body) if l.startswith("! references")]
    check(len(notes) == 1 and body[notes[0] - 1] == data[1] and
          body[notes[0]] == "! references of this frequency (ohm): 50 75.5",
          f"{path}: reference comment lines {notes}")


def near(got, want, tol):
    if math.isinf(want):
        return got == want
    return abs(got - want) <= tol * max(1.0, abs(want))


def check_csv(path, n):
    lines = open(path).read().split("\n")
    check(lines[-1] == "", f"{path}: no final newline")
    header = lines[0].split(",")
    want = ["f_Hz"]
    for i in range(1, n + 1):
        want += [f"S{i}{i}_dB", f"S{i}{i}_deg", f"Zin{i}_re_ohm", f"Zin{i}_im_ohm"]
        for j in range(1, n + 1):
            if j != i:
                want += [f"S{j}{i}_dB", f"S{j}{i}_deg"]
    check(header == want, f"{path}: header {header}")
    rows = [l.split(",") for l in lines[1:-1]]
    check(len(rows) == NFREQ[n], f"{path}: {len(rows)} rows")
    for k, row in enumerate(rows):
        check(len(row) == len(want), f"{path}: row {k} has {len(row)} columns")
        v = dict(zip(header, map(float, row)))
        check(v["f_Hz"] == freq(k), f"{path}: f {v['f_Hz']!r}")
        for i in range(n):
            s = s_value(k, i, i)
            p = i + 1
            db = 20 * math.log10(abs(s)) if s != 0 else -math.inf
            check(near(v[f"S{p}{p}_dB"], db, 1e-13), f"{path}: S{p}{p}_dB({k}) {v[f'S{p}{p}_dB']}")
            deg = math.degrees(math.atan2(s.imag, s.real))
            check(near(v[f"S{p}{p}_deg"], deg, 1e-13), f"{path}: S{p}{p}_deg({k})")
            if s == 1:
                z = complex(math.inf, math.inf)
                check(row[header.index(f"Zin{p}_re_ohm")] == "inf" and
                      row[header.index(f"Zin{p}_im_ohm")] == "inf", f"{path}: Zin at S = 1: {row}")
            else:
                z = Z0[i] * (1 + s) / (1 - s)
            check(near(v[f"Zin{p}_re_ohm"], z.real, 1e-13) and near(v[f"Zin{p}_im_ohm"], z.imag, 1e-13),
                  f"{path}: Zin{p}({k}) = {v[f'Zin{p}_re_ohm']} {v[f'Zin{p}_im_ohm']}, expected {z}")
            for j in range(n):
                if j != i:
                    t = s_value(k, j, i)
                    db = 20 * math.log10(abs(t))
                    check(near(v[f"S{j + 1}{p}_dB"], db, 1e-13), f"{path}: S{j + 1}{p}_dB({k})")
                    deg = math.degrees(math.atan2(t.imag, t.real))
                    check(near(v[f"S{j + 1}{p}_deg"], deg, 1e-13), f"{path}: S{j + 1}{p}_deg({k})")


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ)
    env.setdefault("LSAN_OPTIONS",
                   f"suppressions={os.environ.get('EM_SOURCE_DIR', '')}/tests/lsan.supp")
    r = subprocess.run([sys.argv[1], "tables", tmp], env=env)
    if r.returncode != 0:
        print(f"FAIL: {sys.argv[1]} tables returned {r.returncode}")
        sys.exit(1)
    files = sorted(os.listdir(tmp))
    check(files == ["ports1.csv", "ports2.csv", "sample.s1p", "sample.s2p", "sample.s3p",
                    "sample.s5p", "sample_ref.s2p"], f"files {files}")
    for n in NFREQ:
        check_touchstone(os.path.join(tmp, f"sample.s{n}p"), n)
    check_touchstone_ref(os.path.join(tmp, "sample_ref.s2p"))
    for n in (1, 2):
        check_csv(os.path.join(tmp, f"ports{n}.csv"), n)

print(f"check_tables: {len(failures)} failures")
sys.exit(1 if failures else 0)
