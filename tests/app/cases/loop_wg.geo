// A shorted WR-90 section, air or dielectric filled, whose length and
// filling declare a design sweep the ONELAB way (tests/app/test_psweep_loop.py):
// Loop 1 on the length (Min / Max / Step), Loop 2 on eps_r (Choices).
// Reference (docs/validation.md R2): S11 = -exp(-2 j beta (L - d)),
// beta = sqrt(eps_r k0^2 - (pi/a)^2), d = 5 mm the reference plane's shift
// into the guide (Ports/port1/deembed).
SetFactory("OpenCASCADE");

DefineConstant[
  a   = {22.86, Name "Geometry/a", Help "broad side, mm"},
  b   = {10.16, Name "Geometry/b", Help "narrow side, mm"},
  len = {20, Min 20, Max 30, Step 10, Loop 1, Name "Geometry/length", Help "mm"},
  er  = {1, Choices{1, 2}, Loop 2, Name "Materials/fill/eps_r"},
  f   = {10e9, Name "Solver/frequency"},
  p   = {2, Name "Solver/order"},
  t1  = {"waveguide", Name "Ports/port1/type"},
  de1 = {5, Name "Ports/port1/deembed", Help "reference plane 5 mm into the guide, mm"}
];

Box(1) = {0, 0, 0, a, b, len};
eps = 1e-6;
Physical Volume("fill") = {1};
port1() = Surface In BoundingBox{-eps, -eps, -eps, a + eps, b + eps, eps};
Physical Surface("port1") = {port1()};
