// emsolve test case: a syntax error on line 4.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Physical Volume("air") = {1;
