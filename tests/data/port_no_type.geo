SetFactory("OpenCASCADE");
DefineConstant[ e = {1, Name "Materials/air/eps_r"}, f = {10e9, Name "Solver/frequency"} ];
Box(1) = {0, 0, 0, 22.86, 10.16, 20};
Physical Volume("air") = {1};
Physical Surface("port1") = Surface In BoundingBox{-1e-6, -1e-6, -1e-6, 23, 11, 1e-6};
