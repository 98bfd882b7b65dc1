// emsolve test case: a dielectric cube in an air box, millimetres
// (tests/mesh/test_case_mesh.c).  Mesh sizes come from the wavelength; the
// case can ask for smaller ones: a point size on the cube, a global maximum.
SetFactory("OpenCASCADE");
DefineConstant[
  L = {100, Name "Geometry/air_side"},
  a = {30, Name "Geometry/cube_side"},
  inner = {0, Name "Mesh/cube_size"},
  hmax = {0, Name "Mesh/max_size"}
];
Box(1) = {-L / 2, -L / 2, -L / 2, L, L, L};
Box(2) = {-a / 2, -a / 2, -a / 2, a, a, a};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
// after the fragments: volume 2 is the cube, volume 3 the air around it
Physical Volume("diel") = {2};
Physical Volume("air") = {3};
// the faces of the air box: the combined boundary of both volumes
Physical Surface("outer") = CombinedBoundary{ Volume{2, 3}; };
If (inner > 0)
  MeshSize{ PointsOf{ Volume{2}; } } = inner;
EndIf
If (hmax > 0)
  Mesh.MeshSizeMax = hmax;
EndIf
