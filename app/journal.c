/* journal.c - the journal of a sweep: what each finished frequency
 * produced, exactly (the bytes of the doubles, in hex), so that a resumed
 * run writes the same final files as one that was never stopped.
 *
 *   emsolve journal 2
 *   key <16 hex digits>
 *   case <path>
 *   layout <n_freq> <n_port> <record bytes>
 *   freq <index> <f Hz> <record in hex> <checksum: 16 hex digits>
 *   ...
 *
 * A record: S row block [np*np], Zin [np], Zref [np], the frequency's
 * result (converged, solves, times, Krylov statistics), the antenna figures
 * (far field with ports) or the two RCS values (plane wave).  Its checksum
 * is the FNV-1a hash of the index, the frequency's bytes and the record's:
 * a record changed on disk (one digit) is refused, not resumed from.
 *
 * An unfinished run's journal is in the partial folder (app/outdir.c); a
 * complete result's beside its files, where a --resume of the same
 * command finds every frequency done and leaves the result alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_sweep.h"

#define JOURNAL_MAGIC "emsolve journal 2"

/* h = (h ^ byte) * 0x100000001b3 over the bytes (FNV-1a, 64 bit) */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

/* The checksum of frequency i's record (index, frequency, bytes). */
static uint64_t record_sum(int i, double f, const void *b, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = fnv(h, &i, sizeof i);
  h = fnv(h, &f, sizeof f);
  return fnv(h, b, n);
}

/* The bytes of file `path` (what: "case", "mesh") into the hash *h. */
static em_err hash_file(const char *path, const char *what, uint64_t *h) {
  FILE *f = fopen(path, "rb");
  EM_CHECK(f, EM_ERR_IO, "cannot read %s file %s for the journal key", what, path);
  char buf[8192];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) *h = fnv(*h, buf, n);
  fclose(f);
  return EM_OK;
}

em_err em_journal_key(const em_run *r, uint64_t *key) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = fnv(h, EM_VERSION, strlen(EM_VERSION));
  /* the records are raw structs: another build may lay them out otherwise */
  size_t sz[3] = {sizeof(em_freq_result), sizeof(em_ksp_stats), sizeof(em_antenna)};
  h = fnv(h, sz, sizeof sz);
  EM_TRY(hash_file(em_case_path(r->m.cs), "case", &h));
  /* a loaded mesh (Mesh/file) is part of the model: another file of the
     same name is another run */
  if (r->m.cfg.mesh_file) EM_TRY(hash_file(r->m.cfg.mesh_file, "mesh", &h));
  for (int i = 0; i < em_case_param_count(r->m.cs); i++) {
    const em_param *p = em_case_param_at(r->m.cs, i);
    char v[64];
    h = fnv(h, p->name, strlen(p->name) + 1);
    if (p->is_string) {
      const char *s = p->string ? p->string : "";
      h = fnv(h, s, strlen(s) + 1);
    } else {
      snprintf(v, sizeof v, "%.17g", p->number);
      h = fnv(h, v, strlen(v) + 1);
    }
  }
  *key = h;
  return EM_OK;
}

typedef struct {
  unsigned char *b;
  size_t n, cap;
} rec;

static void put(rec *q, const void *p, size_t n) {
  if (q->b) memcpy(q->b + q->n, p, n);
  q->n += n;
}

static void get(rec *q, void *p, size_t n) {
  memcpy(p, q->b + q->n, n);
  q->n += n;
}

/* One frequency's record; with q->b NULL only its size is counted. */
static void pack(const em_run *r, int i, rec *q) {
  int np = r->m.setup.n_port;
  const em_freq_result *fr = &r->res.fr[i];
  if (np) {
    put(q, r->res.S + (size_t)i * np * np, sizeof *r->res.S * np * np);
    put(q, r->res.zin + (size_t)i * np, sizeof *r->res.zin * np);
    /* this frequency's references */
    put(q, r->res.zport + (size_t)i * np, sizeof *r->res.zport * np);
  }
  put(q, &fr->converged, sizeof fr->converged);
  put(q, &fr->n_solve, sizeof fr->n_solve);
  double t[5] = {fr->t_assembly, fr->t_operator, fr->t_pc, fr->t_solve, fr->t_post};
  put(q, t, sizeof t);
  put(q, fr->ksp, sizeof fr->ksp);
  if (r->m.setup.n_surface) { /* the surface boundaries' losses */
    put(q, &fr->p_metal, sizeof fr->p_metal);
    put(q, &fr->p_lumped, sizeof fr->p_lumped);
  }
  if (r->m.ff.enabled && !r->m.ff.planewave) put(q, &r->res.ant[i], sizeof r->res.ant[i]);
  if (r->m.ff.enabled && r->m.ff.planewave) {
    put(q, &r->res.rcs_back[i], sizeof(double));
    put(q, &r->res.rcs_fwd[i], sizeof(double));
  }
  if (r->m.ff.planewave && np) { /* a plane wave's port loads */
    put(q, r->res.rx + (size_t)i * np, sizeof *r->res.rx * np);
    put(q, r->res.rx_power + (size_t)i * np, sizeof *r->res.rx_power * np);
  }
}

static void unpack(em_run *r, int i, rec *q) {
  int np = r->m.setup.n_port;
  em_freq_result *fr = &r->res.fr[i];
  if (np) {
    get(q, r->res.S + (size_t)i * np * np, sizeof *r->res.S * np * np);
    get(q, r->res.zin + (size_t)i * np, sizeof *r->res.zin * np);
    get(q, r->res.zport + (size_t)i * np, sizeof *r->res.zport * np);
    memcpy(r->res.zref, r->res.zport + (size_t)i * np, sizeof *r->res.zref * np);
  }
  get(q, &fr->converged, sizeof fr->converged);
  get(q, &fr->n_solve, sizeof fr->n_solve);
  double t[5];
  get(q, t, sizeof t);
  fr->t_assembly = t[0], fr->t_operator = t[1], fr->t_pc = t[2], fr->t_solve = t[3];
  fr->t_post = t[4];
  get(q, fr->ksp, sizeof fr->ksp);
  if (r->m.setup.n_surface) {
    get(q, &fr->p_metal, sizeof fr->p_metal);
    get(q, &fr->p_lumped, sizeof fr->p_lumped);
  }
  if (r->m.ff.enabled && !r->m.ff.planewave) get(q, &r->res.ant[i], sizeof r->res.ant[i]);
  if (r->m.ff.enabled && r->m.ff.planewave) {
    get(q, &r->res.rcs_back[i], sizeof(double));
    get(q, &r->res.rcs_fwd[i], sizeof(double));
  }
  if (r->m.ff.planewave && np) {
    get(q, r->res.rx + (size_t)i * np, sizeof *r->res.rx * np);
    get(q, r->res.rx_power + (size_t)i * np, sizeof *r->res.rx_power * np);
  }
  fr->f = r->m.cfg.freq[i];
  fr->k0 = 2 * M_PI * fr->f / EM_C0;
  fr->resumed = 1;
}

size_t em_journal_record(const em_run *r, int fi, unsigned char *buf) {
  rec q = {buf, 0, 0};
  pack(r, fi, &q);
  return q.n;
}

void em_journal_record_load(em_run *r, int fi, const unsigned char *buf) {
  rec q = {(unsigned char *)buf, 0, 0};
  unpack(r, fi, &q);
}

static size_t rec_size(const em_run *r) {
  rec q = {0};
  pack(r, 0, &q);
  return q.n;
}

static em_err journal_path(const em_run *r, char *buf, size_t n) {
  return em_outdir_path(&r->out, EM_JOURNAL_NAME, buf, n);
}

em_err em_journal_write(const em_run *r, const uint8_t *done) {
  char path[1200];
  EM_TRY(journal_path(r, path, sizeof path));
  size_t sz = rec_size(r);
  rec q = {0};
  EM_TRY(em_calloc(&q.b, sz, 1, "journal record"));
  em_outfile o;
  em_err err = em_outfile_open(&o, path, 0);
  if (err) {
    em_free(&q.b);
    return err;
  }
  fprintf(o.f, "%s\nkey %016llx\ncase %s\nlayout %d %d %zu\n", JOURNAL_MAGIC,
          (unsigned long long)r->journal_key, em_case_path(r->m.cs), r->m.cfg.n_freq,
          r->m.setup.n_port, sz);
  for (int i = 0; i < r->m.cfg.n_freq; i++) {
    if (!done[i]) continue;
    q.n = 0;
    pack(r, i, &q);
    fprintf(o.f, "freq %d %.17g ", i, r->m.cfg.freq[i]);
    for (size_t k = 0; k < q.n; k++) fprintf(o.f, "%02x", q.b[k]);
    fprintf(o.f, " %016llx\n", (unsigned long long)record_sum(i, r->m.cfg.freq[i], q.b, q.n));
  }
  em_free(&q.b);
  return em_outfile_commit(&o);
}

static int hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The header lines against this run; a mismatch names what differs. */
static em_err check_header(const em_run *r, FILE *f, const char *path, size_t sz) {
  char line[2048];
  unsigned long long key = 0;
  int nf = -1, np = -1;
  size_t rs = 0;
  EM_CHECK(fgets(line, sizeof line, f), EM_ERR_INPUT, "journal %s is empty", path);
  EM_CHECK(strncmp(line, "emsolve journal 1", 17), EM_ERR_INPUT,
           "journal %s was written by an older emsolve (no checksums): --resume cannot go on "
           "from it; run without --resume, or choose another --out",
           path);
  EM_CHECK(!strncmp(line, JOURNAL_MAGIC, strlen(JOURNAL_MAGIC)), EM_ERR_INPUT,
           "%s is not an emsolve journal (remove it, or choose another --out)", path);
  EM_CHECK(fgets(line, sizeof line, f) && sscanf(line, "key %llx", &key) == 1, EM_ERR_INPUT,
           "journal %s: no key line", path);
  EM_CHECK(fgets(line, sizeof line, f), EM_ERR_INPUT, "journal %s: no case line", path);
  line[strcspn(line, "\n")] = '\0';
  EM_CHECK(key == r->journal_key, EM_ERR_INPUT,
           "journal %s was written by a run of %s with another case file or parameter set "
           "(key %016llx, this run %016llx): --resume continues the same command only; remove "
           "the journal or choose another --out",
           path, line + 5, key, (unsigned long long)r->journal_key);
  EM_CHECK(fgets(line, sizeof line, f) && sscanf(line, "layout %d %d %zu", &nf, &np, &rs) == 3,
           EM_ERR_INPUT, "journal %s: no layout line", path);
  EM_CHECK(nf == r->m.cfg.n_freq && np == r->m.setup.n_port && rs == sz, EM_ERR_INPUT,
           "journal %s: %d frequencies, %d ports, %zu-byte records; this run has %d, %d, %zu", path,
           nf, np, rs, r->m.cfg.n_freq, r->m.setup.n_port, sz);
  return EM_OK;
}

/* "freq <i> <f> <hex>": the record into r; a torn or foreign line is an
 * error (the journal is renamed whole, so none is expected). */
static em_err read_record(em_run *r, const char *line, const char *path, rec *q, int *fi) {
  int i, off = 0;
  double fhz;
  EM_CHECK(sscanf(line, "freq %d %lg %n", &i, &fhz, &off) == 2 && off > 0, EM_ERR_INPUT,
           "journal %s: a malformed line", path);
  EM_CHECK(i >= 0 && i < r->m.cfg.n_freq && fhz == r->m.cfg.freq[i], EM_ERR_INPUT,
           "journal %s: frequency %d (%.17g Hz) is not this run's", path, i, fhz);
  const char *h = line + off;
  for (size_t k = 0; k < q->cap; k++) {
    int a = hexval(h[2 * k]), b = a < 0 ? -1 : hexval(h[2 * k + 1]);
    EM_CHECK(a >= 0 && b >= 0, EM_ERR_INPUT, "journal %s: frequency %d has a torn record", path, i);
    q->b[k] = (unsigned char)(16 * a + b);
  }
  unsigned long long sum = 0;
  int n_sum = 0;
  EM_CHECK(sscanf(h + 2 * q->cap, " %llx%n", &sum, &n_sum) == 1 && n_sum == 17, EM_ERR_INPUT,
           "journal %s: frequency %d has a torn record (no checksum)", path, i);
  EM_CHECK(sum == record_sum(i, fhz, q->b, q->cap), EM_ERR_INPUT,
           "journal %s: the record of frequency %d (%.9g GHz) does not match its checksum: the "
           "file was changed or damaged; --resume cannot trust it (run without --resume, or "
           "choose another --out)",
           path, i, fhz * 1e-9);
  q->n = 0;
  unpack(r, i, q);
  em_post_flag(&r->res, r->log, i); /* the flags of the row, as when it was solved */
  *fi = i;
  return EM_OK;
}

em_err em_journal_read(em_run *r, uint8_t *done, int *n_done, int *complete) {
  char path[1200];
  *n_done = 0;
  *complete = 0;
  /* an unfinished run's (partial folder, r->stage 2), else the complete
     result's beside its files */
  if (r->stage == 2) {
    EM_TRY(journal_path(r, path, sizeof path));
  } else {
    int k = snprintf(path, sizeof path, "%s/%s", r->final_dir, EM_JOURNAL_NAME);
    EM_CHECK(k > 0 && (size_t)k < sizeof path, EM_ERR_INPUT, "output path %s is too long",
             r->final_dir);
  }
  FILE *f = fopen(path, "r");
  if (!f) return EM_OK;
  *complete = r->stage != 2;
  size_t sz = rec_size(r), cap = 2 * sz + 128;
  rec q = {0};
  char *line = NULL;
  em_err err = check_header(r, f, path, sz);
  if (!err) err = em_calloc(&q.b, sz ? sz : 1, 1, "journal record");
  if (!err) err = em_calloc(&line, cap, 1, "journal line");
  q.cap = sz;
  while (!err && fgets(line, (int)cap, f)) {
    int i = -1;
    err = read_record(r, line, path, &q, &i);
    if (!err && !done[i]) done[i] = 1, (*n_done)++;
  }
  fclose(f);
  em_free(&q.b);
  em_free(&line);
  return err;
}

/* ------------------------------------------------ adaptive sweep samples
 *
 * <out>/sweep.sample<k>.bin: "emsolve sample 2\n", the key, k, f, n_u, n_y,
 * the solve's record, u [n_u], y [n_y] (raw bytes, this build's), then the
 * FNV-1a hash of everything before it (a damaged file is refused). */

#define SAMPLE_MAGIC "emsolve sample 2\n"

static em_err sample_path(const em_run *r, int k, char *buf, size_t n) {
  char name[64];
  snprintf(name, sizeof name, "sweep.sample%d.bin", k);
  return em_outdir_path(&r->out, name, buf, n);
}

typedef struct {
  uint64_t key;
  int32_t k;
  double f;
  int64_t n_u, n_y;
  int converged, n_solve;
  double t[4];
} sample_head;

em_err em_journal_sample_save(const em_run *r, int k, const em_cplx *u, int64_t n_u,
                              const em_cplx *y, int64_t n_y) {
  char path[1200];
  EM_TRY(sample_path(r, k, path, sizeof path));
  const em_freq_result *fr = &r->res.sample[k];
  sample_head h = {r->journal_key,
                   k,
                   fr->f,
                   n_u,
                   n_y,
                   fr->converged,
                   fr->n_solve,
                   {fr->t_assembly, fr->t_operator, fr->t_pc, fr->t_solve}};
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 1));
  uint64_t sum = 0xcbf29ce484222325ULL;
  sum = fnv(sum, SAMPLE_MAGIC, strlen(SAMPLE_MAGIC));
  sum = fnv(sum, &h, sizeof h);
  sum = fnv(sum, fr->ksp, sizeof fr->ksp);
  sum = fnv(sum, u, sizeof *u * (size_t)n_u);
  sum = fnv(sum, y, sizeof *y * (size_t)n_y);
  fwrite(SAMPLE_MAGIC, 1, strlen(SAMPLE_MAGIC), o.f);
  fwrite(&h, sizeof h, 1, o.f);
  fwrite(fr->ksp, sizeof fr->ksp, 1, o.f);
  fwrite(u, sizeof *u, (size_t)n_u, o.f);
  fwrite(y, sizeof *y, (size_t)n_y, o.f);
  fwrite(&sum, sizeof sum, 1, o.f);
  return em_outfile_commit(&o);
}

em_err em_journal_sample_load(em_run *r, int k, double f, em_cplx *u, int64_t n_u, em_cplx *y,
                              int64_t n_y, int *found) {
  char path[1200], magic[sizeof SAMPLE_MAGIC];
  EM_TRY(sample_path(r, k, path, sizeof path));
  *found = 0;
  FILE *fp = fopen(path, "rb");
  if (!fp) return EM_OK;
  sample_head h;
  em_freq_result *fr = &r->res.sample[k];
  size_t ml = strlen(SAMPLE_MAGIC);
  int ok = fread(magic, 1, ml, fp) == ml && !memcmp(magic, SAMPLE_MAGIC, ml) &&
           fread(&h, sizeof h, 1, fp) == 1;
  em_err err = EM_OK;
  if (!ok)
    err = EM_RAISE(EM_ERR_INPUT, "%s is not an emsolve sample (remove it)", path);
  else if (h.key != r->journal_key)
    err = EM_RAISE(EM_ERR_INPUT,
                   "sample %s was written by a run with another case file or parameter set (key "
                   "%016llx, this run %016llx): --resume continues the same command only; remove "
                   "it or choose another --out",
                   path, (unsigned long long)h.key, (unsigned long long)r->journal_key);
  else if (h.k != k || h.f != f || h.n_u != n_u || h.n_y != n_y)
    err = EM_RAISE(EM_ERR_INPUT,
                   "sample %s: solve %d at %.17g Hz (%lld unknowns), where this run asks solve %d "
                   "at %.17g Hz (%lld)",
                   path, h.k, h.f, (long long)h.n_u, k, f, (long long)n_u);
  else if (fread(fr->ksp, sizeof fr->ksp, 1, fp) != 1 ||
           fread(u, sizeof *u, (size_t)n_u, fp) != (size_t)n_u ||
           fread(y, sizeof *y, (size_t)n_y, fp) != (size_t)n_y)
    err = EM_RAISE(EM_ERR_INPUT, "sample %s is truncated", path);
  if (!err) {
    uint64_t sum = 0xcbf29ce484222325ULL, stored = 0;
    sum = fnv(sum, SAMPLE_MAGIC, ml);
    sum = fnv(sum, &h, sizeof h);
    sum = fnv(sum, fr->ksp, sizeof fr->ksp);
    sum = fnv(sum, u, sizeof *u * (size_t)n_u);
    sum = fnv(sum, y, sizeof *y * (size_t)n_y);
    if (fread(&stored, sizeof stored, 1, fp) != 1 || stored != sum)
      err = EM_RAISE(EM_ERR_INPUT,
                     "sample %s does not match its checksum: the file was changed or damaged; "
                     "remove it (the solve is redone) or run without --resume",
                     path);
  }
  fclose(fp);
  if (err) return err;
  fr->f = f;
  fr->k0 = 2 * M_PI * f / EM_C0;
  fr->converged = h.converged;
  fr->n_solve = h.n_solve;
  fr->t_assembly = h.t[0], fr->t_operator = h.t[1], fr->t_pc = h.t[2], fr->t_solve = h.t[3];
  fr->resumed = 1;
  *found = 1;
  return EM_OK;
}

void em_journal_samples_remove(const em_run *r) {
  char path[1200];
  for (int k = 0; k < r->res.n_samples; k++)
    if (!sample_path(r, k, path, sizeof path)) remove(path);
}
