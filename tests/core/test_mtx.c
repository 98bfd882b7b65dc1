/* Matrix Market files (core/mtx.c): files written here by hand, read and
 * compared with the dense matrix the text spells out, entry by entry: empty
 * rows and columns, one row holding every column, sizes off the multiples
 * of 16 and 32, the four symmetries mirrored, pattern and integer fields,
 * comments, blank lines, CRLF ends, duplicates summed; every malformed file
 * refused with EM_ERR_IO whose message names the line and the culprit; and
 * write -> read round trips (general, symmetric, real / complex), a refused
 * write leaving no file. */
#include <complex.h>
#include <unistd.h>

#include "em_test.h"

static char dir[4096];

static const char *put(const char *name, const char *text) {
  static char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fputs(text, f) < 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
  return path;
}

/* a(i, j) of A, 0 when not stored; *stored = 1 when stored. */
static em_cplx at(const em_csr *A, int32_t i, int32_t j, int *stored) {
  *stored = 0;
  for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
    if (A->colind[k] == j) {
      *stored = 1;
      return A->val[k];
    }
  return 0;
}

/* A equals the dense m x n matrix D (row-major), stored exactly where
 * S (0/1) says. */
static void expect_dense(const char *what, const em_csr *A, int32_t m, int32_t n, const em_cplx *D,
                         const int *S) {
  EXPECT(A && A->n_rows == m && A->n_cols == n, "%s: size", what);
  if (!A || A->n_rows != m || A->n_cols != n) return;
  EXPECT_OK(em_csr_check(A, what));
  for (int32_t i = 0; i < m; i++)
    for (int32_t j = 0; j < n; j++) {
      int st;
      em_cplx v = at(A, i, j, &st);
      EXPECT(st == S[i * n + j], "%s: (%d, %d) stored %d, expected %d", what, i, j, st,
             S[i * n + j]);
      EXPECT(v == D[i * n + j], "%s: (%d, %d) = %g%+gi, expected %g%+gi", what, i, j, creal(v),
             cimag(v), creal(D[i * n + j]), cimag(D[i * n + j]));
    }
}

static void small_cases(void) {
  em_csr *A = NULL;
  em_mtx_info info;
  /* general real, comments, blank line, CRLF, an empty row and column,
     a duplicate (summed) */
  const char *p = put("g.mtx",
                      "%%MatrixMarket matrix coordinate real general\r\n% a comment\r\n\r\n"
                      "3 4 4\r\n1 1 1.5\r\n3 4 -2e-3\r\n1 1 0.5\r\n3 2 7\r\n");
  EXPECT_OK(em_mtx_read(p, &A, &info));
  em_cplx D1[12] = {2, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, -2e-3};
  int S1[12] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1};
  expect_dense("general", A, 3, 4, D1, S1);
  EXPECT(info.entries == 4 && info.field == EM_MTX_REAL && info.symmetry == EM_MTX_GENERAL,
         "info %lld %d %d", (long long)info.entries, info.field, info.symmetry);
  em_csr_destroy(&A);
  /* symmetric complex: lower triangle mirrored */
  p = put("s.mtx",
          "%%MatrixMarket matrix coordinate complex symmetric\n3 3 3\n1 1 4 0\n3 1 1 -2\n"
          "2 2 0 1\n");
  EXPECT_OK(em_mtx_read(p, &A, NULL));
  em_cplx D2[9] = {4, 0, CMPLX(1, -2), 0, CMPLX(0, 1), 0, CMPLX(1, -2), 0, 0};
  int S2[9] = {1, 0, 1, 0, 1, 0, 1, 0, 0};
  expect_dense("symmetric", A, 3, 3, D2, S2);
  em_csr_destroy(&A);
  /* hermitian: conjugate mirrored */
  p = put("h.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 3 0\n2 1 1 2\n");
  EXPECT_OK(em_mtx_read(p, &A, NULL));
  em_cplx D3[4] = {3, CMPLX(1, -2), CMPLX(1, 2), 0};
  int S3[4] = {1, 1, 1, 0};
  expect_dense("hermitian", A, 2, 2, D3, S3);
  em_csr_destroy(&A);
  /* skew-symmetric integer */
  p = put("k.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 5\n");
  EXPECT_OK(em_mtx_read(p, &A, NULL));
  em_cplx D4[4] = {0, -5, 5, 0};
  int S4[4] = {0, 1, 1, 0};
  expect_dense("skew", A, 2, 2, D4, S4);
  em_csr_destroy(&A);
  /* pattern symmetric, upper-case words */
  p = put("p.mtx", "%%MatrixMarket MATRIX Coordinate PATTERN Symmetric\n2 2 2\n1 1\n2 1\n");
  EXPECT_OK(em_mtx_read(p, &A, NULL));
  em_cplx D5[4] = {1, 1, 1, 0};
  int S5[4] = {1, 1, 1, 0};
  expect_dense("pattern", A, 2, 2, D5, S5);
  em_csr_destroy(&A);
  /* no entries at all, and a 0 x 0 matrix */
  p = put("z.mtx", "%%MatrixMarket matrix coordinate real general\n5 3 0\n");
  EXPECT_OK(em_mtx_read(p, &A, NULL));
  EXPECT(A && A->n_rows == 5 && A->n_cols == 3 && A->nnz == 0, "empty 5 x 3");
  em_csr_destroy(&A);
  p = put("z0.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  EXPECT_OK(em_mtx_read(p, &A, NULL));
  EXPECT(A && A->n_rows == 0 && A->nnz == 0, "0 x 0");
  em_csr_destroy(&A);
}

/* n = 33 and 1023 (not multiples of 16 or 32): row 1 holds every column,
 * every third row is empty, the rest a diagonal; symmetric expansion of a
 * full first column. */
static void awkward_shapes(void) {
  int32_t sizes[] = {1, 17, 33, 1023};
  for (int s = 0; s < 4; s++) {
    int32_t n = sizes[s];
    size_t cap = 64 * (size_t)(3 * n + 10);
    char *t = malloc(cap), *q = t;
    int64_t nz = n; /* row 1 (0-based) full */
    for (int32_t i = 0; i < n; i++)
      if (i != 1 && i % 3 != 2) nz++;
    q += sprintf(q, "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n", n, n,
                 (long long)nz);
    for (int32_t j = n - 1; j >= 0; j--) /* unsorted on purpose */
      if (n > 1) q += sprintf(q, "2 %d %d\n", j + 1, j + 1);
    for (int32_t i = 0; i < n; i++)
      if (i != 1 && i % 3 != 2) q += sprintf(q, "%d %d %d.25\n", i + 1, i + 1, -(i + 1));
    if (n == 1) { /* only row 0: its diagonal, nz = 1 */
      q = t;
      q += sprintf(q, "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -1.25\n");
    }
    em_csr *A = NULL;
    EXPECT_OK(em_mtx_read(put("w.mtx", t), &A, NULL));
    if (A) {
      EXPECT(A->n_rows == n && A->n_cols == n, "n = %d: size %d x %d", n, A->n_rows, A->n_cols);
      for (int32_t i = 0; i < n && A->n_rows == n; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        int64_t want = (n > 1 && i == 1) ? n : (i % 3 != 2 ? 1 : 0);
        EXPECT(len == want, "n = %d: row %d has %lld entries, expected %lld", n, i, (long long)len,
               (long long)want);
        int st;
        if (n > 1 && i == 1)
          for (int32_t j = 0; j < n; j++) EXPECT(at(A, i, j, &st) == j + 1, "full row col %d", j);
        else if (i % 3 != 2)
          EXPECT(at(A, i, i, &st) == -(i + 1) - 0.25, "diag %d", i);
      }
      EXPECT_OK(em_csr_check(A, "awkward"));
    }
    em_csr_destroy(&A);
    /* symmetric: the first column stored, mirrored into the first row */
    q = t;
    q += sprintf(q, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", n, n, n);
    for (int32_t i = 0; i < n; i++) q += sprintf(q, "%d 1 %d\n", i + 1, i + 1);
    EXPECT_OK(em_mtx_read(put("ws.mtx", t), &A, NULL));
    if (A) {
      EXPECT(A->nnz == 2 * (int64_t)n - 1, "n = %d: symmetric nnz %lld", n, (long long)A->nnz);
      int st;
      for (int32_t i = 0; i < n; i++) {
        EXPECT(at(A, i, 0, &st) == i + 1 && at(A, 0, i, &st) == i + 1, "n = %d: mirror %d", n, i);
        EXPECT(A->rowptr[i + 1] - A->rowptr[i] == (i == 0 ? n : 1), "n = %d: row %d", n, i);
      }
    }
    em_csr_destroy(&A);
    free(t);
  }
}

/* A malformed file: EM_ERR_IO, and the message holds each needle. */
static void refused(const char *name, const char *text, const char *n1, const char *n2) {
  em_csr *A = (em_csr *)0x1;
  em_err e = em_mtx_read(put(name, text), &A, NULL);
  const char *msg = em_error_message();
  EXPECT(e == EM_ERR_IO, "%s: returned %s", name, em_err_name(e));
  EXPECT(A == NULL, "%s: output not NULL", name);
  EXPECT(strstr(msg, name) != NULL, "%s: message does not name the file: %s", name, msg);
  EXPECT(!n1 || strstr(msg, n1), "%s: message lacks '%s': %s", name, n1, msg);
  EXPECT(!n2 || strstr(msg, n2), "%s: message lacks '%s': %s", name, n2, msg);
  em_error_clear();
}

static void bad_files(void) {
  const char *H = "%%MatrixMarket matrix coordinate real general\n";
  char b[512];
  refused("b_empty.mtx", "", "empty file", NULL);
  refused("b_banner.mtx", "%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", "line 1",
          "banner");
  refused("b_array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "line 1",
          "'array'");
  refused("b_field.mtx", "%%MatrixMarket matrix coordinate quaternion general\n1 1 0\n", "line 1",
          "'quaternion'");
  refused("b_sym.mtx", "%%MatrixMarket matrix coordinate real diagonal\n1 1 0\n", "line 1",
          "'diagonal'");
  refused("b_short.mtx", "%%MatrixMarket matrix coordinate real\n1 1 0\n", "line 1", "has 3 word");
  refused("b_herm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", "line 1",
          "hermitian");
  refused("b_nosize.mtx", "%%MatrixMarket matrix coordinate real general\n% only comments\n",
          "line 2", "size line");
  snprintf(b, sizeof b, "%s2 x 1\n1 1 1\n", H);
  refused("b_size.mtx", b, "line 2", "'2 x 1'");
  snprintf(b, sizeof b, "%s-2 2 1\n1 1 1\n", H);
  refused("b_negsize.mtx", b, "line 2", "size line");
  snprintf(b, sizeof b, "%s3000000000 2 1\n1 1 1\n", H);
  refused("b_bigsize.mtx", b, "line 2", "3000000000");
  snprintf(b, sizeof b, "%s2 2 999999999999\n1 1 1\n", H);
  refused("b_count.mtx", b, "line 2", "999999999999 entries");
  snprintf(b, sizeof b, "%s2 2 5\n1 1 1\n", H); /* more than 2 x 2 holds */
  refused("b_count4.mtx", b, "line 2", "5 entries");
  snprintf(b, sizeof b, "%s2 2 3\n1 1 1\n2 2 2\n", H);
  refused("b_trunc.mtx", b, "after 2 of the 3 entries", NULL);
  snprintf(b, sizeof b, "%s2 2 1\n1 1 1\n2 2 2\n", H);
  refused("b_extra.mtx", b, "line 4", "'2 2 2'");
  snprintf(b, sizeof b, "%s2 2 2\n1 1 1\n3 1 2\n", H);
  refused("b_row.mtx", b, "line 4", "'3 1 2'");
  snprintf(b, sizeof b, "%s2 2 2\n1 1 1\n2 0 2\n", H);
  refused("b_zero.mtx", b, "line 4", "'2 0 2'");
  snprintf(b, sizeof b, "%s2 2 1\n1 1 nan\n", H);
  refused("b_nan.mtx", b, "line 3", "finite");
  snprintf(b, sizeof b, "%s2 2 1\n1 1 1e999\n", H);
  refused("b_inf.mtx", b, "line 3", "1e999");
  snprintf(b, sizeof b, "%s2 2 1\n1 1\n", H);
  refused("b_noval.mtx", b, "line 3", "VALUE");
  snprintf(b, sizeof b, "%s2 2 1\n1 1 1 2\n", H);
  refused("b_junk.mtx", b, "line 3", "'1 1 1 2'");
  snprintf(b, sizeof b, "%s2 2 1\n1.5 1 1\n", H);
  refused("b_float.mtx", b, "line 3", "'1.5 1 1'");
  refused("b_cplx.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 2\n",
          "line 3", "RE IM");
  refused("b_upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n",
          "line 3", "above the diagonal");
  refused("b_rect.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", "line 2",
          "square");
  refused("b_skewd.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n",
          "line 3", "diagonal");
  em_csr *A = NULL;
  char missing[4200];
  snprintf(missing, sizeof missing, "%s/none.mtx", dir);
  EXPECT_ERR(em_mtx_read(missing, &A, NULL), EM_ERR_IO);
  EXPECT(!em_mtx_is_file(missing), "a missing file is no Matrix Market file");
}

/* write -> read gives the same matrix, bit for bit (%.17g round-trips). */
static void round_trips(void) {
  int32_t n = 37;
  int32_t ti[200], tj[200];
  em_cplx tv[200];
  int t = 0;
  for (int32_t i = 0; i < n; i++) {
    ti[t] = i, tj[t] = i, tv[t++] = 1.0 / (i + 3);
    if (i % 5 && i + 7 < n) {
      ti[t] = i, tj[t] = i + 7, tv[t++] = CMPLX(-1.0 / 3, 0.1 * i);
      ti[t] = i + 7, tj[t] = i, tv[t++] = CMPLX(-1.0 / 3, 0.1 * i);
    }
  }
  em_csr *A = NULL, *R = NULL;
  REQUIRE_OK(em_csr_from_triplets(n, n, t, ti, tj, tv, &A));
  char path[4200];
  for (int sym = 0; sym < 2; sym++) {
    snprintf(path, sizeof path, "%s/rt%d.mtx", dir, sym);
    EXPECT_OK(em_mtx_write(path, A, sym));
    EXPECT(em_mtx_is_file(path), "written file has the banner");
    em_mtx_info info;
    EXPECT_OK(em_mtx_read(path, &R, &info));
    EXPECT(R && R->nnz == A->nnz && !memcmp(R->rowptr, A->rowptr, sizeof(int64_t) * (n + 1)) &&
               !memcmp(R->colind, A->colind, sizeof(int32_t) * A->nnz) &&
               !memcmp(R->val, A->val, sizeof(em_cplx) * A->nnz),
           "round trip symmetric = %d differs", sym);
    EXPECT(info.field == EM_MTX_COMPLEX && (int)info.symmetry == sym, "round trip header");
    em_csr_destroy(&R);
  }
  /* real values: a real file */
  for (int64_t k = 0; k < A->nnz; k++) A->val[k] = creal(A->val[k]);
  snprintf(path, sizeof path, "%s/rtr.mtx", dir);
  EXPECT_OK(em_mtx_write(path, A, 1));
  em_mtx_info info;
  EXPECT_OK(em_mtx_read(path, &R, &info));
  EXPECT(info.field == EM_MTX_REAL && R && R->nnz == A->nnz, "real round trip");
  em_csr_destroy(&R);
  /* not symmetric: refused as symmetric, no file left */
  A->val[A->rowptr[1] + 1] += 1;
  snprintf(path, sizeof path, "%s/nosym.mtx", dir);
  EXPECT_ERR(em_mtx_write(path, A, 1), EM_ERR_ARG);
  EXPECT(access(path, F_OK) != 0, "a refused write left %s", path);
  em_csr_destroy(&A);
}

int main(void) {
  snprintf(dir, sizeof dir, "%s/test_mtx.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  small_cases();
  awkward_shapes();
  bad_files();
  round_trips();
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return TEST_RESULT();
}
