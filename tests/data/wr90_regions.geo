// WR-90 thru line of two volumes (test_region_order.py): "near" from the
// port1 plane z = 0 to z = len/2, "far" from there to port2 at z = len,
// both air.  Materials/far/order sets the far half's basis order: with
// matched TE10 ports |S21| = 1, arg S21 = -beta L (docs/validation.md R2),
// and the numerical dispersion error of each half adds up along the line.
SetFactory("OpenCASCADE");
DefineConstant[
  a    = {22.86, Name "Geometry/a", Help "broad side, mm"},
  b    = {10.16, Name "Geometry/b", Help "narrow side, mm"},
  len  = {60, Name "Geometry/length", Help "length between the ports, mm"},
  f    = {10e9, Name "Solver/frequency"},
  p    = {2, Name "Solver/order"},
  e1   = {1, Name "Materials/near/eps_r"},
  e2   = {1, Name "Materials/far/eps_r"},
  t1   = {"waveguide", Name "Ports/port1/type"},
  t2   = {"waveguide", Name "Ports/port2/type"}
];
Box(1) = {0, 0, 0, a, b, len / 2};
Box(2) = {0, 0, len / 2, a, b, len / 2};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
eps = 1e-6;
Physical Volume("near") = {1};
Physical Volume("far") = {2};
Physical Surface("port1") = Surface In BoundingBox{-eps, -eps, -eps, a + eps, b + eps, eps};
Physical Surface("port2") = Surface In BoundingBox{-eps, -eps, len - eps, a + eps, b + eps, len + eps};
