// Radar cross section of a metal sphere (emsolve example, issue 30).
//
// A PEC sphere of radius r in a plane wave travelling along +z with E along
// x (Excitation/theta 0, polarization 0), in an air box with a PML.  Only
// the quarter x >= 0, y >= 0 is meshed: for this incidence x = 0 is an
// electric and y = 0 a magnetic symmetry plane (the bare face x = 0 is PEC,
// the group pmc_y0 a magnetic wall), and the far field completes the sphere
// by images (Farfield/mirror_x pec, mirror_y pmc).  Curved tets
// (Mesh/geometry_order 2) make the sphere round.  Outputs: rcs_<f>GHz.csv
// (bistatic RCS on the theta/phi grid), the backscatter and forward values
// on stdout.  At the defaults (k r = 2 pi f r / c0 = 3.1438, 3 GHz) the RCS
// is within 0.13 % of the Mie series at every angle of the phi = 0 and 90
// cuts (scripts/mie_compare.py OUT 3.1438 --radius 0.05; tests/app/
// test_antenna_rcs.py).
// Give the sphere ports (a surface group portN and Ports/portN/type) or
// replace it by an antenna: with a plane wave the ports are matched loads
// and received.csv says what they take (docs/farfield.md).
SetFactory("OpenCASCADE");

DefineConstant[
  r    = {50, Name "Geometry/radius", Help "sphere radius, mm"},
  mg   = {50, Name "Geometry/margin", Help "air between the sphere and the PML, mm"},
  t    = {50, Name "Geometry/pml_thickness", Help "PML thickness, mm"},
  hs   = {10, Name "Mesh/sphere_size", Help "element size on the sphere, mm"},
  f    = {3e9, Name "Solver/frequency"},
  p    = {3, Name "Solver/order"},
  go   = {2, Name "Mesh/geometry_order"},
  ea   = {1, Name "Materials/air/eps_r"},
  ex   = {"planewave", Name "Excitation/type"},
  mx   = {"pec", Name "Farfield/mirror_x"},
  my   = {"pmc", Name "Farfield/mirror_y"}
];

b = r + mg;
L = 2 * (b + t);
Sphere(1) = {0, 0, 0, r};
Box(2) = {-b, -b, -b, 2 * b, 2 * b, 2 * b};
Box(3) = {-b - t, -b - t, -b - t, 2 * (b + t), 2 * (b + t), 2 * (b + t)};
shell() = BooleanDifference{ Volume{3}; Delete; }{ Volume{2}; };
Box(10) = {0, 0, -L, L, L, 2 * L};
Box(11) = {0, 0, -L, L, L, 2 * L};
Box(12) = {0, 0, -L, L, L, 2 * L};
s1() = BooleanIntersection{ Volume{1}; Delete; }{ Volume{10}; Delete; };
s2() = BooleanIntersection{ Volume{2}; Delete; }{ Volume{11}; Delete; };
s3() = BooleanIntersection{ Volume{shell()}; Delete; }{ Volume{12}; Delete; };
air() = BooleanDifference{ Volume{s2()}; Delete; }{ Volume{s1()}; Delete; };
BooleanFragments{ Volume{air(), s3()}; Delete; }{}

e = 1e-6;
all() = Volume{:};
inbox() = Volume In BoundingBox{-b - e, -b - e, -b - e, b + e, b + e, b + e};
pml() = all();
pml() -= inbox();
Physical Volume("air") = {inbox()};
Physical Volume("pml") = {pml()};
Physical Surface("pmc_y0") = Surface In BoundingBox{-e, -e, -L, L, e, L};
sph() = Surface In BoundingBox{-r - e, -r - e, -r - e, r + e, r + e, r + e};
Physical Surface("pec") = {sph()};
MeshSize{ PointsOf{ Surface{sph()}; } } = hs;
