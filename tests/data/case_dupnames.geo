// emsolve test case: a group named like the unnamed group 2 ("volume2").
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Box(2) = {2, 0, 0, 1, 1, 1};
Physical Volume("volume2", 1) = {1};
Physical Volume(2) = {2};
