#!/usr/bin/env python3
"""pml_profile_study.py - the PML stretch profile / strength study of issue 17
on WR-90 (cases/waveguide.geo, Geometry/termination 1: a PML section closed
by PEC), order 2, mesh sized at 10 GHz with 10 elements per wavelength
(3 mm), at 10 GHz (beta/k0 = 0.755, near normal incidence on the layer) and
6.8 GHz (beta/k0 = 0.265: the TE10 mode near cutoff, its plane-wave pair
grazing at 75 deg).  For each grading m, target R0 and layer length L it
prints |S11| and the continuous floor R0^(beta/k0) (docs/physics.md, R3 of
docs/validation.md).  Usage: pml_profile_study.py EMSOLVE > table.md"""
import math
import os
import subprocess
import sys
import tempfile

C0 = 299792458.0
A = 22.86e-3
FREQS = [10e9, 6.8e9]


def s11_db(em, m, r0, length):
    out = tempfile.mkdtemp(prefix="pmlstudy_")
    args = [em, "cases/waveguide.geo", "-q", "--device", "cpu", "--out", out]
    for k, v in [("Geometry/termination", 1), ("Geometry/pml_length", length),
                 ("Solver/order", 2), ("Mesh/elements_per_wavelength", 10),
                 ("Mesh/frequency", 10e9), ("Solver/f_start", FREQS[1]),
                 ("Solver/f_stop", FREQS[0]), ("Solver/n_freq", 2), ("PML/order", m),
                 ("PML/elements", 0),
                 ("PML/reflection", r0)]:
        args += ["-setnumber", k, str(v)]
    args += ["-setstring", "Output/fields", "none", "-setstring", "Farfield/compute", "off"]
    subprocess.run(args, check=True, capture_output=True)
    rows = {}
    for line in open(os.path.join(out, "ports.csv")):
        if line[0].isdigit():
            c = line.split(",")
            rows[round(float(c[0]))] = float(c[1])
    return [rows[round(f)] for f in FREQS]


def main():
    em = sys.argv[1]
    print("| m | R0 | L (mm) | abs(S11) 10 GHz (dB) | floor (dB) | abs(S11) 6.8 GHz (dB) | floor (dB) |")
    print("|---|---|---|---|---|---|---|")
    for m in [1, 2, 3]:
        for r0 in [1e-4, 1e-6, 1e-8]:
            for length in [4, 8, 16]:
                db = s11_db(em, m, r0, length)
                fl = []
                for f in FREQS:
                    k0 = 2 * math.pi * f / C0
                    beta = math.sqrt(k0 ** 2 - (math.pi / A) ** 2)
                    fl.append(20 * math.log10(r0 ** (beta / k0)))
                print(f"| {m} | {r0:.0e} | {length} | {db[0]:.1f} | {fl[0]:.1f} | {db[1]:.1f} | {fl[1]:.1f} |",
                      flush=True)


if __name__ == "__main__":
    main()
