// emsolve test case: a box with a physical surface but no physical volume.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Physical Surface("pec") = {1};
