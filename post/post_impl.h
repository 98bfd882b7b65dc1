/* post_impl.h - private helpers of post/: the lattice that sub-divides a tet
 * for VTK, the buffered big-endian / ASCII array stream, and number
 * formatting shared by the text writers. */
#ifndef EM_POST_IMPL_H
#define EM_POST_IMPL_H

#include "em_core.h"

/* ------------------------------------------------------- number formatting */

/* Room for any "%.17g" double plus a terminating NUL. */
#define EM_POST_NUM_LEN 32

/* The shortest of "%.15g", "%.16g", "%.17g" that reads back as exactly v, so
 * 0.1 stays "0.1" and every value survives a round trip.  Not-finite values
 * come out as printf writes them ("inf", "-inf", "nan"); callers decide. */
void em_post_fmt_double(char buf[EM_POST_NUM_LEN], double v);

/* Copy src into dst (capacity cap, NUL-terminated), replacing control
 * characters (< 0x20, 0x7f) by spaces so that one text line stays one line,
 * and cutting at most cap-1 bytes without splitting a UTF-8 sequence.
 * Returns the length written. */
size_t em_post_copy_line(char *dst, size_t cap, const char *src);

/* ------------------------------------------------------------ sin and cos */

/* sin(x) and cos(x) without branches, so that a loop over x vectorizes:
 * x = n pi/2 + y with n = round(2x/pi) and y = x - n pi/2 in two parts
 * (pi/2's first 33 bits times n is exact while |n| < 2^20, i.e. |x| < 1.6e6),
 * then fdlibm's kernel polynomials on |y| <= pi/4 (errors below 2 ulp of
 * the result plus 1e-22 absolute) and the quadrant n mod 4. */
__attribute__((always_inline)) static inline void em_post_sincos(double x, double *s, double *c) {
  const double inv_pio2 = 6.36619772367581382433e-01, pio2_1 = 1.57079632673412561417e+00,
               pio2_1t = 6.07710050650619224932e-11,
               round_magic = 6755399441055744.0; /* 1.5 2^52 */
  double fn = (x * inv_pio2 + round_magic) - round_magic;
  int n = (int)fn;
  double y = (x - fn * pio2_1) - fn * pio2_1t;
  double z = y * y;
  double sy =
      y + y * z *
              (-1.66666666666666324348e-01 +
               z * (8.33333333332248946124e-03 +
                    z * (-1.98412698298579493134e-04 +
                         z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08 +
                                                                z * 1.58969099521155010221e-10)))));
  double cy =
      1 - 0.5 * z +
      z * z *
          (4.16666666666666019037e-02 +
           z * (-1.38888888888741095749e-03 +
                z * (2.48015872894767294178e-05 +
                     z * (-2.75573143513906633035e-07 +
                          z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  double ss = (n & 1) ? cy : sy, cc = (n & 1) ? sy : cy;
  *s = (n & 2) ? -ss : ss;
  *c = ((n + 1) & 2) ? -cc : cc;
}

/* ------------------------------------------------------------- far field */

/* em_antenna_cut at n angles alpha[k] of one plane at once (threads over
 * the directions): dir[3 k ..] and u[k] as em_antenna_cut gives them. */
struct em_nf2ff;
struct em_antenna;
void em_post_cut_many(const struct em_nf2ff *nf, const struct em_antenna *a, int plane, int n,
                      const double *alpha, double *dir, double *u);

/* ------------------------------------------------------------- port tables */

/* Checks shared by the Touchstone and CSV writers: n_ports, n_freq >= 1,
 * frequencies finite, >= 0 and strictly increasing (EM_ERR_ARG), every S
 * finite (EM_ERR_NUMERIC naming the entry and frequency). */
em_err em_post_check_sweep(const char *path, int n_ports, int n_freq, const double *freq,
                           const em_cplx *S);
/* The same where only the columns j of the bit set `cols` hold S. */
em_err em_post_check_sweep_cols(const char *path, int n_ports, int n_freq, const double *freq,
                                const em_cplx *S, uint32_t cols);

/* ------------------------------------------------------------- the lattice */

/* The regular subdivision of a tet into s^3 sub-tets: the points of the
 * barycentric lattice with denominator s, and the tets of the Freudenthal
 * (Kuhn) triangulation of the cube grid that lie in the simplex. */
typedef struct em_vtk_lattice {
  int s;        /* subdivisions per edge, >= 1 */
  int n_pt;     /* (s+1)(s+2)(s+3)/6 lattice points */
  int n_sub;    /* s^3 sub-tets */
  double *lam;  /* [4 per point] barycentric coordinates, multiples of 1/s */
  int32_t *sub; /* [4 per sub-tet] lattice points; positive volume in the
                   (lam1, lam2, lam3) coordinates, i.e. the same orientation
                   as the parent tet's own vertex order */
} em_vtk_lattice;

em_err em_vtk_lattice_create(int s, em_vtk_lattice **L);
void em_vtk_lattice_destroy(em_vtk_lattice **L);

/* ---------------------------------------------------------- array streams */

/* Numbers into a legacy VTK file: ASCII ("%.17g" / "%.9g", one record per
 * line) or BINARY (big-endian, as the legacy format requires whatever the
 * host), through a buffer of our own so that BINARY runs at disk speed.
 * Writes never fail on the spot: the first error is kept and reported by
 * em_vtk_stream_flush. */
typedef struct em_vtk_stream {
  FILE *f;            /* the (temporary) output file */
  int binary;         /* 1: big-endian binary; 0: ASCII */
  int single;         /* 1: reals as 32-bit "float"; 0: 64-bit "double" */
  unsigned char *buf; /* pending bytes */
  size_t n;           /* bytes pending in buf */
  size_t cap;         /* capacity of buf */
  int failed;         /* 0, or the errno of the first failed write (-1:
                         none was set) */
} em_vtk_stream;

em_err em_vtk_stream_init(em_vtk_stream *s, FILE *f, int binary, int single);
void em_vtk_stream_free(em_vtk_stream *s);
/* A header line, written as text in both modes. */
void em_vtk_stream_text(em_vtk_stream *s, const char *text);
/* One record of n reals / ints (ASCII: one line). */
void em_vtk_stream_reals(em_vtk_stream *s, const double *v, int n);
void em_vtk_stream_ints(em_vtk_stream *s, const int32_t *v, int n);
/* Room one record of at most EM_VTK_WIDTH numbers needs, in either mode. */
#define EM_VTK_WIDTH 16
#define EM_VTK_RECORD 1024
/* The bytes of one record of n <= EM_VTK_WIDTH reals / ints into out (room
 * EM_VTK_RECORD), as the stream writes them; their count. */
size_t em_vtk_encode_reals(const em_vtk_stream *s, const double *v, int n, unsigned char *out);
size_t em_vtk_encode_ints(const em_vtk_stream *s, const int32_t *v, int n, unsigned char *out);
/* Bytes as they are (encoded records). */
void em_vtk_stream_bytes(em_vtk_stream *s, const unsigned char *b, size_t len);
/* A whole data array of n records of width numbers, record i from
 * get(ctx, i, v): encoded by all threads (post/vtk_array.c) and written in
 * record order, the same bytes as em_vtk_stream_reals / _ints record by
 * record whatever the number of threads; get must be safe from several
 * threads.  cancel (may be NULL) is polled between slabs of records: set,
 * the array stops there and the call returns 1 (the file is to be
 * dropped), else 0. */
typedef void (*em_vtk_real_fn)(const void *ctx, int64_t i, double *v);
typedef void (*em_vtk_int_fn)(const void *ctx, int64_t i, int32_t *v);
int em_vtk_stream_real_array(em_vtk_stream *s, int64_t n, int width, em_vtk_real_fn get,
                             const void *ctx, const em_cancel *cancel);
int em_vtk_stream_int_array(em_vtk_stream *s, int64_t n, int width, em_vtk_int_fn get,
                            const void *ctx, const em_cancel *cancel);
/* End of a data array: BINARY data is followed by one newline. */
void em_vtk_stream_end_array(em_vtk_stream *s);
/* Write out the buffer; EM_ERR_IO naming path if any write failed. */
em_err em_vtk_stream_flush(em_vtk_stream *s, const char *path);

#endif /* EM_POST_IMPL_H */
