#!/usr/bin/env python3
"""Bistatic RCS of a sphere from emsolve (rcs_<f>GHz.csv) against the Mie
series, in plain Python (no numpy / scipy: it runs on the device machine).

    mie_compare.py OUTDIR KA [--eps EPS_R] [--radius A] [--plot PNG] [--label TEXT]

The sphere of radius A (metres, default 1) at the origin, a plane wave along
+z with E along x (Excitation/theta 0, polarization 0), PEC unless --eps.
Prints sigma / (pi a^2) against the series at every theta of the grid in the
cuts phi = 0 (E-plane) and 90 (H-plane), and the largest relative error;
--plot writes both cuts against the series (matplotlib, if present).

Series (Bohren and Huffman ch. 4; docs/farfield.md): x = k a, m = sqrt(eps_r),
psi_n(z) = z j_n(z), xi_n(z) = z h_n^(1)(z); PEC: a_n = psi_n'(x) / xi_n'(x),
b_n = psi_n(x) / xi_n(x); sigma = 4 pi / k^2 (|S2|^2 cos^2 phi +
|S1|^2 sin^2 phi).  j_n by downward recurrence (Miller), y_n upward."""
import csv
import glob
import math
import os
import sys


def sph_j(nmax, z):
    """j_0 .. j_nmax at real z > 0 (downward recurrence, normalised by j_0)."""
    start = nmax + int(2 * math.sqrt(nmax + z)) + 30
    j = [0.0] * (start + 2)
    j[start + 1], j[start] = 0.0, 1e-300
    for n in range(start, 0, -1):
        j[n - 1] = (2 * n + 1) / z * j[n] - j[n + 1]
        if abs(j[n - 1]) > 1e250:
            j = [v * 1e-250 for v in j]
    # normalise by j_0 or j_1, whichever is larger (j_0 vanishes at z = n pi)
    j0, j1 = math.sin(z) / z, math.sin(z) / z ** 2 - math.cos(z) / z
    s = j0 / j[0] if abs(j0) >= abs(j1) else j1 / j[1]
    return [v * s for v in j[: nmax + 1]]


def sph_y(nmax, z):
    y = [-math.cos(z) / z, -math.cos(z) / z ** 2 - math.sin(z) / z]
    for n in range(1, nmax):
        y.append((2 * n + 1) / z * y[n] - y[n - 1])
    return y[: nmax + 1]


def riccati(nmax, z):
    """psi_n, psi_n' (and xi_n, xi_n' with the Neumann part) for n = 1..nmax."""
    j, y = sph_j(nmax + 1, z), sph_y(nmax + 1, z)
    psi, dpsi, xi, dxi = [], [], [], []
    for n in range(1, nmax + 1):
        # (z f_n)' = z f_{n-1} - n f_n
        psi.append(z * j[n])
        dpsi.append(z * j[n - 1] - n * j[n])
        h, hm = complex(j[n], y[n]), complex(j[n - 1], y[n - 1])
        xi.append(z * h)
        dxi.append(z * hm - n * h)
    return psi, dpsi, xi, dxi


def coefficients(x, eps=None):
    nmax = int(x + 4 * x ** (1 / 3) + 8)
    psi, dpsi, xi, dxi = riccati(nmax, x)
    if eps is None:
        return [dpsi[i] / dxi[i] for i in range(nmax)], [psi[i] / xi[i] for i in range(nmax)]
    m = math.sqrt(eps)
    pm, dpm, _, _ = riccati(nmax, m * x)
    a = [(m * pm[i] * dpsi[i] - psi[i] * dpm[i]) / (m * pm[i] * dxi[i] - xi[i] * dpm[i])
         for i in range(nmax)]
    b = [(pm[i] * dpsi[i] - m * psi[i] * dpm[i]) / (pm[i] * dxi[i] - m * xi[i] * dpm[i])
         for i in range(nmax)]
    return a, b


def sigma_norm(a, b, x, theta, phi):
    """sigma / (pi a^2) at (theta, phi) for incidence along +z, E along x."""
    mu = math.cos(theta)
    pi = [0.0, 1.0]
    for n in range(2, len(a) + 1):
        pi.append((2 * n - 1) / (n - 1) * mu * pi[-1] - n / (n - 1) * pi[-2])
    s1 = s2 = 0
    for n in range(1, len(a) + 1):
        tau = n * mu * pi[n] - (n + 1) * pi[n - 1]
        c = (2 * n + 1) / (n * (n + 1))
        s1 += c * (a[n - 1] * pi[n] + b[n - 1] * tau)
        s2 += c * (a[n - 1] * tau + b[n - 1] * pi[n])
    return 4 / x ** 2 * (abs(s2) ** 2 * math.cos(phi) ** 2 + abs(s1) ** 2 * math.sin(phi) ** 2)


def compare(outdir, ka, eps=None, radius=1.0, quiet=False):
    """[(phi, theta, sigma/pi a^2, Mie, rel)] over the two cuts, and the worst |rel|."""
    files = glob.glob(os.path.join(outdir, "rcs_*.csv"))
    if len(files) != 1:
        raise SystemExit(f"{outdir}: expected one rcs_<f>GHz.csv, found {files}")
    rows = {}
    with open(files[0]) as fh:
        for r in csv.DictReader(ln for ln in fh if not ln.startswith("#")):
            rows[(float(r["theta_deg"]), float(r["phi_deg"]))] = float(r["sigma_m2"])
    a, b = coefficients(ka, eps)
    out, worst = [], 0.0
    for phi in (0.0, 90.0):
        for (th, ph), s in sorted(rows.items()):
            if ph != phi:
                continue
            ref = sigma_norm(a, b, ka, math.radians(th), math.radians(phi))
            got = s / (math.pi * radius ** 2)
            rel = got / ref - 1
            worst = max(worst, abs(rel))
            out.append((phi, th, got, ref, rel))
            if not quiet:
                print(f"phi {phi:4.0f} theta {th:5.1f}: {got:.6f}  Mie {ref:.6f}  {100 * rel:+.3f} %")
    if not quiet:
        print(f"largest error over both cuts: {100 * worst:.3f} %")
    return out, worst


def plot(results, ka, path, title):
    """Both cuts in dB against the series (top) and the relative error (bottom)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    fig, axes = plt.subplots(2, 2, figsize=(11, 6.5), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    for col, phi, name in ((0, 0.0, "E-plane (phi = 0)"), (1, 90.0, "H-plane (phi = 90)")):
        top, bot = axes[0][col], axes[1][col]
        for label, res in results:
            th = [r[1] for r in res if r[0] == phi]
            top.plot(th, [10 * math.log10(r[2]) for r in res if r[0] == phi], "o", ms=3, label=label)
            bot.plot(th, [100 * r[4] for r in res if r[0] == phi], "o-", ms=3, lw=0.8, label=label)
        ref = results[0][1]
        top.plot([r[1] for r in ref if r[0] == phi], [10 * math.log10(r[3]) for r in ref if r[0] == phi],
                 "k-", lw=1, label="Mie series")
        top.set_title(name)
        bot.set_xlabel("theta (deg)")
        for ax in (top, bot):
            ax.grid(alpha=0.3)
        bot.axhline(1, color="r", lw=0.6, ls="--")
        bot.axhline(-1, color="r", lw=0.6, ls="--")
    axes[0][0].set_ylabel("sigma / (pi a^2) (dB)")
    axes[1][0].set_ylabel("error vs Mie (%)")
    axes[0][1].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot written to {path}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    opts = {"--eps": None, "--radius": "1", "--plot": None, "--label": None}
    pos = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = args[i + 1]
            i += 2
        else:
            pos.append(args[i])
            i += 1
    eps = float(opts["--eps"]) if opts["--eps"] else None
    res, worst = compare(pos[0], float(pos[1]), eps, float(opts["--radius"]))
    if opts["--plot"]:
        plot([(opts["--label"] or pos[0], res)], float(pos[1]), opts["--plot"],
             f"sphere, k a = {float(pos[1]):.4g}" + (f", eps_r {eps:g}" if eps else ", PEC"))
