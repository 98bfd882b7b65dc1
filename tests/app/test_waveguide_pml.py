"""WR-90 terminated by a PML section closed by PEC (REFERENCES.md section 3).

|S11| < -40 dB at the default PML, |S11| above the continuous-layer floor
R = exp(-2 (beta/k0) sigma0 L/(m+1)) = R0^(beta/k0), and falling as the layer
thickens (same mesh density)."""
import math

from emtest import C0, check, finish, port_z, run, setn, touchstone

a, f = 22.86e-3, 10e9
k0 = 2 * math.pi * f / C0
beta = math.sqrt(k0 ** 2 - (math.pi / a) ** 2)
R0 = 1e-6

results = []
for lpml in [4, 8, 16]:
    args = setn("Geometry/termination", 1) + setn("Geometry/pml_length", lpml)
    args += setn("Solver/order", 2) + setn("Mesh/elements_per_wavelength", 10)
    args += setn("PML/reflection", R0) + ["-setstring", "Output/fields", "none"]
    rc, out, err, d = run("cases/waveguide.geo", *args)
    freqs, S = touchstone(f"{d}/waveguide.s1p", port_z(d))
    s11 = abs(S[0][0][0])
    results.append(s11)
    print(f"PML {lpml} mm: |S11| = {20 * math.log10(s11):.1f} dB")

floor = R0 ** (beta / k0)
check(20 * math.log10(results[1]) < -40, f"|S11| = {20 * math.log10(results[1]):.1f} dB < -40 dB")
check(all(r > floor for r in results), f"|S11| above the continuous-layer floor {floor:.2e}")
check(results[0] > results[1] > results[2], "|S11| falls as the PML thickens: " +
      ", ".join(f"{20 * math.log10(r):.1f}" for r in results) + " dB")
finish()
