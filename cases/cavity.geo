// Probe-fed PEC box cavity (emsolve case).
//
// An air-filled rectangular cavity a x b x d with PEC walls (every exterior
// face without a group is PEC), fed by a coaxial probe through the middle of
// the broad wall y = 0: the coax (air, b/a = 1.5/0.65, 50.2 ohm) runs from
// the port (its annular end, port1) up to the wall, and its inner conductor
// goes on into the cavity as a probe of length probe_h parallel to the TE101
// electric field.  A small loss tangent gives the resonances a finite Q, so
// |S11| dips where the cavity resonates.
//
// Reference (docs/validation.md, R1):
//   f_mnp = c / 2 sqrt((m/a)^2 + (n/b)^2 + (p/d)^2)
//   22.86 x 10.16 x 25 mm: TE101 8.885173 GHz, TE102 13.667367 GHz.
// (The probe loads the cavity, pulling the driven resonance slightly down.)
SetFactory("OpenCASCADE");

DefineConstant[
  a       = {22.86, Name "Geometry/a", Help "broad side (x), mm"},
  b       = {10.16, Name "Geometry/b", Help "height (y), mm"},
  d       = {25, Name "Geometry/d", Help "length (z), mm"},
  probe_h = {2.5, Name "Geometry/probe_length", Help "probe length inside the cavity, mm"},
  ra      = {0.65, Name "Geometry/coax_inner_radius", Help "mm"},
  rb      = {1.5, Name "Geometry/coax_outer_radius", Help "mm"},
  lc      = {3, Name "Geometry/coax_length", Help "mm"},
  hp      = {0.5, Name "Mesh/probe_size", Help "element size at the probe, mm"},
  eair    = {1, Name "Materials/air/eps_r"},
  tair    = {2e-3, Name "Materials/air/tan_delta", Help "loss that gives the resonances a finite Q"},
  ecoax   = {1, Name "Materials/coax/eps_r"},
  fa      = {8.0e9, Name "Solver/f_start"},
  fb      = {9.6e9, Name "Solver/f_stop"},
  nf      = {9, Name "Solver/n_freq"},
  p       = {2, Name "Solver/order"},
  t1      = {"coax", Name "Ports/port1/type"}
];

Box(1) = {0, 0, 0, a, b, d};
Cylinder(2) = {a / 2, -lc, d / 2, 0, lc, 0, rb};               // coax bore below the wall
Cylinder(3) = {a / 2, -lc, d / 2, 0, lc + probe_h, 0, ra};     // inner conductor + probe
cav() = BooleanDifference{ Volume{1}; Delete; }{ Volume{3}; };
coax() = BooleanDifference{ Volume{2}; Delete; }{ Volume{3}; Delete; };
BooleanFragments{ Volume{cav(), coax()}; Delete; }{}

e = 1e-3;
coax() = Volume In BoundingBox{a / 2 - rb - e, -lc - e, d / 2 - rb - e, a / 2 + rb + e, e, d / 2 + rb + e};
air() = Volume{:};
air() -= coax();
Physical Volume("air") = {air()};
Physical Volume("coax") = {coax()};
port() = Surface In BoundingBox{a / 2 - rb - e, -lc - e, d / 2 - rb - e, a / 2 + rb + e, -lc + e, d / 2 + rb + e};
Physical Surface("port1") = {port()};
probe() = Point In BoundingBox{a / 2 - rb - e, -lc - e, d / 2 - rb - e, a / 2 + rb + e, probe_h + e, d / 2 + rb + e};
MeshSize{ probe() } = hp;
