// emsolve test case: an OpenCASCADE box in millimetres with its six faces
// named (tests/mesh/test_case_mesh.c).  OpenCASCADE numbers the faces of a
// box x = 0, x = dx, y = 0, y = dy, z = 0, z = dz.
SetFactory("OpenCASCADE");
DefineConstant[
  dx = {30, Name "Geometry/dx"},
  dy = {20, Name "Geometry/dy"},
  dz = {10, Name "Geometry/dz"},
  h = {4, Name "Mesh/size"}
];
Mesh.MeshSizeMax = h;
Box(1) = {0, 0, 0, dx, dy, dz};
Physical Volume("box") = {1};
Physical Surface("xmin") = {1};
Physical Surface("xmax") = {2};
Physical Surface("ymin") = {3};
Physical Surface("ymax") = {4};
Physical Surface("zmin") = {5};
Physical Surface("zmax") = {6};
