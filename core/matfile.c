/* matfile.c - the system as written by `emsolve --dump-matrix FILE`: the
 * nine blocks, the group offsets and the right-hand sides in one binary
 * file, little-endian, 8-byte aligned, ending in a checksum of everything
 * before it.  The layout is specified in docs/matrix-file.md.
 *
 * The reader trusts nothing: every size is checked against the bytes the
 * file still holds before anything is allocated, the checksum is verified
 * before the contents are used, and the blocks must be valid CSR with
 * finite values.  Every failure is an EM_ERR_IO naming the file and the
 * fault. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "em_core.h"

#define MF_MAGIC "EMSYSMAT"
#define MF_VERSION 1u
#define MF_ENDIAN 0x01020304u
#define MF_HEADER 48 /* bytes of the file header */
#define MF_BLOCK 16  /* bytes of a block header */
#define MF_FNV_OFFSET 14695981039346656037ull
#define MF_FNV_PRIME 1099511628211ull

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#define MF_LITTLE_ENDIAN 0
#else
#define MF_LITTLE_ENDIAN 1
#endif

/* A file being written or read, with the running checksum: FNV-1a over the
 * file's 64-bit little-endian words, h = (h ^ word) * prime. */
typedef struct {
  FILE *f;
  const char *path;
  uint64_t h;            /* checksum of the words so far */
  unsigned char part[8]; /* bytes of the word not yet complete */
  int n_part;            /* how many */
  int64_t pos;           /* bytes so far */
  int64_t size;          /* file length (reading) */
} mf_stream;

/* Feed n bytes to the checksum, word by word (a word may span calls). */
static void mf_hash(mf_stream *s, const void *p, size_t n) {
  const unsigned char *b = p;
  while (n > 0 && s->n_part > 0) { /* complete a word begun by an earlier call */
    s->part[s->n_part++] = *b++;
    n--;
    if (s->n_part == 8) {
      uint64_t w;
      memcpy(&w, s->part, 8);
      s->h = (s->h ^ w) * MF_FNV_PRIME;
      s->n_part = 0;
    }
  }
  for (; n >= 8; n -= 8, b += 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    s->h = (s->h ^ w) * MF_FNV_PRIME;
  }
  if (n > 0) { /* n < 8 and no partial word: keep the rest for the next call */
    memcpy(s->part, b, n);
    s->n_part = (int)n;
  }
}

/* Write n bytes and add them to the checksum. */
static em_err mf_write(mf_stream *s, const void *p, size_t n) {
  if (n == 0) return EM_OK;
  EM_CHECK(fwrite(p, 1, n, s->f) == n, EM_ERR_IO, "error writing %s at byte %lld: %s", s->path,
           (long long)s->pos, strerror(errno));
  mf_hash(s, p, n);
  s->pos += (int64_t)n;
  return EM_OK;
}

/* Read n bytes of `what`; the caller has checked that the file holds them,
 * so a short read is an I/O fault or a file changed under us. */
static em_err mf_read(mf_stream *s, void *p, size_t n, const char *what) {
  if (n == 0) return EM_OK;
  EM_CHECK(fread(p, 1, n, s->f) == n, EM_ERR_IO, "%s: cannot read %s at byte %lld (%s)", s->path,
           what, (long long)s->pos, feof(s->f) ? "unexpected end of file" : strerror(errno));
  mf_hash(s, p, n);
  s->pos += (int64_t)n;
  return EM_OK;
}

/* Bytes of one block in the file: header, row pointers, columns padded to 8
 * bytes, values. */
static int64_t mf_block_bytes(int64_t rows, int64_t nnz) {
  return MF_BLOCK + 8 * (rows + 1) + 4 * nnz + (nnz % 2 ? 4 : 0) + 16 * nnz;
}

/* The header's fixed fields, in file order. */
typedef struct {
  char magic[8];
  uint32_t version, endian;
  int32_t nb, n_rhs;
  int32_t offset[EM_MAX_ORDER + 1];
  uint64_t file_bytes;
} mf_header;

/* Header fields -> the 48 file bytes (explicit offsets, no struct padding). */
static void mf_header_pack(const mf_header *h, unsigned char *b) {
  memcpy(b, h->magic, 8);
  memcpy(b + 8, &h->version, 4);
  memcpy(b + 12, &h->endian, 4);
  memcpy(b + 16, &h->nb, 4);
  memcpy(b + 20, &h->n_rhs, 4);
  memcpy(b + 24, h->offset, 16);
  memcpy(b + 40, &h->file_bytes, 8);
}

/* The 48 file bytes -> header fields. */
static void mf_header_unpack(const unsigned char *b, mf_header *h) {
  memcpy(h->magic, b, 8);
  memcpy(&h->version, b + 8, 4);
  memcpy(&h->endian, b + 12, 4);
  memcpy(&h->nb, b + 16, 4);
  memcpy(&h->n_rhs, b + 20, 4);
  memcpy(h->offset, b + 24, 16);
  memcpy(&h->file_bytes, b + 40, 8);
}

/* The writer's checks: a whole block matrix with finite values. */
static em_err mf_check_system(const char *path, const em_blockmat *B, int n_rhs, const em_cplx *b) {
  EM_CHECK(B, EM_ERR_ARG, "em_matfile_write %s: NULL block matrix", path);
  EM_CHECK(B->nb >= 1 && B->nb <= EM_MAX_ORDER, EM_ERR_ARG,
           "em_matfile_write %s: %d order groups, not 1..%d", path, B->nb, EM_MAX_ORDER);
  EM_CHECK(B->offset[0] == 0, EM_ERR_ARG, "em_matfile_write %s: group offsets start at %d", path,
           B->offset[0]);
  for (int i = 0; i < B->nb; i++)
    EM_CHECK(B->offset[i + 1] >= B->offset[i], EM_ERR_ARG,
             "em_matfile_write %s: group %d has negative size", path, i + 1);
  int32_t n = B->offset[B->nb];
  EM_CHECK(n_rhs >= 0 && (b || n_rhs == 0 || n == 0), EM_ERR_ARG,
           "em_matfile_write %s: %d right-hand sides at %p", path, n_rhs, (const void *)b);
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) {
      const em_csr *A = B->blk[i][j];
      EM_CHECK(A && A->n_rows == B->offset[i + 1] - B->offset[i] &&
                   A->n_cols == B->offset[j + 1] - B->offset[j],
               EM_ERR_ARG,
               "em_matfile_write %s: block A_%d%d is missing or not sized by its groups", path,
               i + 1, j + 1);
      char name[4200];
      snprintf(name, sizeof name, "em_matfile_write %.4000s: block A_%d%d", path, i + 1, j + 1);
      EM_TRY(em_csr_check(A, name));
      for (int64_t k = 0; k < A->nnz; k++)
        EM_CHECK(isfinite(creal(A->val[k])) && isfinite(cimag(A->val[k])), EM_ERR_NUMERIC,
                 "em_matfile_write %s: block A_%d%d entry %lld is not finite", path, i + 1, j + 1,
                 (long long)k);
    }
  for (int64_t k = 0; k < (int64_t)n * n_rhs; k++)
    EM_CHECK(isfinite(creal(b[k])) && isfinite(cimag(b[k])), EM_ERR_NUMERIC,
             "em_matfile_write %s: right-hand side %lld entry %lld is not finite", path,
             (long long)(k / n), (long long)(k % n));
  return EM_OK;
}

/* Header with the total length, the blocks, the right-hand sides, then the
 * checksum of all that. */
static em_err mf_write_all(mf_stream *s, const em_blockmat *B, int n_rhs, const em_cplx *b) {
  int32_t n = B->offset[B->nb];
  mf_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, MF_MAGIC, 8);
  h.version = MF_VERSION;
  h.endian = MF_ENDIAN;
  h.nb = B->nb;
  h.n_rhs = n_rhs;
  memcpy(h.offset, B->offset, ((size_t)B->nb + 1) * sizeof *h.offset);
  int64_t total = MF_HEADER + 16 * (int64_t)n * n_rhs + 8;
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++)
      total += mf_block_bytes(B->blk[i][j]->n_rows, B->blk[i][j]->nnz);
  h.file_bytes = (uint64_t)total;
  unsigned char hb[MF_HEADER];
  mf_header_pack(&h, hb);
  EM_TRY(mf_write(s, hb, MF_HEADER));
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) {
      const em_csr *A = B->blk[i][j];
      unsigned char bh[MF_BLOCK];
      memcpy(bh, &A->n_rows, 4);
      memcpy(bh + 4, &A->n_cols, 4);
      memcpy(bh + 8, &A->nnz, 8);
      EM_TRY(mf_write(s, bh, MF_BLOCK));
      EM_TRY(mf_write(s, A->rowptr, ((size_t)A->n_rows + 1) * 8));
      EM_TRY(mf_write(s, A->colind, (size_t)A->nnz * 4));
      static const unsigned char zero[4] = {0, 0, 0, 0};
      if (A->nnz % 2) EM_TRY(mf_write(s, zero, 4));
      EM_TRY(mf_write(s, A->val, (size_t)A->nnz * 16));
    }
  EM_TRY(mf_write(s, b, (size_t)n * (size_t)n_rhs * 16));
  EM_CHECK(s->pos == total - 8 && s->n_part == 0, EM_ERR_INTERNAL,
           "matrix file %s: wrote %lld bytes, planned %lld", s->path, (long long)s->pos,
           (long long)(total - 8));
  uint64_t sum = s->h;
  EM_TRY(mf_write(s, &sum, 8));
  return EM_OK;
}

/* Check, write under a temporary name, rename when complete. */
em_err em_matfile_write(const char *path, const em_blockmat *B, int n_rhs, const em_cplx *b) {
  EM_CHECK(path, EM_ERR_ARG, "em_matfile_write: NULL path");
  EM_CHECK(MF_LITTLE_ENDIAN, EM_ERR_UNSUPPORTED,
           "em_matfile_write %s: matrix files are little-endian; this host is not", path);
  EM_TRY(mf_check_system(path, B, n_rhs, b));
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 1));
  mf_stream s = {o.f, path, MF_FNV_OFFSET, {0}, 0, 0, 0};
  em_err err = mf_write_all(&s, B, n_rhs, b);
  if (err) {
    em_outfile_abort(&o);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  EM_TRY(em_outfile_commit(&o));
  return EM_OK;
}

/* ------------------------------------------------------------------ read */

/* Header fields that must hold before any size is trusted. */
static em_err mf_check_header(const mf_stream *s, const mf_header *h) {
  const char *p = s->path;
  EM_CHECK(!memcmp(h->magic, MF_MAGIC, 8), EM_ERR_IO,
           "%s: not an emsolve matrix file (bad magic, expected \"%s\")", p, MF_MAGIC);
  EM_CHECK(h->endian != 0x04030201u, EM_ERR_IO,
           "%s: written with the other byte order (big-endian); matrix files are little-endian", p);
  EM_CHECK(h->endian == MF_ENDIAN, EM_ERR_IO, "%s: bad byte-order marker 0x%08x", p, h->endian);
  EM_CHECK(h->version == MF_VERSION, EM_ERR_IO,
           "%s: matrix file version %u, this build reads version %u", p, h->version, MF_VERSION);
  EM_CHECK(h->file_bytes == (uint64_t)s->size, EM_ERR_IO,
           "%s: the header says %llu bytes but the file has %lld (truncated or appended to)", p,
           (unsigned long long)h->file_bytes, (long long)s->size);
  EM_CHECK(h->nb >= 1 && h->nb <= EM_MAX_ORDER, EM_ERR_IO, "%s: %d order groups, not 1..%d", p,
           h->nb, EM_MAX_ORDER);
  EM_CHECK(h->n_rhs >= 0, EM_ERR_IO, "%s: negative number of right-hand sides %d", p, h->n_rhs);
  EM_CHECK(h->offset[0] == 0, EM_ERR_IO, "%s: group offsets start at %d, not 0", p, h->offset[0]);
  for (int g = 0; g < h->nb; g++)
    EM_CHECK(h->offset[g + 1] >= h->offset[g], EM_ERR_IO,
             "%s: group offsets decrease (group %d: %d, %d)", p, g + 1, h->offset[g],
             h->offset[g + 1]);
  return EM_OK;
}

/* One block: its header against the groups and the bytes left, then the
 * arrays into a new CSR. */
static em_err mf_read_block(mf_stream *s, const mf_header *h, int i, int j, em_csr **out) {
  const char *p = s->path;
  unsigned char bh[MF_BLOCK];
  int32_t rows, cols;
  int64_t nnz, left = s->size - 8 - s->pos;
  EM_CHECK(left >= MF_BLOCK, EM_ERR_IO, "%s: file ends before block A_%d%d", p, i + 1, j + 1);
  EM_TRY(mf_read(s, bh, MF_BLOCK, "a block header"));
  memcpy(&rows, bh, 4);
  memcpy(&cols, bh + 4, 4);
  memcpy(&nnz, bh + 8, 8);
  EM_CHECK(rows == h->offset[i + 1] - h->offset[i] && cols == h->offset[j + 1] - h->offset[j],
           EM_ERR_IO, "%s: block A_%d%d is %d x %d but its groups are %d x %d", p, i + 1, j + 1,
           rows, cols, h->offset[i + 1] - h->offset[i], h->offset[j + 1] - h->offset[j]);
  left -= MF_BLOCK;
  EM_CHECK(nnz >= 0, EM_ERR_IO, "%s: block A_%d%d declares a negative entry count %lld", p, i + 1,
           j + 1, (long long)nnz);
  EM_CHECK(nnz <= left / 20 && mf_block_bytes(rows, nnz) - MF_BLOCK <= left, EM_ERR_IO,
           "%s: block A_%d%d declares %lld entries, more than the remaining %lld bytes hold", p,
           i + 1, j + 1, (long long)nnz, (long long)left);
  em_csr *A = NULL;
  em_err err = EM_OK;
  EM_TRY(em_csr_create(rows, cols, nnz, &A));
  EM_TRY_GOTO(err, mf_read(s, A->rowptr, ((size_t)rows + 1) * 8, "row pointers"), done);
  EM_TRY_GOTO(err, mf_read(s, A->colind, (size_t)nnz * 4, "column indices"), done);
  if (nnz % 2) {
    unsigned char pad[4];
    EM_TRY_GOTO(err, mf_read(s, pad, 4, "column padding"), done);
  }
  EM_TRY_GOTO(err, mf_read(s, A->val, (size_t)nnz * 16, "values"), done);
  *out = A;
  A = NULL;
done:
  em_csr_destroy(&A);
  return err;
}

/* After the checksum matched: structure and values make sense. */
static em_err mf_check_blocks(const char *path, const em_blockmat *B, int64_t n_b,
                              const em_cplx *b) {
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) {
      const em_csr *A = B->blk[i][j];
      char name[64];
      snprintf(name, sizeof name, "block A_%d%d", i + 1, j + 1);
      if (em_csr_check(A, name)) {
        char why[512];
        snprintf(why, sizeof why, "%s", em_error_message());
        em_error_clear();
        return EM_RAISE(EM_ERR_IO, "%s: invalid matrix: %s", path, why);
      }
      for (int64_t k = 0; k < A->nnz; k++)
        EM_CHECK(isfinite(creal(A->val[k])) && isfinite(cimag(A->val[k])), EM_ERR_IO,
                 "%s: block A_%d%d entry %lld is not finite", path, i + 1, j + 1, (long long)k);
    }
  for (int64_t k = 0; k < n_b; k++)
    EM_CHECK(isfinite(creal(b[k])) && isfinite(cimag(b[k])), EM_ERR_IO,
             "%s: right-hand side value %lld is not finite", path, (long long)k);
  return EM_OK;
}

/* Header, blocks, right-hand sides, checksum, then the contents' validity;
 * the outputs are set only when everything holds. */
static em_err mf_read_all(mf_stream *s, em_blockmat **Bout, int *n_rhs_out, em_cplx **bout) {
  const char *p = s->path;
  EM_CHECK(s->size >= MF_HEADER + 8, EM_ERR_IO,
           "%s: %lld bytes, too short for a matrix file (header and checksum take %d)", p,
           (long long)s->size, MF_HEADER + 8);
  unsigned char hb[MF_HEADER];
  mf_header h;
  EM_TRY(mf_read(s, hb, MF_HEADER, "the header"));
  mf_header_unpack(hb, &h);
  EM_TRY(mf_check_header(s, &h));
  em_err err = EM_OK;
  em_blockmat *B = NULL;
  em_cplx *b = NULL;
  EM_TRY(em_calloc(&B, 1, sizeof *B, "block matrix"));
  B->nb = h.nb;
  memcpy(B->offset, h.offset, sizeof B->offset);
  for (int g = h.nb + 1; g <= EM_MAX_ORDER; g++) B->offset[g] = 0;
  for (int i = 0; i < h.nb; i++)
    for (int j = 0; j < h.nb; j++)
      EM_TRY_GOTO(err, mf_read_block(s, &h, i, j, &B->blk[i][j]), done);
  /* the right-hand sides take exactly what is left (16 n n_rhs could overflow: divide) */
  int64_t n = h.offset[h.nb], left = s->size - 8 - s->pos;
  if (n == 0 ? left != 0 : left % (16 * n) != 0 || left / (16 * n) != h.n_rhs) {
    err = EM_RAISE(EM_ERR_IO,
                   "%s: %lld bytes remain for %d right-hand sides of %lld values (16 bytes each)",
                   p, (long long)left, h.n_rhs, (long long)n);
    goto done;
  }
  EM_TRY_GOTO(err, em_calloc(&b, (size_t)(n * h.n_rhs), sizeof *b, "right-hand sides"), done);
  EM_TRY_GOTO(err, mf_read(s, b, (size_t)left, "right-hand sides"), done);
  uint64_t computed = s->h, stored = 0;
  EM_TRY_GOTO(err, mf_read(s, &stored, 8, "the checksum"), done);
  if (stored != computed) {
    err = EM_RAISE(EM_ERR_IO,
                   "%s: checksum mismatch (stored %016llx, computed %016llx): corrupt file", p,
                   (unsigned long long)stored, (unsigned long long)computed);
    goto done;
  }
  EM_TRY_GOTO(err, mf_check_blocks(p, B, n * h.n_rhs, b), done);
  *Bout = B;
  B = NULL;
  if (n_rhs_out) *n_rhs_out = h.n_rhs;
  if (bout && n * h.n_rhs > 0) {
    *bout = b;
    b = NULL;
  }
done:
  em_blockmat_destroy(&B);
  em_free(&b);
  return err;
}

/* Open, measure the file, read it all or nothing. */
em_err em_matfile_read(const char *path, em_blockmat **B, int *n_rhs, em_cplx **b) {
  EM_CHECK(path && B, EM_ERR_ARG, "em_matfile_read: NULL path or output");
  *B = NULL;
  if (n_rhs) *n_rhs = 0;
  if (b) *b = NULL;
  EM_CHECK(MF_LITTLE_ENDIAN, EM_ERR_UNSUPPORTED,
           "em_matfile_read %s: matrix files are little-endian; this host is not", path);
  FILE *f = fopen(path, "rb");
  EM_CHECK(f, EM_ERR_IO, "cannot open matrix file %s: %s", path, strerror(errno));
  mf_stream s = {f, path, MF_FNV_OFFSET, {0}, 0, 0, 0};
  em_err err = EM_OK;
  if (fseeko(f, 0, SEEK_END) != 0 || (s.size = ftello(f)) < 0 || fseeko(f, 0, SEEK_SET) != 0)
    err = EM_RAISE(EM_ERR_IO, "%s: cannot find the file's length: %s", path, strerror(errno));
  else
    err = mf_read_all(&s, B, n_rhs, b);
  fclose(f);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
