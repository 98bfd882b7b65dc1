#!/usr/bin/python3
"""Read emsolve's legacy VTK files back with meshio (an independent reader)
and check them against their definition.

usage: check_vtk.py POST_SAMPLE    (the C program that writes the files)

post_sample writes mesh.txt (the input mesh in plain text: vertices, tets,
volume group index of each tet) and VTK files of the analytic field
E = (x + 2j y, z^2, exp(j x)).  For every file this checks: the header
(version, title with the volume groups, ASCII/BINARY, array types), the
counts (n_tet * (s+1)(s+2)(s+3)/6 points, n_tet * s^3 tets, all VTK_TETRA),
that the points of parent t are exactly its barycentric lattice of
denominator s, that its s^3 sub-tets have positive and equal volumes summing
to the parent's volume and form a conforming triangulation of it (interior
faces shared by two sub-tets, 4 s^2 boundary faces on the parent's faces),
the material id of every cell, and E_re, E_im, E_abs at every point against
the analytic field at the point's coordinates as read from the file.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    import meshio
except ImportError:  # CI installs python3-meshio: a missing reader fails
    print("FAIL: python3-meshio is not installed (apt-get install python3-meshio)")
    sys.exit(1)

# name, binary, subdiv, single: the table of post_sample.c
CASES = [("ascii_s1", 0, 1, 0), ("ascii_s2", 0, 2, 0), ("ascii_s3", 0, 3, 0),
         ("binary_s2", 1, 2, 0), ("binary_s3", 1, 3, 0), ("binary_s4", 1, 4, 0),
         ("binary_s5", 1, 5, 0), ("float_s3", 1, 3, 1), ("ascii_float_s2", 0, 2, 1)]
TITLE = b"emsolve box test: groups 0=air 2=dra 3=pml_xp"

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def read_mesh_txt(path):
    with open(path) as f:
        nv, nt = map(int, f.readline().split())
        xyz = np.array([list(map(float, f.readline().split())) for _ in range(nv)])
        rows = np.array([list(map(int, f.readline().split())) for _ in range(nt)])
    return xyz, rows[:, :4], rows[:, 4]


def field(p):
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    re = np.stack([x, z * z, np.cos(x)], axis=1)
    im = np.stack([2 * y, np.zeros_like(x), np.sin(x)], axis=1)
    return re, im, np.sqrt((re * re + im * im).sum(axis=1))


def close(got, want, tol):
    return np.all(np.abs(got - want) <= tol * np.maximum(1.0, np.abs(want)))


def header_lines(path, n=3):
    with open(path, "rb") as f:
        return [f.readline().rstrip(b"\n") for _ in range(n)]


def check_lattice(name, t, X, P, conn, vol, s, tol):
    """Points P of parent t (vertices X) form its lattice; the sub-tets
    conn (local indices) with volumes vol tile it conformingly."""
    J = (X[1:] - X[0]).T
    lam123 = np.linalg.solve(J, (P - X[0]).T).T
    lam = np.column_stack([1 - lam123.sum(axis=1), lam123])
    k = lam * s
    ki = np.rint(k).astype(int)
    ok = np.all(np.abs(k - ki) <= tol * s) and np.all(ki >= 0) and np.all(ki.sum(axis=1) == s)
    lattice = {(a, b, c) for a in range(s + 1) for b in range(s + 1 - a)
               for c in range(s + 1 - a - b)}
    ok = ok and {tuple(r[1:]) for r in ki} == lattice and len(P) == len(lattice)
    check(ok, f"{name}: points of tet {t} are not its lattice of denominator {s}")
    V = abs(np.linalg.det(J)) / 6
    check(abs(vol.sum() - V) <= tol * V, f"{name}: sub-tets of tet {t} sum to {vol.sum()}, not {V}")
    check(np.all(np.abs(vol - V / s**3) <= 100 * tol * V / s**3),
          f"{name}: sub-tets of tet {t} differ in volume")
    faces = {}
    for c in conn:
        for skip in range(4):
            key = tuple(sorted(np.delete(c, skip)))
            faces[key] = faces.get(key, 0) + 1
    bnd = [f for f, n in faces.items() if n == 1]
    check(all(n <= 2 for n in faces.values()), f"{name}: tet {t}: a face in 3+ sub-tets")
    check(len(bnd) == 4 * s * s, f"{name}: tet {t}: {len(bnd)} boundary faces, not {4 * s * s}")
    on_face = all(np.any(np.all(ki[list(f)] == 0, axis=0)) for f in bnd)
    check(on_face, f"{name}: tet {t}: a boundary sub-face inside the parent")


def check_file(name, binary, s, single, xyz, tets, groups, title=TITLE):
    path = os.path.join(tmp, name + ".vtk")
    typ = "float" if single else "double"
    tol = 2e-6 if single else 1e-12
    h = header_lines(path)
    check(h[0] == b"# vtk DataFile Version 3.0", f"{name}: version line {h[0]!r}")
    check(h[1] == title, f"{name}: title {h[1]!r}")
    check(h[2] == (b"BINARY" if binary else b"ASCII"), f"{name}: mode {h[2]!r}")
    raw = open(path, "rb").read()
    nt = len(tets)
    npp = (s + 1) * (s + 2) * (s + 3) // 6
    npts, ncell = nt * npp, nt * s**3
    for line in (f"POINTS {npts} {typ}", f"CELLS {ncell} {5 * ncell}", f"CELL_TYPES {ncell}",
                 f"CELL_DATA {ncell}", "SCALARS material int 1", f"POINT_DATA {npts}",
                 f"VECTORS E_re {typ}", f"VECTORS E_im {typ}", f"SCALARS E_abs {typ} 1"):
        check(("\n" + line + "\n").encode() in raw, f"{name}: no line '{line}'")

    m = meshio.read(path, file_format="vtk")
    check(len(m.cells) == 1 and m.cells[0].type == "tetra",
          f"{name}: cell blocks {[c.type for c in m.cells]}")
    P = np.asarray(m.points, dtype=float)
    conn = np.asarray(m.cells[0].data)
    check(P.shape == (npts, 3), f"{name}: {P.shape[0]} points, expected {npts}")
    check(conn.shape == (ncell, 4), f"{name}: {conn.shape[0]} cells, expected {ncell}")
    if P.shape != (npts, 3) or conn.shape != (ncell, 4):
        return
    mat = np.asarray(m.cell_data["material"][0]).reshape(-1)
    check(np.array_equal(mat, np.repeat(groups, s**3)), f"{name}: material ids")

    p0, p1, p2, p3 = (P[conn[:, k]] for k in range(4))
    vol = np.einsum("ij,ij->i", p1 - p0, np.cross(p2 - p0, p3 - p0)) / 6
    check(np.all(vol > 0), f"{name}: {np.sum(vol <= 0)} sub-tets with volume <= 0")
    V = sum(abs(np.linalg.det((xyz[t[1:]] - xyz[t[0]]).T)) / 6 for t in tets)
    check(abs(vol.sum() - V) <= 10 * tol * V, f"{name}: sub-tet volumes sum to {vol.sum()}, mesh {V}")
    for t in range(nt):
        cl = conn[t * s**3:(t + 1) * s**3]
        inside = np.all((cl >= t * npp) & (cl < (t + 1) * npp))
        check(inside, f"{name}: a sub-tet of tet {t} uses another tet's points")
        if inside:
            check_lattice(name, t, xyz[tets[t]], P[t * npp:(t + 1) * npp], cl - t * npp,
                          vol[t * s**3:(t + 1) * s**3], s, tol)

    re, im, ab = field(P)
    check(close(m.point_data["E_re"], re, tol), f"{name}: E_re differs from the analytic field")
    check(close(m.point_data["E_im"], im, tol), f"{name}: E_im differs from the analytic field")
    check(close(np.asarray(m.point_data["E_abs"]).reshape(-1), ab, tol),
          f"{name}: E_abs differs from |E|")


def check_long_title(nt):
    path = os.path.join(tmp, "long_title.vtk")
    title = header_lines(path)[1]
    check(len(title) <= 254, f"long title: {len(title)} bytes")
    try:
        text = title.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
        check(False, "long title: cut inside a UTF-8 sequence")
    check(text.startswith("emsolve line break tab x \u00b5\U0001F600"), f"long title: {text[:40]!r}")
    check(text.endswith("..."), "long title: no '...' where it was cut")
    check(all(ord(c) >= 0x20 for c in text), "long title: control characters")
    m = meshio.read(path, file_format="vtk")
    check(m.points.shape[0] == nt * 10 and m.cells[0].data.shape[0] == nt * 8,
          "long title: meshio reads a different grid")


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ)
    src = os.environ.get("EM_SOURCE_DIR", "")
    env.setdefault("LSAN_OPTIONS", f"suppressions={src}/tests/lsan.supp")
    r = subprocess.run([sys.argv[1], "vtk", tmp], env=env)
    if r.returncode != 0:
        print(f"FAIL: {sys.argv[1]} vtk returned {r.returncode}")
        sys.exit(1)
    xyz, tets, groups = read_mesh_txt(os.path.join(tmp, "mesh.txt"))
    dets = [np.linalg.det((xyz[t[1:]] - xyz[t[0]]).T) for t in tets]
    check(min(dets) < 0 < max(dets), "mesh.txt: need parents of both orientations")
    check(set(groups) == {0, 2, 3}, f"mesh.txt: groups {set(groups)}")
    for case in CASES:
        check_file(*case, xyz, tets, groups)
    check_long_title(len(tets))
    # one tet of negative volume in its vertex order (every sub-tet flipped)
    xyz1, tets1, groups1 = read_mesh_txt(os.path.join(tmp, "one_mesh.txt"))
    check(len(tets1) == 1 and np.linalg.det((xyz1[tets1[0][1:]] - xyz1[tets1[0][0]]).T) < 0,
          "one_mesh.txt: expected one tet of negative orientation")
    check_file("one_s3", 1, 3, 0, xyz1, tets1, groups1, b"emsolve one tet: groups 0=air")
    names = sorted(os.listdir(tmp))
    check(not any(".tmp." in n for n in names), f"temporary files left: {names}")

print(f"check_vtk: {len(CASES) + 2} files, {len(failures)} failures")
sys.exit(1 if failures else 0)
