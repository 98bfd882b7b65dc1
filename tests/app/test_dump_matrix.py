"""--dump-matrix round trip (docs/matrix-file.md, docs/validation.md).

The shorted lumped parallel-plate line (tests/data/lumped_line.geo) is
dumped; this file reads it with its own reader written from the format
page: magic, version, byte order, length, FNV-1a checksum, CSR invariants,
the size and nnz summary.json reports, and complex symmetry A = A^T (the
curl-curl system is).  Then the physics: the lumped port's right-hand side
is b_i = -j k0 eta0 (1/w) oint v . w_i and its voltage
V = -(1/w) oint E . v = x^T b / (j k0 eta0), so solving A x = b with SciPy
gives Zin = V / 1 A, which must equal emsolve's Zin and j Z0 tan(k len).
Last, spmv_bench reads the file (em_matfile_read) and every format agrees,
a damaged copy is refused, and `--dump-matrix FILE.mtx` writes the same
matrix as Matrix Market (read by SciPy's mmread: bit for bit)."""
import math
import os
import shutil
import struct
import subprocess
import tempfile

import numpy as np
import scipy.io as sio
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from emtest import C0, ETA0, check, finish, run, summary

BIN = os.environ.get("EM_BINARY_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
f, er, w, h, ln = 3e9, 2.2, 4e-3, 2e-3, 12e-3
k0 = 2 * math.pi * f / C0
z0 = ETA0 / math.sqrt(er) * h / w
zref = 1j * z0 * math.tan(k0 * math.sqrt(er) * ln)

d = os.path.join(tempfile.mkdtemp(prefix="emsolve_test_"), "out")
path = os.path.join(os.path.dirname(d), "system.emm")
rc, o, e, d = run("tests/data/lumped_line.geo", "-setstring", "Output/fields", "none",
                  "--dump-matrix", path, out=d)
s = summary(d)
raw = open(path, "rb").read()
check(raw[:8] == b"EMSYSMAT", "magic EMSYSMAT")
ver, bom, nb, nrhs = struct.unpack_from("<IIii", raw, 8)
off = struct.unpack_from("<4i", raw, 24)
flen = struct.unpack_from("<Q", raw, 40)[0]
check(ver == 1 and bom == 0x01020304, f"version {ver}, byte order {bom:#x}")
check(flen == len(raw), f"length field {flen} = file size {len(raw)}")
hsh = 14695981039346656037
for (wd,) in struct.iter_unpack("<Q", raw[:-8]):
    hsh = ((hsh ^ wd) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
check(hsh == struct.unpack_from("<Q", raw, len(raw) - 8)[0], "FNV-1a checksum")
n = off[nb]
check(n == s["dofs"]["unknowns"] and nrhs == 1, f"n = {n} unknowns, {nrhs} right-hand side")
pos, rows, cols, vals, ok = 48, [], [], [], True
for bi in range(nb):
    for bj in range(nb):
        nr, nc, nnz = struct.unpack_from("<iiq", raw, pos)
        pos += 16
        rp = np.frombuffer(raw, "<i8", nr + 1, pos)
        pos += 8 * (nr + 1)
        ci = np.frombuffer(raw, "<i4", nnz, pos)
        pos += 4 * nnz + 4 * (nnz % 2)
        v = np.frombuffer(raw, "<f8", 2 * nnz, pos)
        pos += 16 * nnz
        ok &= nr == off[bi + 1] - off[bi] and nc == off[bj + 1] - off[bj]
        ok &= rp[0] == 0 and rp[-1] == nnz and bool(np.all(np.diff(rp) >= 0))
        r = np.repeat(np.arange(nr), np.diff(rp))
        ok &= bool(np.all((ci >= 0) & (ci < nc)))
        ok &= bool(np.all((np.diff(ci) > 0) | (np.diff(r) > 0)))
        rows.append(r + off[bi])
        cols.append(ci + off[bj])
        vals.append(v[0::2] + 1j * v[1::2])
check(ok, "block sizes, row pointers, sorted column indices")
b = np.frombuffer(raw, "<f8", 2 * n, pos)
b = b[0::2] + 1j * b[1::2]
check(pos + 16 * n + 8 == len(raw), "right-hand side, then the checksum, fill the file")
A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), (n, n))
check(A.nnz == s["matrix"]["nnz"], f"nnz {A.nnz} = summary.json {s['matrix']['nnz']}")
asym = abs(A - A.T).max() / abs(A).max()
check(asym < 1e-14, f"A = A^T (complex symmetric, {asym:.1e})")
x = spla.spsolve(A.tocsc(), b)
zin = (x @ b) / (1j * k0 * ETA0)
zs = s["frequencies"][0]["ports"][0]["Zin_ohm"]
zs = complex(zs[0], zs[1])
print(f"Zin from the dumped system {zin:.6f}, emsolve {zs:.6f}, j Z0 tan(k len) {zref:.6f}")
check(abs(zin - zs) < 1e-9 * abs(zs), f"Zin from the dumped system = emsolve's ({abs(zin - zs):.1e})")
check(abs(zin - zref) < 5e-7 * abs(zref), f"Zin from the dumped system = j Z0 tan(k len) "
      f"({abs(zin - zref) / abs(zref):.1e})")
bench = os.path.join(BIN, "bench", "spmv_bench")
p = subprocess.run([bench, "--matrix", path, "--reps", "2"], capture_output=True, text=True)
print(p.stdout[-1500:])
check(p.returncode == 0 and f"{n} rows" in p.stdout, "spmv_bench reads it, every format agrees")
bad = path + ".bad"
shutil.copy(path, bad)
with open(bad, "r+b") as fb:
    fb.seek(len(raw) // 2)
    c = fb.read(1)
    fb.seek(len(raw) // 2)
    fb.write(bytes([c[0] ^ 0x40]))
p = subprocess.run([bench, "--matrix", bad, "--reps", "2"], capture_output=True, text=True)
check(p.returncode != 0 and "checksum" in (p.stdout + p.stderr).lower(),
      f"a damaged file is refused ({(p.stdout + p.stderr).strip().splitlines()[0][:100]})")
# the same system as Matrix Market (--dump-matrix FILE.mtx), read by SciPy's
# own reader: symmetric header, the same entries bit for bit; spmv_bench
# reads it too
mtx = os.path.join(os.path.dirname(d), "system.mtx")
rc2, o2, e2, d2 = run("tests/data/lumped_line.geo", "-setstring", "Output/fields", "none",
                      "--dump-matrix", mtx, out=d + "-mtx")
head = open(mtx).readline().split()
check(head[:3] == ["%%MatrixMarket", "matrix", "coordinate"] and head[4] == "symmetric",
      f"Matrix Market header {' '.join(head)}")
M = sio.mmread(mtx).tocsr()
check(M.shape == A.shape and M.nnz == A.nnz and abs(M - A).max() == 0,
      f"the .mtx holds the system's matrix bit for bit (nnz {M.nnz} / {A.nnz})")
p = subprocess.run([bench, "--matrix", mtx, "--reps", "2"], capture_output=True, text=True)
check(p.returncode == 0 and f"{n} rows" in p.stdout, "spmv_bench reads the .mtx")
finish()
