SetFactory("OpenCASCADE");
Rectangle(1) = {0, 0, 0, 1, 1};
Physical Surface("port1") = {1};
