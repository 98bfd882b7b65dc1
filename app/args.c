/* args.c - the command line: options, -setnumber / -setstring, the case. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_impl.h"

void em_app_usage(FILE *f) {
  fprintf(f,
          "usage: emsolve [options] CASE.geo|CASE.msh\n"
          "       emsolve --plot OUTDIR\n"
          "\n"
          "Solves the time-harmonic Maxwell equation on the case with hierarchical\n"
          "Nedelec elements (orders 1-3) and writes to out/<case>/: <case>.sNp\n"
          "(Touchstone), ports.csv, summary.json, fields_<f>GHz.vtk, and with a PML\n"
          "the far field: antenna.csv, farfield_<f>GHz.csv, pattern_<f>GHz.csv/.vtk\n"
          "(docs/outputs.md).  Results on stdout, progress on stderr.\n"
          "\n"
          "options:\n"
          "  -setnumber NAME VALUE   override a number parameter (Gmsh's spelling)\n"
          "  -setstring NAME VALUE   override a string parameter\n"
          "  --list-params           list every parameter, its value, unit and source\n"
          "  --out DIR               output directory (default out/<case>)\n"
          "  --device auto|cpu|gpu   where to compute (auto: the GPU when one answers)\n"
          "  --dump-matrix FILE      write the assembled system (first frequency)\n"
          "  --save-mesh FILE.msh    write the mesh the run solves on (Gmsh MSH 4.1)\n"
          "  --load-mesh FILE.msh    solve on that mesh instead of meshing the case\n"
          "                          (= -setstring Mesh/file FILE.msh)\n"
          "  --resume                skip the frequencies a stopped run of the same command\n"
          "                          journaled (OUT/.emsolve.partial); with --sweep, the\n"
          "                          points already completed too\n"
          "  --force                 go on when the mesh estimate exceeds the memory, or a\n"
          "                          frequency lies far from the case's own band\n"
          "  --plot OUTDIR           plot an output directory (PNG and SVG in OUTDIR/plots)\n"
          "  --sweep NAME=LIST       design sweep over a parameter: LIST is a,b,c or\n"
          "                          start:step:stop; several make the Cartesian product;\n"
          "                          outputs in OUT/point_<k>/, OUT/sweep.csv and\n"
          "                          OUT/sweep_summary.csv (exit 4: points failed)\n"
          "                          (a DefineConstant with Loop and Min/Max/Step or\n"
          "                          Choices in the case declares one too);\n"
          "                          each point runs the adaptive frequency sweep unless\n"
          "                          Solver/sweep is set\n"
          "  --zip                   pair the --sweep lists instead (equal lengths)\n"
          "  --dry-run               per sweep point: mesh, unknowns, memory and time\n"
          "                          (meshes, solves nothing)\n"
          "  --jobs N                N sweep points at once on the host (with --device\n"
          "                          cpu, or auto when no GPU answers)\n"
          "  -q, --quiet             errors, warnings and results only (a design sweep:\n"
          "                          its summary, not every point's tables)\n"
          "  -v, --verbose           every stage's detail (Gmsh's messages too)\n"
          "  --version, -h, --help\n"
          "\n"
          "exit codes:\n"
          "  0    results written, every frequency converged\n"
          "  1    error (bad case or parameter, failed run): no new result left behind\n"
          "  2    bad command line\n"
          "  3    results written but flagged (not converged, or |S_pp| > 1)\n"
          "  130, 143  stopped by SIGINT / SIGTERM\n"
          "  a design sweep (--sweep): the number of failed points (at most 100)\n"
          "\n"
          "examples:\n"
          "  emsolve cases/dra.geo\n"
          "  emsolve cases/dra.geo -setnumber Solver/order 3 -setnumber Materials/dra/eps_r 10\n"
          "  emsolve --list-params cases/waveguide.geo\n"
          "  emsolve cases/dra.geo --sweep Geometry/dra_radius=7:0.5:8 "
          "--sweep Materials/dra/eps_r=10,12\n"
          "  emsolve --plot out/dra\n"
          "  mpirun -np 4 --bind-to none emsolve cases/dra.geo --sweep Materials/dra/eps_r=8:1:11\n"
          "    (MPI: the points, or one case's frequencies, over 4 ranks, one GPU each;\n"
          "    rank 0 writes the files of a serial run; docs/mpi.md)\n"
          "\n"
          "exit codes: 0 results written; 1 error (an earlier result in the output\n"
          "directory is left as it was); 2 bad command line; 3 results written but\n"
          "flagged (not converged, |S| > 1); 4 design sweep with failed points;\n"
          "130 / 143 stopped by SIGINT / SIGTERM (--resume goes on).\n");
}

static em_err push_override(em_app_args *a, const char *name, int is_string, double v,
                            const char *s) {
  EM_TRY(em_realloc(&a->over, (size_t)a->n_over + 1, sizeof *a->over, "overrides"));
  a->over[a->n_over++] = (em_param_override){name, is_string, v, s};
  return EM_OK;
}

static em_err parse_number(const char *opt, const char *name, const char *text, double *v) {
  char *end = NULL;
  errno = 0;
  *v = strtod(text, &end);
  EM_CHECK(end != text && *end == '\0' && errno == 0, EM_ERR_INPUT, "%s %s: '%s' is not a number",
           opt, name, text);
  return EM_OK;
}

em_err em_app_parse_args(int argc, char **argv, em_app_args *a, int *want_help, int *want_version) {
  memset(a, 0, sizeof *a);
  a->argc = argc;
  a->argv = argv;
  a->device = "auto";
  a->log_level = EM_LOG_INFO;
  *want_help = *want_version = 0;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
      *want_help = 1;
    } else if (!strcmp(s, "--version")) {
      *want_version = 1;
    } else if (!strcmp(s, "-setnumber") || !strcmp(s, "-setstring")) {
      EM_CHECK(i + 2 < argc, EM_ERR_INPUT, "%s needs a NAME and a VALUE", s);
      if (s[4] == 'n') {
        double v;
        EM_TRY(parse_number(s, argv[i + 1], argv[i + 2], &v));
        EM_TRY(push_override(a, argv[i + 1], 0, v, NULL));
      } else {
        EM_TRY(push_override(a, argv[i + 1], 1, 0, argv[i + 2]));
      }
      i += 2;
    } else if (!strcmp(s, "--force")) {
      a->force = 1;
    } else if (!strcmp(s, "--sweep")) {
      EM_CHECK(i + 1 < argc, EM_ERR_INPUT, "--sweep needs NAME=a,b,c or NAME=start:step:stop");
      EM_TRY(
          em_realloc(&a->psweep.specs, (size_t)a->psweep.n + 1, sizeof *a->psweep.specs, "sweeps"));
      a->psweep.specs[a->psweep.n++] = argv[++i];
    } else if (!strcmp(s, "--jobs") || !strcmp(s, "--sweep-worker")) {
      EM_CHECK(i + 1 < argc, EM_ERR_INPUT, "%s needs a value", s);
      const char *v = argv[++i];
      char *end = NULL;
      long n = strtol(v, &end, 10);
      if (s[2] == 'j') {
        EM_CHECK(end != v && *end == '\0' && n >= 1 && n <= 64, EM_ERR_INPUT,
                 "--jobs %s: give a number of processes, 1 to 64", v);
        a->psweep.jobs = (int)n;
      } else { /* --sweep-worker w/J: internal, from --jobs */
        long m = end && *end == '/' ? strtol(end + 1, NULL, 10) : 0;
        EM_CHECK(m >= 1 && m <= 64 && n >= 0 && n < m, EM_ERR_INPUT, "--sweep-worker %s", v);
        a->psweep.worker = (int)n;
        a->psweep.worker_n = (int)m;
      }
    } else if (!strcmp(s, "--zip") || !strcmp(s, "--dry-run")) {
      *(s[2] == 'z' ? &a->psweep.zip : &a->psweep.dry_run) = 1;
    } else if (!strcmp(s, "--list-params")) {
      a->list_params = 1;
    } else if (!strcmp(s, "--resume")) { /* the frequency journal and the design sweep's points */
      a->resume = 1;
      a->psweep.resume = 1;
    } else if (!strcmp(s, "--quiet") || !strcmp(s, "-q")) {
      a->log_level = EM_LOG_QUIET;
    } else if (!strcmp(s, "--verbose") || !strcmp(s, "-v")) {
      a->log_level = EM_LOG_VERBOSE;
    } else if (!strcmp(s, "--out") || !strcmp(s, "--device") || !strcmp(s, "--dump-matrix") ||
               !strcmp(s, "--plot") || !strcmp(s, "--save-mesh") || !strcmp(s, "--load-mesh")) {
      EM_CHECK(i + 1 < argc, EM_ERR_INPUT, "%s needs a value", s);
      const char *v = argv[++i];
      if (!strcmp(s, "--out"))
        a->out_dir = v;
      else if (!strcmp(s, "--device"))
        a->device = v;
      else if (!strcmp(s, "--plot"))
        a->plot_dir = v;
      else if (!strcmp(s, "--save-mesh"))
        a->save_mesh = v;
      else if (!strcmp(s, "--load-mesh")) /* a parameter: the journal key and the summary see it */
        EM_TRY(push_override(a, "Mesh/file", 1, 0, v));
      else
        a->dump_matrix = v;
    } else if (s[0] == '-' && s[1] != '\0') {
      return EM_RAISE(EM_ERR_INPUT, "unknown option '%s' (see emsolve --help)", s);
    } else {
      EM_CHECK(!a->case_path, EM_ERR_INPUT, "more than one case given: '%s' and '%s'", a->case_path,
               s);
      a->case_path = s;
    }
  }
  EM_CHECK(!(a->plot_dir && a->case_path), EM_ERR_INPUT,
           "--plot %s plots an existing output directory: give no case with it (a run plots "
           "its own outputs with -setnumber Output/plots 1)",
           a->plot_dir);
  EM_CHECK(!(a->psweep.n && a->save_mesh), EM_ERR_INPUT,
           "--save-mesh %s with --sweep: every point of a design sweep has its own mesh (save "
           "one point's mesh with a single run)",
           a->save_mesh);
  EM_CHECK(a->case_path || a->plot_dir || *want_help || *want_version, EM_ERR_INPUT,
           "no case file given (usage: emsolve [options] CASE.geo)");
  return EM_OK;
}

void em_app_args_free(em_app_args *a) {
  em_free(&a->over);
  em_free(&a->psweep.specs);
}
