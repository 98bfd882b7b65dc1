// A parallel-plate line fed by a lumped port across its whole cross-section
// (test case).  Plates y = 0 and y = h are PEC, the sides x = 0 and x = w
// magnetic walls, so the line carries the TEM mode with uniform E_y:
//   Z0 = eta0 / sqrt(eps_r) h / w,  k = k0 sqrt(eps_r).
// The gap at z = 0 (port1, E along y) drives it.  The far end z = len is a
// PEC short (Geometry/far = 0): Zin = j Z0 tan(k len); or a second lumped
// port (Geometry/far = 1): Z11 = -j Z0 cot(k len), Z21 = -j Z0 / sin(k len),
// so with R = Z0: S11 = 0, S21 = exp(-j k len).  Geometry/far = 2: the end
// is the surface group "load" (Boundary/load/type rlc: a lumped load Z_L
// across the whole end, Zin = Z0 (Z_L + j Z0 t) / (Z0 + j Z_L t),
// t = tan(k len)); Geometry/far = 3: "load" is a sheet across the line at
// len / 2 with a PEC short at len (Z_L in parallel with j Z0 tan(k len / 2),
// seen through the first half).  Geometry/port_width > 0
// narrows port1 to a centred strip of that width, the rest of the end a
// magnetic wall: the gap field is then not uniform (no closed form; a
// lossless structure all the same).
SetFactory("OpenCASCADE");
DefineConstant[
  w   = {4, Name "Geometry/width", Help "mm"},
  h   = {2, Name "Geometry/height", Help "mm"},
  len = {12, Name "Geometry/length", Help "mm"},
  far = {0, Name "Geometry/far", Help "0: PEC short, 1: second lumped port, 2: rlc load at the end, 3: rlc sheet at len/2, short at len"},
  pw  = {0, Min 0, Max 100, Name "Geometry/port_width", Help "port1 strip width, mm (0: the whole width)"},
  per = {0, Min 0, Max 1, Name "Geometry/periodic_sides", Help "1: the sides are the groups xlo, xhi, meshed periodic (Boundary/xlo/periodic xhi: a periodic cell), not pmc_sides"},
  f   = {3e9, Name "Solver/frequency"},
  p   = {2, Name "Solver/order"},
  hs  = {1, Name "Mesh/size", Help "mm"},
  e   = {2.2, Name "Materials/fill/eps_r"},
  t1  = {"lumped", Name "Ports/port1/type"},
  d1  = {1, Name "Ports/port1/dir_y"},
  t2  = {"lumped", Name "Ports/port2/type"},
  d2  = {1, Name "Ports/port2/dir_y"}
];
Box(1) = {0, 0, 0, w, h, len};
s = 1e-6;
If (far == 3)
  Rectangle(200) = {0, 0, len / 2, w, h};
  BooleanFragments{ Volume{1}; Delete; }{ Surface{200}; Delete; }
EndIf
If (pw > 0)
  Rectangle(100) = {(w - pw) / 2, 0, 0, pw, h};
  BooleanFragments{ Volume{1}; Delete; }{ Surface{100}; Delete; }
  p1() = Surface In BoundingBox{(w - pw) / 2 - s, -s, -s, (w + pw) / 2 + s, h + s, s};
  ends() = Surface In BoundingBox{-s, -s, -s, w + s, h + s, s};
  ends() -= p1();
  Physical Surface("pmc_end") = {ends()};
Else
  p1() = Surface In BoundingBox{-s, -s, -s, w + s, h + s, s};
EndIf
Physical Volume("fill") = {Volume{:}};
Physical Surface("port1") = {p1()};
If (far == 1)
  Physical Surface("port2") = Surface In BoundingBox{-s, -s, len - s, w + s, h + s, len + s};
EndIf
If (far == 2)
  Physical Surface("load") = Surface In BoundingBox{-s, -s, len - s, w + s, h + s, len + s};
EndIf
If (far == 3)
  Physical Surface("load") = Surface In BoundingBox{-s, -s, len / 2 - s, w + s, h + s, len / 2 + s};
EndIf
pmc() = Surface In BoundingBox{-s, -s, -s, s, h + s, len + s};
pmc() += Surface In BoundingBox{w - s, -s, -s, w + s, h + s, len + s};
If (per == 0)
  Physical Surface("pmc_sides") = {pmc()};
Else
  xl() = Surface In BoundingBox{-s, -s, -s, s, h + s, len + s};
  xh() = Surface In BoundingBox{w - s, -s, -s, w + s, h + s, len + s};
  Physical Surface("xlo") = {xl()};
  Physical Surface("xhi") = {xh()};
  For i In {0 : #xl() - 1}
    Periodic Surface{xh(i)} = {xl(i)} Translate{w, 0, 0};
  EndFor
EndIf
MeshSize{ PointsOf{ Volume{:}; } } = hs;
