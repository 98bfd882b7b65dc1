// The parameters of tests/model/test_case_setup.c: the media and the port
// that the test's own meshes (structured boxes with named groups) refer to.
// The geometry is only what a case must have (a volume); the test does not
// mesh it.
SetFactory("OpenCASCADE");
DefineConstant[
  e_air = {1, Name "Materials/air/eps_r"},
  e_d   = {4, Name "Materials/diel/eps_r"},
  m_d   = {2, Name "Materials/diel/mu_r"},
  t_d   = {0.1, Name "Materials/diel/tan_delta"},
  t1    = {"lumped", Name "Ports/port1/type"},
  z1    = {50, Name "Ports/port1/z0"},
  d1    = {1, Name "Ports/port1/dir_z"},
  de1   = {2, Name "Ports/port1/deembed", Help "model units"}
];
Box(1) = {0, 0, 0, 1, 1, 1};
Physical Volume("air") = {1};
