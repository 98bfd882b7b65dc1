// emsolve test case: two volumes, only one of them in a physical group.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Box(2) = {2, 0, 0, 1, 1, 1};
Physical Volume("air") = {1};
