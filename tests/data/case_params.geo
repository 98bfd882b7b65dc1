// emsolve test case: number and string ONELAB parameters, a box whose sides
// come from parameters (tests/mesh/test_case_params.c).
SetFactory("OpenCASCADE");
DefineConstant[
  lx = {2, Name "Geometry/lx", Min 0.1, Max 10, Help "box side x"},
  ly = {1, Name "Geometry/ly"},
  lz = {0.5, Name "Geometry/lz"},
  eps = {4.5, Name "Materials/diel/eps_r"},
  kind = {"lumped", Name "Ports/port1/type"},
  fixed = {7, Name "Geometry/fixed", ReadOnly 1}
];
// A parameter whose default follows another one.
DefineConstant[ h = {lx / 4, Name "Mesh/size"} ];
Mesh.MeshSizeMax = h;
Box(1) = {0, 0, 0, lx, ly, lz};
Physical Volume("diel") = {1};
Physical Surface("port1") = {1};
Printf(StrCat("port type ", kind));
// Gmsh's warnings reach emsolve's log.
Warning("a warning from the case, side %g", lx);
