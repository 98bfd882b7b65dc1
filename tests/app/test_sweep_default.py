"""A design sweep's default frequency sweep (docs/sweeps.md, "The points'
frequency sweep"): issue 33's command, `--sweep Materials/dra/eps_r=10
-setnumber Solver/order 1 -setnumber Solver/n_freq 5`, reported Q 0.038 and
no -10 dB band from 5 uniform samples; each point now runs the adaptive
sweep on 201 frequencies by default.

Reference: a plain 201-point adaptive run of the same DRA.  Its resonance
(the Re Zin peak) and Q are found here in Python, independently of
post/resonance.c: the peak of a cubic through the 4 samples around the
largest Re Zin, Q = f0 / (2 G) |dB/df| from Y = 1/Zin on the same cubic
(a parallel resonance; exact for an RLC).  The sweep's summary must agree
within 1 % (f_res) and 10 % (Q); Q must also lie within 15 % of the
Mongia-Bhartia closed form for HEM11delta (docs/validation.md R8: 7.29 for
a = 7.5 mm, h = 6 mm, eps_r 10).  The directivity, gain and efficiency at
the resonance are in the summary: the efficiency of a tan d = 1e-4
resonator radiating with Q ~ 7.6 is about 1 - Q tan d (times the
dielectric's share of the stored energy, and the Q of Zin is not quite the
energy's): above 1 - 1.5 Q tan d.

Then the same sweep with Solver/sweep uniform explicitly: 5 frequencies
cannot resolve the resonance, and the sweep says so (a warning, the
summary's message) with the advice.  Order 1, no fields: about 25 full
solves of 26k unknowns."""
import csv
import math
import os

import numpy as np

from emtest import check, finish, run, setn, sets

CASE = "cases/dra.geo"
common = setn("Solver/order", 1) + sets("Output/fields", "none")


def table(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def resonance(f, z):
    """The first Re Zin peak (an interior local maximum: Re Zin rises again
    towards 7.5 GHz) and its Q (admittance form), from cubics through the 4
    samples around it (frequency in steps from the 2nd)."""
    x = z.real
    k = next(i for i in range(1, len(x) - 1) if x[i - 1] < x[i] >= x[i + 1])
    lo = min(max(k - 1, 0), len(f) - 4)
    h = f[1] - f[0]
    u, zs = (f[lo:lo + 4] - f[lo + 1]) / h, z[lo:lo + 4]
    cr = np.polyfit(u, zs.real, 3)
    r = np.roots(np.polyder(cr))
    r = r[np.abs(r.imag) < 1e-9].real
    r = r[(r >= u[0]) & (r <= u[-1])]
    t = r[np.argmax(np.polyval(cr, r))]
    y = 1 / zs
    cg, cb = np.polyfit(u, y.real, 3), np.polyfit(u, y.imag, 3)
    g, db = np.polyval(cg, t), np.polyval(np.polyder(cb), t) / h
    f0 = f[lo + 1] + t * h
    return f0, f0 / (2 * g) * abs(db)


# the reference: one plain run, adaptive, 201 frequencies
_, _, _, dref = run(CASE, *common, *sets("Solver/sweep", "adaptive"), *setn("Solver/n_freq", 201))
rows = table(os.path.join(dref, "ports.csv"))
f = np.array([float(r["f_Hz"]) for r in rows])
z = np.array([complex(float(r["Zin1_re_ohm"]), float(r["Zin1_im_ohm"])) for r in rows])
f_ref, q_ref = resonance(f, z)
print(f"reference (201-point adaptive run): Re Zin peak {f_ref / 1e9:.5f} GHz, Q {q_ref:.3f}")
check(len(f) == 201, f"reference: 201 frequencies ({len(f)})")
check(abs(q_ref - 7.29) / 7.29 < 0.15, f"reference Q {q_ref:.2f} within 15 % of Mongia-Bhartia's 7.29")

# the design sweep with issue 33's coarse command line: adaptive by default
rc, out, err, d = run(CASE, *common, *setn("Solver/n_freq", 5), "--sweep", "Materials/dra/eps_r=10")
check(rc == 0, f"the sweep succeeded (exit {rc})")
check("adaptive frequency sweep on 201 frequencies" in err, "the log says each point runs the adaptive sweep")
pts = table(os.path.join(d, "point_0", "ports.csv"))
check(len(pts) == 201, f"the point has 201 frequencies ({len(pts)}), not the 5 asked")
s = table(os.path.join(d, "sweep_summary.csv"))[0]
fr, q = float(s["f_res_Hz"] or "nan"), float(s["Q"] or "nan")
print(f"design sweep: f_res {fr / 1e9:.5f} GHz, Q {q:.3f}; summary {s}")
check(abs(fr - f_ref) / f_ref < 0.01, f"f_res {fr / 1e9:.5f} GHz within 1 % of {f_ref / 1e9:.5f}")
check(abs(q - q_ref) / q_ref < 0.10, f"Q {q:.3f} within 10 % of {q_ref:.3f}")
bw = float(s["bw10_frac"] or "nan")
check(0.03 < bw < 0.09, f"a -10 dB band is reported ({bw:.4f}; 2/(3Q) = {2 / (3 * q_ref):.4f} when matched)")
check(s["message"] == "", f"no coarse-sampling message ({s['message']!r})")
# the far field at the resonance (the adaptive sweep computes it there only)
ant = table(os.path.join(d, "point_0", "antenna.csv"))
check(len(ant) == 1 and abs(float(ant[0]["f_Hz"]) - fr) < 8e6,
      f"antenna.csv: one row, at the resonance ({[a['f_Hz'] for a in ant]})")
D, G, Gr, eff = (float(s[k] or "nan") for k in ("directivity_dBi", "gain_dBi", "realized_gain_dBi",
                                                  "efficiency"))
check(4 < D < 8 and G <= D and Gr <= G, f"D {D:.2f} >= G {G:.2f} >= realized G {Gr:.2f} dBi (broadside DRA: 4-8 dBi)")
check(1 - 1.5 * q_ref * 1e-4 < eff < 1, f"efficiency {eff:.5f} > 1 - 1.5 Q tan d = {1 - 1.5 * q_ref * 1e-4:.5f}")
check(abs(D - G - (-10 * math.log10(eff))) < 0.01, f"G = D + 10 log10(efficiency) ({D:.3f}, {G:.3f}, {eff:.5f})")
check("f_res" in out and "G " in out, f"stdout lists f_res, Q and G per point")

# uniform on 5 frequencies, asked for: a warning with the advice
rc, out, err, d = run(CASE, *common, *setn("Solver/n_freq", 5), *sets("Solver/sweep", "uniform"),
                      *sets("Farfield/compute", "off"), "--sweep", "Materials/dra/eps_r=10")
s = table(os.path.join(d, "sweep_summary.csv"))[0]
check(rc == 0 and "coarse sampling" in err and "Solver/n_freq" in err,
      "uniform on 5 frequencies: a 'coarse sampling' warning naming Solver/n_freq")
check("coarse sampling" in s["message"] and "adaptive" in s["message"],
      f"... and in the summary's message: {s['message'][:90]}")
check("(coarse sampling)" in out, "... and on stdout")
finish()
