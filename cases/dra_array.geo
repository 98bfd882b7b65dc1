// An nx x ny array of the default probe-fed DRA (cases/dra.geo) on one
// ground plate (emsolve case; issue 28).
//
// Each element is cases/dra.geo's antenna: a cylindrical DRA (radius dra_r,
// height dra_h, eps_r 10) with a probe standing probe_in inside its wall on
// the element's +x side, fed by a 50-ohm air coax through the plate whose
// annular bottom face is the element's wave port.  The elements sit on a
// rectangular grid, spacing `spacing` (centre to centre, the same along x
// and y), element (i, j) (i = 0..nx-1 along x, j = 0..ny-1 along y) at
// x = (i - (nx-1)/2) spacing, y = (j - (ny-1)/2) spacing; its port is
// port<k> with k = 1 + i + j nx (row by row along x).  The plate reaches
// ground_margin beyond the outer element centres (20 mm: the single DRA's
// 40 mm plate, so nx = ny = 1 is cases/dra.geo).  Air box, PML (a shell of
// pml_t closed by PEC), mesh and PML sizing follow cases/dra.geo's rules
// (Mesh/elements_per_wavelength, Mesh/probe_size at every probe, PML/
// elements across the layer).  The default spacing, 25 mm, is half a
// wavelength at 6 GHz (the elements resonate near 5.84 GHz): the 2 x 2
// array scans to about +-60 deg before a grating lobe appears.
//
// Outputs beyond a single antenna's (docs/farfield.md): the full S-matrix,
// the embedded element pattern of every port, the array pattern for
// Array/weights or a scan direction Array/scan_theta, Array/scan_phi, and
// the active reflection coefficient of every port against scan angle.
SetFactory("OpenCASCADE");

DefineConstant[
  nx      = {2, Min 1, Max 8, Step 1, Name "Geometry/nx", Help "elements along x"},
  ny      = {2, Min 1, Max 8, Step 1, Name "Geometry/ny", Help "elements along y"},
  sp      = {25, Name "Geometry/spacing", Help "element spacing, centre to centre, mm"},
  gm      = {20, Name "Geometry/ground_margin",
             Help "ground plate beyond the outer element centres, mm"},
  dra_r   = {7.5, Name "Geometry/dra_radius", Help "DRA radius, mm"},
  dra_h   = {6, Name "Geometry/dra_height", Help "DRA height, mm"},
  gt      = {1, Name "Geometry/ground_thickness", Help "ground plate thickness, mm"},
  probe_in = {0.5, Min -5, Max 5, Name "Geometry/probe_inset",
              Help "probe axis depth inside the DRA wall, mm; |inset| < coax_inner_radius"},
  probe_h = {4, Name "Geometry/probe_length", Help "probe length above the ground plate, mm"},
  ra      = {0.65, Name "Geometry/coax_inner_radius", Help "probe / coax inner radius, mm"},
  rb      = {1.5, Name "Geometry/coax_outer_radius", Help "coax outer radius, mm"},
  lc      = {4, Name "Geometry/coax_length", Help "coax length below the plate, mm"},
  margin  = {8, Name "Geometry/margin", Help "air margin around the structure, mm"},
  pml_t   = {20, Name "Geometry/pml_thickness", Help "PML thickness, mm"},
  pml_n   = {3, Name "PML/elements", Help "elements across the PML at least"},
  hp      = {0.5, Name "Mesh/probe_size", Help "element size at the probes and coaxes, mm"},
  er      = {10, Name "Materials/dra/eps_r"},
  tand    = {1e-4, Name "Materials/dra/tan_delta"},
  eair    = {1, Name "Materials/air/eps_r"},
  ecoax   = {1, Name "Materials/coax/eps_r", Help "coax filling"},
  fa      = {4.5e9, Name "Solver/f_start"},
  fb      = {7.5e9, Name "Solver/f_stop"},
  nf      = {13, Name "Solver/n_freq"},
  p       = {2, Name "Solver/order"},
  epw     = {6, Name "Mesh/elements_per_wavelength"}
];

If (nx < 1 || ny < 1 || nx != Round(nx) || ny != Round(ny))
  Error("Geometry/nx = %g, Geometry/ny = %g: whole numbers of elements, at least 1", nx, ny);
EndIf
If (dra_r <= 0 || dra_h <= 0)
  Error("DRA radius %g mm and height %g mm: both must be > 0", dra_r, dra_h);
EndIf
If (Fabs(probe_in) >= ra)
  Error("probe inset %g mm: the probe (radius %g mm) must cross the DRA wall (|inset| < %g)", probe_in, ra, ra);
EndIf
probe_x = dra_r - probe_in; // probe axis offset from the element centre, along +x
rj = rb + 1.5;              // metal jacket radius around each coax
If ((nx > 1 || ny > 1) && sp < 2 * dra_r + 1)
  Error("Geometry/spacing %g mm: neighbouring DRAs (radius %g mm) overlap or touch; at least %g mm", sp, dra_r, 2 * dra_r + 1);
EndIf
If (gm < probe_x + rj + 1 || gm < dra_r + 1)
  Error("Geometry/ground_margin %g mm: the plate must reach past the outer DRAs and coax jackets (at least %g mm)", gm, (probe_x + rj > dra_r ? probe_x + rj : dra_r) + 1);
EndIf

n_el = nx * ny;
// one coax port per element, numbered as described above
For k In {1:n_el}
  DefineConstant[
    pt~{k} = {"coax", Name Sprintf("Ports/port%g/type", k)},
    pd~{k} = {4, Name Sprintf("Ports/port%g/deembed", k),
              Help "reference plane shift, mm (4 = coax length: the plate's underside)"}
  ];
EndFor

zport = -gt - lc;         // port planes
zlo = zport - 1;          // jacket bottoms (1 mm metal cap under each port)
gx = (nx - 1) * sp + 2 * gm;
gy = (ny - 1) * sp + 2 * gm;
x0 = -gx / 2 - margin;  x1 = gx / 2 + margin;
y0 = -gy / 2 - margin;  y1 = gy / 2 + margin;
z0 = zlo - margin;      z1 = dra_h + margin;

// element centres
For k In {1:n_el}
  ii = (k - 1) % nx;
  jj = Floor((k - 1) / nx);
  cx~{k} = (ii - (nx - 1) / 2) * sp;
  cy~{k} = (jj - (ny - 1) / 2) * sp;
EndFor

// metal: the plate and every jacket; the bores, pins and DRAs cut later
Box(1) = {-gx / 2, -gy / 2, -gt, gx, gy, gt};
jackets() = {};
bores() = {};
pins() = {};
dras() = {};
For k In {1:n_el}
  Cylinder(100 + k) = {cx~{k} + probe_x, cy~{k}, zlo, 0, 0, -gt - zlo, rj};
  jackets() += {100 + k};
  Cylinder(200 + k) = {cx~{k} + probe_x, cy~{k}, zport, 0, 0, -zport, rb};
  bores() += {200 + k};
  Cylinder(300 + k) = {cx~{k} + probe_x, cy~{k}, zport, 0, 0, probe_h - zport, ra};
  pins() += {300 + k};
  Cylinder(400 + k) = {cx~{k}, cy~{k}, 0, 0, 0, dra_h, dra_r};
  dras() += {400 + k};
EndFor
metal() = BooleanUnion{ Volume{1}; Delete; }{ Volume{jackets()}; Delete; };
Box(20) = {x0, y0, z0, x1 - x0, y1 - y0, z1 - z0};                     // air box
Box(21) = {x0 - pml_t, y0 - pml_t, z0 - pml_t, x1 - x0 + 2 * pml_t, y1 - y0 + 2 * pml_t,
           z1 - z0 + 2 * pml_t};

shell() = BooleanDifference{ Volume{21}; Delete; }{ Volume{20}; };
air() = BooleanDifference{ Volume{20}; Delete; }{ Volume{metal(), bores(), pins(), dras()}; };
dra() = BooleanDifference{ Volume{dras()}; Delete; }{ Volume{pins()}; };
coax() = BooleanDifference{ Volume{bores()}; Delete; }{ Volume{pins()}; Delete; };
Recursive Delete{ Volume{metal()}; }
BooleanFragments{ Volume{air(), shell(), dra(), coax()}; Delete; }{}

e = 1e-3;
all() = Volume{:};
in() = Volume In BoundingBox{x0 - e, y0 - e, z0 - e, x1 + e, y1 + e, z1 + e};
dra() = {};
coax() = {};
For k In {1:n_el}
  dra() += Volume In BoundingBox{cx~{k} - dra_r - e, cy~{k} - dra_r - e, -e,
                                 cx~{k} + dra_r + e, cy~{k} + dra_r + e, dra_h + e};
  coax() += Volume In BoundingBox{cx~{k} + probe_x - rb - e, cy~{k} - rb - e, zport - e,
                                  cx~{k} + probe_x + rb + e, cy~{k} + rb + e, e};
EndFor
air() = in();
air() -= dra();
air() -= coax();
pml() = all();
pml() -= in();

Physical Volume("air") = {air()};
Physical Volume("dra") = {dra()};
Physical Volume("coax") = {coax()};
Physical Volume("pml") = {pml()};
For k In {1:n_el}
  port() = Surface In BoundingBox{cx~{k} + probe_x - rb - e, cy~{k} - rb - e, zport - e,
                                  cx~{k} + probe_x + rb + e, cy~{k} + rb + e, zport + e};
  Physical Surface(Sprintf("port%g", k)) = {port()};
  // resolve each probe and coax gap: the case's own sizes win where smaller
  probe() = Point In BoundingBox{cx~{k} + probe_x - rb - e, cy~{k} - rb - e, zport - e,
                                 cx~{k} + probe_x + rb + e, cy~{k} + rb + e, probe_h + e};
  MeshSize{ probe() } = hp;
EndFor
