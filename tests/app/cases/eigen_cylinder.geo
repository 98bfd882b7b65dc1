// Palace's cylindrical cavity: radius 2.74 cm, height 2 radius, filled with
// eps_r 2.08, PEC walls.  TM010: f = c j01 / (2 pi a sqrt(eps_r)) =
// 2.903636 GHz.  With straight-sided tets (Mesh/geometry_order 1) the
// polygonal side wall moves TM010 by about pi^2 / (3 N^2) for N facets
// around the circumference; Mesh/geometry_order 2 (curved tets, the mid
// nodes on the cylinder) removes that (tests/app/test_eigen_curved.py,
// docs/eigen.md).
SetFactory("OpenCASCADE");

DefineConstant[
  a   = {27.4, Name "Geometry/radius", Help "mm"},
  er  = {2.08, Name "Materials/fill/eps_r"},
  pr  = {"eigen", Name "Solver/problem"},
  ft  = {2.9e9, Name "Eigen/target"},
  p   = {3, Name "Solver/order"},
  hm  = {0, Name "Geometry/hmax", Help "largest element, mm (0: from the wavelength)"}
];

Cylinder(1) = {0, 0, 0, 0, 0, 2 * a, a};
Physical Volume("fill") = {1};
If (hm > 0)
  Mesh.MeshSizeMax = hm;
EndIf
