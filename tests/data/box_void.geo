// A box with a closed cavity (a metal cube removed from its middle): the
// meshed region has Betti numbers b0 1, b1 0, b2 1 (test case for the
// topology over Z2).
SetFactory("OpenCASCADE");
DefineConstant[ h = {0.8, Name "Mesh/size"} ];
Box(1) = {0, 0, 0, 3, 3, 3};
Box(2) = {1, 1, 1, 1, 1, 1};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
Physical Volume("air") = {3};
Physical Surface("pec") = Surface In BoundingBox{0.9, 0.9, 0.9, 2.1, 2.1, 2.1};
MeshSize{ PointsOf{ Volume{3}; } } = h;
