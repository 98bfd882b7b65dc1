// emsolve test case: a physical surface beside the meshed volume, not part
// of it.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Rectangle(100) = {2, 0, 0, 1, 1};
Physical Volume("air") = {1};
Physical Surface("port1") = {100};
