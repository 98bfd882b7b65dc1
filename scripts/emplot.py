#!/usr/bin/env python3
"""Plots of an emsolve output directory, as PNG and SVG files in OUTDIR/plots/.

    emplot.py OUTDIR            (what `emsolve --plot OUTDIR` runs)

From what the directory holds (docs/outputs.md):
  ports.csv          s11.{png,svg}    |S11| in dB against frequency
                     smith.{png,svg}  S11 on a Smith chart (normalised to z_ref)
                     zin.{png,svg}    Re and Im of Zin in ohm against frequency
  antenna.csv        gain.{png,svg}   directivity, gain, realized gain (dBi)
                                      and efficiency against frequency
  pattern_<n>.csv    pattern_<n>.{png,svg}  E- and H-plane polar patterns (dBi)
  rcs_<n>.csv        rcs_<n>.{png,svg}      bistatic RCS (dBsm) in the planes
                                            phi = 0 and phi = 90 deg
                     sij.{png,svg}    several ports: |S_ji| (coupling) against frequency
  array_<n>.csv      array_<n>.{png,svg}    several ports: the embedded element
                                            patterns and the array pattern
                                            (realized gain, dBi) in the planes
                                            phi = 0 and 90 deg
  active.csv         active_<n>.{png,svg}   several ports: |active reflection|
                                            of every port against the scan angle
                                            in the planes phi = 0 and 90 deg
  sweep.csv          sweep_s11.{png,svg}    a design sweep: |S11| of every point
  sweep_summary.csv  sweep_resonance.{png,svg}  first Re Zin peak and |S11|
                                            minimum against the first swept
                                            parameter that varies
Every plot names the case (summary.json) and the frequency, and has units.
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
except ImportError:
    sys.stderr.write("emplot: matplotlib is missing (Debian: apt-get install python3-matplotlib)\n")
    sys.exit(3)

# reproducible SVG (no random ids, no date)
matplotlib.rcParams["svg.hashsalt"] = "emsolve"
META = {"svg": {"Date": None}, "png": {}}


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
    except (KeyError, ValueError):
        fail(f"{path}: column {key} missing or not a number ({row.get(key)!r})")


def freq_of(comments, path):
    for c in comments:
        m = re.search(r"f = ([0-9.eE+-]+) Hz", c)
        if m:
            return float(m.group(1))
    fail(f"{path}: no 'f = ... Hz' in its comment line")


def save(fig, outdir, name):
    for ext in ("png", "svg"):
        path = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(path + ".tmp", format=ext, dpi=120, metadata=META[ext])
        os.replace(path + ".tmp", path)
    plt.close(fig)
    return [f"{name}.png", f"{name}.svg"]


def ghz(f):
    return f * 1e-9


def freq_text(f):
    """A frequency with its unit: 5.75 GHz, 47.71 MHz."""
    for scale, unit in ((1e9, "GHz"), (1e6, "MHz"), (1e3, "kHz")):
        if f >= scale:
            return f"{f / scale:.4g} {unit}"
    return f"{f:.4g} Hz"


def plot_ports(d, case, zref, out):
    path = os.path.join(d, "ports.csv")
    _, rows = read_table(path)
    f = [ghz(num(r, "f_Hz", path)) for r in rows]
    ports = sorted({int(m.group(1)) for k in rows[0] for m in [re.match(r"Zin(\d+)_re", k)] if m})
    # Zin columns: Zin<p>_re_ohm (Zin<p>_re before the units were named)
    unit = "_ohm" if rows and f"Zin{ports[0]}_re_ohm" in rows[0] else "" if ports else ""
    written = []
    span = f"{f[0]:.4g}-{f[-1]:.4g} GHz" if len(f) > 1 else f"{f[0]:.4g} GHz"
    # |S_ii|
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for p in ports:
        key = f"S{p}{p}_dB" if len(ports) < 10 else f"S{p}_{p}_dB"
        ax.plot(f, [num(r, key, path) for r in rows], marker="o", ms=3, label=f"|S{p}{p}|")
    ax.set_xlabel("frequency (GHz)")
    ax.set_ylabel("reflection (dB)")
    ax.set_title(f"{case}: reflection coefficient, {span}")
    ax.grid(True, alpha=0.4)
    ax.legend()
    written += save(fig, out, "s11")
    if len(ports) >= 2:  # coupling: every S_ji, j != i (S_ji = S_ij for reciprocal structures)
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for i in ports:
            for j in ports:
                if j <= i:
                    continue
                key = f"S{j}{i}_dB" if len(ports) < 10 else f"S{j}_{i}_dB"
                ax.plot(f, [num(r, key, path) for r in rows], marker="o", ms=3, label=f"|S{j}{i}|")
        ax.set_xlabel("frequency (GHz)")
        ax.set_ylabel("transmission (dB)")
        ax.set_title(f"{case}: coupling between the ports, {span}")
        ax.grid(True, alpha=0.4)
        ax.legend(fontsize=7, ncol=2)
        written += save(fig, out, "sij")
    # Smith chart of port 1
    key = "S11" if len(ports) < 10 else "S1_1"
    gam = [10 ** (num(r, key + "_dB", path) / 20) * complex(math.cos(math.radians(num(r, key + "_deg", path))),
                                                          math.sin(math.radians(num(r, key + "_deg", path))))
           for r in rows]
    fig, ax = plt.subplots(figsize=(6, 6))
    smith_grid(ax)
    ax.plot([g.real for g in gam], [g.imag for g in gam], "-o", ms=3, color="C3", label="S11")
    for i in {0, len(gam) - 1}:
        ax.annotate(f"{f[i]:.4g} GHz", (gam[i].real, gam[i].imag), textcoords="offset points",
                    xytext=(6, 6), fontsize=8)
    ax.set_title(f"{case}: S11 on the Smith chart (Z0 = {zref:.4g} ohm), {span}")
    written += save(fig, out, "smith")
    # Zin
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for p in ports:
        ax.plot(f, [num(r, f"Zin{p}_re{unit}", path) for r in rows], marker="o", ms=3, label=f"Re Zin{p}")
        ax.plot(f, [num(r, f"Zin{p}_im{unit}", path) for r in rows], marker="s", ms=3, ls="--",
                label=f"Im Zin{p}")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("frequency (GHz)")
    ax.set_ylabel("input impedance (ohm)")
    ax.set_title(f"{case}: input impedance, {span}")
    ax.grid(True, alpha=0.4)
    ax.legend()
    written += save(fig, out, "zin")
    return written


def smith_grid(ax):
    t = [2 * math.pi * i / 360 for i in range(361)]
    ax.plot([math.cos(a) for a in t], [math.sin(a) for a in t], color="k", lw=1)
    for r in (0.2, 0.5, 1, 2, 5):  # constant resistance circles
        c, rad = r / (1 + r), 1 / (1 + r)
        ax.plot([c + rad * math.cos(a) for a in t], [rad * math.sin(a) for a in t], color="0.7", lw=0.6)
        ax.text(c - rad, 0.02, f"{r:g}", fontsize=7, color="0.4")
    for x in (0.2, 0.5, 1, 2, 5):  # constant reactance arcs, inside the unit circle
        for s in (1, -1):
            pts = []
            for i in range(2001):
                rr = 50 * (i / 2000) ** 3
                z = complex(rr, s * x)
                g = (z - 1) / (z + 1)
                pts.append(g)
            ax.plot([g.real for g in pts], [g.imag for g in pts], color="0.7", lw=0.6)
    ax.plot([-1, 1], [0, 0], color="0.7", lw=0.6)
    ax.set_aspect("equal")
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("Re S11")
    ax.set_ylabel("Im S11")


def plot_gain(d, case, out):
    path = os.path.join(d, "antenna.csv")
    _, rows = read_table(path)
    if len(rows) < 2:
        return []
    f = [ghz(num(r, "f_Hz", path)) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, lab in (("directivity_dBi", "directivity"), ("gain_dBi", "gain"),
                     ("realized_gain_dBi", "realized gain")):
        ax.plot(f, [num(r, key, path) for r in rows], marker="o", ms=3, label=lab)
    ax.set_xlabel("frequency (GHz)")
    ax.set_ylabel("at the maximum (dBi)")
    ax.grid(True, alpha=0.4)
    ax2 = ax.twinx()
    ax2.plot(f, [100 * num(r, "efficiency", path) for r in rows], "k:", marker="^", ms=3,
             label="radiation efficiency")
    ax2.set_ylabel("radiation efficiency (%)")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="lower center")
    ax.set_title(f"{case}: gain, {f[0]:.4g}-{f[-1]:.4g} GHz")
    return save(fig, out, "gain")


def finite(v):
    return v if math.isfinite(v) else float("nan")


def plot_pattern(path, case, out, name):
    comments, rows = read_table(path)
    f = freq_of(comments, path)
    a = [math.radians(num(r, "angle_deg", path)) for r in rows]
    use_g = all(math.isfinite(num(r, "Eplane_realized_gain_dBi", path)) for r in rows)
    what = "realized_gain" if use_g else "directivity"
    e = [finite(num(r, f"Eplane_{what}_dBi", path)) for r in rows]
    h = [finite(num(r, f"Hplane_{what}_dBi", path)) for r in rows]
    top = max(v for v in e + h if math.isfinite(v))
    top = math.ceil(top / 5) * 5
    floor = top - 40
    fig = plt.figure(figsize=(6.5, 6.5))
    ax = fig.add_subplot(projection="polar")
    ax.set_theta_zero_location("N")
    ax.set_theta_direction(-1)
    ax.plot(a, [max(v, floor) for v in e], label="E-plane")
    ax.plot(a, [max(v, floor) for v in h], ls="--", label="H-plane")
    ax.set_ylim(floor, top)
    ax.set_rlabel_position(135)
    ax.set_yticks(list(range(int(floor), int(top) + 1, 10)))
    ax.set_yticklabels([f"{v} dBi" for v in range(int(floor), int(top) + 1, 10)], fontsize=8)
    ax.legend(loc="lower left", bbox_to_anchor=(-0.1, -0.1))
    label = "realized gain" if use_g else "directivity"
    ax.set_title(f"{case}: {label} (dBi) at {freq_text(f)}\nangle from the maximum", fontsize=11)
    return save(fig, out, name)


def plot_rcs(path, case, out, name):
    comments, rows = read_table(path)
    f = freq_of(comments, path)
    fig, ax = plt.subplots(figsize=(7, 4.5))
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
    ax.set_xlabel("theta (deg; negative: phi + 180)")
    ax.set_ylabel("bistatic RCS (dBsm)")
    ax.set_xlim(-180, 180)
    ax.set_xticks(range(-180, 181, 45))
    ax.grid(True, alpha=0.4)
    ax.legend()
    ax.set_title(f"{case}: bistatic RCS at {freq_text(f)}")
    return save(fig, out, name)


def cut(rows, path, key, phi0):
    """(theta, value) along the plane phi = phi0 of a (theta, phi) grid table,
    theta in -180..180 (negative: phi0 + 180)."""
    pts = []
    for r in rows:
        th, ph, v = num(r, "theta_deg", path), num(r, "phi_deg", path), num(r, key, path)
        if abs(ph - phi0) < 1e-9:
            pts.append((th, finite(v)))
        elif abs(ph - phi0 - 180) < 1e-9 and 0 < th < 180:
            pts.append((-th, finite(v)))
    return sorted(pts)


def plot_array(path, case, out, name):
    """array_<f>.csv: every port's embedded pattern and the array's in the
    planes phi = 0 and 90 deg."""
    comments, rows = read_table(path)
    f = freq_of(comments, path)
    ports = sorted({int(m.group(1)) for k in rows[0] for m in [re.match(r"G(\d+)_dBi", k)] if m})
    has_array = "array_dBi" in rows[0]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    top = max(finite(num(r, k, path)) for r in rows for k in
              [f"G{p}_dBi" for p in ports] + (["array_dBi"] if has_array else []))
    top = math.ceil(top / 5) * 5
    for ax, phi0 in zip(axes, (0.0, 90.0)):
        for p in ports:
            pts = cut(rows, path, f"G{p}_dBi", phi0)
            ax.plot([q[0] for q in pts], [q[1] for q in pts], lw=1, alpha=0.8, label=f"port {p} embedded")
        if has_array:
            pts = cut(rows, path, "array_dBi", phi0)
            ax.plot([q[0] for q in pts], [q[1] for q in pts], "k", lw=2.2, label="array")
        ax.set_xlabel(f"theta (deg) in the plane phi = {phi0:g} deg (negative: phi + 180)")
        ax.set_xlim(-180, 180)
        ax.set_xticks(range(-180, 181, 45))
        ax.set_ylim(top - 40, top)
        ax.grid(True, alpha=0.4)
    axes[0].set_ylabel("realized gain (dBi)")
    axes[1].legend(fontsize=7, loc="lower center")
    weights = next((c.split("array: ", 1)[1] for c in comments if "array: " in c), "")
    fig.suptitle(f"{case}: embedded element and array patterns at {freq_text(f)}" +
                 (f"\n{weights}" if weights else ""), fontsize=10)
    return save(fig, out, name)


def plot_active(d, case, out):
    """active.csv: |Gamma_i| of every port against the scan angle, one plot
    per frequency, the planes phi = 0 and 90 deg side by side."""
    path = os.path.join(d, "active.csv")
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
        fig.suptitle(f"{case}: active reflection against scan angle at {freq_text(fhz)}", fontsize=10)
        written += save(fig, out, f"active_{fhz * 1e-9:.9g}GHz")
    return written


SWEEP_FIXED = ("point", "f_Hz", "S11_dB", "S11_deg", "Zin_re_ohm", "Zin_im_ohm")


def plot_sweep(d, case, out):
    """A design sweep's folder (sweep.csv, sweep_summary.csv): the S11 family,
    one curve per point, and the HEM-style resonance (first Re Zin peak and
    first |S11| minimum) against the first swept parameter that varies, one
    line per value of the others."""
    path = os.path.join(d, "sweep.csv")
    with open(path, newline="") as fh:
        lines = [l for l in fh.read().splitlines() if l and not l.startswith("#")]
    head = next(csv.reader(lines[:1])) if lines else []
    names = [c for c in head if c not in SWEEP_FIXED]
    rows = list(csv.DictReader(lines))
    written = []
    if rows:
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        pts = sorted({int(r["point"]) for r in rows})
        for k in pts:
            rk = [r for r in rows if int(r["point"]) == k]
            lab = ", ".join(f"{n.split('/')[-1]} {rk[0][n]}" for n in names)
            ax.plot([ghz(num(r, "f_Hz", path)) for r in rk], [num(r, "S11_dB", path) for r in rk],
                    marker="o" if len(rk) <= 60 else None, ms=3, label=lab)
        ax.axhline(-10, color="k", lw=0.6, ls=":")
        ax.set_xlabel("frequency (GHz)")
        ax.set_ylabel("|S11| (dB)")
        ax.set_title(f"{case}: design sweep, |S11| of {len(pts)} points")
        ax.grid(True, alpha=0.4)
        ax.legend(fontsize=7)
        written += save(fig, out, "sweep_s11")
    spath = os.path.join(d, "sweep_summary.csv")
    if not os.path.exists(spath):
        return written
    _, srows = read_table(spath)
    ok = [r for r in srows if r.get("status") == "ok" and (r.get("f_res_Hz") or r.get("f_s11min_Hz"))]
    varying = [n for n in names if len({r[n] for r in srows}) > 1]
    if not ok or not varying:
        return written
    x = varying[0]
    others = [n for n in names if n != x]
    groups = {}
    for r in ok:
        groups.setdefault(tuple(r[n] for n in others), []).append(r)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (key, rs) in enumerate(sorted(groups.items())):
        rs.sort(key=lambda r: float(r[x]))
        lab = ", ".join(f"{n.split('/')[-1]} {v}" for n, v in zip(others, key))
        for col, mk, ls, what in (("f_res_Hz", "o", "-", "Re Zin peak"), ("f_s11min_Hz", "s", "--", "|S11| min")):
            xy = [(float(r[x]), ghz(float(r[col]))) for r in rs if r.get(col)]
            if xy:
                ax.plot([p[0] for p in xy], [p[1] for p in xy], marker=mk, ls=ls, color=f"C{i}",
                        label=f"{what}{', ' + lab if lab else ''}")
    ax.set_xlabel(f"{x} (the case's units)")
    ax.set_ylabel("resonance (GHz)")
    ax.set_title(f"{case}: first resonance against {x.split('/')[-1]}")
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=7)
    written += save(fig, out, "sweep_resonance")
    return written


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 1
    d = argv[1]
    if not os.path.isdir(d):
        fail(f"{d} is not a directory")
    case, zref = os.path.basename(os.path.normpath(d)), 50.0
    summ = os.path.join(d, "summary.json")
    if not os.path.exists(summ):  # a design sweep: the case of its points
        summ = (sorted(glob.glob(os.path.join(d, "point_*", "summary.json"))) or [summ])[0]
    if os.path.exists(summ):
        try:
            with open(summ) as fh:
                s = json.load(fh)
            case = s.get("case", {}).get("name", case)
            ports = s.get("ports") or []
            if ports and ports[0].get("z_ref_ohm"):
                zref = float(ports[0]["z_ref_ohm"])
        except (OSError, ValueError) as e:
            fail(f"{summ}: {e}")
    out = os.path.join(d, "plots")
    os.makedirs(out, exist_ok=True)
    written = []
    if os.path.exists(os.path.join(d, "ports.csv")):
        written += plot_ports(d, case, zref, out)
    if os.path.exists(os.path.join(d, "antenna.csv")):
        written += plot_gain(d, case, out)
    for p in sorted(glob.glob(os.path.join(d, "pattern_*.csv"))):
        written += plot_pattern(p, case, out, os.path.splitext(os.path.basename(p))[0])
    for p in sorted(glob.glob(os.path.join(d, "rcs_*.csv"))):
        written += plot_rcs(p, case, out, os.path.splitext(os.path.basename(p))[0])
    for p in sorted(glob.glob(os.path.join(d, "array_*.csv"))):
        written += plot_array(p, case, out, os.path.splitext(os.path.basename(p))[0])
    if os.path.exists(os.path.join(d, "active.csv")):
        written += plot_active(d, case, out)
    if os.path.exists(os.path.join(d, "sweep.csv")):
        written += plot_sweep(d, case, out)
    if not written:
        fail(f"nothing to plot in {d} (no ports.csv, antenna.csv, pattern_*.csv, rcs_*.csv, sweep.csv)", 2)
    print(f"emplot: {len(written)} files in {out}/: {' '.join(written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
