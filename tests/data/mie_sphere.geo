// A sphere in a plane wave (the Mie test, tests/post/test_farfield_mie.c):
// radius a at the origin, an air box of half-width b around it, a PML
// shell of thickness t.  pec = 1: the sphere is a hole with the surface
// group "pec"; pec = 0: a volume "sphere".  quarter = 1 keeps x >= 0,
// y >= 0 only (the symmetry planes of a wave along z with E along x: x = 0
// is an electric wall, y = 0 a magnetic one, the group "pmc_y0").  Element sizes: h_s on the
// sphere, growing linearly with the distance from it (a Threshold field on
// the exact distance) to h_air in the air and the PML and to h_in inside a
// dielectric sphere over d_grow.  Lengths in metres (Geometry/unit = 1).
SetFactory("OpenCASCADE");

DefineConstant[
  a      = {1.0, Name "Geometry/radius"},
  b      = {1.6, Name "Geometry/box_half_width"},
  t      = {1.6, Name "Geometry/pml_thickness"},
  pec    = {1, Name "Geometry/pec"},
  quarter = {1, Name "Geometry/quarter"},
  h_s    = {0.07, Name "Mesh/sphere_size"},
  h_in   = {0.5, Name "Mesh/inside_size"},
  h_air  = {0.8, Name "Mesh/air_size"},
  d_grow = {0.3, Name "Mesh/grow_distance"}
];

Sphere(1) = {0, 0, 0, a};
Box(2) = {-b, -b, -b, 2 * b, 2 * b, 2 * b};
Box(3) = {-b - t, -b - t, -b - t, 2 * (b + t), 2 * (b + t), 2 * (b + t)};
shell() = BooleanDifference{ Volume{3}; Delete; }{ Volume{2}; };
L = 2 * (a + b + t);
If (quarter)
  Box(10) = {0, 0, -L, L, L, 2 * L};
  Box(11) = {0, 0, -L, L, L, 2 * L};
  Box(12) = {0, 0, -L, L, L, 2 * L};
  s1() = BooleanIntersection{ Volume{1}; Delete; }{ Volume{10}; Delete; };
  s2() = BooleanIntersection{ Volume{2}; Delete; }{ Volume{11}; Delete; };
  s3() = BooleanIntersection{ Volume{shell()}; Delete; }{ Volume{12}; Delete; };
Else
  s1() = {1};
  s2() = {2};
  s3() = shell();
EndIf
If (pec)
  air() = BooleanDifference{ Volume{s2()}; Delete; }{ Volume{s1()}; Delete; };
  BooleanFragments{ Volume{air(), s3()}; Delete; }{}
Else
  BooleanFragments{ Volume{s1(), s2(), s3()}; Delete; }{}
EndIf

e = 1e-6;
all() = Volume{:};
inbox() = Volume In BoundingBox{-b - e, -b - e, -b - e, b + e, b + e, b + e};
ball() = Volume In BoundingBox{-a - e, -a - e, -a - e, a + e, a + e, a + e};
pml() = all();
pml() -= inbox();
air() = inbox();
air() -= ball();
Physical Volume("air") = {air()};
Physical Volume("pml") = {pml()};
If (quarter)
  // the magnetic wall y = 0 (emsolve: pmc* groups are natural boundaries)
  Physical Surface("pmc_y0") = Surface In BoundingBox{-e, -e, -L, L, e, L};
EndIf
If (pec)
  Physical Surface("pec") = Surface In BoundingBox{-a - e, -a - e, -a - e, a + e, a + e, a + e};
Else
  Physical Volume("sphere") = {ball()};
EndIf

// the exact distance to the sphere (Gmsh's Distance field samples the
// surface and overestimates the distance near it)
Field[1] = MathEval;
Field[1].F = Sprintf("Abs(Sqrt(x*x + y*y + z*z) - %.17g)", a);
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = h_s;
Field[2].SizeMax = h_air;
Field[2].DistMin = 0;
Field[2].DistMax = d_grow;
Field[3] = Ball;
Field[3].Radius = a;
Field[3].VIn = h_in;
Field[3].VOut = h_air;
Field[4] = Min;
Field[4].FieldsList = {2, 3};
Background Field = 4;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
