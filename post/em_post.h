/* em_post.h - what comes out of a solve: fields for ParaView (our own legacy
 * VTK writer), the JSON summary, Touchstone and CSV port tables, and port
 * quantities.  Every file is written to a temporary name and renamed.
 */
#ifndef EM_POST_H
#define EM_POST_H

#include "em_assembly.h"
#include "em_core.h"
#include "em_eigen.h"
#include "em_mesh.h"
#include "em_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------------------------- VTK */

typedef struct em_vtk_opts {
  int binary;              /* 1: BINARY (big-endian, as legacy VTK requires); 0: ASCII */
  int subdiv;              /* each tet is split into subdiv^3 sub-tets (1 = the mesh
                              itself); use the basis order p so ParaView sees the
                              higher-order field rather than vertex averages */
  const char *title;       /* named in the file's title line (NULL: none) */
  int single;              /* 1: reals as 32-bit "float" (half the file, ~7 digits);
                              0: 64-bit "double" */
  const em_cancel *cancel; /* polled every 256 tets: set, the writer stops with
                              EM_ERR_CANCELLED and leaves no file (NULL: never) */
  em_err (*H)(void *ctx, int32_t t, const double lam[4], em_cplx H[3]);
  /* H: NULL for E only; else H from it (the same ctx as E) too: "H_re",
     "H_im", "H_abs" (A/m) and the time-averaged Poynting vector "S" =
     1/2 Re(E x H*) (W/m^2) */
  const int8_t *order; /* [n_tet] basis order per tet: cell data "order"
                          (NULL: not written) */
  const double *error; /* [n_tet] the error indicator eta_T of each tet: cell
                          data "error" (NULL: not written) */
  int parallel;        /* 1: the samplers (E, H, tet, a surface's face sampler)
                          may be called from several threads at once, in any
                          order; 0: from one thread, in order */
  em_err (*tet)(void *ctx, int32_t t, int n, const double *lam, em_cplx *E, em_cplx *H);
  /* tet: NULL, or in place of E and H the field at all n lattice points
     lam[4 k ..] of tet t at once, E[3 k + c] and, where H is not NULL
     (with tet_h), H[3 k + c]: the same values E and H would give point by
     point, the tet's work shared by its points (and H's E by both) */
  int tet_h; /* with tet: H, "H_*" and "S" written too */
  const double *(*error_late)(void *ctx);
  void *error_ctx;
  /* error_late: NULL, or in place of error, called once on the writer's
     thread after the sampling and the mesh's arrays, just before the cell
     data "error" (an indicator made beside the writer: post/fields_est.c);
     it returns the array (NULL: not written), checked as error is.  It is
     not called when the writer stops before (its caller then finishes
     what it started) */
} em_vtk_opts;

/* The field to write, sampled at barycentric point lam of tet t. */
typedef em_err (*em_field_sampler)(void *ctx, int32_t t, const double lam[4], em_cplx E[3]);

/* UNSTRUCTURED_GRID of (sub-divided) tets.  Point data: "E_re", "E_im"
 * (vectors, V/m) and "E_abs" (scalar sqrt(|Ex|^2+|Ey|^2+|Ez|^2)); cell data:
 * "material" (the volume group index of the parent tet; the group names are
 * listed in the file's title line), with o->order "order" and with o->error "error" (the parent's
 * indicator, model/estimate.c).  Points are not shared between
 * parent tets, because the tangential-conforming field is discontinuous in its normal component
 * across material interfaces: tet t owns points t N .. t N + N-1, N = (s+1)(s+2)(s+3)/6, and cells
 * t s^3 .. t s^3 + s^3-1 (s = subdiv, 1..64).  E (or o->tet, then E may be NULL) is called once
 * per point (tet) before the data is written, from one thread unless o->parallel; its error, or a
 * non-finite value (EM_ERR_NUMERIC naming the tet), leaves no file.  The file's bytes do not depend
 * on the number of threads. */
em_err em_vtk_write(const char *path, const em_mesh *m, em_field_sampler E, void *ctx,
                    const em_vtk_opts *o);

/* A complex vector field on mesh faces (the surface current on metal):
 * legacy VTK UNSTRUCTURED_GRID of triangles, each face face[k] split into
 * subdiv^2 sub-triangles on the lattice of denominator subdiv (points not
 * shared between faces).  fn(ctx, k, lam, x, v) gives the point x (metres)
 * and the value v at barycentric lam on the face's vertices m->face[3 f ..];
 * point data "<name>_re", "<name>_im" (vectors), "<name>_abs"; cell data
 * "group" = tag[k] (NULL: none).  A sampler error or a value that is not
 * finite leaves no file (post/vtk_surface.c). */
typedef em_err (*em_face_sampler)(void *ctx, int32_t k, const double lam[3], double x[3],
                                  em_cplx v[3]);
em_err em_vtk_surface_write(const char *path, const em_mesh *m, int32_t n_face, const int32_t *face,
                            const int32_t *tag, em_face_sampler fn, void *ctx, const char *name,
                            const em_vtk_opts *o);

/* Fields on a plane x_axis = at (post/plane.c): an n_u x n_v grid of points
 * over [lo[0], hi[0]] x [lo[1], hi[1]] along the axes u = (axis + 1) % 3,
 * v = (axis + 2) % 3.  Each point is located in the straight tets that cross
 * the plane (a bucket grid over the plane: O(points + tets on the plane));
 * E and H come from the samplers there (H may be NULL).  Writes, each when
 * its path is not NULL: a CSV (x_m, y_m, z_m, inside, then the real and
 * imaginary parts of E, H and the Poynting vector S = 1/2 Re(E x H*); zero
 * outside the mesh) and a legacy VTK STRUCTURED_POINTS with the same as
 * point data.  Both to temporary names, renamed when complete. */
typedef struct em_plane {
  int axis;            /* 0, 1, 2: the plane's normal x, y or z */
  double at;           /* its coordinate, metres */
  int n_u, n_v;        /* points along u and v (>= 2) */
  double lo[2], hi[2]; /* extent along u and v, metres */
} em_plane;

em_err em_plane_write(const char *csv, const char *vtk, const em_mesh *m, const em_plane *p,
                      em_field_sampler E, em_field_sampler H, void *ctx, const char *title);

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

/* ------------------------------------------------------------ topology */

/* Betti numbers over Z2 (post/topology.c): cells[k] k-cells, rank[k] the
 * rank of their incidence on the (k-1)-cells, b[k] = cells[k] - rank[k] -
 * rank[k+1]; core[k]: cells left after the elementary collapses, ranked by
 * dense GF(2) elimination. */
typedef struct em_betti {
  int b[4];
  int64_t cells[4], rank[4], core[4];
} em_betti;

/* The meshed volume (group -1: vertices, edges, faces, tets) or one
 * surface group (vertices, edges, triangles; b3 = 0); the core ranked on
 * the CPU or the GPU. */
em_err em_post_betti(const em_mesh *m, int group, em_backend be, em_betti *b);
/* Log the volume's Betti numbers and the lowest-order curl null space
 * V - b0 + b1, then each port's b0, b1, with a warning when a coax port is
 * not an annulus (b1 = 1) or a waveguide / lumped port not simply
 * connected. */
em_err em_post_topology_log(const em_mesh *m, const em_port *ports, int n_port, em_backend be,
                            const em_log *log, em_betti *vol);

/* ------------------------------------------------------------ port tables */

/* Touchstone 1.1 (".sNp"; 2.0 for N > 4, see em_touchstone_write_ref):
 * "# Hz S RI R z0", one line per frequency for N <= 2 (S11 S21 S12 S22),
 * rows of at most 4 pairs for N >= 3;
 * S is [n_freq][n_ports][n_ports] with S[f][i][j] = S_ij.  comment (may be
 * NULL, may hold several lines) goes into "! " lines.  Frequencies must be
 * finite, >= 0 and increasing (EM_ERR_ARG); S finite (EM_ERR_NUMERIC). */
em_err em_touchstone_write(const char *path, int n_ports, int n_freq, const double *freq,
                           const em_cplx *S, double z0, const char *comment);
/* The same with a reference per port, z0[0..n_ports): Touchstone 2.0 (the
 * [Reference] keyword) when they differ or n_ports > 4, else 1.1.  zrow
 * (NULL: none) gives each frequency's own references [n_freq][n_ports]
 * (a waveguide's impedance changes with frequency): a comment line after
 * the data of a frequency whose references are not z0 lists them. */
em_err em_touchstone_write_ref(const char *path, int n_ports, int n_freq, const double *freq,
                               const em_cplx *S, const double *z0, const double *zrow,
                               const char *comment);
/* The same file (references z0[0..n_ports), as em_touchstone_write_ref)
 * with S on n_points equally spaced frequencies from freq[0] to
 * freq[n_freq - 1], each S_ij through a natural cubic spline of the
 * n_freq >= 2 solved values (post/touchstone_interp.c; the splines' one
 * batched tridiagonal solve on backend be, the CPU when the GPU cannot); a
 * comment line says they are interpolated. */
em_err em_touchstone_write_interp(const char *path, int n_ports, int n_freq, const double *freq,
                                  const em_cplx *S, const double *z0, const char *comment,
                                  int n_points, em_backend be);
/* ports.csv: frequency, then per port i: |S_ii| dB, phase deg, Re/Im Zin
 * with Zin = z0[i] (1 + S_ii)/(1 - S_ii) ("inf" when S_ii = 1), and |S_ji|
 * dB and phase deg for j != i.  Columns are named in docs/outputs.md. */
em_err em_ports_csv_write(const char *path, int n_ports, int n_freq, const double *freq,
                          const em_cplx *S, const double *z0);
/* The same for a sweep whose reference impedances change with frequency:
 * z0[k * n_ports + i] is port i's reference at frequency k (Zin of each row
 * from its own), written beside it as Zref<i>_ohm; flag[k] (NULL: no
 * column) adds the column "flag": ok, or what is wrong with that row
 * (EM_PORTS_FLAG_* bits: not_converged, S_gt_1 = a reflection above 1). */
#define EM_PORTS_FLAG_NOT_CONVERGED 1
#define EM_PORTS_FLAG_ACTIVE 2
em_err em_ports_csv_write_sweep(const char *path, int n_ports, int n_freq, const double *freq,
                                const em_cplx *S, const double *z0, const int *flag);
/* The same with the column groups of the ports in the bit set cols only
 * (bit i: port i + 1 driven; S's other columns are not read). */
em_err em_ports_csv_write_cols(const char *path, int n_ports, uint32_t cols, int n_freq,
                               const double *freq, const em_cplx *S, const double *z0,
                               const int *flag);

/* The port results of a sweep for stdout (ports_print.c): one port, a
 * line per frequency (|S11| dB, phase, Zin); several, the whole S-matrix
 * (|S_ij| dB / phase deg) and every port's Zin, a line per port and
 * frequency; the frequencies flagged (not converged, |S| > 1) say so. */
typedef struct em_ports_table {
  const char *name; /* the case */
  int n_ports, n_freq;
  const double *freq;           /* [n_freq] Hz */
  const em_cplx *S;             /* [n_freq][n][n] on the ports' own impedances */
  const em_cplx *zin;           /* [n_freq][n] */
  const double *zref;           /* [n_freq][n] each frequency's own impedances */
  const char *const *port_name; /* [n] */
  const int *flag;              /* [n_freq] EM_PORTS_FLAG_* */
  double touchstone_z0;         /* the Touchstone file's R (0: the ports' own) */
  uint32_t excited;             /* the ports driven (bit i: port i + 1; 0: every port):
                                   the other columns of S and their Zin were not solved */
} em_ports_table;
void em_ports_print(FILE *f, const em_ports_table *t);

/* ------------------------------------------------------ port quantities */

/* S-parameters of one frequency from the port measurements:
 * meas[i * n + j] = what port j measured (em_port_measure) while port i was
 * excited.  Power waves: a wave port driven with the unit-power mode has
 * a = sqrt 2 and b_j = sqrt 2 (c_j - delta_ij); a lumped port is driven by
 * I = 1 A (open when not driven) and has a = (V + R I) / (2 sqrt R),
 * b = (V - R I) / (2 sqrt R), R its reference; S = b a^-1.  Then the
 * reference planes move by each port's deembed (S_ij e^{j beta_i d_i}
 * e^{j beta_j d_j}) and S is renormalised from the mode impedances to
 * z_ref (when set).  Out: S[i * n + j] = S_ij, zref[i] the reference
 * impedance of port i, zin[i] = zref_i (1 + S_ii) / (1 - S_ii). */
/* S referenced to real impedances R renormalised in place to Rn (power
 * waves): Z = sqrt R (1 + S)(1 - S)^-1 sqrt R, S' = D (Z - Rn)(Z + Rn)^-1 D^-1,
 * D = diag(1 / sqrt Rn).  EM_ERR_NUMERIC when 1 - S is singular. */
em_err em_port_renormalise(int n, em_cplx *S, const double *R, const double *Rn);
em_err em_port_sparams(int n, const em_port *ports, const em_cplx *meas, em_cplx *S, double *zref,
                       em_cplx *zin);
/* The same for the ports of the bit set `excited` only (bit i: port i
 * driven; meas rows of the others unread): their columns S_ji, every j,
 * and their Zin; NaN in the rest.  Every port excited: em_port_sparams.
 * A subset needs wave ports on their own impedance (EM_ERR_INPUT). */
em_err em_port_sparams_cols(int n, const em_port *ports, uint32_t excited, const em_cplx *meas,
                            em_cplx *S, double *zref, em_cplx *zin);

/* Incident and accepted power of port p's own excitation in the solve,
 * from what it measured itself (meas = em_port_measure while driven):
 * wave ports carry P_inc = 1 W and accept 1 - |c - 1|^2; a lumped port's
 * 1 A source current has P_inc = |V + R|^2 / (8 R) (R = Re z_mode) and
 * accepts 1/2 Re(V I*) = Re V / 2.  These refer to the port's own (mode)
 * impedance, not to a renormalised z_ref. */
void em_port_power(const em_port *p, em_cplx meas, double *p_inc, double *p_acc);
/* The power the solution carries into the domain through port p's plane,
 * 1/2 Re oint (E x H*) . n dS (n inward, H from curl E): P_acc as the mesh
 * sees it (a faceted coax differs from the analytic mode by a few %). */
em_err em_port_flux(const em_port *p, const em_mesh *m, const em_dofmap *d, const em_cplx *x,
                    const em_cplx *fixed, double *flux);

/* ------------------------------------------------------------- far field */

/* Near-to-far-field transform (docs/farfield.md).  On a closed surface S in
 * a homogeneous lossless medium (eps_r, mu_r; k = k0 sqrt(eps_r mu_r),
 * eta = Z0 sqrt(mu_r / eps_r)) with outward normal n, the equivalent
 * currents J = n x H, M = -n x E (H = j curl E / (k0 Z0 mu_r), exp(+j w t))
 * radiate, outside S, the field of the sources inside.  With
 *   N = oint J exp(j k r_hat . x') dS',  L = oint M exp(j k r_hat . x') dS'
 * the far field is E = F(theta, phi) exp(-j k r) / r with
 *   F_theta = -j k / (4 pi) (L_phi + eta N_theta),
 *   F_phi   =  j k / (4 pi) (L_theta - eta N_phi)
 * (phase referred to the model origin), and the radiation intensity is
 * U = |F|^2 / (2 eta) W/sr.  E and curl E come from the tet on the inside
 * of each face, at the points of a triangle rule of degree 2p + 2 (exact
 * for the order-p fields times the first terms of the exponential).
 *
 * Mirror planes x_d = mirror_at[d] (symmetry planes of a model cut in two,
 * four or eight, or an infinite ground) complete the surface by image
 * theory: a PEC plane (tangential E = 0 on it) images J as minus its mirror
 * image and M as minus the mirror image of an axial vector, i.e. J
 * tangential reversed, M normal reversed; a PMC plane the opposite (J
 * normal reversed, M tangential reversed).  Faces on the far side of a
 * mirror are dropped.  With half_space the z mirror is an infinite PEC
 * ground: the far field lives in z > mirror_at[2] only (zero below) and the
 * powers count that half; otherwise a mirrored model radiates into the
 * whole sphere and the surface power is that of the whole (2^mirrors times
 * the power through the faces). */
/* em_mirror: em_model.h (Farfield/mirror_*). */

typedef struct em_nf2ff {
  double k0, k, eta;   /* free-space and medium wavenumbers (rad/m), eta (ohm) */
  int64_t n;           /* quadrature points on the faces of S */
  double *x;           /* [3 n] points (metres), relative to centre */
  em_cplx *J, *M;      /* [3 n] currents times quadrature weight (A m, V m) */
  double centre[3];    /* centre of the bounding box of S and its images (m) */
  double radius;       /* half the diagonal of that box (metres) */
  int32_t n_face;      /* faces of S used (without images) */
  double area;         /* their area (m^2) */
  double p_surface;    /* 1/2 Re oint (E x H*) . n dS (W) over S and its
                          images: the power through the whole surface */
  em_mirror mirror[3]; /* per axis */
  double mirror_at[3]; /* metres */
  int half_space;      /* 1: infinite ground at z = mirror_at[2] */
} em_nf2ff;

typedef struct em_nf2ff_opts {
  int group;               /* closed surface group (e.g. "nf2ff"), or -1: the
                              boundary of the non-PML region (without PML: the
                              exterior faces on the mesh's bounding box) */
  const em_medium *medium; /* per mesh group: PML marks and the media */
  double k0;               /* rad/m */
  em_mirror mirror[3];     /* symmetry / image planes (NONE: none) */
  double mirror_at[3];     /* their coordinates, metres */
  int half_space;          /* the z mirror (PEC) is an infinite ground */
  int volume;              /* 1: the volume form (em_nf2ff_create): E and curl E
                              weighted by grad(phi) over a layer of tets inside
                              S, phi the P1 cut-off 1 inside, 0 on S */
  int volume_degree;       /* its tet rule (0: 6) */
  int volume_shift;        /* rings of tets between S and the layer (0: the
                              tets that touch S; a ring that would reach the
                              structure or another medium is not taken) */
} em_nf2ff_opts;

/* The faces of S with the tet on their inside (in_tet[i]) and the outward
 * unit normal (normal[3 i ..]); allocated here.  With a group, the inside
 * is what cannot be reached from the PML (or the outer bounding-box faces)
 * without crossing the group; a face with the same side on both sides
 * (the group is not closed), an inside tet that is PML, or media that are
 * not one lossless medium on the inside of S are errors naming the group. */
em_err em_nf2ff_surface(const em_mesh *m, const em_nf2ff_opts *o, int32_t *n_face, int32_t **face,
                        int32_t **in_tet, double **normal);
/* Currents on S from the solution x (and fixed values) and the power
 * through S. */
em_err em_nf2ff_create(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                       const em_nf2ff_opts *o, em_nf2ff **nf);
void em_nf2ff_destroy(em_nf2ff **nf);
/* F_theta, F_phi (V) in direction (theta, phi), radians. */
void em_nf2ff_far(const em_nf2ff *nf, double theta, double phi, em_cplx *f_theta, em_cplx *f_phi);
/* The same at n directions at once (threads over the directions; each
 * value equals em_nf2ff_far's bit for bit): f[2k] = F_theta, f[2k+1] = F_phi. */
void em_nf2ff_far_many(const em_nf2ff *nf, int n, const double *theta, const double *phi,
                       em_cplx *f);
/* P_rad = int U dOmega (W): Gauss-Legendre in cos(theta) times the
 * trapezoidal rule in phi, with enough points for the surface's electrical
 * size (k radius + 12 in theta, at most 256, twice that in phi); the upper hemisphere
 * with half_space.  NaN when the direction arrays cannot be allocated. */
double em_nf2ff_power(const em_nf2ff *nf);

/* The far field on a regular (theta, phi) grid: theta_i = i dtheta from 0
 * to 180 deg (90 with half_space), phi_j = j dphi from 0 to 360 - dphi. */
typedef struct em_ff_grid {
  int n_theta, n_phi;
  double dtheta, dphi; /* degrees */
  em_cplx *f;          /* [(i n_phi + j) 2 + c]: F_theta (c = 0), F_phi (c = 1), V */
} em_ff_grid;

/* Steps in degrees must divide 180 (theta) and 360 (phi) and lie in
 * (0, 90]; errors name the step. */
em_err em_ff_grid_eval(const em_nf2ff *nf, double dtheta, double dphi, em_ff_grid *g);
void em_ff_grid_free(em_ff_grid *g);

/* Circular components of a far field F = F_theta theta_hat + F_phi phi_hat
 * (post/polarization.c): F_R = (F_theta + j F_phi) / sqrt 2 (right-hand,
 * IEEE, exp(+j w t)), F_L = (F_theta - j F_phi) / sqrt 2, and the axial
 * ratio 20 log10((|F_R| + |F_L|) / ||F_R| - |F_L||) dB (0 circular, inf
 * linear, NaN for F = 0).  Any output may be NULL. */
void em_ff_circular(em_cplx f_theta, em_cplx f_phi, em_cplx *f_r, em_cplx *f_l, double *ar_db);

/* Antenna figures of one frequency (docs/farfield.md).  D = 4 pi U / P_rad
 * with P_rad the far-field integral; radiation efficiency
 * e = P_rad / (P_rad + P_loss) from the loss integral (P_rad / P_acc when
 * P_loss is NaN); gain G = e D; realized gain G (1 - |S11|^2) (S11 in the
 * reported reference impedance).  The power balance (P_rad + P_loss) /
 * P_acc is 1 up to the discretisation: a check of the mesh and the port,
 * not an input of the gain.  Co- and cross-polar components are Ludwig's
 * third definition with the reference along x or y, whichever carries more
 * of the field at the maximum.  The E-plane is the great circle through the
 * maximum and the major axis of the polarisation ellipse of E there, the
 * H-plane the one at right angles; the -3 dB beamwidth is the angle between
 * the half-power points on either side of the maximum in each (NaN when the
 * cut never falls 3 dB). */
typedef struct em_antenna {
  double p_acc;               /* W accepted (input; NaN: unknown); emsolve
                                 gives the port-plane flux em_port_flux */
  double p_acc_s11;           /* W accepted by the port's own count,
                                 P_inc (1 - |S11|^2) (em_port_power; set by the
                                 caller, NaN: not computed) */
  double mismatch;            /* 1 - |S11|^2 in the reference impedance (input) */
  double p_loss;              /* W lost in the media (input; NaN: not computed),
                                 metal and lumped loads included */
  double p_loss_metal;        /* W of p_loss in surface impedances (set by the caller) */
  double p_loss_lumped;       /* W of p_loss in lumped R, L, C sheets (caller) */
  double p_surface;           /* W through S (surface Poynting integral) */
  double p_far;               /* W, far-field integral */
  double u_max;               /* W/sr */
  double theta_max, phi_max;  /* degrees */
  double directivity;         /* linear, at the maximum */
  double efficiency;          /* radiation efficiency (above) */
  double gain, realized_gain; /* linear, at the maximum */
  double balance;             /* (P_rad + P_loss) / P_acc */
  double front_to_back;       /* dB: U(max) / U(opposite direction) */
  int copol;                  /* 0: x, 1: y (Ludwig 3 reference) */
  double xpol_axis;           /* dB: cross / co at the maximum */
  double xpol_peak;           /* dB: largest cross-polar U / co-polar U at the maximum */
  double bw_e, bw_h;          /* degrees */
  double g_rhcp, g_lhcp;      /* linear partial gains of the right- and
                                       left-hand circular parts at the maximum:
                                       G |F_R|^2 / |F|^2, G |F_L|^2 / |F|^2 */
  double axial_ratio;         /* dB at the maximum (0: circular, inf: linear) */
  double dir_max[3];          /* unit vector towards the maximum */
  double e_dir[3], h_dir[3];  /* unit vectors spanning the E- and H-plane
                                 cuts with dir_max */
} em_antenna;

em_err em_antenna_figures(const em_nf2ff *nf, const em_ff_grid *g, double p_acc, double mismatch,
                          double p_loss, em_antenna *a);

/* U (W/sr) and its Ludwig-3 co/cross split (copol 0: x, 1: y) at one
 * direction (radians); u_co, u_cr may be NULL. */
double em_antenna_intensity(const em_nf2ff *nf, double theta, double phi, int copol, double *u_co,
                            double *u_cr);
/* One principal cut (plane 0: E, 1: H) of the pattern at angle alpha
 * (radians) from the maximum: the direction and U there. */
double em_antenna_cut(const em_nf2ff *nf, const em_antenna *a, int plane, double alpha,
                      double dir[3]);

/* Power dissipated in the non-PML media by a solution:
 *   P_loss = k0 / (2 Z0) int (-Im eps_r) |E|^2 + 1 / (2 k0 Z0) int (-Im mu_r) / |mu_r|^2 |curl E|^2
 */
em_err em_field_loss(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                     const em_medium *medium, double k0, double *p_loss);

/* ------------------------------------------------------ far-field files */

/* farfield_<f>.csv: theta_deg, phi_deg, Re/Im F_theta, Re/Im F_phi (V),
 * directivity_dBi, gain_dBi (realized), co_dBi, cross_dBi (directivity
 * components); a comment line with the frequency first. */
em_err em_farfield_csv_write(const char *path, double freq, const em_ff_grid *g, const em_nf2ff *nf,
                             const em_antenna *a);
/* E- and H-plane cuts (pattern_<f>.csv): angle_deg from the maximum in
 * -180..180 by step, directivity and realized gain in dBi in each plane. */
em_err em_pattern_cuts_write(const char *path, double freq, double step, const em_nf2ff *nf,
                             const em_antenna *a);
/* antenna.csv: one row per frequency (rows 0..n-1 of a and freq) whose far
 * field was computed (directivity > 0; an adaptive sweep has it at its
 * resonance only). */
em_err em_antenna_csv_write(const char *path, int n, const double *freq, const em_antenna *a);
/* rcs_<f>.csv: theta_deg, phi_deg, sigma_m2, sigma_dBsm, sigma_theta_m2,
 * sigma_phi_m2 with sigma = 4 pi |F|^2 / |E0|^2 (bistatic). */
em_err em_rcs_csv_write(const char *path, double freq, const em_ff_grid *g, double e0);
/* The pattern as a closed surface for ParaView (legacy VTK POLYDATA,
 * ASCII): radius r = radius (1 + (v - v_max) / range) (clipped at 0) with v
 * the scalar in dB, centred on centre; point data "<name>" (dB). */
em_err em_ff_vtk_write(const char *path, const em_ff_grid *g, const double *v_db, const char *name,
                       double range_db, const double centre[3], double radius, const char *title);

/* ----------------------------------------------------------------- arrays
 * (array.c, array_csv.c; docs/farfield.md, "Arrays").  Weights a_i are the
 * complex amplitudes of the waves incident on the ports at their reference
 * planes (where S refers to) relative to the 1 W of each port's own solve
 * (|a_i|^2 W in); Array/weights is read into them by model/config_array.c
 * (em_array_parse_weights).
 *
 * The scan to (theta, phi) (radians): a_i = exp(-j k0 u . r_i), r_i the
 * centre of port i's reference plane (its centre moved by deembed along
 * its inward normal; metres), u the unit vector of the direction. */
void em_array_scan_weights(int n, const em_port *ports, double k0, double theta, double phi,
                           em_cplx *a);
/* Active reflection gamma_i = sum_j S_ij a_j / a_i (NaN where a_i = 0);
 * S[i * n + j] = S_ij. */
void em_array_active(int n, const em_cplx *S, const em_cplx *a, em_cplx *gamma);
/* xa = sum_i a_i x_i for the n vectors x_i = x + i len (a zero weight's
 * vector is not read, so a = e_k gives x_k exactly). */
void em_array_combine(int n, int64_t len, const em_cplx *x, const em_cplx *a, em_cplx *xa);
/* array_<f>.csv: theta_deg, phi_deg, then per port i F<i> (theta and phi,
 * real and imaginary, V) and G<i>_dBi = 10 log10 (4 pi U_i / p_inc[i]) (the
 * embedded element pattern: port i driven, the others matched); with the
 * array's grid ga and weights a, its F and realized gain array_dBi =
 * 10 log10 (4 pi U_a / sum_i |a_i|^2 p_inc[i]).  g[i]: the same grid, or
 * NULL for a port not excited (no columns; its weight must be 0). */
em_err em_array_csv_write(const char *path, double freq, int n, const em_ff_grid *const *g,
                          const double *p_inc, const em_ff_grid *ga, const em_cplx *a, double eta);
/* active.csv: for each frequency and the planes phi = 0 and 90 deg, the
 * beam scanned from theta = -90 to 90 deg by step (theta < 0: phi + 180),
 * every port's Gamma_i (dB and deg) from S [n_freq][n][n] and the ports'
 * centres. */
em_err em_active_csv_write(const char *path, int n_freq, const double *freq, int n,
                           const em_port *ports, const em_cplx *S, double step);

/* ------------------------------------------------------------ resonances
 * (resonance.c) Resonances of a sampled one-port response, for design
 * sweeps.  Frequencies ascending, n >= 3. */
typedef struct em_resonance {
  double f0;         /* Hz, vertex of the parabola through the three samples */
  double peak;       /* the fitted extremum (Re Zin in ohm, or |S11| in dB) */
  double q;          /* Q from Zin at f0 (admittance form: a Re Zin peak is a
                        parallel resonance), 0 when not computed */
  double f_lo, f_hi; /* -10 dB band around f0 by linear interpolation of
                        |S11| dB; 0 when |S11| does not reach -10 dB there */
} em_resonance;

/* Local maxima of y (sign +1) or minima (sign -1), each refined by a
 * parabola through the sample and its two neighbours: f0 = vertex.  Only
 * interior samples qualify; at most max_out, in ascending frequency. */
int em_res_extrema(int n, const double *f, const double *y, int sign, int max_out,
                   em_resonance *out);
/* -10 dB (level_db) band around f0 from s_db = 20 log10 |S11|: walks out
 * from the sample nearest f0 to the first crossings, linear in dB between
 * samples.  Returns 0 and sets f_lo, f_hi, or -1 when no crossing. */
int em_res_band(int n, const double *f, const double *s_db, double f0, double level_db,
                double *f_lo, double *f_hi);
/* Q at f0 from Zin = zr + j zi: parallel (Re Zin peak) Q = f0 / (2 G) |dB/df|
 * with Y = G + jB = 1/Zin; series Q = f0 / (2 R) |dX/df|.  G (R) and the
 * derivative from the parabola through the three samples around f0. */
double em_res_q(int n, const double *f, const double *zr, const double *zi, double f0,
                int parallel);
/* Re Zin peaks (with Q, parallel form) then |S11| minima (parabola through
 * |S11|^2, reported in dB) with their -10 dB band.  Returns the counts. */
void em_res_find(int n, const double *f, const em_cplx *s11, double z0, int max_out,
                 em_resonance *zpk, int *n_zpk, em_resonance *smin, int *n_smin);

/* ------------------------------------------------------ a run's outputs
 *
 * What a run writes, read from the problem of its mesh (em_model, model/)
 * and its results (em_results): one entry point per frequency
 * (em_post_frequency: port quantities, flags, far field, fields, the line
 * probe, the PML's reflection estimate), one at the end of a sweep
 * (em_post_finish: Touchstone, ports.csv, summary.json, the tables on
 * stdout), one for the modes of an eigen run (em_post_modes). */

/* The output directory.  Every writer takes its path from em_outdir_path
 * (the one place that joins the directory and a name: a staged run
 * redirects it there) and records with em_outdir_add what it wrote
 * (summary.json's "outputs"; a failed run removes them). */
/* Outputs a run lists (summary.json): a few per frequency (fields, far
 * field, pattern, array tables) for sweeps of dozens of frequencies. */
#define EM_OUTDIR_MAX_FILES 320
typedef struct em_outdir {
  char dir[1024];
  int n_files;
  char files[EM_OUTDIR_MAX_FILES][256]; /* relative to dir */
  int n_unlisted;                       /* outputs beyond the list (summary.json counts them) */
  const em_cancel *cancel;              /* a stop request (emsolve's signal flag) the long
                                           writers poll (em_vtk_opts.cancel); NULL: none */
} em_outdir;

/* path = dir/name; EM_ERR_INPUT when it does not fit n. */
em_err em_outdir_path(const em_outdir *o, const char *name, char *path, size_t n);
/* name joins the list of this run's outputs; beyond EM_OUTDIR_MAX_FILES it
 * is counted (n_unlisted), never an error: a sweep of many frequencies with
 * per-frequency files must not lose its result for want of a list entry. */
em_err em_outdir_add(em_outdir *o, const char *name);
/* "5.75GHz": a frequency in output file names. */
void em_post_freq_tag(double f, char *buf, size_t n);

/* What one frequency produced. */
typedef struct em_freq_result {
  double f;                                             /* Hz */
  double k0;                                            /* rad/m */
  double t_assembly, t_operator, t_pc, t_solve, t_post; /* seconds */
  em_pc_info pc;
  em_ksp_stats ksp[EM_MAX_PORTS]; /* one solve per excited port */
  int n_solve;
  int converged;   /* every solve converged */
  int resumed;     /* read from the journal of an earlier run (--resume) */
  int from_model;  /* adaptive sweep: evaluated from the rational model */
  double pml_wall; /* <|E|^2> at the PML's outer wall / at its interface
                      (first excitation; NaN: no PML), model/pml_wall.c */
  char fields[64]; /* the fields file of this frequency, "" when none */
  double p_metal;  /* W dissipated by the surface impedances (first
                      excitation; NaN: none) */
  double p_lumped; /* W dissipated by the lumped R, L, C sheets */
} em_freq_result;

/* The results of a sweep, frequency by frequency. */
typedef struct em_results {
  int n_freq, n_port;
  const double *freq;         /* [n_freq] Hz: the configuration's */
  em_cplx *S;                 /* [n_freq][n_port][n_port] */
  double *zref;               /* [n_port]: the last frequency's (summary) */
  double *zport;              /* [n_freq][n_port]: each frequency's reference of S */
  int *flag;                  /* [n_freq]: EM_PORTS_FLAG_* (not converged, |S_pp| > 1) */
  int flagged;                /* some frequency is flagged: exit code 3 */
  em_cplx *zin;               /* [n_freq][n_port] */
  em_freq_result *fr;         /* [n_freq] */
  int n_done;                 /* frequencies finished */
  em_antenna *ant;            /* [n_freq] antenna figures (far field with ports) */
  double *rcs_back, *rcs_fwd; /* [n_freq] m^2 (plane wave; NaN until computed) */
  em_antenna *arr_ant;        /* [n_freq] the array excitation's figures (ff_array.c) */
  em_cplx *arr_a;             /* [n_freq][n_port] the array weights used */
  em_cplx *rx;                /* [n_freq][n_port] a plane wave's ports (matched loads):
                                 wave port the outgoing modal amplitude (sqrt W),
                                 lumped the load voltage (V) */
  double *rx_power;           /* [n_freq][n_port] W into each load */
  /* the adaptive sweep */
  int n_samples;                      /* full solves so far */
  em_freq_result *sample;             /* [Solver/sweep_max_solves] each full solve */
  double sweep_estimate, sweep_check; /* final error estimate and check */
  int sweep_converged;
  const em_stages *stages; /* the run's time by stage (summary.json stages_s; NULL: none) */
} em_results;

em_err em_results_alloc(em_results *r, const em_run_config *cfg, int n_port);
void em_results_free(em_results *r);

/* The ports a run excited (em_model.excite; every port when 0). */
uint32_t em_post_excited(const em_model *m);
/* What the ports measure on the solutions x [n_excited][n_dof] (column c:
 * the c-th excited port, em_excite_port; fixed: the fixed DOFs' values,
 * NULL zero): meas[e][j], port j with port e driven; 0 in the rows of the
 * ports not excited. */
em_err em_post_measure(const em_model *m, const em_cplx *x, const em_cplx *fixed, em_cplx *meas);
/* Frequency fi's S, Zin and references from the measurements (the ports
 * set to fi's frequency), and its flags, warned about. */
em_err em_post_ports(const em_model *m, em_results *res, const em_log *log, int fi,
                     const em_cplx *meas);
/* The flags of frequency fi (not converged, a reflection above 1), each
 * warned about (tables.c; also for a row read back from a journal). */
void em_post_flag(em_results *r, const em_log *log, int fi);
/* S at f from measurements y [np][np] (the adaptive sweep's outputs). */
em_err em_post_sparams_at(const em_model *m, double f, const em_cplx *y, em_cplx *S);
/* Everything frequency fi's solutions x [ns][n_dof] give: port quantities,
 * flags, far field and its files, fields_<f>.vtk, line_<f>.csv, the PML's
 * reflection estimate; res->fr[fi].t_post. */
em_err em_post_frequency(const em_model *m, em_results *res, em_outdir *out, const em_log *log,
                         int fi, const em_cplx *x, const em_cplx *fixed);
/* The far field of frequency fi alone, its files and antenna.csv's row
 * (an adaptive sweep's resonance: the ports are the model's already). */
em_err em_post_farfield_at(const em_model *m, em_results *res, em_outdir *out, const em_log *log,
                           int fi, const em_cplx *x, const em_cplx *fixed);
/* The NF2FF surface of m->ff exists and lies in one lossless medium:
 * checked before any solve (ff_frequency.c); the far field's line on log. */
em_err em_post_ff_check(const em_model *m, const em_log *log);
/* After the sweep: the Touchstone file(s), ports.csv, summary.json (t_start:
 * when the run began), the port and far-field tables on f (NULL: none). */
em_err em_post_finish(const em_model *m, em_results *res, em_outdir *out, double t_start, FILE *f);
/* summary.json alone (summary.c). */
em_err em_post_summary(const em_model *m, const em_results *res, const em_outdir *out,
                       double t_start);
/* The modes of an eigen run (modes.c): per mode f, Q, the residual, the
 * electric energy per volume group and in the PML, a flag and the dominant
 * dipole of the dielectric; modes.csv, mode_<i>.vtk, the table on f.  Each
 * mode's phase is turned so its largest entry is real (er->x changes). */
em_err em_post_modes(const em_model *m, em_eigen_result *er, em_outdir *out, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* EM_POST_H */
