// WR-90 rectangular waveguide section (emsolve case).
//
// A straight piece of WR-90 (a = 22.86 mm, b = 10.16 mm) along z, air
// filled, PEC walls (every exterior face without a group is PEC).  The TE10
// mode enters at port1 (z = 0).  The far end is either a second waveguide
// port (Geometry/termination = 0), a PML section closed by PEC
// (Geometry/termination = 1), a PEC short (Geometry/termination = 2) or
// an open end (Geometry/termination = 3: with Boundary/outer = abc only the
// end face absorbs).  Except with the PML section the walls are the group
// pec_walls: PEC, or copper with -setnumber Boundary/pec_walls/sigma 5.8e7.
//
// Reference (docs/validation.md, R2): f_c = 6.557140
// GHz; at 10 GHz beta = 158.238256 rad/m; two matched ports: |S21| = 1,
// |S11| = 0, arg S21 = -beta L; shorted at L: S11 = -exp(-2 j beta L);
// first-order ABC at L: S11 = exp(-2 j beta L) (beta - k0) / (beta + k0).
SetFactory("OpenCASCADE");

DefineConstant[
  a    = {22.86, Name "Geometry/a", Help "broad side, mm"},
  b    = {10.16, Name "Geometry/b", Help "narrow side, mm"},
  len  = {30, Name "Geometry/length", Help "length between the ports, mm"},
  term = {0, Name "Geometry/termination", Help "0: second port, 1: PML section, 2: PEC short, 3: open end"},
  lpml = {15, Name "Geometry/pml_length", Help "PML section length, mm"},
  f    = {10e9, Name "Solver/frequency"},
  p    = {2, Name "Solver/order"},
  eair = {1, Name "Materials/air/eps_r"},
  t1   = {"waveguide", Name "Ports/port1/type"},
  t2   = {"waveguide", Name "Ports/port2/type"}
];

Box(1) = {0, 0, 0, a, b, len};
If (term == 1)
  Box(2) = {0, 0, len, a, b, lpml};
  BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
EndIf

eps = 1e-6;
Physical Volume("air") = {1};
port1() = Surface In BoundingBox{-eps, -eps, -eps, a + eps, b + eps, eps};
Physical Surface("port1") = {port1()};
If (term == 1)
  Physical Volume("pml") = {2};
EndIf
If (term == 0)
  port2() = Surface In BoundingBox{-eps, -eps, len - eps, a + eps, b + eps, len + eps};
  Physical Surface("port2") = {port2()};
EndIf
If (term != 1)
  walls() = Surface{:};
  walls() -= port1();
  walls() -= Surface In BoundingBox{-eps, -eps, len - eps, a + eps, b + eps, len + eps};
  Physical Surface("pec_walls") = {walls()};
EndIf
