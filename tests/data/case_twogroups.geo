// emsolve test case: a volume in two physical groups.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Box(2) = {2, 0, 0, 1, 1, 1};
Physical Volume("air") = {1, 2};
Physical Volume("dra") = {2};
