#!/usr/bin/env python3
"""Plots of an emsolve output directory, as PNG and SVG files in OUTDIR/plots/.

    emplot.py OUTDIR            (what `emsolve --plot OUTDIR` runs)

From what the directory holds (docs/outputs.md):
  ports.csv          s11      |S_ii| in dB against frequency, the -10 dB line;
                              an adaptive sweep's full solves marked on its model
                     smith    S11 on a Smith chart at the Touchstone reference
                              (Output/touchstone_z0, 50 ohm), labelled grid,
                              frequency markers
                     zin      Re and Im of Zin in ohm against frequency
  antenna.csv        gain     directivity, gain, realized gain (dBi) and the
                              efficiencies (%) against frequency (a sweep)
                     sij      several ports: |S_ji| (coupling) against frequency
  array_<f>.csv      array_<f>      several ports: the embedded element patterns
                                    and the array pattern (realized gain, dBi)
                                    in the planes phi = 0 and 90 deg
  active.csv         active_<f>     several ports: |active reflection| of every
                                    port against the scan angle, planes phi = 0, 90
  farfield_<f>.csv   pattern_<f>    polar cuts phi = 0 and 90 deg against
                                    theta, co- and cross-polar (dBi)
                     cuts_<f>       the same cuts on rectangular axes
                     pattern3d_<f>  the 3D pattern (PNG only)
  rcs_<f>.csv        rcs_<f>        bistatic RCS (dBsm) in the planes
                                    phi = 0 and phi = 90 deg
  sweep.csv          sweep_s11          a design sweep: |S11| of every point
  sweep_summary.csv  sweep_resonance    first Re Zin peak and |S11| minimum
                                        against the first swept parameter
                                        that varies, in its unit
Every plot names the case (summary.json) and the frequency, and has units on
its axes.  One function per plot (plot_*); PLOTS lists them in order.
Needs Debian's python3-matplotlib (scripts/install-deps.sh).  Exit status:
0 plots written, 1 bad input, 2 nothing to plot, 3 matplotlib missing.
"""
import csv
import glob
import json
import math
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError:
    sys.stderr.write("emplot: matplotlib is missing (Debian: apt-get install python3-matplotlib)\n")
    sys.exit(3)

# reproducible SVG (no random ids, no date)
matplotlib.rcParams["svg.hashsalt"] = "emsolve"
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, smaller
META = {"svg": {"Date": None}, "png": {}}
DPI = 110
FLOOR_DB = 40  # dynamic range of the pattern plots


def fail(msg, code=1):
    sys.stderr.write(f"emplot: {msg}\n")
    sys.exit(code)


def read_table(path):
    """Rows of a CSV with '#' comment lines: (comments, [dict])."""
    with open(path, newline="") as fh:
        lines = fh.read().splitlines()
    comments = [l for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(l for l in lines if l and not l.startswith("#")))
    if not rows:
        fail(f"{path} has no rows")
    return comments, rows


def num(row, key, path):
    try:
        return float(row[key])
    except (KeyError, ValueError, TypeError):
        fail(f"{path}: column {key} missing or not a number ({row.get(key)!r})")


def freq_of(comments, path):
    for c in comments:
        m = re.search(r"f = ([0-9.eE+-]+) Hz", c)
        if m:
            return float(m.group(1))
    fail(f"{path}: no 'f = ... Hz' in its comment line")


def save(fig, outdir, name, exts=("png", "svg")):
    """Each format to a temporary name, then renamed."""
    for ext in exts:
        path = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(path + ".tmp", format=ext, dpi=DPI, metadata=META[ext])
        os.replace(path + ".tmp", path)
    plt.close(fig)
    return [f"{name}.{ext}" for ext in exts]


def freq_text(f):
    """A frequency with its unit: 5.75 GHz, 47.71 MHz."""
    for scale, unit in ((1e9, "GHz"), (1e6, "MHz"), (1e3, "kHz")):
        if f >= scale:
            return f"{f / scale:.4g} {unit}"
    return f"{f:.4g} Hz"


def finite(v):
    return v if math.isfinite(v) else float("nan")


class Run:
    """What the plots of one output directory share: the case's name, the
    Touchstone reference, an adaptive sweep's full solves, the units of the
    case's parameters."""

    def __init__(self, d):
        self.d = d
        self.case = os.path.basename(os.path.normpath(d))
        self.z0 = 50.0  # the Touchstone reference (Output/touchstone_z0)
        self.samples = []  # frequencies of an adaptive sweep's full solves
        self.adaptive = False
        self.params = {}
        summ = os.path.join(d, "summary.json")
        if not os.path.exists(summ):  # a design sweep: the case of its points
            summ = (sorted(glob.glob(os.path.join(d, "point_*", "summary.json"))) or [summ])[0]
        if os.path.exists(summ):
            try:
                with open(summ) as fh:
                    s = json.load(fh)
            except (OSError, ValueError) as e:
                fail(f"{summ}: {e}")
            self.case = s.get("case", {}).get("name", self.case)
            self.z0 = float(s.get("touchstone_z0_ohm") or 0.0)
            if self.z0 <= 0:  # 0: the Touchstone file holds S on each port's own impedance
                try:
                    self.z0 = float(s["frequencies"][-1]["ports"][0]["z_ref_ohm"])
                except (KeyError, IndexError, TypeError, ValueError):
                    self.z0 = 50.0
            self.params = s.get("parameters") or {}
            sw = s.get("sweep") or {}
            self.adaptive = sw.get("type") == "adaptive"
            self.samples = sorted(float(x["f_hz"]) for x in sw.get("samples") or [] if "f_hz" in x)

    def path(self, name):
        return os.path.join(self.d, name)

    def unit_of(self, name, units):
        """The unit of a case parameter: sweep.csv's units line, else the
        model unit for Geometry/ (Geometry/unit, mm by default)."""
        if name in units:
            return units[name]
        if name.startswith("Geometry/") and name != "Geometry/unit":
            u = float(self.params.get("Geometry/unit", 1e-3))
            return {1e-3: "mm", 1.0: "m", 1e-2: "cm", 1e-6: "um"}.get(u, f"{u:g} m")
        return ""


# ------------------------------------------------------------------ ports


def read_ports(run):
    """ports.csv: frequencies (Hz) and per port |S_ii| dB, S_ii, Zin."""
    path = run.path("ports.csv")
    _, rows = read_table(path)
    f = np.array([num(r, "f_Hz", path) for r in rows])
    ports = sorted({int(m.group(1)) for k in rows[0] for m in [re.match(r"Zin(\d+)_re", k)] if m})
    if not ports:
        fail(f"{path}: no Zin<p>_re_ohm column")
    unit = "_ohm" if f"Zin{ports[0]}_re_ohm" in rows[0] else ""
    out = {}
    for p in ports:
        key = f"S{p}{p}" if len(ports) < 10 else f"S{p}_{p}"
        db = np.array([num(r, key + "_dB", path) for r in rows])
        ph = np.radians([num(r, key + "_deg", path) for r in rows])
        z = np.array([complex(num(r, f"Zin{p}_re{unit}", path), num(r, f"Zin{p}_im{unit}", path))
                      for r in rows])
        out[p] = {"db": db, "s": 10 ** (db / 20) * np.exp(1j * ph), "z": z}
    return f, out


def span_text(f):
    return f"{f[0] * 1e-9:.4g}-{f[-1] * 1e-9:.4g} GHz" if len(f) > 1 else freq_text(f[0])


def solved_marks(run, f):
    """The frequencies to mark as solved: an adaptive sweep's full solves
    (its rows are the model's), else every row."""
    if run.adaptive and run.samples:
        return np.array(run.samples), "full solves", "model (adaptive sweep)"
    return f, "solved", None


def plot_s11(run, out):
    if not os.path.exists(run.path("ports.csv")):
        return []
    f, ports = read_ports(run)
    fg = f * 1e-9
    sf, slab, mlab = solved_marks(run, f)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for i, (p, v) in enumerate(ports.items()):
        c = f"C{i}"
        name = f"|S{p}{p}|"
        if mlab or len(f) > 60:
            ax.plot(fg, v["db"], color=c, lw=1.6, label=f"{name}, {mlab or 'solved'}")
        if mlab or len(f) <= 60:
            y = np.interp(sf, f, v["db"])
            ax.plot(sf * 1e-9, y, ls="-" if not mlab else "none", marker="o", ms=4.5, color=c,
                    mfc="white" if mlab else c, label=f"{name}, {slab}" if mlab else name)
        k = int(np.argmin(v["db"]))
        if 0 < k < len(f) - 1:
            ax.annotate(f"{v['db'][k]:.1f} dB at {fg[k]:.4g} GHz", (fg[k], v["db"][k]),
                        textcoords="offset points", xytext=(8, -4), fontsize=8, color=c)
    ax.axhline(-10, color="k", lw=0.8, ls="--")
    ax.text(fg[0], -10, " -10 dB", va="bottom", ha="left", fontsize=8)
    ax.set_xlabel("frequency (GHz)")
    ax.set_ylabel("reflection coefficient |S| (dB)")
    ax.set_title(f"{run.case}: reflection, {span_text(f)}\n"
                 f"S on the ports' own impedance (ports.csv)", fontsize=11)
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=8)
    return save(fig, out, "s11")



def plot_sij(run, out):
    """Several ports: every coupling |S_ji|, j > i (S_ji = S_ij for a
    reciprocal structure), against frequency."""
    path = run.path("ports.csv")
    if not os.path.exists(path):
        return []
    _, rows = read_table(path)
    f, ports = read_ports(run)
    p = sorted(ports)
    if len(p) < 2:
        return []
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for i in p:
        for j in p:
            if j <= i:
                continue
            key = f"S{j}{i}_dB" if len(p) < 10 else f"S{j}_{i}_dB"
            ax.plot(f * 1e-9, [num(r, key, path) for r in rows], marker="o", ms=3, label=f"|S{j}{i}|")
    ax.set_xlabel("frequency (GHz)")
    ax.set_ylabel("transmission |S_ji| (dB)")
    ax.set_title(f"{run.case}: coupling between the ports, {span_text(f)}", fontsize=11)
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=7, ncol=2)
    return save(fig, out, "sij")

def smith_grid(ax, z0):
    """Constant-resistance circles and reactance arcs, labelled in ohm at
    the reference z0 (and normalised)."""
    t = np.linspace(0, 2 * np.pi, 721)
    grid = dict(color="0.75", lw=0.6, zorder=0)
    ax.plot(np.cos(t), np.sin(t), color="k", lw=1.0, zorder=1)
    ax.plot([-1, 1], [0, 0], **grid)
    for r in (0.2, 0.5, 1, 2, 5):
        c, rad = r / (1 + r), 1 / (1 + r)
        ax.plot(c + rad * np.cos(t), rad * np.sin(t), **grid)
        x0 = (r - 1) / (r + 1)  # where the circle meets the real axis
        ax.text(x0 - 0.01, 0.015, f"{r:g}\n{r * z0:.4g}", fontsize=6.5, color="0.35",
                ha="right", va="bottom", linespacing=0.9)
    rr = np.concatenate(([0.0], np.geomspace(1e-3, 1e3, 800)))
    for x in (0.2, 0.5, 1, 2, 5):
        for s in (1, -1):
            g = (rr + 1j * s * x - 1) / (rr + 1j * s * x + 1)
            ax.plot(g.real, g.imag, **grid)
            e = (1j * s * x - 1) / (1j * s * x + 1)  # on the unit circle
            ax.text(1.07 * e.real, 1.07 * e.imag, f"{'+' if s > 0 else '-'}j{x:g}\n{x * z0:.4g}",
                    fontsize=6.5, color="0.35", ha="center", va="center", linespacing=0.9)
    ax.text(-1.16, 0, "0", fontsize=6.5, color="0.35", ha="center", va="center")
    ax.text(1.12, 0, "inf", fontsize=6.5, color="0.35", ha="center", va="center")
    ax.set_aspect("equal")
    ax.set_xlim(-1.22, 1.22)
    ax.set_ylim(-1.22, 1.22)
    ax.axis("off")


def plot_smith(run, out):
    if not os.path.exists(run.path("ports.csv")):
        return []
    f, ports = read_ports(run)
    z = ports[min(ports)]["z"]
    ok = np.isfinite(z)
    f, z = f[ok], z[ok]
    g = (z - run.z0) / (z + run.z0)  # at the Touchstone reference, not the port's own
    fig, ax = plt.subplots(figsize=(7, 7))
    smith_grid(ax, run.z0)
    sf, slab, mlab = solved_marks(run, f)
    ax.plot(g.real, g.imag, "-", color="C3", lw=1.6, label=f"S11, {mlab or 'solved'}")
    if mlab:  # an adaptive sweep's full solves on its model
        gz = (np.interp(sf, f, z.real) + 1j * np.interp(sf, f, z.imag) - run.z0)
        gz /= np.interp(sf, f, z.real) + 1j * np.interp(sf, f, z.imag) + run.z0
        ax.plot(gz.real, gz.imag, "o", ms=4.5, mfc="white", color="C3", label=f"S11, {slab}")
    elif len(f) <= 60:
        ax.plot(g.real, g.imag, "o", ms=3, color="C3")
    # frequency markers at round frequencies (Zin interpolated between the
    # rows), and the best match
    marks = [x for x in matplotlib.ticker.MaxNLocator(6).tick_values(f[0], f[-1])
             if f[0] <= x <= f[-1]] if len(f) > 1 else [f[0]]
    k = int(np.argmin(abs(g)))
    if all(abs(f[k] - x) > 0.03 * (f[-1] - f[0]) for x in marks):
        marks.append(f[k])
    for fm in marks:
        zm = np.interp(fm, f, z.real) + 1j * np.interp(fm, f, z.imag)
        gm = (zm - run.z0) / (zm + run.z0)
        ax.plot(gm.real, gm.imag, "D", ms=5, color="k", zorder=5)
        ax.annotate(freq_text(fm), (gm.real, gm.imag), textcoords="offset points",
                    xytext=(7, 5), fontsize=8, zorder=6,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8))
    ax.plot([], [], "D", ms=5, color="k", label="frequency markers")
    ax.legend(loc="lower left", fontsize=8, bbox_to_anchor=(-0.02, -0.04))
    ax.set_title(f"{run.case}: S11 on the Smith chart, {span_text(f)}\n"
                 f"reference Z0 = {run.z0:g} ohm (the Touchstone file's); grid: normalised "
                 f"and ohm", fontsize=10)
    return save(fig, out, "smith")


def plot_zin(run, out):
    if not os.path.exists(run.path("ports.csv")):
        return []
    f, ports = read_ports(run)
    fg = f * 1e-9
    sf, slab, mlab = solved_marks(run, f)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for i, (p, v) in enumerate(ports.items()):
        for part, ls, name in ((v["z"].real, "-", "Re"), (v["z"].imag, "--", "Im")):
            ax.plot(fg, part, ls=ls, color=f"C{2 * i + (name == 'Im')}", lw=1.5,
                    marker="o" if not mlab and len(f) <= 60 else None, ms=3,
                    label=f"{name} Zin{p}")
            if mlab:
                ax.plot(sf * 1e-9, np.interp(sf, f, part), "o", ms=4, mfc="white",
                        color=f"C{2 * i + (name == 'Im')}")
    if mlab:
        ax.plot([], [], "o", ms=4, mfc="white", color="0.3", label=slab)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("frequency (GHz)")
    ax.set_ylabel("input impedance (ohm)")
    ax.set_title(f"{run.case}: input impedance, {span_text(f)}")
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=8)
    return save(fig, out, "zin")


# ---------------------------------------------------------------- antenna


def plot_gain(run, out):
    path = run.path("antenna.csv")
    if not os.path.exists(path):
        return []
    _, rows = read_table(path)
    if len(rows) < 2:
        return []
    f = np.array([num(r, "f_Hz", path) for r in rows]) * 1e-9
    col = {k: np.array([finite(num(r, k, path)) for r in rows])
           for k in ("directivity_dBi", "gain_dBi", "realized_gain_dBi", "efficiency", "mismatch")}
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(7.5, 6.4), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 2]})
    # directivity wide and pale under gain: both visible where they agree
    ax.plot(f, col["directivity_dBi"], color="C0", lw=5, alpha=0.35, label="directivity D")
    ax.plot(f, col["gain_dBi"], color="C0", lw=1.4, ls="--", marker="o", ms=3,
            label="gain G = efficiency x D")
    ax.plot(f, col["realized_gain_dBi"], color="C3", lw=1.4, marker="s", ms=3,
            label="realized gain = (1 - |S11|^2) x G")
    dg = np.nanmax(np.abs(col["directivity_dBi"] - col["gain_dBi"]))
    ax.text(0.99, 0.03, f"D - G at most {dg:.2g} dB", transform=ax.transAxes, ha="right",
            fontsize=8, color="C0")
    ax.set_ylabel("at the beam maximum (dBi)")
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=8, loc="lower center")
    ax.set_title(f"{run.case}: directivity and gain, {f[0]:.4g}-{f[-1]:.4g} GHz")
    rad = 100 * col["efficiency"]
    tot = 100 * col["efficiency"] * col["mismatch"]
    ax2.plot(f, rad, color="C2", marker="^", ms=3, label="radiation efficiency")
    ax2.plot(f, tot, color="C1", marker="v", ms=3, ls="--",
             label="total efficiency (with mismatch)")
    # never magnify the noise of an efficiency near 100 %: 20 points at least
    lo = np.nanmin(np.concatenate((rad, tot)))
    ax2.set_ylim(min(80.0, 10 * math.floor(lo / 10)) if math.isfinite(lo) else 0, 102)
    ax2.set_ylabel("efficiency (%)")
    ax2.set_xlabel("frequency (GHz)")
    ax2.grid(True, alpha=0.4)
    ax2.legend(fontsize=8, loc="lower center")
    fig.tight_layout()
    return save(fig, out, "gain")


def copol_of(run, f):
    """The Ludwig-3 reference of frequency f (antenna.csv's copol), x or y."""
    path = run.path("antenna.csv")
    if os.path.exists(path):
        _, rows = read_table(path)
        best = min(rows, key=lambda r: abs(num(r, "f_Hz", path) - f))
        return best.get("copol", "x").strip() or "x"
    return "x"


def read_farfield(path):
    """farfield_<f>.csv as arrays on its grid: theta, phi (deg), and the
    co-, cross-polar and total values in dBi (realized gain where the
    accepted power is known, else directivity), and what they are."""
    comments, rows = read_table(path)
    f = freq_of(comments, path)
    th = np.array([num(r, "theta_deg", path) for r in rows])
    ph = np.array([num(r, "phi_deg", path) for r in rows])
    d = np.array([num(r, "directivity_dBi", path) for r in rows])
    gr = np.array([num(r, "realized_gain_dBi", path) for r in rows])
    co = np.array([num(r, "co_dBi", path) for r in rows])
    cx = np.array([num(r, "cross_dBi", path) for r in rows])
    # the Ludwig-3 parts are of the directivity: realized = D + (Gr - D), a constant
    ok = np.isfinite(gr) & np.isfinite(d)  # a null of the pattern is -inf in both
    off = gr[ok] - d[ok]
    if len(off):
        what, shift = "realized gain", float(np.median(off))
    else:
        what, shift = "directivity", 0.0
    return f, th, ph, co + shift, cx + shift, d + shift, what


def cut(th, ph, v, phi0):
    """The plane phi = phi0 as a function of the angle from +z: theta at
    phi0, -theta at phi0 + 180 (sorted, -180 .. 180)."""
    a = np.concatenate((th[np.isclose(ph, phi0)], -th[np.isclose(ph, (phi0 + 180) % 360)]))
    y = np.concatenate((v[np.isclose(ph, phi0)], v[np.isclose(ph, (phi0 + 180) % 360)]))
    a, idx = np.unique(a, return_index=True)
    return a, y[idx]


def plane_names(copol):
    """(phi, label) of the two principal cuts; the E-plane contains the
    co-polar direction (Ludwig 3: x -> phi = 0)."""
    e = 0.0 if copol == "x" else 90.0
    return [(0.0, f"phi = 0 deg (xz plane, {'E' if e == 0 else 'H'}-plane)"),
            (90.0, f"phi = 90 deg (yz plane, {'E' if e == 90 else 'H'}-plane)")]


def pattern_range(*vals):
    top = max(np.nanmax(np.where(np.isfinite(v), v, np.nan)) for v in vals)
    top = 5 * math.ceil(top / 5)
    return top - FLOOR_DB, top


def rlabel_angle(curves, ticks, floor, top):
    """Where the ring labels collide least with the traces: the direction
    (deg from +z, clockwise) along which the labels' boxes (upright text,
    about 0.22 x 0.07 of the radius) cover the fewest points of the traces
    (resampled every degree); ties go to the lower half, where patterns are
    weakest."""
    pts = []
    for a, y in curves:
        ai = np.arange(a.min(), a.max() + 0.5, 1.0)
        yi = np.interp(ai, a, np.where(np.isfinite(y), y, floor))
        rr = np.clip((yi - floor) / (top - floor), 0, 1)
        pts.append((rr * np.sin(np.radians(ai)), rr * np.cos(np.radians(ai))))
    px = np.concatenate([p[0] for p in pts])
    py = np.concatenate([p[1] for p in pts])
    best, where = None, 180.0
    for cand in np.arange(7.5, 360, 7.5):
        if cand % 30 == 0:  # the theta grid's own labels sit at the rim there
            continue
        c = math.radians(cand)
        hits = 0
        for t in ticks:
            rf = (t - floor) / (top - floor)
            cx, cy = rf * math.sin(c), rf * math.cos(c)
            hits += int(np.sum((np.abs(px - cx) < 0.12) & (np.abs(py - cy) < 0.045)))
        score = hits + (0 if 95 < cand < 265 else 0.5)
        if best is None or score < best:
            best, where = score, cand
    return where


def polar_cut(ax, a, co, cx, floor, top, title, half):
    ax.set_theta_zero_location("N")
    ax.set_theta_direction(-1)
    ax.plot(np.radians(a), np.clip(co, floor, None), color="C0", lw=1.6, label="co-polar")
    low = "" if np.any(np.asarray(cx) > floor) else f" (below {floor:g} dBi)"
    ax.plot(np.radians(a), np.clip(cx, floor, None), color="C3", lw=1.2, ls="--",
            label=f"cross-polar{low}")
    ax.set_ylim(floor, top)
    ticks = list(range(int(floor) + 10, int(top) + 1, 10))  # not the floor: the centre
    ax.set_yticks(ticks)
    ax.set_yticklabels([])
    # the ring labels centred on the radial line where they meet the traces least
    at = math.radians(rlabel_angle([(a, co), (a, cx)], ticks, floor, top))
    for t in ticks:
        ax.text(at, t, f"{t} dBi", fontsize=7, ha="center", va="center", color="0.2", zorder=4,
                bbox=dict(boxstyle="round,pad=0.12", fc="white", ec="none", alpha=0.85))
    if half:
        ax.set_thetamin(-90)
        ax.set_thetamax(90)
        grid = range(-90, 91, 30)
    else:
        grid = range(-150, 181, 30)
    ax.set_thetagrids([g % 360 for g in grid], [f"{g}" for g in grid], fontsize=8)
    ax.set_title(title, fontsize=9, pad=14)


def plot_pattern(run, path, out, tag):
    """Polar E- and H-plane cuts (phi = 0, 90) against theta: co- and
    cross-polar (Ludwig 3) realized gain in dBi."""
    f, th, ph, co, cx, tot, what = read_farfield(path)
    half = th.max() <= 90 + 1e-9  # an infinite ground: the upper half space
    floor, top = pattern_range(co, cx)
    fig = plt.figure(figsize=(11.5, 6.2))
    for k, (phi0, lab) in enumerate(plane_names(copol_of(run, f))):
        ax = fig.add_subplot(1, 2, k + 1, projection="polar")
        a, yco = cut(th, ph, co, phi0)
        _, ycx = cut(th, ph, cx, phi0)
        polar_cut(ax, a, yco, ycx, floor, top, lab, half)
        ax.legend(loc="lower left", bbox_to_anchor=(-0.14, -0.14), fontsize=7.5)
    fig.suptitle(f"{run.case}: {what} (dBi) at {freq_text(f)}, co- and cross-polar "
                 f"(Ludwig 3, {copol_of(run, f)} reference)", fontsize=11)
    fig.text(0.5, 0.03, "angle: theta in deg from +z; negative: theta in the plane's other half "
             "(phi + 180)", ha="center", fontsize=8.5, color="0.3")
    return save(fig, out, f"pattern_{tag}")


def plot_cuts(run, path, out, tag):
    """The same cuts on rectangular axes: theta -180 .. 180 deg."""
    f, th, ph, co, cx, tot, what = read_farfield(path)
    floor, top = pattern_range(co, cx)
    fig, ax = plt.subplots(figsize=(8, 5.6))
    for k, (phi0, lab) in enumerate(plane_names(copol_of(run, f))):
        a, yco = cut(th, ph, co, phi0)
        _, ycx = cut(th, ph, cx, phi0)
        below = lambda y: " (below the axis)" if not np.any(np.asarray(y) > floor) else ""
        ax.plot(a, np.clip(yco, floor, None), color=f"C{k}", lw=1.6,
                label=f"{lab}, co-polar{below(yco)}")
        ax.plot(a, np.clip(ycx, floor, None), color=f"C{k}", lw=1.1, ls="--",
                label=f"{lab}, cross-polar{below(ycx)}")
    half = th.max() <= 90 + 1e-9
    ax.set_xlim(-90 if half else -180, 90 if half else 180)
    ax.set_xticks(range(-90 if half else -180, (90 if half else 180) + 1, 30))
    ax.set_ylim(floor, top + 2)
    ax.set_xlabel("theta (deg from +z; negative: phi + 180)")
    ax.set_ylabel(f"{what} (dBi)")
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=7.5, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    ax.set_title(f"{run.case}: {what} cuts at {freq_text(f)} (Ludwig 3)")
    fig.tight_layout()
    return save(fig, out, f"cuts_{tag}")


def plot_pattern3d(run, path, out, tag):
    """The total pattern as a surface: radius = the field's amplitude
    relative to the maximum (linear), colour = dBi (PNG only: a vector
    file of it is large)."""
    from mpl_toolkits.mplot3d import Axes3D  # noqa: F401  (registers the projection)

    f, th, ph, co, cx, tot, what = read_farfield(path)
    ts, ps = np.unique(th), np.unique(ph)
    if len(ts) < 3 or len(ps) < 3:
        return []
    v = np.full((len(ts), len(ps)), np.nan)
    v[np.searchsorted(ts, th), np.searchsorted(ps, ph)] = tot
    v = np.concatenate((v, v[:, :1]), axis=1)  # closed in phi
    pc = np.radians(np.concatenate((ps, [360.0])))
    T, P = np.meshgrid(np.radians(ts), pc, indexing="ij")
    floor, top = pattern_range(tot)
    floor = top - 30  # colour range: the main lobes' detail
    vmax = np.nanmax(v)
    vv = np.nan_to_num(v, nan=floor)
    r = 10 ** ((vv - vmax) / 20)
    x, y, z = r * np.sin(T) * np.cos(P), r * np.sin(T) * np.sin(P), r * np.cos(T)
    fig = plt.figure(figsize=(7.5, 6.5))
    ax = fig.add_subplot(projection="3d")
    fig.subplots_adjust(left=0, right=0.92, bottom=0, top=0.88)
    norm = matplotlib.colors.Normalize(floor, top)
    ax.plot_surface(x, y, z, facecolors=plt.cm.viridis(norm(np.clip(vv, floor, top))), rstride=1,
                    cstride=1, linewidth=0.15, edgecolor=(0, 0, 0, 0.2), antialiased=True,
                    shade=False)
    lim = 1.0
    for setl in (ax.set_xlim, ax.set_ylim, ax.set_zlim):
        setl(-lim, lim)
    ax.set_box_aspect((1, 1, 1), zoom=1.3)
    ax.set_axis_off()
    for d, lab in ((0, "x"), (1, "y"), (2, "z")):
        e = np.zeros(3)
        e[d] = 1.2 * lim
        ax.plot([0, e[0]], [0, e[1]], [0, e[2]], color="0.25", lw=0.9, ls="--", zorder=10)
        ax.text(*(1.08 * e), lab, fontsize=11, fontweight="bold")
    ax.view_init(elev=20, azim=-60)
    sm = plt.cm.ScalarMappable(norm=norm, cmap="viridis")
    cb = fig.colorbar(sm, ax=ax, shrink=0.65, pad=0.04)
    cb.set_label(f"{what} (dBi)")
    fig.suptitle(f"{run.case}: 3D {what} at {freq_text(f)}, maximum {vmax:.2f} dBi\n"
                 f"radius: field amplitude relative to the maximum (linear); colour: dBi",
                 fontsize=10)
    return save(fig, out, f"pattern3d_{tag}", exts=("png",))


def plot_rcs(run, path, out, tag):
    comments, rows = read_table(path)
    f = freq_of(comments, path)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for phi0, ls in ((0.0, "-"), (90.0, "--")):
        pts = []
        for r in rows:
            th, ph, s = num(r, "theta_deg", path), num(r, "phi_deg", path), num(r, "sigma_dBsm", path)
            if abs(ph - phi0) < 1e-9:
                pts.append((th, s))
            elif abs(ph - phi0 - 180) < 1e-9 and 0 < th < 180:
                pts.append((-th, s))
        if len(pts) < 2:
            continue
        pts.sort()
        ax.plot([p[0] for p in pts], [finite(p[1]) for p in pts], ls=ls, label=f"phi = {phi0:g} deg plane")
    ax.set_xlabel("theta (deg from +z; negative: phi + 180)")
    ax.set_ylabel("bistatic RCS (dBsm)")
    ax.set_xlim(-180, 180)
    ax.set_xticks(range(-180, 181, 45))
    ax.grid(True, alpha=0.4)
    ax.legend()
    ax.set_title(f"{run.case}: bistatic RCS at {freq_text(f)}")
    return save(fig, out, f"rcs_{tag}")


def plot_array(run, path, out, tag):
    """array_<f>.csv: every port's embedded pattern and the array's in the
    planes phi = 0 and 90 deg (realized gain, dBi)."""
    comments, rows = read_table(path)
    f = freq_of(comments, path)
    ports = sorted({int(m.group(1)) for k in rows[0] for m in [re.match(r"G(\d+)_dBi", k)] if m})
    has_array = "array_dBi" in rows[0]
    th = np.array([num(r, "theta_deg", path) for r in rows])
    ph = np.array([num(r, "phi_deg", path) for r in rows])
    keys = [f"G{p}_dBi" for p in ports] + (["array_dBi"] if has_array else [])
    val = {k: np.array([finite(num(r, k, path)) for r in rows]) for k in keys}
    top = math.ceil(max(np.nanmax(v) for v in val.values()) / 5) * 5
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for ax, phi0 in zip(axes, (0.0, 90.0)):
        for p in ports:
            a, y = cut(th, ph, val[f"G{p}_dBi"], phi0)
            ax.plot(a, y, lw=1, alpha=0.8, label=f"port {p} embedded")
        if has_array:
            a, y = cut(th, ph, val["array_dBi"], phi0)
            ax.plot(a, y, "k", lw=2.2, label="array")
        ax.set_xlabel(f"theta (deg) in the plane phi = {phi0:g} deg (negative: phi + 180)")
        ax.set_xlim(-180, 180)
        ax.set_xticks(range(-180, 181, 45))
        ax.set_ylim(top - 40, top)
        ax.grid(True, alpha=0.4)
    axes[0].set_ylabel("realized gain (dBi)")
    axes[1].legend(fontsize=7, loc="lower center")
    weights = next((c.split("array: ", 1)[1] for c in comments if "array: " in c), "")
    fig.suptitle(f"{run.case}: embedded element and array patterns at {freq_text(f)}" +
                 (f"\n{weights}" if weights else ""), fontsize=10)
    return save(fig, out, f"array_{tag}")


def plot_active(run, out):
    """active.csv: |Gamma_i| of every port against the scan angle, one plot
    per frequency, the planes phi = 0 and 90 deg side by side."""
    path = run.path("active.csv")
    if not os.path.exists(path):
        return []
    _, rows = read_table(path)
    ports = sorted({int(m.group(1)) for k in rows[0] for m in [re.match(r"Gamma(\d+)_dB", k)] if m})
    written = []
    for fhz in sorted({num(r, "f_Hz", path) for r in rows}):
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
        for ax, phi0 in zip(axes, (0.0, 90.0)):
            sel = [r for r in rows if num(r, "f_Hz", path) == fhz and num(r, "plane_phi_deg", path) == phi0]
            th = [num(r, "scan_theta_deg", path) for r in sel]
            for p in ports:
                ax.plot(th, [finite(num(r, f"Gamma{p}_dB", path)) for r in sel], marker="o", ms=2,
                        label=f"port {p}")
            ax.axhline(-10, color="k", lw=0.6, ls=":")
            ax.set_xlabel(f"scan theta (deg) in the plane phi = {phi0:g} deg")
            ax.set_xlim(-90, 90)
            ax.set_xticks(range(-90, 91, 30))
            ax.grid(True, alpha=0.4)
        axes[0].set_ylabel("|active reflection| (dB)")
        axes[1].legend(fontsize=7)
        fig.suptitle(f"{run.case}: active reflection against scan angle at {freq_text(fhz)}",
                     fontsize=10)
        written += save(fig, out, f"active_{fhz * 1e-9:.9g}GHz")
    return written


# ------------------------------------------------------------ design sweep

SWEEP_FIXED = ("point", "f_Hz", "S11_dB", "S11_deg", "Zin_re_ohm", "Zin_im_ohm")


def sweep_units(comments):
    """sweep.csv's '# units: NAME UNIT; ...' line (emsolve writes it)."""
    units = {}
    for c in comments:
        m = re.match(r"#\s*units:\s*(.*)", c)
        if m:
            for item in m.group(1).split(";"):
                parts = item.strip().split(" ", 1)
                if parts and parts[0]:
                    units[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return units


def value_label(name, v, unit):
    return f"{name.split('/')[-1]} {v}{' ' + unit if unit and unit != '1' else ''}"


def read_sweep(run):
    path = run.path("sweep.csv")
    with open(path, newline="") as fh:
        lines = fh.read().splitlines()
    comments = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if l and not l.startswith("#")]
    head = next(csv.reader(body[:1])) if body else []
    names = [c for c in head if c not in SWEEP_FIXED]
    return names, list(csv.DictReader(body)), sweep_units(comments)


def plot_sweep_s11(run, out):
    if not os.path.exists(run.path("sweep.csv")):
        return []
    names, rows, units = read_sweep(run)
    if not rows:
        return []
    path = run.path("sweep.csv")
    fig, ax = plt.subplots(figsize=(8, 4.8))
    pts = sorted({int(r["point"]) for r in rows})
    for k in pts:
        rk = [r for r in rows if int(r["point"]) == k]
        lab = ", ".join(value_label(n, rk[0][n], run.unit_of(n, units)) for n in names)
        ax.plot([num(r, "f_Hz", path) * 1e-9 for r in rk], [num(r, "S11_dB", path) for r in rk],
                marker="o" if len(rk) <= 60 else None, ms=3, label=lab)
    ax.axhline(-10, color="k", lw=0.8, ls="--")
    ax.set_xlabel("frequency (GHz)")
    ax.set_ylabel("|S11| (dB)")
    ax.set_title(f"{run.case}: design sweep, |S11| of {len(pts)} points")
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=7)
    return save(fig, out, "sweep_s11")


def plot_sweep_resonance(run, out):
    spath = run.path("sweep_summary.csv")
    if not os.path.exists(run.path("sweep.csv")) or not os.path.exists(spath):
        return []
    names, _, units = read_sweep(run)
    _, srows = read_table(spath)
    ok = [r for r in srows if r.get("status") == "ok" and (r.get("f_res_Hz") or r.get("f_s11min_Hz"))]
    varying = [n for n in names if len({r[n] for r in srows}) > 1]
    if not ok or not varying:
        return []
    x = varying[0]
    others = [n for n in names if n != x]
    groups = {}
    for r in ok:
        groups.setdefault(tuple(r[n] for n in others), []).append(r)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for i, (key, rs) in enumerate(sorted(groups.items())):
        rs.sort(key=lambda r: float(r[x]))
        lab = ", ".join(value_label(n, v, run.unit_of(n, units)) for n, v in zip(others, key))
        for col, mk, ls, what in (("f_res_Hz", "o", "-", "Re Zin peak"), ("f_s11min_Hz", "s", "--", "|S11| min")):
            xy = [(float(r[x]), float(r[col]) * 1e-9) for r in rs if r.get(col)]
            if xy:
                ax.plot([p[0] for p in xy], [p[1] for p in xy], marker=mk, ls=ls, color=f"C{i}",
                        label=f"{what}{', ' + lab if lab else ''}")
    unit = run.unit_of(x, units)
    ax.set_xlabel(f"{x} ({unit})" if unit and unit != "1" else f"{x} (no unit)")
    ax.set_ylabel("resonance frequency (GHz)")
    ax.set_title(f"{run.case}: first resonance against {x.split('/')[-1]}")
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=7)
    return save(fig, out, "sweep_resonance")


# ------------------------------------------------------------------- main


def per_frequency(prefix, fn):
    """A plot per <prefix>_<f>.csv of the directory."""
    def each(run, out):
        written = []
        def ghz(p):
            m = re.search(r"_([0-9.]+)GHz\.csv$", p)
            return (float(m.group(1)) if m else math.inf, p)

        for p in sorted(glob.glob(run.path(f"{prefix}_*.csv")), key=ghz):
            tag = os.path.splitext(os.path.basename(p))[0][len(prefix) + 1:]
            written += fn(run, p, out, tag)
        return written
    return each


# in the order they are written; one function per plot (each returns the
# files it wrote, [] when the directory has nothing for it)
PLOTS = [
    plot_s11,
    plot_smith,
    plot_zin,
    plot_gain,
    per_frequency("farfield", plot_pattern),
    per_frequency("farfield", plot_cuts),
    per_frequency("farfield", plot_pattern3d),
    per_frequency("rcs", plot_rcs),
    plot_sij,
    per_frequency("array", plot_array),
    plot_active,
    plot_sweep_s11,
    plot_sweep_resonance,
]


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 1
    d = argv[1]
    if not os.path.isdir(d):
        fail(f"{d} is not a directory")
    run = Run(d)
    out = os.path.join(d, "plots")
    os.makedirs(out, exist_ok=True)
    written = []
    for plot in PLOTS:
        written += plot(run, out)
    if not written:
        fail(f"nothing to plot in {d} (no ports.csv, antenna.csv, farfield_*.csv, rcs_*.csv, "
             f"array_*.csv, active.csv, sweep.csv)", 2)
    print(f"emplot: {len(written)} files in {out}/: {' '.join(written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
