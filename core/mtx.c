/* mtx.c - Matrix Market coordinate files (docs/matrix-file.md, "Matrix
 * Market"): the NIST exchange format of the SuiteSparse / Harwell-Boeing
 * collections (bcsstk28 ...), read into and written from a host em_csr.
 *
 * Reader: `%%MatrixMarket matrix coordinate FIELD SYMMETRY` with FIELD real,
 * complex, integer or pattern (entries 1) and SYMMETRY general, symmetric,
 * skew-symmetric or hermitian (the stored lower triangle is mirrored:
 * a_ji = a_ij, -a_ij or conj(a_ij)).  The reader trusts nothing: the
 * declared entry count is checked against the bytes the file holds before
 * anything is allocated, every entry line must hold exactly its fields with
 * 1-based indices in range and finite values, a symmetric file may not
 * store entries above the diagonal, and the count of entry lines must match
 * the declared one.  Every refusal is EM_ERR_IO naming the file, the line
 * and the culprit.  Duplicates are summed (em_csr_from_triplets).
 *
 * Writer: through em_outfile (temporary name, renamed when complete). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "em_core.h"

static const char *const mtx_fields[] = {"real", "complex", "integer", "pattern"};
static const char *const mtx_syms[] = {"general", "symmetric", "skew-symmetric", "hermitian"};

/* A file being read line by line, with its line number. */
typedef struct {
  FILE *f;
  const char *path;
  char *buf;
  size_t cap;
  int64_t line; /* 1-based number of the line in buf */
} mtx_in;

/* Next line into in->buf without its end (\n or \r\n); 0 at end of file. */
static em_err mtx_getline(mtx_in *in, int *got) {
  size_t n = 0;
  int c;
  *got = 0;
  while ((c = getc(in->f)) != EOF) {
    if (n + 2 > in->cap) {
      size_t cap = in->cap ? 2 * in->cap : 256;
      EM_TRY(em_realloc(&in->buf, cap, 1, "Matrix Market line"));
      in->cap = cap;
    }
    if (c == '\n') break;
    in->buf[n++] = (char)c;
  }
  if (c == EOF && n == 0) {
    EM_CHECK(!ferror(in->f), EM_ERR_IO, "%s: read error after line %lld: %s", in->path,
             (long long)in->line, strerror(errno));
    return EM_OK;
  }
  if (n > 0 && in->buf[n - 1] == '\r') n--;
  in->buf[n] = '\0';
  in->line++;
  *got = 1;
  return EM_OK;
}

/* 1 when s holds only blanks. */
static int blank(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return *s == '\0';
}

/* The next whitespace-separated word of *s as an integer in [lo, hi]. */
static int next_int(char **s, int64_t lo, int64_t hi, int64_t *v) {
  char *e;
  errno = 0;
  long long x = strtoll(*s, &e, 10);
  if (e == *s || errno || x < lo || x > hi || (*e && !isspace((unsigned char)*e))) return 0;
  *v = x;
  *s = e;
  return 1;
}

/* The next word of *s as a finite double. */
static int next_real(char **s, double *v) {
  char *e;
  errno = 0;
  double x = strtod(*s, &e);
  if (e == *s || !isfinite(x) || (*e && !isspace((unsigned char)*e))) return 0;
  *v = x;
  *s = e;
  return 1;
}

/* Header line: the banner and its three words, case-insensitive. */
static em_err parse_banner(const mtx_in *in, int *field, int *sym) {
  char w[5][32];
  const char *p = in->path;
  EM_CHECK(!strncmp(in->buf, "%%MatrixMarket", 14), EM_ERR_IO,
           "%s: line 1: not a Matrix Market file (no '%%%%MatrixMarket' banner)", p);
  int k = sscanf(in->buf, "%31s %31s %31s %31s %31s", w[0], w[1], w[2], w[3], w[4]);
  EM_CHECK(k == 5, EM_ERR_IO,
           "%s: line 1: banner needs 'matrix coordinate FIELD SYMMETRY', has %d word(s)", p, k - 1);
  EM_CHECK(!strcasecmp(w[1], "matrix"), EM_ERR_IO, "%s: line 1: object '%s' is not 'matrix'", p,
           w[1]);
  EM_CHECK(!strcasecmp(w[2], "coordinate"), EM_ERR_IO,
           "%s: line 1: format '%s' is not supported (sparse 'coordinate' only)", p, w[2]);
  *field = *sym = -1;
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(w[3], mtx_fields[i])) *field = i;
    if (!strcasecmp(w[4], mtx_syms[i])) *sym = i;
  }
  EM_CHECK(*field >= 0, EM_ERR_IO,
           "%s: line 1: field '%s' is not real, complex, integer or pattern", p, w[3]);
  EM_CHECK(*sym >= 0, EM_ERR_IO,
           "%s: line 1: symmetry '%s' is not general, symmetric, skew-symmetric or hermitian", p,
           w[4]);
  EM_CHECK(!(*sym == EM_MTX_HERMITIAN && *field != EM_MTX_COMPLEX), EM_ERR_IO,
           "%s: line 1: a hermitian matrix must be complex, not %s", p, w[3]);
  EM_CHECK(!(*sym == EM_MTX_SKEW && *field == EM_MTX_PATTERN), EM_ERR_IO,
           "%s: line 1: a pattern matrix cannot be skew-symmetric", p);
  return EM_OK;
}

/* The entry lines into triplets (mirrored ones appended), then the CSR. */
static em_err read_entries(mtx_in *in, int field, int sym, int64_t m, int64_t n, int64_t nz,
                           em_csr **A) {
  const char *p = in->path;
  int64_t cap = sym == EM_MTX_GENERAL ? nz : 2 * nz;
  int32_t *ti = NULL, *tj = NULL;
  em_cplx *tv = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&ti, (size_t)cap + 1, sizeof *ti, "Matrix Market rows"), done);
  EM_TRY_GOTO(err, em_calloc(&tj, (size_t)cap + 1, sizeof *tj, "Matrix Market columns"), done);
  EM_TRY_GOTO(err, em_calloc(&tv, (size_t)cap + 1, sizeof *tv, "Matrix Market values"), done);
  int64_t k = 0, t = 0;
  while (k < nz) {
    int got = 0;
    EM_TRY_GOTO(err, mtx_getline(in, &got), done);
    if (!got) {
      err = EM_RAISE(EM_ERR_IO, "%s: ends at line %lld after %lld of the %lld entries declared", p,
                     (long long)in->line, (long long)k, (long long)nz);
      goto done;
    }
    if (in->buf[0] == '%' || blank(in->buf)) continue;
    char *s = in->buf;
    int64_t i, j;
    double re = 1, im = 0;
    int ok = next_int(&s, 1, m, &i) && next_int(&s, 1, n, &j);
    if (ok && field != EM_MTX_PATTERN) ok = next_real(&s, &re);
    if (ok && field == EM_MTX_COMPLEX) ok = next_real(&s, &im);
    if (!ok || !blank(s)) {
      err =
          EM_RAISE(EM_ERR_IO,
                   "%s: line %lld: entry '%.60s' is not 'ROW COL%s' with 1 <= ROW <= %lld, "
                   "1 <= COL <= %lld%s",
                   p, (long long)in->line, in->buf,
                   field == EM_MTX_PATTERN   ? ""
                   : field == EM_MTX_COMPLEX ? " RE IM"
                                             : " VALUE",
                   (long long)m, (long long)n, field == EM_MTX_PATTERN ? "" : " and finite values");
      goto done;
    }
    if (sym != EM_MTX_GENERAL && j > i) {
      err = EM_RAISE(EM_ERR_IO,
                     "%s: line %lld: entry (%lld, %lld) above the diagonal in a %s file (only the "
                     "lower triangle is stored)",
                     p, (long long)in->line, (long long)i, (long long)j, mtx_syms[sym]);
      goto done;
    }
    if (sym == EM_MTX_SKEW && i == j) {
      err =
          EM_RAISE(EM_ERR_IO, "%s: line %lld: diagonal entry (%lld, %lld) in a skew-symmetric file",
                   p, (long long)in->line, (long long)i, (long long)j);
      goto done;
    }
    em_cplx v = CMPLX(re, im);
    ti[t] = (int32_t)(i - 1), tj[t] = (int32_t)(j - 1), tv[t++] = v;
    if (sym != EM_MTX_GENERAL && i != j) {
      ti[t] = (int32_t)(j - 1), tj[t] = (int32_t)(i - 1);
      tv[t++] = sym == EM_MTX_SYMMETRIC ? v : sym == EM_MTX_SKEW ? -v : conj(v);
    }
    k++;
  }
  for (;;) { /* nothing but comments and blank lines may follow */
    int got = 0;
    EM_TRY_GOTO(err, mtx_getline(in, &got), done);
    if (!got) break;
    if (in->buf[0] == '%' || blank(in->buf)) continue;
    err = EM_RAISE(EM_ERR_IO, "%s: line %lld: '%.60s' after the %lld entries declared", p,
                   (long long)in->line, in->buf, (long long)nz);
    goto done;
  }
  EM_TRY_GOTO(err, em_csr_from_triplets((int32_t)m, (int32_t)n, t, ti, tj, tv, A), done);
done:
  em_free(&ti);
  em_free(&tj);
  em_free(&tv);
  return err;
}

em_err em_mtx_read(const char *path, em_csr **A, em_mtx_info *info) {
  EM_CHECK(path && A, EM_ERR_ARG, "em_mtx_read: NULL path or output");
  *A = NULL;
  mtx_in in = {fopen(path, "rb"), path, NULL, 0, 0};
  EM_CHECK(in.f, EM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  int64_t size = fstat(fileno(in.f), &st) == 0 ? (int64_t)st.st_size : INT64_MAX;
  em_err err = EM_OK;
  int got = 0, field = 0, sym = 0;
  EM_TRY_GOTO(err, mtx_getline(&in, &got), done);
  if (!got) {
    err = EM_RAISE(EM_ERR_IO, "%s: empty file (no '%%%%MatrixMarket' banner)", path);
    goto done;
  }
  EM_TRY_GOTO(err, parse_banner(&in, &field, &sym), done);
  do { /* comments, then the size line */
    EM_TRY_GOTO(err, mtx_getline(&in, &got), done);
  } while (got && (in.buf[0] == '%' || blank(in.buf)));
  if (!got) {
    err = EM_RAISE(EM_ERR_IO, "%s: ends at line %lld without the size line 'ROWS COLS ENTRIES'",
                   path, (long long)in.line);
    goto done;
  }
  int64_t m, n, nz;
  char *s = in.buf;
  if (!next_int(&s, 0, INT32_MAX, &m) || !next_int(&s, 0, INT32_MAX, &n) ||
      !next_int(&s, 0, INT64_MAX / 4, &nz) || !blank(s)) {
    err =
        EM_RAISE(EM_ERR_IO,
                 "%s: line %lld: size line '%.60s' is not 'ROWS COLS ENTRIES' (each 0 .. 2^31 - 1 "
                 "for the sizes)",
                 path, (long long)in.line, in.buf);
    goto done;
  }
  if (sym != EM_MTX_GENERAL && m != n) {
    err = EM_RAISE(EM_ERR_IO, "%s: line %lld: a %s matrix must be square, not %lld x %lld", path,
                   (long long)in.line, mtx_syms[sym], (long long)m, (long long)n);
    goto done;
  }
  /* an entry line takes at least 4 bytes ("1 1\n"): a count the file cannot
     hold is refused before anything is allocated */
  if (nz > size / 4 || (m > 0 && n > 0 && (nz - 1) / m >= n) || ((m == 0 || n == 0) && nz > 0)) {
    err = EM_RAISE(EM_ERR_IO,
                   "%s: line %lld: %lld entries declared: more than a %lld x %lld matrix or the "
                   "file's %lld bytes can hold",
                   path, (long long)in.line, (long long)nz, (long long)m, (long long)n,
                   (long long)size);
    goto done;
  }
  EM_TRY_GOTO(err, read_entries(&in, field, sym, m, n, nz, A), done);
  if (info) {
    info->field = (em_mtx_field)field;
    info->symmetry = (em_mtx_symmetry)sym;
    info->entries = nz;
  }
done:
  em_free(&in.buf);
  fclose(in.f);
  if (err) em_csr_destroy(A);
  return err;
}

/* 1 when a_ji == a_ij exactly for every stored entry (sorted columns). */
static int csr_symmetric(const em_csr *A) {
  if (A->n_rows != A->n_cols) return 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int32_t j = A->colind[k];
      if (j == i) continue;
      int64_t lo = A->rowptr[j], hi = A->rowptr[j + 1];
      while (lo < hi) { /* binary search of column i in row j */
        int64_t mid = lo + (hi - lo) / 2;
        if (A->colind[mid] < i)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == A->rowptr[j + 1] || A->colind[lo] != i || A->val[lo] != A->val[k]) return 0;
    }
  return 1;
}

em_err em_mtx_write(const char *path, const em_csr *A, int symmetric) {
  EM_CHECK(path && A, EM_ERR_ARG, "em_mtx_write: NULL path or matrix");
  EM_TRY(em_csr_check(A, path));
  EM_CHECK(!symmetric || csr_symmetric(A), EM_ERR_ARG,
           "em_mtx_write %s: the matrix is not symmetric (a_ij != a_ji): write it as general",
           path);
  int is_cplx = 0;
  int64_t count = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      EM_CHECK(isfinite(creal(A->val[k])) && isfinite(cimag(A->val[k])), EM_ERR_NUMERIC,
               "em_mtx_write %s: entry (%d, %d) is not finite", path, i, A->colind[k]);
      if (cimag(A->val[k]) != 0) is_cplx = 1;
      if (!symmetric || A->colind[k] <= i) count++;
    }
  em_outfile of;
  EM_TRY(em_outfile_open(&of, path, 0));
  fprintf(of.f, "%%%%MatrixMarket matrix coordinate %s %s\n%% written by emsolve\n%d %d %lld\n",
          is_cplx ? "complex" : "real", symmetric ? "symmetric" : "general", A->n_rows, A->n_cols,
          (long long)count);
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      if (symmetric && A->colind[k] > i) continue;
      if (is_cplx)
        fprintf(of.f, "%d %d %.17g %.17g\n", i + 1, A->colind[k] + 1, creal(A->val[k]),
                cimag(A->val[k]));
      else
        fprintf(of.f, "%d %d %.17g\n", i + 1, A->colind[k] + 1, creal(A->val[k]));
    }
  EM_TRY(em_outfile_commit(&of));
  return EM_OK;
}

int em_mtx_is_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char b[15] = {0};
  size_t n = fread(b, 1, 14, f);
  fclose(f);
  return n == 14 && !strncmp(b, "%%MatrixMarket", 14);
}
