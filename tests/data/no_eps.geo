SetFactory("OpenCASCADE");
DefineConstant[ e = {1, Name "Materials/air/eps_r"}, f = {10e9, Name "Solver/frequency"},
  t = {"waveguide", Name "Ports/port1/type"} ];
Box(1) = {0, 0, 0, 22.86, 10.16, 20};
Box(2) = {5, 3, 5, 5, 3, 5};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
Physical Volume("air") = {3};
Physical Volume("dra") = {2};
Physical Surface("port1") = Surface In BoundingBox{-1e-6, -1e-6, -1e-6, 23, 11, 1e-6};
