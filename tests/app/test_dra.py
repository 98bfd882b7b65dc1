"""The default DRA (cases/dra.geo): the HEM11delta resonance - the peak of
the input resistance at the probe's base - within 5% of the Mongia-Bhartia
closed form (REFERENCES.md section 8)."""
import csv
import math

import numpy as np

from emtest import C0, check, finish, run, summary

rc, out, err, d = run("cases/dra.geo", "-setstring", "Output/fields", "none", timeout=1500)
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
    r.append(float(row["Zin1_re"]))
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
finish()
