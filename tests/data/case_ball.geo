// A ball of radius 1 (tests/assembly/test_curved.c: its volume by curved
// and straight tets as the mesh is refined).
SetFactory("OpenCASCADE");
DefineConstant[ h = {0.5, Name "Geometry/h"} ];
Sphere(1) = {0, 0, 0, 1};
Physical Volume("ball") = {1};
Mesh.MeshSizeMin = h;
Mesh.MeshSizeMax = h;
