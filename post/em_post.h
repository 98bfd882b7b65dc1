/* em_post.h - what comes out of a solve: fields for ParaView (our own legacy
 * VTK writer), the JSON summary, Touchstone and CSV port tables, and port
 * quantities.  Every file is written to a temporary name and renamed.
 */
#ifndef EM_POST_H
#define EM_POST_H

#include "em_assembly.h"
#include "em_core.h"
#include "em_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------------------------- VTK */

typedef struct em_vtk_opts {
  int binary;       /* 1: BINARY (big-endian, as legacy VTK requires); 0: ASCII */
  int subdiv;       /* each tet is split into subdiv^3 sub-tets (1 = the mesh
                       itself); use the basis order p so ParaView sees the
                       higher-order field rather than vertex averages */
  const char *title;
} em_vtk_opts;

/* The field to write, sampled at barycentric point lam of tet t. */
typedef em_err (*em_field_sampler)(void *ctx, int32_t t, const double lam[4], em_cplx E[3]);

/* UNSTRUCTURED_GRID of (sub-divided) tets.  Point data: "E_re", "E_im"
 * (vectors, V/m) and "E_abs" (scalar sqrt(|Ex|^2+|Ey|^2+|Ez|^2)); cell data:
 * "material" (the volume group index of the parent tet; the group names are
 * listed in the file's title line).  Points are not shared between parent
 * tets, because the tangential-conforming field is discontinuous in its
 * normal component across material interfaces. */
em_err em_vtk_write(const char *path, const em_mesh *m, em_field_sampler E, void *ctx,
                    const em_vtk_opts *o);

/* ------------------------------------------------------------------- JSON */

/* A streaming JSON writer into an em_outfile: keys in objects, no key in
 * arrays (pass NULL).  Numbers that are not finite are written as null. */
typedef struct em_json {
  em_outfile out;
  int depth;
  int first[32];    /* no element written yet at each depth */
} em_json;

em_err em_json_open(em_json *j, const char *path);
void em_json_begin_object(em_json *j, const char *key);
void em_json_end_object(em_json *j);
void em_json_begin_array(em_json *j, const char *key);
void em_json_end_array(em_json *j);
void em_json_number(em_json *j, const char *key, double v);
void em_json_int(em_json *j, const char *key, int64_t v);
void em_json_string(em_json *j, const char *key, const char *s);
void em_json_bool(em_json *j, const char *key, int v);
/* Close all open scopes and commit the file. */
em_err em_json_close(em_json *j);
/* Remove the temporary file after an error. */
void em_json_abort(em_json *j);

/* ------------------------------------------------------------ port tables */

/* Touchstone v1 (".sNp"): "# Hz S RI R z0", one line per frequency;
 * S is [n_freq][n_ports][n_ports] with S[f][i][j] = S_ij. */
em_err em_touchstone_write(const char *path, int n_ports, int n_freq, const double *freq,
                           const em_cplx *S, double z0, const char *comment);
/* ports.csv: frequency, then per port: |S_ii| dB, phase deg, Re/Im Zin,
 * and S_ji for j != i. */
em_err em_ports_csv_write(const char *path, int n_ports, int n_freq, const double *freq,
                          const em_cplx *S, const double *z0);

/* ------------------------------------------------------ port quantities */

/* S-parameters of one frequency from the port measurements:
 * meas[i * n + j] = what port j measured (em_port_measure) while port i was
 * excited.  Power waves: a wave port driven with the unit-power mode has
 * a = sqrt 2 and b_j = sqrt 2 (c_j - delta_ij); a lumped port with its 1 A
 * Norton source has a = sqrt(R) / 2 and b = (V - R I) / (2 sqrt R).  Then the
 * reference planes move by each port's deembed (S_ij e^{j beta_i d_i}
 * e^{j beta_j d_j}) and S is renormalised from the mode impedances to
 * z_ref (when set).  Out: S[i * n + j] = S_ij, zref[i] the reference
 * impedance of port i, zin[i] = zref_i (1 + S_ii) / (1 - S_ii). */
em_err em_port_sparams(int n, const em_port *ports, const em_cplx *meas, em_cplx *S, double *zref,
                       em_cplx *zin);

#ifdef __cplusplus
}
#endif
#endif /* EM_POST_H */
