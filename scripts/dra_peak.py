#!/usr/bin/env python3
"""dra_peak.py - the Re Zin peak of a DRA sweep and |S11| there, from a fit.

Reads summary.json files (emsolve's, one sweep each, e.g. the 7 frequencies
5.60-5.90 GHz of scripts/device-accuracy-study.sh) and fits, by least
squares in x = (f - f_mid) / (f_stop - f_start), a polynomial of degree
DEG (default 4) to Re Zin, Im Zin, Re S11 and Im S11; the peak is the
maximum of the fitted Re Zin (a dense evaluation, then a parabola through
the three best points), |S11| the fitted complex S11 there.  Prints one row
per file: tag, tets, unknowns, f_peak, Re Zin, |S11| dB, the fit's largest
residual on Re Zin (ohm), the PML wall ratio at the peak's nearest sample
and the wall time of the run (summary time_s total).  Usage:
  dra_peak.py [--deg N] summary.json ...
"""
import json
import math
import os
import sys


def polyfit(x, y, deg):
    """Least-squares coefficients c[0..deg] of sum c_i x^i (normal equations,
    x scaled to [-0.5, 0.5] by the caller, so they are well conditioned)."""
    n = deg + 1
    a = [[sum(t ** (i + j) for t in x) for j in range(n)] + [sum(v * t ** i for t, v in zip(x, y))]
         for i in range(n)]
    for i in range(n):  # Gauss-Jordan with partial pivoting
        p = max(range(i, n), key=lambda r: abs(a[r][i]))
        a[i], a[p] = a[p], a[i]
        for r in range(n):
            if r != i:
                m = a[r][i] / a[i][i]
                a[r] = [u - m * w for u, w in zip(a[r], a[i])]
    return [a[i][n] / a[i][i] for i in range(n)]


def polyval(c, x):
    return sum(ci * x ** i for i, ci in enumerate(c))


def peak(path, deg):
    """(f_peak Hz, Re Zin ohm, |S11| dB, residual ohm, wall ratio, summary)"""
    d = json.load(open(path))
    fr = d["frequencies"]
    f = [x["f_hz"] for x in fr]
    z = [complex(*x["ports"][0]["Zin_ohm"]) for x in fr]
    s = [complex(*x["ports"][0]["S_row"][0]) for x in fr]
    fm, fw = 0.5 * (max(f) + min(f)), max(f) - min(f)
    x = [(v - fm) / fw for v in f]
    cr = polyfit(x, [v.real for v in z], deg)
    cs_r, cs_i = polyfit(x, [v.real for v in s], deg), polyfit(x, [v.imag for v in s], deg)
    xx = [-0.5 + i / 3000 for i in range(3001)]
    rr = [polyval(cr, t) for t in xx]
    k = min(max(max(range(len(rr)), key=lambda i: rr[i]), 1), len(xx) - 2)
    a, b, c = rr[k - 1], rr[k], rr[k + 1]  # parabola through the 3 best
    dx = xx[1] - xx[0]
    off = 0.5 * (a - c) / (a - 2 * b + c) if a - 2 * b + c != 0 else 0.0
    xp = xx[k] + off * dx
    rp = polyval(cr, xp)
    sp = complex(polyval(cs_r, xp), polyval(cs_i, xp))
    fp = fm + xp * fw
    res = max(abs(polyval(cr, t) - v.real) for t, v in zip(x, z))
    near = min(range(len(f)), key=lambda i: abs(f[i] - fp))
    wall = fr[near].get("pml_wall_ratio", float("nan"))
    return fp, rp, 20 * math.log10(abs(sp)), res, wall, d


def main():
    args = sys.argv[1:]
    deg = 4
    if args[:1] == ["--deg"]:
        deg, args = int(args[1]), args[2:]
    print("| run | tets | unknowns | f_peak (GHz) | Re Zin peak (ohm) | abs(S11) (dB) | fit res (ohm) | wall | time (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p in args:
        fp, rp, sdb, res, wall, d = peak(p, deg)
        tag = os.path.basename(p).replace(".json", "")
        print(f"| {tag} | {d['mesh']['tets']} | {d['dofs']['unknowns']} | {fp / 1e9:.4f} | {rp:.2f} | "
              f"{sdb:.2f} | {res:.3f} | {wall:.1e} | {d['time_s']['total']:.1f} |")


if __name__ == "__main__":
    main()
