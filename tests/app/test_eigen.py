"""Solver/problem eigen against closed-form resonances (docs/eigen.md).

- PEC box 22.86 x 10.16 x 25 mm, order 3: TE101 and TE102 to 1e-6,
  f_mnp = c/2 sqrt((m/a)^2 + (n/b)^2 + (p/d)^2).
- The same box with a slab eps_r = 4, 5 mm thick, across the whole
  cross-section at z = 0: the lowest mode, TE10-like in x and y, against the
  root of the transverse resonance condition
      k1 cot(k1 t) + k2 cot(k2 (d - t)) = 0,
      k1^2 = eps_r k0^2 - (pi/a)^2,   k2^2 = k0^2 - (pi/a)^2
  (k2 imaginary: cot -> coth), solved here by bisection, to 1e-5.
- The probe-fed cavity (cases/cavity.geo) with lossy air (tan d = 0.05,
  Q ~ 20) and its port plane open (Eigen/ports open): the lowest mode is the
  pole of the input impedance of a driven sweep on the same mesh (a rational
  fit Zin = P3(f) / (f - p)), Re to 5e-5 and Im to 2 %; its Q against the
  loss alone: a medium eps'(1 - j tan d) everywhere gives
  k = k_lossless (1 - j tan d)^-1/2, Q_h = 1 / (2 tan(atan(tan d) / 2)); with
  a lossless coax holding the fraction 1 - w_air of the electric energy,
  Q = Q_h / w_air to first order (1e-3).
- Bad input: eigen without Eigen/target fails naming it.
"""
import csv
import math
import os

import numpy as np

from emtest import C0, check, finish, run, setn, sets

CASE = "tests/app/cases/eigen_box.geo"
A, B, D = 22.86e-3, 10.16e-3, 25e-3


def f_box(m, n, p):
    return C0 / 2 * math.sqrt((m / A) ** 2 + (n / B) ** 2 + (p / D) ** 2)


def f_slab(t, er):
    kx = math.pi / A

    def g(f):
        k0 = 2 * math.pi * f / C0
        k1 = math.sqrt(er * k0 * k0 - kx * kx)
        q = k0 * k0 - kx * kx
        k2 = math.sqrt(abs(q))
        air = k2 / math.tan(k2 * (D - t)) if q > 0 else k2 / math.tanh(k2 * (D - t))
        return k1 / math.tan(k1 * t) + air

    # the lowest root lies between the slab's own TE101 cut-on and the
    # empty box's TE101 (bracketed by a scan: g has poles where tan = 0)
    lo_f = C0 / 2 / math.sqrt(er) / A * 1.0001
    hi_f = f_box(1, 0, 1)
    fs = [lo_f + (hi_f - lo_f) * i / 2000 for i in range(2001)]
    for f0, f1 in zip(fs, fs[1:]):
        g0, g1 = g(f0), g(f1)
        if g0 * g1 < 0 and abs(g0) < 1e4 and abs(g1) < 1e4:
            break
    else:
        raise SystemExit("no root of the slab condition bracketed")
    for _ in range(200):
        fm = 0.5 * (f0 + f1)
        if g(f0) * g(fm) <= 0:
            f1 = fm
        else:
            f0 = fm
    return 0.5 * (f0 + f1)


def modes(out):
    with open(os.path.join(out, "modes.csv")) as f:
        return list(csv.DictReader(f))


# --- empty box, order 3
_, stdout, _, out = run(CASE, *setn("Materials/slab/eps_r", 1), *setn("Eigen/target", 8e9),
                        *setn("Eigen/n", 2), *setn("Geometry/hmax", 2.5), *setn("Solver/order", 3))
ms = modes(out)
check(len(ms) == 2, f"box: 2 modes in modes.csv ({len(ms)})")
for row, (name, ref) in zip(ms, [("TE101", f_box(1, 0, 1)), ("TE102", f_box(1, 0, 2))]):
    f = float(row["f_re_Hz"])
    err = abs(f - ref) / ref
    check(err < 1e-6, f"box {name}: f = {f / 1e9:.9f} GHz vs {ref / 1e9:.9f} GHz, rel. error {err:.2e} < 1e-6")
    check(float(row["residual"]) < 1e-10, f"box {name}: residual {row['residual']} < 1e-10")
    check(row["flag"] == "ok" and row["Q"] == "inf", f"box {name}: flag {row['flag']}, Q {row['Q']} (lossless: inf)")
    s = float(row["energy_slab"]) + float(row["energy_air"])
    check(abs(s - 1) < 1e-9, f"box {name}: energy fractions sum to 1 ({s})")
check(os.path.exists(os.path.join(out, "mode_1.vtk")) and os.path.exists(os.path.join(out, "mode_2.vtk")),
      "box: mode_1.vtk and mode_2.vtk written")
table = [l for l in stdout.splitlines() if l[:1].isdigit()]
check("eigenmodes nearest" in stdout and len(table) == 2 and table[0].split()[-2] == "ok",
      f"box: the mode table is on stdout ({len(table)} rows)")

# --- slab-loaded box: the lowest mode
ref = f_slab(5e-3, 4.0)
_, _, _, out = run(CASE, *setn("Eigen/target", 6e9), *setn("Eigen/n", 1), *setn("Geometry/hmax", 2.5),
                   *setn("Solver/order", 3))
ms = modes(out)
f = float(ms[0]["f_re_Hz"])
err = abs(f - ref) / ref
check(err < 1e-5, f"slab: lowest mode {f / 1e9:.9f} GHz vs transverse resonance {ref / 1e9:.9f} GHz, "
      f"rel. error {err:.2e} < 1e-5")
# electric energy in the slab: E_y = sin(k1 z) there, sin(k1 t) sin(k2 (d - z)) / sin(k2 (d - t))
# in the air (continuous at z = t); the x and y factors are common
k0 = 2 * math.pi * ref / C0
kx = math.pi / A
k1, k2 = math.sqrt(4 * k0 * k0 - kx * kx), math.sqrt(k0 * k0 - kx * kx)
L = D - 5e-3
w_slab = 4 * (5e-3 / 2 - math.sin(2 * k1 * 5e-3) / (4 * k1))
w_air = (math.sin(k1 * 5e-3) / math.sin(k2 * L)) ** 2 * (L / 2 - math.sin(2 * k2 * L) / (4 * k2))
frac = w_slab / (w_slab + w_air)
got = float(ms[0]["energy_slab"])
check(abs(got - frac) < 1e-5, f"slab: electric energy fraction in the slab {got:.7f} vs {frac:.7f} (1e-5)")

# --- probe-fed lossy cavity: eigenmode = pole of the driven Zin
TAND = 0.05
CAV = [*setn("Solver/f_start", 8.3e9), *setn("Solver/f_stop", 9.3e9), *setn("Solver/n_freq", 9),
       *setn("Materials/air/tan_delta", TAND), *setn("Solver/order", 2)]
_, _, _, d = run("cases/cavity.geo", *CAV, *sets("Output/fields", "none"))
with open(os.path.join(d, "ports.csv")) as fh:
    rows = list(csv.DictReader(l for l in fh if not l.startswith("#")))
f = np.array([float(r["f_Hz"]) for r in rows]) / 1e9
z = np.array([complex(float(r["Zin1_re_ohm"]), float(r["Zin1_im_ohm"])) for r in rows])
# z (f - p) = a0 + a1 f + a2 f^2 + a3 f^3, linear in p and the a's
M = np.column_stack([z] + [f ** k for k in range(4)]).astype(complex)
sol, *_ = np.linalg.lstsq(M, z * f, rcond=None)
p = sol[0]
misfit = np.max(np.abs(sum(sol[1 + k] * f ** k for k in range(4)) / (f - p) - z)) / np.max(np.abs(z))
print(f"cavity: pole of the driven Zin {p.real:.6f} {p.imag:+.6f}j GHz (fit misfit {misfit:.1e})")
check(misfit < 1e-3, f"cavity: one pole describes the driven Zin (misfit {misfit:.1e})")
_, _, _, e = run("cases/cavity.geo", *CAV, *sets("Solver/problem", "eigen"), *setn("Eigen/target", 8.8e9),
                 *setn("Eigen/n", 1))
m = modes(e)[0]
fr, fi = float(m["f_re_Hz"]) / 1e9, float(m["f_im_Hz"]) / 1e9
check(abs(fr - p.real) / p.real < 5e-5, f"cavity: eigen Re f {fr:.6f} GHz vs driven pole {p.real:.6f} GHz "
      f"({(fr - p.real) / p.real:+.1e})")
check(abs(fi - p.imag) / p.imag < 2e-2, f"cavity: eigen Im f {fi:.6f} GHz vs driven pole {p.imag:.6f} GHz "
      f"({(fi - p.imag) / p.imag:+.1e})")
q_h = 1 / (2 * math.tan(math.atan(TAND) / 2))
q_ref = q_h / float(m["energy_air"])
q = float(m["Q"])
check(abs(q - q_ref) / q_ref < 1e-3, f"cavity: Q {q:.5f} vs loss Q {q_ref:.5f} (air holds {m['energy_air']})")

# --- bad input
rc, _, err_text, _ = run(CASE, *sets("Solver/problem", "eigen"), *setn("Eigen/target", 0), expect_ok=False)
check(rc != 0 and "Eigen/target" in err_text, "eigen without a target fails naming Eigen/target")
finish()
