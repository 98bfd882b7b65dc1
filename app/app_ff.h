/* app_ff.h - far field, antenna figures, plane-wave excitation and plots in
 * the emsolve pipeline (private to app/; the physics is in post/ and
 * assembly/, docs/farfield.md). */
#ifndef EM_APP_FF_H
#define EM_APP_FF_H

#include "app_impl.h"

typedef struct em_run em_run;

/* What the case asks for (Farfield/ *, Excitation/ *, Output/plots). */
typedef struct em_app_ff {
  int enabled;                             /* compute the far field at each frequency */
  int planewave;                           /* Excitation/type planewave (no ports) */
  double theta_step, phi_step;             /* degrees */
  int group;                               /* NF2FF surface group, -1: PML boundary */
  int volume;                              /* Farfield/method: 1 volume form, 0 surface */
  em_mirror mirror[3];                     /* Farfield/mirror_x|y|z */
  double mirror_at[3];                     /* metres */
  int half_space;                          /* Farfield/infinite_ground */
  double pw_theta, pw_phi, pw_psi, pw_amp; /* radians, V/m */
  em_planewave pw;                         /* at the current frequency */
  em_scatter sc;                           /* its scattered-field sources */
  em_antenna *ant;                         /* [n_freq] figures (ports) */
  double *rcs_back, *rcs_fwd;              /* [n_freq] m^2 (plane wave) */
  int plots;                               /* Output/plots */
  em_scatter_port sport[EM_MAX_PORTS];     /* a plane wave's ports: their sources */
  em_cplx *rx;                             /* [n_freq][n_port] received: wave port the
                                              outgoing modal amplitude (sqrt W), lumped
                                              the load voltage (V) */
  double *rx_power;                        /* [n_freq][n_port] W into each load */
} em_app_ff;

/* The parameters of the far field, the excitation and the plots (spliced
 * into the table of app/params.c). */
#define EM_FF_NUM(n, v, u, h) \
  { n, 0, v, NULL, 1, h, u, 0 }
#define EM_FF_STR(n, v, h) \
  { n, 1, 0, v, 1, h, NULL, 0 }
#define EM_APP_FF_SPECS                                                                            \
  EM_FF_STR(                                                                                       \
      "Farfield/compute", "auto",                                                                  \
      "far field and antenna figures / RCS at every frequency: auto (when the case has a PML "     \
      "or a plane wave), on, off"),                                                                \
      EM_FF_NUM("Farfield/theta_step", 5, "deg",                                                   \
                "far-field grid step in theta, degrees (divides 180)"),                            \
      EM_FF_NUM("Farfield/phi_step", 5, "deg",                                                     \
                "far-field grid step in phi, degrees (divides 360)"),                              \
      EM_FF_STR("Farfield/surface", "auto",                                                        \
                "NF2FF surface: auto (the surface group 'nf2ff' if any, else the boundary of the " \
                "non-PML region), or the name of a closed surface group"),                         \
      EM_FF_STR("Farfield/method", "volume",                                                       \
                "NF2FF: volume (E and curl E weighted over a layer of tets one ring inside the "   \
                "surface; far less sensitive to the fields' errors) or surface (the traces on "    \
                "it)"),                                                                            \
      EM_FF_STR("Farfield/mirror_x", "none", "symmetry plane x = mirror_x_at: none, pec or pmc"),  \
      EM_FF_STR("Farfield/mirror_y", "none", "symmetry plane y = mirror_y_at: none, pec or pmc"),  \
      EM_FF_STR("Farfield/mirror_z", "none", "symmetry plane z = mirror_z_at: none, pec or pmc"),  \
      EM_FF_NUM("Farfield/mirror_x_at", 0, "model units",                                          \
                "x of the symmetry plane (model units)"),                                          \
      EM_FF_NUM("Farfield/mirror_y_at", 0, "model units",                                          \
                "y of the symmetry plane (model units)"),                                          \
      EM_FF_NUM("Farfield/mirror_z_at", 0, "model units",                                          \
                "z of the symmetry plane or ground (model units)"),                                \
      EM_FF_NUM("Farfield/infinite_ground", 0, NULL,                                               \
                "1: the z mirror (pec) is an infinite ground plane: far field above it only"),     \
      EM_FF_STR("Excitation/type", "port",                                                         \
                "what drives the structure: port (each port in turn) or "                          \
                "planewave (scattering; the case has no ports)"),                                  \
      EM_FF_NUM("Excitation/theta", 0, "deg",                                                      \
                "plane wave: direction of travel, polar angle in degrees (0: along +z)"),          \
      EM_FF_NUM("Excitation/phi", 0, "deg",                                                        \
                "plane wave: direction of travel, azimuth in degrees"),                            \
      EM_FF_NUM("Excitation/polarization", 0, "deg",                                               \
                "plane wave: E at this angle (degrees) from theta_hat towards phi_hat"),           \
      EM_FF_NUM("Excitation/amplitude", 1, "V/m", "plane wave: |E_inc|, V/m"),                     \
      EM_FF_NUM("Output/plots", 0, NULL,                                                           \
                "1: write PNG and SVG plots to <out>/plots (scripts/emplot.py)"),

/* Read the settings and check them against the mesh and the setup. */
em_err em_app_ff_setup(em_run *r);
void em_app_ff_free(em_app_ff *ff);
/* Plane wave: column 0 of prob gets the scattered-field sources. */
em_err em_app_ff_problem(em_run *r, double k0, em_problem *prob);
/* Ports in a plane-wave run (matched loads): the Robin source of port i's
 * term for the scattered field at k0. */
em_err em_app_ff_port_source(em_run *r, double k0, int port, em_robin *rb);
/* What the loads receive at frequency fi (total field: the scattered
 * solution plus the incident wave), into rx / rx_power, received.csv and
 * the log. */
em_err em_app_ff_received(em_run *r, int fi, double k0, const em_cplx *x, const em_cplx *fixed);
/* After the solve of frequency fi: NF2FF, figures / RCS, files. x is the
 * solution of the first excitation (port 1 or the plane wave); meas what
 * the ports measured (NULL with a plane wave). */
em_err em_app_ff_frequency(em_run *r, int fi, double k0, const em_cplx *x, const em_cplx *fixed,
                           const em_cplx *meas);
/* One line per frequency of the far-field results on f. */
void em_app_ff_print(const em_run *r, FILE *f);
/* Run scripts/emplot.py on dir (PNG and SVG in dir/plots). */
em_err em_app_plot(const char *dir, const em_log *log);

#endif
