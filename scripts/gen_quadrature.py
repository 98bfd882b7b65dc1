#!/usr/bin/python3
"""Generate assembly/quadrature_table.c: fully symmetric quadrature rules on
the triangle and the tetrahedron with positive weights and interior points.

The orbit structures (how many points of each symmetry type) are the ones of
the published minimal positive-interior rules: Dunavant 1985 (triangle,
"High degree efficient symmetrical Gaussian quadrature rules for the
triangle", IJNME 21) and Keast 1986 / Xiao & Gimbutas 2010 (tetrahedron,
"A numerical algorithm for the construction of efficient quadrature rules in
two and higher dimensions", Comput. Math. Appl. 59).  For each structure the
moment equations (exactness on every monomial up to the degree) are solved
here by Gauss-Newton from random starts in double precision, so the table
is reproducible and does not depend on transcribed digits; the C unit test
checks exactness on all monomials independently.

Run:  /usr/bin/python3 scripts/gen_quadrature.py > assembly/quadrature_table.c
"""
import itertools
import math
import sys

import numpy as np
from scipy.optimize import least_squares

# ---------------------------------------------------------------- orbits

def orbit_points(kind, p, dim):
    """Barycentric points of one orbit (dim+1 coordinates) from parameters p."""
    if dim == 2:
        if kind == "S3":
            base = [(1 / 3, 1 / 3, 1 / 3)]
        elif kind == "S21":
            a = p[0]
            base = [(a, a, 1 - 2 * a)]
        else:  # S111
            a, b = p
            base = [(a, b, 1 - a - b)]
    else:
        if kind == "S4":
            base = [(0.25,) * 4]
        elif kind == "S31":
            a = p[0]
            base = [(a, a, a, 1 - 3 * a)]
        elif kind == "S22":
            a = p[0]
            base = [(a, a, 0.5 - a, 0.5 - a)]
        elif kind == "S211":
            a, b = p
            base = [(a, a, b, 1 - 2 * a - b)]
        else:  # S1111
            a, b, c = p
            base = [(a, b, c, 1 - a - b - c)]
    pts = set()
    for q in base:
        for perm in itertools.permutations(q):
            pts.add(tuple(perm))
    # set() on floats may merge only identical tuples: the orbit size is fixed
    return sorted(pts)

NPAR = {"S3": 0, "S21": 1, "S111": 2, "S4": 0, "S31": 1, "S22": 1, "S211": 2, "S1111": 3}
SIZE = {"S3": 1, "S21": 3, "S111": 6, "S4": 1, "S31": 4, "S22": 6, "S211": 12, "S1111": 24}


def monomials(dim, deg):
    return [e for e in itertools.product(range(deg + 1), repeat=dim) if sum(e) <= deg]


def exact(e, dim):
    """Average over the reference simplex of prod lam_i^e_i (lam_0 omitted):
    dim! prod(e_i!) / (|e| + dim)!."""
    num = math.factorial(dim) * np.prod([math.factorial(k) for k in e])
    return num / math.factorial(sum(e) + dim)


def expand(struct, x, dim):
    """All points and weights from the packed unknowns x."""
    pts, wts, k = [], [], 0
    for kind in struct:
        npar = NPAR[kind]
        par = x[k:k + npar]
        w = x[k + npar]
        k += npar + 1
        # generate the orbit from generic parameters by permuting the base tuple
        if dim == 2:
            base = {"S3": (1 / 3,) * 3, "S21": None, "S111": None}[kind]
            if kind == "S21":
                base = (par[0], par[0], 1 - 2 * par[0])
            if kind == "S111":
                base = (par[0], par[1], 1 - par[0] - par[1])
        else:
            if kind == "S4":
                base = (0.25,) * 4
            elif kind == "S31":
                base = (par[0],) * 3 + (1 - 3 * par[0],)
            elif kind == "S22":
                base = (par[0], par[0], 0.5 - par[0], 0.5 - par[0])
            elif kind == "S211":
                base = (par[0], par[0], par[1], 1 - 2 * par[0] - par[1])
            else:
                base = (par[0], par[1], par[2], 1 - par[0] - par[1] - par[2])
        # distinct permutations by index pattern (not by float value)
        labels = {"S3": (0, 0, 0), "S21": (0, 0, 1), "S111": (0, 1, 2), "S4": (0, 0, 0, 0),
                  "S31": (0, 0, 0, 1), "S22": (0, 0, 1, 1), "S211": (0, 0, 1, 2),
                  "S1111": (0, 1, 2, 3)}[kind]
        seen = set()
        for perm in itertools.permutations(range(dim + 1)):
            lab = tuple(labels[i] for i in perm)
            if lab in seen:
                continue
            seen.add(lab)
            pts.append([base[i] for i in perm])
            wts.append(w)
        assert len(seen) == SIZE[kind]
    return np.array(pts), np.array(wts)


def residual(x, struct, dim, mons, ex):
    pts, wts = expand(struct, x, dim)
    # [n_mon x n_pts] values of every monomial at every point
    f = np.prod(pts[None, :, 1:] ** mons[:, None, :], axis=2)
    return f @ wts - ex


def solve(struct, dim, deg, seed):
    mons = np.array(monomials(dim, deg))
    ex = np.array([exact(e, dim) for e in mons])
    rng = np.random.default_rng(seed)
    npts = sum(SIZE[k] for k in struct)
    for attempt in range(300):
        x = []
        for kind in struct:
            if kind in ("S21",):
                x += [rng.uniform(0.01, 0.49)]
            elif kind == "S111":
                a = rng.uniform(0.01, 0.6)
                x += [a, rng.uniform(0.01, 0.98 - a)]
            elif kind == "S31":
                x += [rng.uniform(0.01, 0.33)]
            elif kind == "S22":
                x += [rng.uniform(0.01, 0.24)]
            elif kind == "S211":
                a = rng.uniform(0.01, 0.45)
                x += [a, rng.uniform(0.01, 0.98 - 2 * a)]
            elif kind == "S1111":
                a = rng.uniform(0.01, 0.6)
                b = rng.uniform(0.01, 0.95 - a)
                x += [a, b, rng.uniform(0.01, 0.97 - a - b)]
            x += [rng.uniform(0.2, 1.5) / npts]
        sol = least_squares(residual, np.array(x), args=(struct, dim, mons, ex), xtol=1e-15,
                            ftol=1e-15, gtol=1e-15, max_nfev=400, method="lm")
        r = np.max(np.abs(residual(sol.x, struct, dim, mons, ex)))
        pts, wts = expand(struct, sol.x, dim)
        if r < 2e-16 and np.all(wts > 0) and np.all(pts > 1e-8):
            return pts, wts, attempt
    return None


TRI = {1: [["S3"]], 2: [["S21"]], 3: [["S21", "S21"]], 4: [["S21", "S21"]], 5: [["S3", "S21", "S21"]],
       6: [["S21", "S21", "S111"]], 7: [["S21", "S21", "S21", "S111"]],
       8: [["S3", "S21", "S21", "S21", "S111"]]}
TET = {1: [["S4"]], 2: [["S31"]], 3: [["S31", "S31"]], 4: [["S4", "S31", "S22"], ["S31", "S31", "S22"]],
       5: [["S31", "S31", "S22"]], 6: [["S4", "S31", "S22", "S211"], ["S31", "S31", "S31", "S211"]],
       7: [["S4", "S31", "S31", "S31", "S22", "S211"], ["S4", "S31", "S31", "S22", "S211", "S211"]],
       8: [["S31", "S31", "S31", "S31", "S22", "S211", "S211"],
           ["S4", "S31", "S31", "S22", "S22", "S211", "S211"]]}


def main():
    only = sys.argv[1:]  # e.g. "tet8" to try one rule
    out = []
    for name, table, dim in (("tri", TRI, 2), ("tet", TET, 3)):
        for deg, structs in table.items():
            if only and f"{name}{deg}" not in only:
                continue
            for struct in structs:  # fewest points first
                res = solve(struct, dim, deg, seed=deg * 7 + dim)
                if res is not None:
                    break
                sys.stderr.write(f"{name} degree {deg} {struct}: no solution\n")
            if res is None:
                sys.exit(1)
            pts, wts, att = res
            sys.stderr.write(f"{name} degree {deg}: {len(wts)} points after {att + 1} starts\n")
            out.append((name, deg, struct, pts, wts))
    if only:
        return
    print("/* quadrature_table.c - GENERATED by scripts/gen_quadrature.py; do not edit.")
    print(" * Fully symmetric rules, positive weights, interior points, in barycentric")
    print(" * coordinates; weights sum to 1.  Orbit structures of Dunavant 1985")
    print(" * (triangle) and Keast 1986 / Xiao-Gimbutas 2010 (tetrahedron). */")
    print('#include "quadrature_impl.h"\n')
    for name, deg, struct, pts, wts in out:
        n = len(wts)
        print(f"/* {name} degree {deg}: {n} points, orbits {' '.join(struct)} */")
        print(f"static const double {name}{deg}_lam[{n * pts.shape[1]}] = {{")
        for p in pts:
            print("  " + ", ".join(f"{v:.17g}" for v in p) + ",")
        print("};")
        print(f"static const double {name}{deg}_w[{n}] = {{")
        for w in wts:
            print(f"  {w:.17g},")
        print("};\n")
    for name in ("tri", "tet"):
        rules = [o for o in out if o[0] == name]
        print(f"const em_quad em_quad_{name}_rules[EM_QUAD_MAX_DEGREE] = {{")
        for _, deg, _, pts, wts in rules:
            print(f"  {{{len(wts)}, {deg}, {name}{deg}_lam, {name}{deg}_w}},")
        print("};\n")


if __name__ == "__main__":
    main()
