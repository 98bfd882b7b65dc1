// PEC box a x b x d with a dielectric slab of thickness t across the whole
// cross-section at z = 0 (eigen tests, tests/app/test_eigen.py).  Every
// exterior face is PEC (the group pec_walls; copper with Boundary/pec_walls/
// sigma, tests/app/test_conductor.py).  With Materials/slab/eps_r 1 it is the empty box:
//   f_mnp = c / 2 sqrt((m/a)^2 + (n/b)^2 + (p/d)^2).
SetFactory("OpenCASCADE");

DefineConstant[
  a   = {22.86, Name "Geometry/a", Help "broad side (x), mm"},
  b   = {10.16, Name "Geometry/b", Help "height (y), mm"},
  d   = {25, Name "Geometry/d", Help "length (z), mm"},
  t   = {5, Name "Geometry/slab", Help "slab thickness at z = 0, mm"},
  es  = {4, Name "Materials/slab/eps_r"},
  ea  = {1, Name "Materials/air/eps_r"},
  pr  = {"eigen", Name "Solver/problem"},
  ft  = {8e9, Name "Eigen/target"},
  p   = {3, Name "Solver/order"},
  hm  = {0, Name "Geometry/hmax", Help "largest element, mm (0: from the wavelength)"}
];

Box(1) = {0, 0, 0, a, b, t};
Box(2) = {0, 0, t, a, b, d - t};
BooleanFragments{ Volume{1, 2}; Delete; }{}
Physical Volume("slab") = {1};
Physical Volume("air") = {2};
// every wall, PEC by its name; -setnumber Boundary/pec_walls/sigma makes it metal
Physical Surface("pec_walls") = CombinedBoundary{ Volume{1, 2}; };
If (hm > 0)
  Mesh.MeshSizeMax = hm;
EndIf
