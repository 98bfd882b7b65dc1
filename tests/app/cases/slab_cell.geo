// A unit cell of an infinite dielectric slab (periodic boundaries, issue
// 30; tests/app/test_periodic.py): the cell a x a in x and y, the slab
// eps_r = Materials/slab/eps_r from z = 0 to z = d, air gaps g above and
// below, PML layers of thickness t beyond.  The sides are periodic pairs
// xlo -> xhi and ylo -> yhi (Boundary/*/periodic), meshed periodic.  A
// plane wave from above (Excitation/theta > 90 deg) sees the Fresnel
// reflection and transmission of the slab for the tangential E.
SetFactory("OpenCASCADE");

DefineConstant[
  a   = {6, Name "Geometry/cell", Help "cell side, mm"},
  d   = {5, Name "Geometry/slab", Help "slab thickness, mm"},
  g   = {6, Name "Geometry/gap", Help "air above and below the slab, mm"},
  t   = {10, Name "Geometry/pml_thickness", Help "PML layers above and below, mm"},
  hs  = {3, Name "Geometry/hmax", Help "largest element, mm"},
  pm  = {1, Min 0, Max 1, Name "Geometry/periodic_mesh", Help "0: the sides meshed independently (not periodic: refused)"},
  es  = {4, Name "Materials/slab/eps_r"},
  ea  = {1, Name "Materials/air/eps_r"},
  f   = {10e9, Name "Solver/frequency"},
  p   = {2, Name "Solver/order"},
  ex  = {"planewave", Name "Excitation/type"},
  th  = {150, Name "Excitation/theta"},
  px  = {"xhi", Name "Boundary/xlo/periodic"},
  py  = {"yhi", Name "Boundary/ylo/periodic"}
];

z[] = {-g - t, -g, 0, d, d + g, d + g + t};
For i In {0 : 4}
  Box(i + 1) = {0, 0, z[i], a, a, z[i + 1] - z[i]};
EndFor
BooleanFragments{ Volume{1 : 5}; Delete; }{}
e = 1e-6;
Physical Volume("pml") = {1, 5};
Physical Volume("air") = {2, 4};
Physical Volume("slab") = {3};
xlo() = Surface In BoundingBox{-e, -e, z[0] - e, e, a + e, z[5] + e};
xhi() = Surface In BoundingBox{a - e, -e, z[0] - e, a + e, a + e, z[5] + e};
ylo() = Surface In BoundingBox{-e, -e, z[0] - e, a + e, e, z[5] + e};
yhi() = Surface In BoundingBox{-e, a - e, z[0] - e, a + e, a + e, z[5] + e};
Physical Surface("xlo") = {xlo()};
Physical Surface("xhi") = {xhi()};
Physical Surface("ylo") = {ylo()};
Physical Surface("yhi") = {yhi()};
// the meshes of the opposite sides match: layer by layer
If (pm == 0) // finer on one side: the two sides' meshes do not match
  MeshSize{ PointsOf{ Surface{xhi()}; } } = hs / 2;
EndIf
For i In {0 : 5 * pm - 1}
  sx0 = Surface In BoundingBox{-e, -e, z[i] - e, e, a + e, z[i + 1] + e};
  sx1 = Surface In BoundingBox{a - e, -e, z[i] - e, a + e, a + e, z[i + 1] + e};
  Periodic Surface{sx1} = {sx0} Translate{a, 0, 0};
  sy0 = Surface In BoundingBox{-e, -e, z[i] - e, a + e, e, z[i + 1] + e};
  sy1 = Surface In BoundingBox{-e, a - e, z[i] - e, a + e, a + e, z[i + 1] + e};
  Periodic Surface{sy1} = {sy0} Translate{0, a, 0};
EndFor
Mesh.MeshSizeMax = hs;
