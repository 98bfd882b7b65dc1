// Probe-fed cylindrical dielectric resonator antenna (emsolve case).
//
// A cylindrical DRA (radius dra_r, height dra_h, eps_r, loss tangent) sits
// on a finite square ground plate (gp x gp, thickness gt).  A 50-ohm coaxial
// line comes up through the plate beside the DRA; its inner conductor goes on
// as a vertical probe (length probe_h above the plate) whose axis lies
// probe_in inside the DRA wall (probe_x = dra_r - probe_in from the DRA
// axis), partly sunk into the wall as in drilled probe-fed DRAs.  The probe
// follows the radius, so a sweep of Geometry/dra_radius keeps the feed the
// same (the default 0.5 mm inset at a = 7.5 mm is the former fixed 7 mm
// offset).  The coax below the plate is a short line inside a metal
// jacket; the wave port (port1, TEM mode) is its annular cross-section at
// the bottom.  Metal (plate, jacket, probe) is not meshed: its surfaces are
// PEC, as is every exterior face without a group.  An air box with margin
// `margin` around the structure is wrapped in a PML shell of thickness
// `pml_t`, closed by PEC.  Lengths in mm (Geometry/unit = 1e-3).  The
// layer is 20 mm, at least 3 elements thick (PML/elements; at the default
// mesh, sized for 7.5 GHz, its 6.7 mm air elements already give 3): Re Zin
// and abs(S11) at the resonance move < 0.2 % / 0.05 dB when the margin
// grows to 14 mm or the layer to 25 mm.  The old 10 mm layer (1-2 elements)
// moved Re Zin by 6 % (docs/validation.md, "DRA box independence and
// convergence").
//
// Defaults: eps_r = 10, a = 7.5 mm, h = 6 mm (a/h = 1.25), inside the range
// 0.5 < a/h < 5 of the Mongia-Bhartia fits (docs/validation.md, R8): HEM11delta k0 a = 6.324/sqrt(eps_r + 2)
// (0.27 + 0.36 a/2h + 0.02 (a/2h)^2) gives f = 5.84 GHz with Q = 7.5, so the
// default sweep 4.5 - 7.5 GHz brackets the resonance.  Air-filled coax:
// b/a = 1.5/0.65, Z0 = 60 ln(b/a) = 50.2 ohm.
SetFactory("OpenCASCADE");

DefineConstant[
  dra_r   = {7.5, Name "Geometry/dra_radius", Help "DRA radius, mm"},
  dra_h   = {6, Name "Geometry/dra_height", Help "DRA height, mm"},
  gp      = {40, Name "Geometry/ground_size", Help "ground plate side, mm"},
  gt      = {1, Name "Geometry/ground_thickness", Help "ground plate thickness, mm"},
  probe_in = {0.5, Min -5, Max 5, Name "Geometry/probe_inset",
              Help "probe axis depth inside the DRA wall, mm (the probe stands at dra_radius - inset from the DRA axis; negative: outside the wall); |inset| < coax_inner_radius"},
  probe_h = {4, Name "Geometry/probe_length", Help "probe length above the ground plate, mm"},
  ra      = {0.65, Name "Geometry/coax_inner_radius", Help "probe / coax inner radius, mm"},
  rb      = {1.5, Name "Geometry/coax_outer_radius", Help "coax outer radius, mm"},
  lc      = {4, Name "Geometry/coax_length", Help "coax length below the plate, mm"},
  margin  = {8, Name "Geometry/margin", Help "air margin around the structure, mm"},
  pml_t   = {20, Name "Geometry/pml_thickness", Help "PML thickness, mm"},
  pml_n   = {3, Name "PML/elements", Help "elements across the PML at least"},
  hp      = {0.5, Name "Mesh/probe_size", Help "element size at the probe and coax, mm"},
  er      = {10, Name "Materials/dra/eps_r"},
  tand    = {1e-4, Name "Materials/dra/tan_delta"},
  eair    = {1, Name "Materials/air/eps_r"},
  ecoax   = {1, Name "Materials/coax/eps_r", Help "coax filling"},
  fa      = {4.5e9, Name "Solver/f_start"},
  fb      = {7.5e9, Name "Solver/f_stop"},
  nf      = {13, Name "Solver/n_freq"},
  p       = {2, Name "Solver/order"},
  epw     = {6, Name "Mesh/elements_per_wavelength"},
  t1      = {"coax", Name "Ports/port1/type"},
  de1     = {4, Name "Ports/port1/deembed", Help "reference plane shift, mm (4 = coax length: the plate's underside)"}
];

// geometries that are not this antenna, refused with their reason (a design
// sweep records the message and goes on)
If (dra_r <= 0 || dra_h <= 0)
  Error("DRA radius %g mm and height %g mm: both must be > 0", dra_r, dra_h);
EndIf
If (Fabs(probe_in) >= ra)
  Error("probe inset %g mm: the probe (radius %g mm) must cross the DRA wall (|inset| < %g); a probe wholly inside or outside the DRA is another antenna", probe_in, ra, ra);
EndIf
probe_x = dra_r - probe_in; // probe axis distance from the DRA axis
zport = -gt - lc;          // port plane
rj = rb + 1.5;             // metal jacket radius around the coax
zlo = zport - 1;           // jacket bottom (1 mm metal cap under the port)
x0 = -gp / 2 - margin;  x1 = gp / 2 + margin;
z0 = zlo - margin;      z1 = dra_h + margin;

// metal: ground plate + jacket, the coax bore and the probe pin cut out later
Box(1) = {-gp / 2, -gp / 2, -gt, gp, gp, gt};
Cylinder(2) = {probe_x, 0, zlo, 0, 0, -gt - zlo, rj};
metal() = BooleanUnion{ Volume{1}; Delete; }{ Volume{2}; Delete; };
Cylinder(10) = {probe_x, 0, zport, 0, 0, -zport, rb};           // coax bore
Cylinder(11) = {probe_x, 0, zport, 0, 0, probe_h - zport, ra};  // inner conductor + probe
Cylinder(12) = {0, 0, 0, 0, 0, dra_h, dra_r};                   // DRA
Box(20) = {x0, x0, z0, x1 - x0, x1 - x0, z1 - z0};              // air box
Box(21) = {x0 - pml_t, x0 - pml_t, z0 - pml_t, x1 - x0 + 2 * pml_t, x1 - x0 + 2 * pml_t,
           z1 - z0 + 2 * pml_t};

shell() = BooleanDifference{ Volume{21}; Delete; }{ Volume{20}; };
air() = BooleanDifference{ Volume{20}; Delete; }{ Volume{metal(), 10, 11, 12}; };
dra() = BooleanDifference{ Volume{12}; Delete; }{ Volume{11}; };
coax() = BooleanDifference{ Volume{10}; Delete; }{ Volume{11}; Delete; };
Recursive Delete{ Volume{metal()}; }
BooleanFragments{ Volume{air(), shell(), dra(), coax()}; Delete; }{}

e = 1e-3;
all() = Volume{:};
in() = Volume In BoundingBox{x0 - e, x0 - e, z0 - e, x1 + e, x1 + e, z1 + e};
dra() = Volume In BoundingBox{-dra_r - e, -dra_r - e, -e, dra_r + e, dra_r + e, dra_h + e};
coax() = Volume In BoundingBox{probe_x - rb - e, -rb - e, zport - e, probe_x + rb + e, rb + e, e};
air() = in();
air() -= dra();
air() -= coax();
pml() = all();
pml() -= in();

Physical Volume("air") = {air()};
Physical Volume("dra") = {dra()};
Physical Volume("coax") = {coax()};
Physical Volume("pml") = {pml()};
port() = Surface In BoundingBox{probe_x - rb - e, -rb - e, zport - e, probe_x + rb + e, rb + e, zport + e};
Physical Surface("port1") = {port()};

// resolve the probe and the coax gap: the case's own sizes win where smaller
probe() = Point In BoundingBox{probe_x - rb - e, -rb - e, zport - e, probe_x + rb + e, rb + e, probe_h + e};
MeshSize{ probe() } = hp;
