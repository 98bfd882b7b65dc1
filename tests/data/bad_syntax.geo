SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1;
Physical Volume("air") = {1};
