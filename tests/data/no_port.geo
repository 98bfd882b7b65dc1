SetFactory("OpenCASCADE");
DefineConstant[ e = {1, Name "Materials/air/eps_r"}, f = {1e9, Name "Solver/frequency"} ];
Box(1) = {0, 0, 0, 10, 10, 10};
Physical Volume("air") = {1};
