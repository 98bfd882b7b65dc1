/* spmv_bench_out.c - the benchmark's results as a table on stdout and as
 * spmv.json / spmv.md in the output directory (written whole or not at all,
 * through em_outfile). */
#include <math.h>
#include <string.h>

#include "spmv_bench.h"

static const char *prec_name(em_prec p) {
  return p == EM_PREC_DOUBLE ? "double" : "single";
}

static double copy_bw(const bench_ctx *c) {
  return c->copy_memcpy > c->copy_kernel ? c->copy_memcpy : c->copy_kernel;
}

/* Row statistics of the matrix: mean, max and standard deviation. */
static void row_stats(const em_csr *A, double *mean, int64_t *max, double *sd) {
  *mean = A->n_rows ? (double)A->nnz / A->n_rows : 0;
  *max = 0;
  double v = 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    int64_t l = A->rowptr[i + 1] - A->rowptr[i];
    if (l > *max) *max = l;
    v += (l - *mean) * (l - *mean);
  }
  *sd = A->n_rows ? sqrt(v / A->n_rows) : 0;
}

/* The best GPU time of a precision that passed its check (0: none). */
static double best_gpu(const bench_out *out, em_prec p, const char **name) {
  double best = 0;
  for (int i = 0; i < out->n; i++) {
    const bench_row *r = &out->row[i];
    if (r->prec != p || strcmp(r->status, "ok") || !strncmp(r->name, "cpu", 3)) continue;
    if (best == 0 || r->ms < best) {
      best = r->ms;
      *name = r->name;
    }
  }
  return best;
}

static double cpu_time(const bench_out *out, em_prec p) {
  for (int i = 0; i < out->n; i++)
    if (out->row[i].prec == p && !strncmp(out->row[i].name, "cpu", 3) &&
        !strcmp(out->row[i].status, "ok"))
      return out->row[i].ms;
  return 0;
}

/* "<prec>: best GPU variant ..., Nx CSR on T CPU threads", per precision. */
static void ratio_lines(FILE *f, const bench_ctx *c, const bench_out *out) {
  for (int pi = 0; pi < c->n_prec; pi++) {
    const char *name = "";
    double g = best_gpu(out, c->precs[pi], &name), cpu = cpu_time(out, c->precs[pi]);
    if (g > 0 && cpu > 0)
      fprintf(f, "%s: best GPU variant %s, %.1fx CSR on %d CPU threads\n", prec_name(c->precs[pi]),
              name, cpu / g, c->cpu_threads);
  }
}

/* cuSPARSE CSR's time in precision p (0: none): the x cuSPARSE column is
 * its time over a variant's (> 1: the variant is faster). */
static double cusparse_ms(const bench_out *out, em_prec p) {
  for (int i = 0; i < out->n; i++)
    if (out->row[i].prec == p && !strcmp(out->row[i].name, "cusparse csr") &&
        !strcmp(out->row[i].status, "ok"))
      return out->row[i].ms;
  return 0;
}

static double vs_cusparse(const bench_out *out, const bench_row *r) {
  double cs = cusparse_ms(out, r->prec);
  return cs > 0 && r->ms > 0 && !strcmp(r->status, "ok") ? cs / r->ms : 0;
}

void bench_print(const bench_ctx *c, const bench_out *out) {
  double mean, sd;
  int64_t max;
  row_stats(c->A, &mean, &max, &sd);
  printf("\nmatrix %s: %d rows, %lld entries, row length mean %.1f max %lld sd %.1f\n", c->source,
         c->A->n_rows, (long long)c->A->nnz, mean, (long long)max, sd);
  if (c->device[0])
    printf("GPU %s: copy bandwidth (read + write) %.0f GB/s cudaMemcpy, %.0f GB/s kernel\n",
           c->device, c->copy_memcpy, c->copy_kernel);
  printf("%-30s %-6s %-11s %9s %8s %7s %7s %8s %9s  %s\n", "variant", "prec", "status", "ms",
         "GB/s", "%copy", "x cusp", "mem/CSR", "max err", "note");
  for (int i = 0; i < out->n; i++) {
    const bench_row *r = &out->row[i];
    printf("%-30s %-6s %-11s %9.4f %8.1f %6.1f%% %7.3f %8.3f %9.2e  %s\n", r->name,
           prec_name(r->prec), r->status, r->ms, r->gbs, 100 * r->frac_copy, vs_cusparse(out, r),
           r->mem_rel, r->max_err, r->note);
  }
  ratio_lines(stdout, c, out);
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if ((unsigned char)*s < 0x20)
      fputc(' ', f);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

/* JSON numbers cannot be inf or nan: those become null. */
static void json_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.6g", v);
  else
    fputs("null", f);
}

static em_err write_json(const bench_ctx *c, const bench_out *out, const char *path) {
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  FILE *f = o.f;
  double mean, sd;
  int64_t max;
  row_stats(c->A, &mean, &max, &sd);
  fprintf(f, "{\n  \"matrix\": ");
  json_str(f, c->source);
  fprintf(f, ",\n  \"rows\": %d,\n  \"nnz\": %lld,\n  \"row_mean\": %.3f,\n", c->A->n_rows,
          (long long)c->A->nnz, mean);
  fprintf(f, "  \"row_max\": %lld,\n  \"row_sd\": %.3f,\n  \"device\": ", (long long)max, sd);
  json_str(f, c->device);
  fprintf(f, ",\n  \"copy_gbs_memcpy\": ");
  json_num(f, c->copy_memcpy);
  fprintf(f, ",\n  \"copy_gbs_kernel\": ");
  json_num(f, c->copy_kernel);
  fprintf(f, ",\n  \"copy_gbs\": ");
  json_num(f, copy_bw(c));
  fprintf(f, ",\n  \"cpu_threads\": %d,\n  \"reps\": %d,\n  \"results\": [\n", c->cpu_threads,
          c->reps);
  for (int i = 0; i < out->n; i++) {
    const bench_row *r = &out->row[i];
    fprintf(f, "    {\"variant\": ");
    json_str(f, r->name);
    fprintf(f, ", \"prec\": \"%s\", \"status\": \"%s\", \"ms\": ", prec_name(r->prec), r->status);
    json_num(f, r->ms);
    fprintf(f, ", \"gbs\": ");
    json_num(f, r->gbs);
    fprintf(f, ", \"frac_copy\": ");
    json_num(f, r->frac_copy);
    fprintf(f, ", \"x_cusparse\": ");
    json_num(f, vs_cusparse(out, r));
    fprintf(f, ", \"mem_rel_csr\": ");
    json_num(f, r->mem_rel);
    fprintf(f, ", \"max_err\": ");
    json_num(f, r->max_err);
    fprintf(f, ", \"stored\": %lld, \"note\": ", (long long)r->stored);
    json_str(f, r->note);
    fprintf(f, "}%s\n", i + 1 < out->n ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  EM_TRY(em_outfile_commit(&o));
  return EM_OK;
}

static em_err write_md(const bench_ctx *c, const bench_out *out, const char *path) {
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  FILE *f = o.f;
  double mean, sd;
  int64_t max;
  row_stats(c->A, &mean, &max, &sd);
  fprintf(f,
          "# SpMV benchmark\n\nMatrix: %s, %d rows, %lld entries (row length mean %.1f, "
          "max %lld, sd %.1f).\n\n",
          c->source, c->A->n_rows, (long long)c->A->nnz, mean, (long long)max, sd);
  if (c->device[0])
    fprintf(f,
            "GPU: %s; copy bandwidth (read + write): %.0f GB/s cudaMemcpy, %.0f GB/s copy "
            "kernel; %%copy uses the larger.\n\n",
            c->device, c->copy_memcpy, c->copy_kernel);
  fprintf(f,
          "GB/s counts the minimal bytes (values + column indices + row pointers + x + y, "
          "each once); median of %d runs.\n\n",
          c->reps);
  fprintf(f,
          "| variant | prec | status | ms | GB/s | %% copy | x cuSPARSE | mem / CSR | max err | "
          "note |\n");
  fprintf(f, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
  for (int i = 0; i < out->n; i++) {
    const bench_row *r = &out->row[i];
    fprintf(f, "| %s | %s | %s | %.4f | %.1f | %.1f | %.3f | %.3f | %.2e | %s |\n", r->name,
            prec_name(r->prec), r->status, r->ms, r->gbs, 100 * r->frac_copy, vs_cusparse(out, r),
            r->mem_rel, r->max_err, r->note);
  }
  fputc('\n', f);
  ratio_lines(f, c, out);
  EM_TRY(em_outfile_commit(&o));
  return EM_OK;
}

em_err bench_write(const bench_ctx *c, const bench_out *out, const char *dir) {
  char path[4096];
  EM_TRY(em_mkdir_p(dir));
  snprintf(path, sizeof path, "%s/spmv.json", dir);
  EM_TRY(write_json(c, out, path));
  snprintf(path, sizeof path, "%s/spmv.md", dir);
  EM_TRY(write_md(c, out, path));
  return EM_OK;
}
