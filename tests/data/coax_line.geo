// A straight air-filled coaxial line with a coax port at each end (test case).
// Z0 = eta0 / (2 pi) ln(b/a); matched: |S11| ~ 0, Zin = Z0.  With
// Geometry/short = 1 the far end is a PEC short (a stub): Zin = j Z0 tan(k len).
SetFactory("OpenCASCADE");
DefineConstant[
  ra  = {1.0, Name "Geometry/inner_radius"},
  rb  = {2.3, Name "Geometry/outer_radius"},
  len = {20, Name "Geometry/length"},
  f   = {3e9, Name "Solver/frequency"},
  p   = {2, Name "Solver/order"},
  h   = {0.6, Name "Mesh/size"},
  e   = {1, Name "Materials/air/eps_r"},
  t1  = {"coax", Name "Ports/port1/type"},
  t2  = {"coax", Name "Ports/port2/type"},
  sh  = {0, Name "Geometry/short", Help "1: PEC short at z = len instead of port2"},
  nc  = {24, Name "Mesh/circle_elements", Help "elements per circle (Mesh.MeshSizeFromCurvature)"},
  hs  = {0, Name "Mesh/side_size", Help "> 0: this element size (mm) in a ball about port1's -y side, so its facets are uneven (0: off)"}
];
Cylinder(1) = {0, 0, 0, 0, 0, len, rb};
Cylinder(2) = {0, 0, 0, 0, 0, len, ra};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
Physical Volume("air") = {3};
s = 1e-6;
Physical Surface("port1") = Surface In BoundingBox{-rb - s, -rb - s, -s, rb + s, rb + s, s};
If (sh == 0)
Physical Surface("port2") = Surface In BoundingBox{-rb - s, -rb - s, len - s, rb + s, rb + s, len + s};
EndIf
MeshSize{ PointsOf{ Volume{3}; } } = h;
If (hs > 0) // dense facets on one side of port1 only: its centroid is off the axis
  Field[1] = Ball;
  Field[1].Radius = rb;
  Field[1].XCenter = 0;
  Field[1].YCenter = -rb;
  Field[1].ZCenter = 0;
  Field[1].VIn = hs;
  Field[1].VOut = 1e22;
  Background Field = 1;
EndIf
// Flat facets change the line's impedance (a polygon is not a circle):
// 24 elements per circle keep |S11| near -60 dB at order 2.
Mesh.MeshSizeFromCurvature = nc;
