// WR-90 waveguide with a dielectric post (emsolve case).
//
// A straight piece of WR-90 (a = 22.86 mm, b = 10.16 mm) along z, air
// filled, PEC walls (every exterior face without a group is PEC), with a
// round dielectric post of radius post_r standing across the guide from
// the bottom wall (y = 0) to the top wall (y = b) at x = post_x, half way
// along.  Two waveguide ports (TE10): port1 at z = 0, port2 at z = len.
// The post is a shunt susceptance on the line: part of the TE10 wave is
// reflected, with the field concentrated in and around the post (the
// region adaptive refinement should find, docs/adapt.md).  Lossless:
// |S11|^2 + |S21|^2 = 1.
SetFactory("OpenCASCADE");

DefineConstant[
  a      = {22.86, Name "Geometry/a", Help "broad side, mm"},
  b      = {10.16, Name "Geometry/b", Help "narrow side, mm"},
  len    = {40, Name "Geometry/length", Help "length between the ports, mm"},
  post_r = {2, Name "Geometry/post_radius", Help "post radius, mm"},
  post_x = {11.43, Name "Geometry/post_x", Help "post axis position across the broad side, mm"},
  f      = {10e9, Name "Solver/frequency"},
  p      = {2, Name "Solver/order"},
  epw    = {8, Name "Mesh/elements_per_wavelength"},
  eair   = {1, Name "Materials/air/eps_r"},
  epost  = {6, Name "Materials/post/eps_r", Help "post permittivity"},
  nc     = {16, Name "Mesh/circle_elements", Help "elements around the post at least (its facets)"},
  t1     = {"waveguide", Name "Ports/port1/type"},
  t2     = {"waveguide", Name "Ports/port2/type"}
];

If (post_r <= 0 || post_x - post_r <= 0 || post_x + post_r >= a)
  Error("post radius %g mm at x = %g mm: the post must lie inside the guide (0 < x - r, x + r < a = %g)", post_r, post_x, a);
EndIf

Box(1) = {0, 0, 0, a, b, len};
Cylinder(2) = {post_x, 0, len / 2, 0, b, 0, post_r};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }

eps = 1e-6;
post() = Volume In BoundingBox{post_x - post_r - eps, -eps, len / 2 - post_r - eps,
                               post_x + post_r + eps, b + eps, len / 2 + post_r + eps};
air() = Volume{:};
air() -= post();
Physical Volume("air") = {air()};
Physical Volume("post") = {post()};
Physical Surface("port1") = Surface In BoundingBox{-eps, -eps, -eps, a + eps, b + eps, eps};
Physical Surface("port2") = Surface In BoundingBox{-eps, -eps, len - eps, a + eps, b + eps, len + eps};
// The post's round wall as 16 facets at least, whatever the mesh density:
// a coarse mesh (adaptive refinement's start) would make it a hexagon,
// an error of the geometry that no finer field discretisation removes.
Mesh.MeshSizeFromCurvature = nc;
