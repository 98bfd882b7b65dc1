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
  int binary;        /* 1: BINARY (big-endian, as legacy VTK requires); 0: ASCII */
  int subdiv;        /* each tet is split into subdiv^3 sub-tets (1 = the mesh
                        itself); use the basis order p so ParaView sees the
                        higher-order field rather than vertex averages */
  const char *title; /* named in the file's title line (NULL: none) */
  int single;        /* 1: reals as 32-bit "float" (half the file, ~7 digits);
                        0: 64-bit "double" */
} em_vtk_opts;

/* The field to write, sampled at barycentric point lam of tet t. */
typedef em_err (*em_field_sampler)(void *ctx, int32_t t, const double lam[4], em_cplx E[3]);

/* UNSTRUCTURED_GRID of (sub-divided) tets.  Point data: "E_re", "E_im"
 * (vectors, V/m) and "E_abs" (scalar sqrt(|Ex|^2+|Ey|^2+|Ez|^2)); cell data:
 * "material" (the volume group index of the parent tet; the group names are
 * listed in the file's title line).  Points are not shared between parent
 * tets, because the tangential-conforming field is discontinuous in its
 * normal component across material interfaces: tet t owns points
 * t N .. t N + N-1, N = (s+1)(s+2)(s+3)/6, and cells t s^3 .. t s^3 + s^3-1
 * (s = subdiv, 1..64).  E is called from one thread, once per point, before
 * the data is written; its error, or a non-finite value (EM_ERR_NUMERIC
 * naming the tet), leaves no file. */
em_err em_vtk_write(const char *path, const em_mesh *m, em_field_sampler E, void *ctx,
                    const em_vtk_opts *o);

/* ------------------------------------------------------------------- JSON */

/* A streaming JSON writer into an em_outfile: keys in objects, no key in
 * arrays nor for the one top-level value (pass NULL).  Numbers that are not
 * finite are written as null; doubles in the shortest form that reads back
 * exactly; strings and keys are escaped (invalid UTF-8 becomes U+FFFD), a
 * NULL string is null.  A misuse (a key where none belongs or none where
 * one must be, an end without its begin or of the other kind, nesting
 * deeper than EM_JSON_MAX_DEPTH, a second top-level value) stops the
 * writer: em_json_close then removes the file and returns EM_ERR_ARG naming
 * the first misuse. */
#define EM_JSON_MAX_DEPTH 31
typedef struct em_json {
  em_outfile out;
  int depth;                         /* open scopes; the top level is depth 0 */
  int first[EM_JSON_MAX_DEPTH + 1];  /* no element written yet at each depth */
  char array[EM_JSON_MAX_DEPTH + 1]; /* the scope at each depth is an array */
  char misuse[192];                  /* the first misuse ("" while none) */
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
/* Close all open scopes and commit the file; after a misuse, or when no
 * value was written, remove the file and return EM_ERR_ARG.  Either way the
 * writer is finished (em_json_abort after it is harmless). */
em_err em_json_close(em_json *j);
/* Remove the temporary file after an error. */
void em_json_abort(em_json *j);

/* ------------------------------------------------------------ port tables */

/* Touchstone v1 (".sNp"): "# Hz S RI R z0", one line per frequency for
 * N <= 2 (S11 S21 S12 S22), rows of at most 4 pairs for N >= 3;
 * S is [n_freq][n_ports][n_ports] with S[f][i][j] = S_ij.  comment (may be
 * NULL, may hold several lines) goes into "! " lines.  Frequencies must be
 * finite, >= 0 and increasing (EM_ERR_ARG); S finite (EM_ERR_NUMERIC). */
em_err em_touchstone_write(const char *path, int n_ports, int n_freq, const double *freq,
                           const em_cplx *S, double z0, const char *comment);
/* ports.csv: frequency, then per port i: |S_ii| dB, phase deg, Re/Im Zin
 * with Zin = z0[i] (1 + S_ii)/(1 - S_ii) ("inf" when S_ii = 1), and |S_ji|
 * dB for j != i.  Columns are named in docs/outputs.md. */
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
