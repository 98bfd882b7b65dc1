/* run_impl.h - the pieces of a run's outputs that em_post_frequency and
 * em_post_finish put together (private to post/). */
#ifndef EM_RUN_IMPL_H
#define EM_RUN_IMPL_H

#include "em_post.h"

/* tables.c: the Touchstone file (S on the ports' own impedances, or
 * renormalised to Output/touchstone_z0), the flags as comment lines, its
 * interpolated twin and ports.csv. */
em_err em_post_tables(const em_model *m, const em_results *r, em_outdir *out);

/* line.c: E along Output/line_* at f to path (CSV). */
em_err em_post_line_write(const em_model *m, double f, const em_cplx *x, const em_cplx *fixed,
                          const char *path);

/* ff_frequency.c: after the solve of frequency fi, the NF2FF transform,
 * figures / RCS and their files (and the array's, ff_array.c); x holds the
 * solutions of every excitation (port 1's, or the plane wave's, first),
 * meas what the ports measured (NULL with a plane wave).  _print: one line
 * per frequency of the far-field results. */
em_err em_post_ff_frequency(const em_model *m, em_results *r, em_outdir *out, const em_log *log,
                            int fi, double k0, const em_cplx *x, const em_cplx *fixed,
                            const em_cplx *meas);
void em_post_ff_print(const em_model *m, const em_results *r, FILE *f);

/* ff_array.c (m->ff.arr.enabled): per frequency (o: the NF2FF of the run
 * at its k0) the embedded and array patterns, the array's figures and the
 * active reflection table (x: the solutions of every port, meas what the
 * ports measured); _print: the array's line per frequency. */
em_err em_post_array_frequency(const em_model *m, em_results *r, em_outdir *out, const em_log *log,
                               int fi, const em_nf2ff_opts *o, const em_cplx *x,
                               const em_cplx *fixed, const em_cplx *meas);
void em_post_array_print(const em_model *m, const em_results *r, FILE *f);

/* fields.c: fields_<f>.vtk (E; H and the Poynting vector with
 * Output/h_field), surface_<f>.vtk (J_s = n x H on metal, a plane wave's
 * incident H included) and plane_<f>.csv / .vtk (Output/plane_*) of the
 * solution x at f; fr->fields names the VTK. */
typedef struct em_post_est em_post_est;
em_err em_post_fields(const em_model *m, em_freq_result *fr, em_outdir *out, const em_log *log,
                      double f, const em_cplx *x, const em_cplx *fixed, em_post_est **est);

/* fields_est.c: the error indicator eta_T of the fields file.  _start: on
 * a thread of its own from now (NULL: not started, the take computes it in
 * order); _take: joined (or computed here, est or *est NULL), the square
 * roots per tet, NULL with a warning when it cannot be made (the VTK then
 * has no error field); _free: an error path's join. */
em_post_est *em_post_est_start(const em_model *m, const em_log *log, double f, const em_cplx *x,
                               const em_cplx *fixed);
double *em_post_est_take(em_post_est **est, const em_model *m, const em_log *log, double f,
                         const em_cplx *x, const em_cplx *fixed);
void em_post_est_free(em_post_est **est);
/* The OpenMP threads the caller keeps while the thread runs (the far field
 * and the fields file's sampling): the rest are the estimate's, so that
 * the two teams share the cores instead of contending for them (issue 24);
 * the results do not depend on either count.  *all (may be NULL): the
 * caller's team when the thread started. */
int em_post_est_share(const em_post_est *est, int *all);
/* 1 once the thread's work is over (its join then does not wait). */
int em_post_est_done(const em_post_est *est);

/* received.c: a plane wave on a case with ports (matched loads): what each
 * load receives (the total field: the scattered solution plus the incident
 * wave) into res->rx / rx_power, received.csv and the log. */
em_err em_post_received(const em_model *m, em_results *res, em_outdir *out, const em_log *log,
                        int fi, double k0, const em_cplx *x, const em_cplx *fixed);

/* mode_figures.c: int Re(eps_r) |E|^2 per volume group of a mode x
 * (w_group [n_group]); the dominant dipole of its polarization current,
 * "P_x" .. "M_z", "-" without a dielectric (k: Re k0 of the mode). */
em_err em_mode_energy(const em_mesh *m, const em_dofmap *d, const em_medium *medium,
                      const em_cplx *x, double *w_group);
em_err em_mode_dipole(const em_mesh *m, const em_dofmap *d, const em_medium *medium,
                      const em_cplx *x, double k, char label[8]);

#endif
