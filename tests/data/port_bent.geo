// A port group made of two faces at a right angle: not planar.
SetFactory("OpenCASCADE");
DefineConstant[ e = {1, Name "Materials/air/eps_r"}, f = {10e9, Name "Solver/frequency"},
  t = {"waveguide", Name "Ports/port1/type"} ];
Box(1) = {0, 0, 0, 22.86, 10.16, 20};
Physical Volume("air") = {1};
z0() = Surface In BoundingBox{-1e-6, -1e-6, -1e-6, 23, 11, 1e-6};
x0() = Surface In BoundingBox{-1e-6, -1e-6, -1e-6, 1e-6, 11, 21};
Physical Surface("port1") = {z0(), x0()};
