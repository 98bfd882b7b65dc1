/* Matrix files: bitwise round trips (FEM orders 1-3, empty groups and
 * blocks, odd entry counts, no right-hand sides, n = 0), the file length
 * and checksum as docs/matrix-file.md defines them (computed here from the
 * document, independently of matfile.c), every kind of corruption refused as
 * EM_ERR_IO naming the file and the fault, and refusals on writing. */
#include <dirent.h>
#include <unistd.h>

#include "spmat_util.h"

static char dir[4096];

/* FNV-1a over 64-bit little-endian words, as the document specifies. */
static uint64_t doc_checksum(const unsigned char *b, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t k = 0; k + 8 <= n; k += 8) {
    uint64_t w;
    memcpy(&w, b + k, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  return h;
}

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(*n + 1);
  if (fread(b, 1, *n, f) != *n) *n = 0;
  fclose(f);
  return b;
}

static void spit(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || (n > 0 && fwrite(b, 1, n, f) != n)) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

static int same_csr(const em_csr *A, const em_csr *B) {
  return A->n_rows == B->n_rows && A->n_cols == B->n_cols && A->nnz == B->nnz &&
         !memcmp(A->rowptr, B->rowptr, sizeof *A->rowptr * ((size_t)A->n_rows + 1)) &&
         (A->nnz == 0 || (!memcmp(A->colind, B->colind, sizeof *A->colind * (size_t)A->nnz) &&
                          !memcmp(A->val, B->val, sizeof *A->val * (size_t)A->nnz)));
}

/* Write, check the length and checksum from the document, read back. */
static void round_trip(const char *name, const em_blockmat *B, int n_rhs) {
  char path[4200];
  snprintf(path, sizeof path, "%s/rt.emm", dir);
  int32_t n = B->offset[B->nb];
  em_cplx *b = calloc((size_t)n * (size_t)n_rhs + 1, sizeof *b);
  unsigned long long s = 17;
  for (size_t k = 0; k < (size_t)n * (size_t)n_rhs; k++) b[k] = tu_rand_cplx(&s);
  EXPECT_OK(em_matfile_write(path, B, n_rhs, b));
  size_t len = 0;
  unsigned char *raw = slurp(path, &len);
  size_t expect = 48 + 16 * (size_t)n * (size_t)n_rhs + 8;
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) {
      int64_t z = B->blk[i][j]->nnz;
      expect += 16 + 8 * ((size_t)B->blk[i][j]->n_rows + 1) + 20 * (size_t)z + (z % 2 ? 4 : 0);
    }
  EXPECT(raw && len == expect, "%s: file of %zu bytes, expected %zu", name, len, expect);
  if (raw && len >= 56) {
    uint64_t stored;
    memcpy(&stored, raw + len - 8, 8);
    EXPECT(stored == doc_checksum(raw, len - 8), "%s: checksum differs from the document's", name);
    EXPECT(!memcmp(raw, "EMSYSMAT", 8), "%s: magic", name);
  }
  free(raw);
  em_blockmat *R = NULL;
  em_cplx *rb = NULL;
  int rn = -1;
  EXPECT_OK(em_matfile_read(path, &R, &rn, &rb));
  if (R) {
    int same = R->nb == B->nb && rn == n_rhs;
    for (int g = 0; g <= B->nb && same; g++) same = R->offset[g] == B->offset[g];
    for (int i = 0; i < B->nb && same; i++)
      for (int j = 0; j < B->nb && same; j++) same = same_csr(R->blk[i][j], B->blk[i][j]);
    if (same && (size_t)n * (size_t)n_rhs > 0)
      same = rb && !memcmp(rb, b, sizeof *b * (size_t)n * (size_t)n_rhs);
    else if (same)
      same = rb == NULL;
    EXPECT(same, "%s: the system read back differs from the one written", name);
  }
  em_blockmat_destroy(&R);
  em_free(&rb);
  /* the right-hand sides may be skipped */
  EXPECT_OK(em_matfile_read(path, &R, NULL, NULL));
  em_blockmat_destroy(&R);
  free(b);
}

/* Read a damaged copy: EM_ERR_IO, no matrix, a message with the file name
 * and `why`. */
static void expect_corrupt(const char *name, const unsigned char *raw, size_t len,
                           const char *why) {
  char path[4200];
  snprintf(path, sizeof path, "%s/bad.emm", dir);
  spit(path, raw, len);
  em_blockmat *R = NULL;
  em_cplx *b = NULL;
  int n_rhs = -1;
  em_err e = em_matfile_read(path, &R, &n_rhs, &b);
  const char *msg = em_error_message();
  EXPECT(e == EM_ERR_IO && R == NULL && b == NULL && n_rhs == 0, "%s: %s accepted or wrong code",
         name, em_err_name(e));
  EXPECT(strstr(msg, path) && strstr(msg, why), "%s: message '%s' lacks the file or '%s'", name,
         msg, why);
  em_error_clear();
  em_blockmat_destroy(&R);
  em_free(&b);
}

/* A copy of good with `n` bytes at `at` replaced; `fix` rewrites the
 * checksum so that only the intended fault remains. */
static void patch(const char *name, const unsigned char *good, size_t len, size_t at,
                  const void *bytes, size_t n, int fix, const char *why) {
  unsigned char *c = malloc(len);
  memcpy(c, good, len);
  memcpy(c + at, bytes, n);
  if (fix) {
    uint64_t h = doc_checksum(c, len - 8);
    memcpy(c + len - 8, &h, 8);
  }
  expect_corrupt(name, c, len, why);
  free(c);
}

static void corruptions(void) {
  /* three groups, A_11 first: 30 rows, columns and values at known places */
  int32_t off[4] = {0, 30, 30, 70};
  em_csr *A = tu_rand_csr(70, 70, 9, 5, 3, 70, 11);
  em_blockmat *B = NULL;
  REQUIRE_OK(em_blockmat_from_csr(A, 3, off, &B));
  em_csr_destroy(&A);
  char path[4200];
  snprintf(path, sizeof path, "%s/good.emm", dir);
  em_cplx b[70];
  for (int k = 0; k < 70; k++) b[k] = k + 0.5 * I;
  REQUIRE_OK(em_matfile_write(path, B, 1, b));
  size_t len = 0;
  unsigned char *good = slurp(path, &len);
  const em_csr *A11 = B->blk[0][0];
  size_t rowptr = 64, colind = rowptr + 8 * 31,
         vals = colind + 4 * (size_t)A11->nnz + (A11->nnz % 2 ? 4 : 0);
  EXPECT(A11->nnz > 4, "A_11 needs entries for the corruption cases");

  expect_corrupt("truncated to 0", good, 0, "too short");
  expect_corrupt("truncated to 47", good, 47, "too short");
  expect_corrupt("truncated to 60", good, 60, "header says");
  expect_corrupt("truncated in A_11", good, vals + 5, "header says");
  expect_corrupt("truncated by 1", good, len - 1, "header says");
  unsigned char *longer = calloc(len + 8, 1);
  memcpy(longer, good, len);
  expect_corrupt("8 bytes appended", longer, len + 8, "header says");
  free(longer);

  patch("bad magic", good, len, 0, "X", 1, 1, "magic");
  uint32_t u = 2;
  patch("version 2", good, len, 8, &u, 4, 1, "version");
  u = 0x04030201u;
  patch("big-endian", good, len, 12, &u, 4, 1, "byte order");
  u = 0xdeadbeefu;
  patch("bad marker", good, len, 12, &u, 4, 1, "byte-order marker");
  int32_t i4 = 4;
  patch("4 groups", good, len, 16, &i4, 4, 1, "order groups");
  i4 = 0;
  patch("0 groups", good, len, 16, &i4, 4, 1, "order groups");
  i4 = -1;
  patch("negative rhs", good, len, 20, &i4, 4, 1, "right-hand sides");
  i4 = 2;
  patch("2 rhs", good, len, 20, &i4, 4, 1, "right-hand sides");
  i4 = 20;
  patch("offsets decrease", good, len, 24 + 8, &i4, 4, 1, "decrease");
  uint64_t u8 = len + 16;
  patch("length field", good, len, 40, &u8, 8, 1, "header says");
  i4 = 31;
  patch("A_11 rows", good, len, 48, &i4, 4, 1, "groups are");
  int64_t i8 = (int64_t)1 << 40;
  patch("A_11 huge nnz", good, len, 56, &i8, 8, 1, "declares");
  i8 = -3;
  patch("A_11 negative nnz", good, len, 56, &i8, 8, 1, "negative entry count");
  i8 = A11->nnz + 1; /* fits the file's bytes? no: the next block shifts */
  patch("A_11 nnz + 1", good, len, 56, &i8, 8, 1, "");

  unsigned char flip = good[vals + 3] ^ 0x10;
  patch("value bit flipped", good, len, vals + 3, &flip, 1, 0, "checksum");
  flip = good[len - 2] ^ 0x01;
  patch("checksum bit flipped", good, len, len - 2, &flip, 1, 0, "checksum");
  flip = good[colind] ^ 0x01;
  patch("column bit flipped", good, len, colind, &flip, 1, 0, "checksum");

  i4 = 30;
  patch("column out of range", good, len, colind, &i4, 4, 1, "invalid matrix");
  i8 = A11->rowptr[6] + 1;
  patch("row pointers decrease", good, len, rowptr + 5 * 8, &i8, 8, 1, "invalid matrix");
  i4 = A11->colind[A11->rowptr[3]];
  if (A11->rowptr[4] - A11->rowptr[3] >= 2)
    patch("columns repeated", good, len, colind + 4 * (size_t)(A11->rowptr[3] + 1), &i4, 4, 1,
          "invalid matrix");
  double nan = NAN;
  patch("NaN value", good, len, vals + 16, &nan, 8, 1, "not finite");
  patch("NaN right-hand side", good, len, len - 8 - 16 * 70 + 8, &nan, 8, 1, "not finite");

  char missing[4300];
  snprintf(missing, sizeof missing, "%s/no-such.emm", dir);
  expect_corrupt("empty file", NULL, 0, "too short");
  em_blockmat *R = NULL;
  EXPECT_ERR(em_matfile_read(missing, &R, NULL, NULL), EM_ERR_IO);
  free(good);
  em_blockmat_destroy(&B);
}

/* Writing refuses bad systems and leaves nothing behind. */
static void write_refusals(void) {
  int32_t off[4] = {0, 10, 25, 25};
  em_csr *A = tu_rand_csr(25, 25, 5, 0, -1, 0, 12);
  em_blockmat *B = NULL;
  REQUIRE_OK(em_blockmat_from_csr(A, 2, off, &B));
  em_csr_destroy(&A);
  char path[4200];
  snprintf(path, sizeof path, "%s/refused.emm", dir);
  em_cplx b[25] = {0};
  EXPECT_ERR(em_matfile_write(path, NULL, 0, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_matfile_write(path, B, 1, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_matfile_write(path, B, -1, b), EM_ERR_ARG);
  em_cplx keep = B->blk[1][0]->val[0];
  B->blk[1][0]->val[0] = NAN;
  EXPECT_ERR(em_matfile_write(path, B, 1, b), EM_ERR_NUMERIC);
  B->blk[1][0]->val[0] = keep;
  b[3] = INFINITY;
  EXPECT_ERR(em_matfile_write(path, B, 1, b), EM_ERR_NUMERIC);
  b[3] = 0;
  int32_t c = B->blk[0][1]->colind[0];
  B->blk[0][1]->colind[0] = 15;
  EXPECT(em_matfile_write(path, B, 1, b) != EM_OK, "invalid CSR written");
  em_error_clear();
  B->blk[0][1]->colind[0] = c;
  char nodir[4300];
  snprintf(nodir, sizeof nodir, "%s/no/such/dir/x.emm", dir);
  EXPECT_ERR(em_matfile_write(nodir, B, 1, b), EM_ERR_IO);
  EXPECT(access(path, F_OK) != 0, "a refused write left %s", path);
  /* no temporary files anywhere in the directory */
  DIR *d = opendir(dir);
  struct dirent *e;
  int tmp = 0;
  while (d && (e = readdir(d))) tmp += strstr(e->d_name, ".tmp.") != NULL;
  if (d) closedir(d);
  EXPECT(tmp == 0, "%d temporary files left", tmp);
  em_blockmat_destroy(&B);
}

int main(void) {
  const char *bin = getenv("EM_BINARY_DIR");
  snprintf(dir, sizeof dir, "%s/test_matfile_%ld", bin ? bin : ".", (long)getpid());
  REQUIRE_OK(em_mkdir_p(dir));
  for (int p = 1; p <= 3; p++) {
    em_blockmat *B = NULL;
    tu_fem_blockmat(2, p, 3, &B);
    char name[32];
    snprintf(name, sizeof name, "FEM order %d", p);
    round_trip(name, B, p - 1);
    em_blockmat_destroy(&B);
  }
  int32_t o1[4] = {0, 13, 13, 41}, o0[4] = {0, 0, 0, 0};
  em_csr *A = tu_rand_csr(41, 41, 7, 3, 5, 41, 21);
  em_blockmat *B = NULL;
  REQUIRE_OK(em_blockmat_from_csr(A, 3, o1, &B));
  round_trip("empty group", B, 2);
  em_blockmat_destroy(&B);
  em_csr_destroy(&A);
  REQUIRE_OK(em_csr_create(0, 0, 0, &A));
  REQUIRE_OK(em_blockmat_from_csr(A, 1, o0, &B));
  round_trip("n = 0", B, 3);
  em_blockmat_destroy(&B);
  em_csr_destroy(&A);
  corruptions();
  write_refusals();
  /* clean up the files this test made */
  const char *names[] = {"rt.emm", "bad.emm", "good.emm"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    remove(path);
  }
  rmdir(dir);
  return TEST_RESULT();
}
