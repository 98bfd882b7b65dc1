"""Mesh sizing independent of the band (docs/sweeps.md): the DRA's own
sweep, one of its frequencies alone and a sub-band given on the command
line (its f_stop overridden) mesh at the case's f_stop, so they
give the same mesh and the same S11 (to 1e-10: the same linear system, the
direct factor's rounding apart); Mesh/frequency overrides it (a coarser
mesh at a lower frequency), which shows the sizing really follows it.
Order 1, no far field, to keep it small; `PML/elements 0`, so that the
whole mesh follows the wavelength (the case's minimum of 3 elements across
its 20 mm PML would hold the layer at 6.7 mm when a lower frequency sizes
the rest: 24 572 against 26 444 tets with it)."""
from emtest import check, finish, run, setn, sets, summary

common = setn("Solver/order", 1) + sets("Output/fields", "none") + sets("Farfield/compute", "off")
common += setn("PML/elements", 0)
_, _, err_sweep, d_sweep = run("cases/dra.geo", *common, *setn("Solver/n_freq", 3))
_, _, err_one, d_one = run("cases/dra.geo", *common, *setn("Solver/frequency", 6e9))
_, _, _, d_low = run("cases/dra.geo", *common, *setn("Solver/frequency", 6e9),
                     *setn("Mesh/frequency", 6e9))
# a sub-band on the command line: the case file's f_stop still sizes the
# mesh (issue 33: it meshed at its own top, 6.5 GHz)
_, _, _, d_sub = run("cases/dra.geo", *common, *setn("Solver/f_start", 6e9),
                     *setn("Solver/f_stop", 6.5e9), *setn("Solver/n_freq", 2))
sw, one, low, sub = summary(d_sweep), summary(d_one), summary(d_low), summary(d_sub)

check([f["f_hz"] for f in sw["frequencies"]] == [4.5e9, 6e9, 7.5e9], "the sweep is 4.5, 6, 7.5 GHz")
check(one["frequencies"][0]["f_hz"] == 6e9, "the single run is at 6 GHz")
check([f["f_hz"] for f in sub["frequencies"]] == [6e9, 6.5e9], "the sub-band is 6, 6.5 GHz")
for name, s in (("sweep", sw), ("single", one), ("sub-band", sub)):
    m = s["mesh"]
    check(m["sized_at_hz"] == 7.5e9 and "f_stop" in m["sized_by"],
          f"{name}: mesh sized at {m['sized_at_hz']} Hz by {m['sized_by']}")
check("mesh sized at 7.5 GHz" in err_one, "the log says which frequency sized the mesh")
for k in ("tets", "vertices", "edges"):
    check(sw["mesh"][k] == one["mesh"][k] == sub["mesh"][k],
          f"same mesh: {k} {sw['mesh'][k]} / {one['mesh'][k]} / {sub['mesh'][k]}")
check(sw["matrix"]["nnz"] == one["matrix"]["nnz"], "same matrix pattern")

s_sw = complex(*sw["frequencies"][1]["ports"][0]["S_row"][0])
s_one = complex(*one["frequencies"][0]["ports"][0]["S_row"][0])
print(f"S11 at 6 GHz: sweep {s_sw}, single {s_one}, |diff| {abs(s_sw - s_one):.3e}")
check(abs(s_sw - s_one) <= 1e-10, f"S11 at 6 GHz equal to 1e-10 ({abs(s_sw - s_one):.2e})")
s_sub = complex(*sub["frequencies"][0]["ports"][0]["S_row"][0])
check(abs(s_sw - s_sub) <= 1e-10, f"sub-band: S11 at 6 GHz equal to 1e-10 ({abs(s_sw - s_sub):.2e})")

m = low["mesh"]
check(m["sized_at_hz"] == 6e9 and m["sized_by"] == "Mesh/frequency",
      f"Mesh/frequency 6e9: sized at {m['sized_at_hz']} by {m['sized_by']}")
check(m["tets"] < 0.9 * one["mesh"]["tets"],
      f"a mesh sized at 6 GHz is coarser: {m['tets']} vs {one['mesh']['tets']} tets")
finish()
