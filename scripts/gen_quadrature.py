#!/usr/bin/python3
"""Generate assembly/quadrature_table.c: fully symmetric quadrature rules on
the triangle and the tetrahedron with positive weights and interior points.

The orbit structures (how many points of each symmetry type) are those of
the published minimal rules where a positive interior solution exists:
Dunavant 1985 (triangle, "High degree efficient symmetrical Gaussian
quadrature rules for the triangle", IJNME 21) and Keast 1986 ("Moderate
degree tetrahedral quadrature formulas", CMAME 55) / Xiao & Gimbutas 2010
("A numerical algorithm for the construction of efficient quadrature rules
in two and higher dimensions", Comput. Math. Appl. 59); where the minimal
tet structure has no positive solution (Keast's degree 3, 4, 7 rules have a
negative weight) the next structure that has one is used.  For each
structure the moment equations (exactness on every monomial up to the
degree) are solved here by bounded least squares from random starts in
double precision, so no digits are transcribed by hand.  The degree-8 tet
rule is Stroud's conical product (no symmetric positive structure converged
in our search).  The C unit test checks every rule on every monomial.

Run:  /usr/bin/python3 scripts/gen_quadrature.py > assembly/quadrature_table.c
"""
import itertools
import math
import sys

import numpy as np
from scipy.optimize import least_squares
from scipy.special import roots_jacobi

# ---------------------------------------------------------------- orbits

NPAR = {"S3": 0, "S21": 1, "S111": 2, "S4": 0, "S31": 1, "S22": 1, "S211": 2, "S1111": 3}
SIZE = {"S3": 1, "S21": 3, "S111": 6, "S4": 1, "S31": 4, "S22": 6, "S211": 12, "S1111": 24}


def monomials(dim, deg):
    return [e for e in itertools.product(range(deg + 1), repeat=dim) if sum(e) <= deg]


def exact(e, dim):
    """Average over the reference simplex of prod lam_i^e_i (lam_0 omitted):
    dim! prod(e_i!) / (|e| + dim)!."""
    num = math.factorial(dim) * np.prod([math.factorial(k) for k in e])
    return num / math.factorial(sum(e) + dim)


def orbit_base(kind, u):
    """Base point of an orbit from parameters u in (0,1)^k: the box maps onto
    the interior of the admissible region, so bounds keep points inside."""
    if kind == "S3":
        return (1 / 3,) * 3
    if kind == "S21":
        a = u[0] / 2
        return (a, a, 1 - 2 * a)
    if kind == "S111":
        a = u[0]
        b = u[1] * (1 - a)
        return (a, b, 1 - a - b)
    if kind == "S4":
        return (0.25,) * 4
    if kind == "S31":
        a = u[0] / 3
        return (a, a, a, 1 - 3 * a)
    if kind == "S22":
        a = u[0] / 2
        return (a, a, 0.5 - a, 0.5 - a)
    if kind == "S211":
        a = u[0] / 2
        b = u[1] * (1 - 2 * a)
        return (a, a, b, 1 - 2 * a - b)
    a = u[0]
    b = u[1] * (1 - a)
    c = u[2] * (1 - a - b)
    return (a, b, c, 1 - a - b - c)


LABELS = {"S3": (0, 0, 0), "S21": (0, 0, 1), "S111": (0, 1, 2), "S4": (0, 0, 0, 0),
          "S31": (0, 0, 0, 1), "S22": (0, 0, 1, 1), "S211": (0, 0, 1, 2), "S1111": (0, 1, 2, 3)}


def expand(struct, x, dim):
    """All points and weights from the packed unknowns x (each in (0,1))."""
    pts, wts, k = [], [], 0
    for kind in struct:
        npar = NPAR[kind]
        base = orbit_base(kind, x[k:k + npar])
        w = 2 * x[k + npar]  # weights in (0, 2): a single point has weight 1
        k += npar + 1
        labels = LABELS[kind]
        seen = set()  # distinct permutations by index pattern, not by value
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


def bary_monomials(dim, deg):
    """Exponents over all dim+1 barycentrics with total degree <= deg."""
    return np.array([e for e in itertools.product(range(deg + 1), repeat=dim + 1)
                     if sum(e) <= deg])


def exact_bary(e, dim):
    """Average of prod lam_i^e_i over the simplex: dim! prod e_i! / (|e| + dim)!."""
    return math.factorial(dim) * np.prod([math.factorial(k) for k in e]) / math.factorial(
        sum(e) + dim)


def residual_rel(x, struct, dim, mons, ex):
    """Relative moment errors over all barycentric monomials: mixed
    monomials have small moments, and an absolute criterion on the
    lam_1..lam_dim basis leaves them accurate to only ~1e-12."""
    pts, wts = expand(struct, x, dim)
    f = np.prod(pts[None, :, :] ** mons[:, None, :], axis=2)
    return (f @ wts - ex) / ex


def polish(struct, dim, deg, x):
    """Newton-type polishing on the relative residual; returns the max
    relative moment error and the polished unknowns."""
    mons = bary_monomials(dim, deg)
    ex = np.array([exact_bary(e, dim) for e in mons])
    sol = least_squares(residual_rel, x, args=(struct, dim, mons, ex), xtol=1e-15, ftol=1e-15,
                        gtol=1e-15, max_nfev=200, method="lm")
    return np.max(np.abs(residual_rel(sol.x, struct, dim, mons, ex))), sol.x


def solve(struct, dim, deg, seed, attempts=400):
    """Bounded least squares (every unknown in (0,1), so weights stay
    positive and points interior) from random starts; accept a residual
    below 2e-16 on every moment."""
    mons = np.array(monomials(dim, deg))
    ex = np.array([exact(e, dim) for e in mons])
    rng = np.random.default_rng(seed)
    npts = sum(SIZE[k] for k in struct)
    nx = sum(NPAR[k] + 1 for k in struct)
    for attempt in range(attempts):
        x = rng.uniform(0.05, 0.95, nx)
        k = 0
        for kind in struct:  # weights near the average
            k += NPAR[kind]
            x[k] = rng.uniform(0.15, 0.85) / npts
            k += 1
        try:
            sol = least_squares(residual, x, args=(struct, dim, mons, ex), bounds=(1e-9, 1 - 1e-9),
                                xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=600, method="trf")
        except ValueError:
            continue
        r = np.max(np.abs(residual(sol.x, struct, dim, mons, ex)))
        if r > 1e-13:
            continue
        rel, xp = polish(struct, dim, deg, sol.x)
        pts, wts = expand(struct, xp, dim)
        if rel < 1e-14 and np.all(wts > 0) and np.all(pts > 1e-8):
            return pts, wts, attempt
    return None


def conical_tet(deg):
    """Stroud's conical product rule (Gauss-Jacobi in collapsed coordinates,
    A. H. Stroud, Approximate Calculation of Multiple Integrals, 1971):
    n = ceil((deg+1)/2) points per direction, n^3 in all, exact to degree
    2n-1 >= deg, positive weights, interior points."""
    n = (deg + 2) // 2
    rules = []
    for alpha in (2, 1, 0):
        x, w = roots_jacobi(n, alpha, 0)
        rules.append(((x + 1) / 2, w / w.sum()))
    pts, wts = [], []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                a = rules[0][0][i]
                b = rules[1][0][j] * (1 - a)
                c = rules[2][0][k] * (1 - a - b)
                pts.append([1 - a - b - c, a, b, c])
                wts.append(rules[0][1][i] * rules[1][1][j] * rules[2][1][k])
    return np.array(pts), np.array(wts)


TRI = {1: [["S3"]], 2: [["S21"]], 3: [["S21", "S21"]], 4: [["S21", "S21"]], 5: [["S3", "S21", "S21"]],
       6: [["S21", "S21", "S111"]], 7: [["S21", "S21", "S21", "S111"]],
       8: [["S3", "S21", "S21", "S21", "S111"]]}
TET = {1: [["S4"]], 2: [["S31"]], 3: [["S22"], ["S31", "S31"]], 4: [["S4", "S31", "S22"], ["S31", "S31", "S22"]],
       5: [["S31", "S31", "S22"]], 6: [["S4", "S31", "S22", "S211"], ["S31", "S31", "S31", "S211"]],
       7: [["S4", "S31", "S31", "S31", "S22", "S211"], ["S4", "S31", "S31", "S22", "S211", "S211"]],
       8: [["conical"]]}


def main():
    only = sys.argv[1:]  # e.g. "tet8" to try one rule
    out = []
    for name, table, dim in (("tri", TRI, 2), ("tet", TET, 3)):
        for deg, structs in table.items():
            if only and f"{name}{deg}" not in only:
                continue
            for struct in structs:  # fewest points first
                if struct == ["conical"]:
                    # no positive symmetric structure converged here: Stroud
                    res = conical_tet(deg) + (0,)
                    break
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
