/* app_fields.h - the fields a frequency writes beside E (private to app/,
 * app/fields.c): H and the Poynting vector in fields_<f>.vtk, the surface
 * current J_s = n x H on metal (surface_<f>.vtk), E and H on a plane
 * (plane_<f>.csv / .vtk). */
#ifndef EM_APP_FIELDS_H
#define EM_APP_FIELDS_H

#include "app_impl.h"

typedef struct em_run em_run;

typedef struct em_app_fields {
  int h;            /* Output/h_field: H and S beside E in fields_<f>.vtk */
  int surface;      /* Output/surface_current: surface_<f>.vtk */
  int plane_axis;   /* Output/plane_normal: -1 none, 0 x, 1 y, 2 z */
  double plane_at;  /* metres */
  int plane_points; /* along the longer side */
  int plane_csv, plane_vtk;
} em_app_fields;

#define EM_FO_NUM(n, v, u, h) \
  { n, 0, v, NULL, 1, h, u, 0 }
#define EM_FO_STR(n, v, h) \
  { n, 1, 0, v, 1, h, NULL, 0 }
#define EM_APP_FIELDS_SPECS                                                                        \
  EM_FO_NUM("Output/h_field", 1, NULL,                                                             \
            "1: H (A/m) and the Poynting vector S = 1/2 Re(E x H*) beside E in fields_<f>.vtk"),   \
      EM_FO_NUM("Output/surface_current", 1, NULL,                                                 \
                "1: the surface current J_s = n x H on metal (PEC and impedance faces) in "        \
                "surface_<f>.vtk, at the frequencies of the fields"),                              \
      EM_FO_STR("Output/plane_normal", "none",                                                     \
                "E, H and S on the plane normal to x, y or z (none: no plane) at the frequencies " \
                "of the fields: plane_<f>.csv / .vtk"),                                            \
      EM_FO_NUM("Output/plane_at", 0, "model units", "coordinate of the plane (model units)"),     \
      EM_FO_NUM("Output/plane_points", 101, NULL,                                                  \
                "plane: points along the longer side of the mesh's (non-PML) extent"),             \
      EM_FO_STR("Output/plane_format", "both", "plane: csv, vtk or both"),

em_err em_app_fields_read(const em_case *c, double unit, em_app_fields *fo);
/* The plane lies in the mesh (before any solve). */
em_err em_app_fields_check(const em_run *r);
/* fields_<f>.vtk (E, with H and S), surface_<f>.vtk and plane_<f>.* of
 * frequency fi from the solution x of the first excitation. */
em_err em_app_fields_write(em_run *r, int fi, const em_cplx *x, const em_cplx *fixed);

#endif
