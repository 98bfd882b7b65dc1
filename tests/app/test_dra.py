"""The default DRA (cases/dra.geo): the HEM11delta resonance - the peak of
the input resistance at the probe's base - within 5% of the Mongia-Bhartia
closed form (docs/validation.md R8); its far field (below).  The log's
Betti numbers: plate, jacket and probe are one metal body inside the air
box, 1 0 1 0; the coax port an annulus (b0 1, b1 1)."""
import csv
import math

import numpy as np

from emtest import C0, check, check_topology, finish, freq_tag, run, summary

rc, out, err, d = run("cases/dra.geo", "-setstring", "Output/fields", "none", "-v", timeout=1500)
check_topology(err, (1, 0, 1, 0), {"port1": (1, 1)})
s = summary(d)
p = s["parameters"]
er, a, h = p["Materials/dra/eps_r"], p["Geometry/dra_radius"] * 1e-3, p["Geometry/dra_height"] * 1e-3
x = a / (2 * h)
k0a = 6.324 / math.sqrt(er + 2) * (0.27 + 0.36 * x + 0.02 * x * x)
f_mb = k0a / a * C0 / (2 * math.pi)
print(f"Mongia-Bhartia HEM11delta: k0 a = {k0a:.5f}, f = {f_mb / 1e9:.4f} GHz")

f, r, s11db = [], [], []
with open(f"{d}/ports.csv") as fh:
    rows = list(csv.DictReader(l for l in fh if not l.startswith("#")))
for row in rows:
    f.append(float(row["f_Hz"]))
    r.append(float(row["Zin1_re_ohm"]))
    s11db.append(float(row["S11_dB"]))
f, r = np.array(f), np.array(r)
for fi, ri, si in zip(f, r, s11db):
    print(f"{fi / 1e9:7.3f} GHz  R = {ri:8.2f} ohm  S11 = {si:7.2f} dB")
i = int(np.argmax(r))
check(0 < i < len(f) - 1, f"the resistance peak lies inside the sweep (index {i})")
if 0 < i < len(f) - 1:
    c = np.polyfit(f[i - 1:i + 2], r[i - 1:i + 2], 2)
    f_peak = -c[1] / (2 * c[0])
    print(f"resistance peak at {f_peak / 1e9:.4f} GHz")
    check(abs(f_peak - f_mb) / f_mb < 0.05,
          f"HEM11delta at {f_peak / 1e9:.4f} GHz within 5% of {f_mb / 1e9:.4f} GHz "
          f"({100 * (f_peak - f_mb) / f_mb:+.2f}%)")
conv = all(fr["converged"] for fr in s["frequencies"])
check(conv, "every frequency converged")

# The far field (post/ff_frequency.c, docs/farfield.md): one antenna.csv row per
# frequency; power conservation between the port, the NF2FF surface, the far
# field and the loss integral within the discretisation of this order-2 mesh
# (observed with the 20 mm PML: surface vs far field 0.5 %, balance 1.8 %;
# with the old 10 mm layer of 1-2 elements 4.4 % / 3.5 %); at the resonance the HEM11delta mode radiates broadside,
# the maximum within 15 deg of the z axis, with a directivity of a few dBi
# (a short magnetic dipole over a finite ground: no closed form, so a band),
# and a radiation efficiency above 99 % (tan d = 1e-4).
with open(f"{d}/antenna.csv") as fh:
    ant = list(csv.DictReader(fh))
check(len(ant) == len(f), f"antenna.csv: {len(ant)} rows for {len(f)} frequencies")
for row in ant:
    fz = float(row["f_Hz"]) / 1e9
    ps, pf = float(row["P_rad_surface_W"]), float(row["P_rad_farfield_W"])
    bal = float(row["power_balance"])
    check(abs(pf / ps - 1) < 0.015, f"{fz:.3f} GHz: surface {ps:.4g} W vs far field {pf:.4g} W")
    check(abs(bal - 1) < 0.03, f"{fz:.3f} GHz: (P_rad + P_loss) / P_acc = {bal:.4f}")
    check(float(row["efficiency"]) > 0.99, f"{fz:.3f} GHz: efficiency {row['efficiency']}")
if 0 < i < len(f) - 1:
    row = ant[i]
    dmax, th = float(row["directivity_dBi"]), float(row["theta_max_deg"])
    print(f"at {float(row['f_Hz']) / 1e9:.3f} GHz: D = {dmax:.2f} dBi, G = "
          f"{float(row['gain_dBi']):.2f} dBi, realized {float(row['realized_gain_dBi']):.2f} dBi, "
          f"maximum at theta {th:.1f} deg, beamwidths E {float(row['beamwidth_E_deg']):.1f} / "
          f"H {float(row['beamwidth_H_deg']):.1f} deg, F/B {float(row['front_to_back_dB']):.1f} dB")
    check(th < 15, f"broadside maximum at the resonance (theta {th:.1f} deg)")
    check(4 < dmax < 8, f"directivity {dmax:.2f} dBi at the resonance in 4..8 dBi")
    tag = freq_tag(float(row["f_Hz"]))
    for name in (f"farfield_{tag}.csv", f"pattern_{tag}.csv", f"pattern_{tag}.vtk"):
        check(name in s["outputs"], f"{name} written")
finish()
