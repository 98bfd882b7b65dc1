/* run.c - the pipeline, stage after stage: case -> typed parameters
 * (model/config.c) -> mesh (or Mesh/file) -> the case physics
 * (model/case_setup.c) -> far field settings, DOF map, device (the problem
 * of the mesh, em_model) -> the sweep (app/sweep.c: per frequency through
 * the problem object, outputs by post/) -> tables, summary.json, stdout
 * (post/finish.c).  An eigen run branches after the setup (app/eigen.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "app_adapt.h"
#include "app_dist.h" /* MPI: the frequencies shared among ranks */
#include "app_sweep.h"

/* The mesh of the case, or Mesh/file's; --save-mesh writes it. */
static em_err mesh_or_load(em_run *r, em_mesh_opts *mo) {
  em_model *m = &r->m;
  if (m->cfg.mesh_file) /* a mesh saved by an earlier run (--save-mesh): the same model */
    EM_TRY(em_case_load_mesh(m->cs, m->cfg.mesh_file, mo, &r->detail, &m->mesh));
  else
    EM_TRY(em_app_mesh(r, mo)); /* a design sweep's point may reuse the last mesh */
  /* with Solver/adapt 1 the adapted mesh is saved (app/adapt.c) */
  if (r->args->save_mesh && !em_app_adapt_on(r) && !(r->dsolve && em_dist_rank(r->args->dist) > 0))
    EM_TRY(em_case_save_mesh(m->cs, r->args->save_mesh, r->log));
  em_mesh_stats_compute(m->mesh, &m->mstats);
  return EM_OK;
}

/* case -> em_mesh: meshed at the sizing frequency, or read from Mesh/file. */
static em_err make_mesh(em_run *r) {
  em_model *m = &r->m;
  const em_run_config *cfg = &m->cfg;
  const em_log *log = r->log;
  if (cfg->mesh_file)
    em_log_info(log, "mesh read from %s (Mesh/file), not meshed", cfg->mesh_file);
  else
    em_log_info(log, "mesh sized at %.6g GHz (%s), %g elements per wavelength",
                cfg->mesh_freq * 1e-9, cfg->mesh_freq_from, cfg->epw);
  if (!cfg->mesh_file && cfg->mesh_freq < cfg->freq[cfg->n_freq - 1])
    em_log_warn(log,
                "Mesh/frequency %.6g GHz is below the run's highest frequency %.6g GHz: %.3g "
                "elements per wavelength there",
                cfg->mesh_freq * 1e-9, cfg->freq[cfg->n_freq - 1] * 1e-9,
                cfg->epw * cfg->mesh_freq / cfg->freq[cfg->n_freq - 1]);
  em_mesh_opts mo = em_run_config_mesh_opts(cfg, m->cs);
  /* under MPI (more than one rank) auto meshes together: forked children
     would inherit the ranks' transports (registered memory, progress
     threads), which Open MPI does not promise to survive a fork */
  if (mo.apart == 0 && em_dist_size(r->args->dist) > 1) mo.apart = -1;
  double t0 = em_wtime();
  em_stage_begin(log, EM_STAGE_MESH);
  em_err err = mesh_or_load(r, &mo);
  int32_t unfolded = 0; /* curved tets whose map folds: their edges straightened */
  if (!err) err = em_curved_unfold(m->mesh, &unfolded);
  em_stage_end(log, EM_STAGE_MESH, NULL);
  EM_TRY(err);
  if (unfolded)
    em_log_warn(log,
                "Mesh/geometry_order 2: %d edges of curved tets that folded were straightened "
                "(the surface is faceted there)",
                unfolded);
  EM_TRY(em_app_check_signal());
  m->t_mesh = em_wtime() - t0;
  em_app_log_mesh(r);
  return EM_OK;
}

/* The rest of the driven problem before any output: the far field's
 * settings and surface, the checks against the mesh, the ports, the DOF
 * map, the device, the mesh's topology against the ports. */
static em_err make_problem(em_run *r) {
  em_model *m = &r->m;
  const em_run_config *cfg = &m->cfg;
  EM_TRY(em_ff_config_read(m->cs, cfg, m->mesh, &m->setup, &m->ff)); /* model/config_ff.c */
  if (m->periodic) { /* a periodic cell radiates Floquet modes, not a far field */
    EM_CHECK(!m->ff.enabled || m->ff.compute_auto, EM_ERR_INPUT,
             "Farfield/compute on: case %s is a periodic cell (Boundary/*/periodic): it has no "
             "far field of its own",
             em_case_path(m->cs));
    m->ff.enabled = 0;
  }
  EM_TRY(em_post_ff_check(m, r->log));
  EM_TRY(em_excite_setup(m, r->log)); /* Excitation/ports (model/excite.c) */
  EM_TRY(em_run_config_check_mesh(m->cs, cfg, m->mesh, &m->setup));
  EM_CHECK(m->setup.n_port > 0 || m->ff.planewave, EM_ERR_INPUT,
           "case %s has no port: nothing excites the structure (add a surface group 'port1' "
           "and Ports/port1/type, or set Excitation/type planewave)",
           em_case_path(m->cs));
  EM_CHECK(m->setup.n_port <= EM_MAX_PORTS, EM_ERR_INPUT, "%d ports: at most %d supported",
           m->setup.n_port, EM_MAX_PORTS);
  /* frequencies below a waveguide port's cut-off fail here, before any output */
  EM_TRY(em_setup_check_band(&m->setup, cfg->freq, cfg->n_freq));
  em_stage_begin(r->log, EM_STAGE_DOFMAP);
  EM_TRY(em_setup_dofmap(&m->setup, m->mesh, &m->dofs)); /* order per region */
  EM_TRY(em_app_orders_load(r));                         /* Mesh/orders of an adapted mesh */
  em_stage_end(r->log, EM_STAGE_DOFMAP, NULL);
  const em_dofmap *d = m->dofs;
  em_log_info(r->log, "order %d%s: %d unknowns (%d / %d / %d by order), %d fixed", d->order,
              d->uniform ? "" : " (highest; order per region)", d->n_dof,
              d->offset[1] - d->offset[0], d->order > 1 ? d->offset[2] - d->offset[1] : 0,
              d->order > 2 ? d->offset[3] - d->offset[2] : 0, d->n_fixed);
  /* a rank > 0 of a distributed solve has rank 0's mesh (hash-checked with
     every solve): rank 0 logs the regions' orders and checks the topology
     (a failure there stops every rank); the others skip both (0.3-0.4 s
     each at 5M unknowns, on the path of the ranks that start after rank 0) */
  int serving = r->dsolve && em_dist_rank(r->args->dist) > 0;
  if (!serving) EM_TRY(em_setup_log_orders(&m->setup, m->mesh, d, r->log));
  EM_CHECK(d->n_dof > 0, EM_ERR_INPUT, "case %s has no unknowns (everything is PEC?)",
           em_case_path(m->cs));
  EM_TRY(em_app_periodic_dofs(r)); /* app/periodic.c */
  em_app_device_join(r);           /* opened while the case meshed (app/devopen.c) */
  EM_TRY(em_device_open(r->args->device, r->log, &m->dev));
  if (serving) return EM_OK;
  em_betti topo; /* Betti numbers over Z2 in the log; ports checked against their shape */
  return em_post_topology_log(m->mesh, m->setup.port, m->setup.n_port, m->dev.backend, &r->detail,
                              &topo);
}

/* A distributed solve: each rank's host memory peak (rank 0's also goes
 * to summary.json), for the memory per rank. */
static void log_peak(const em_run *r) {
  struct rusage ru;
  if (!getrusage(RUSAGE_SELF, &ru))
    em_log_info(r->log, "distributed solve: this rank's host memory peak %.2f GiB",
                (double)ru.ru_maxrss / (1 << 20));
}

/* A rank > 0 of a distributed solve: rank 0's mesh (app/dist_mesh.c) and
 * the same problem, then its share of each of rank 0's solves
 * (model/dfsys.c); no output. */
static em_err serve(em_run *r) {
  em_model *m = &r->m;
  /* the device (a GPU's context: 0.3 s) opened while rank 0 meshes or
     reads the mesh, not after; make_problem's open then finds it ready */
  EM_TRY(em_device_open(r->args->device, NULL, &m->dev));
  EM_TRY(em_app_mesh_recv(r));
  em_setup_opts so = em_run_config_setup_opts(&m->cfg);
  EM_TRY(em_setup_build(m->cs, m->mesh, &so, &r->detail, &m->setup));
  EM_TRY(make_problem(r));
  EM_TRY(em_app_make_fsys(r));
  EM_TRY(em_fsys_serve(m->fsys, &r->detail));
  log_peak(r);
  return EM_OK;
}

static em_err run_case(em_run *r) {
  const em_app_args *a = r->args;
  em_model *m = &r->m;
  int n_spec;
  const em_param_spec *spec = em_params_specs(&n_spec); /* model/params.c */
  em_stage_begin(r->log, EM_STAGE_PARSE);
  EM_TRY(em_case_open(a->case_path, a->n_over, a->over, n_spec, spec, r->log, &m->cs));
  if (a->list_params) {
    em_params_list(m->cs, stdout);
    return EM_OK;
  }
  EM_TRY(em_run_config_read(m->cs, &m->cfg));
  /* a signal stops the Krylov iterations and the factorization (app/outdir.c's flag) */
  m->cfg.solve.ksp.cancel = m->cfg.solve.pc.cancel = em_app_cancel();
  EM_TRY(em_run_config_check(m->cs, &m->cfg)); /* before meshing: seconds, not the run */
  EM_TRY(em_app_validate_band(r));
  EM_TRY(em_app_adapt_check(r)); /* Adapt/ *, Mesh/orders: before meshing too */
  int idle = 0;
  em_sweep_dist_role(r, &idle); /* MPI: this rank's part (app/sweep_dist.c) */
  if (idle) return EM_OK;
  /* every rank refuses alike (the same arguments and case) */
  EM_CHECK(!(r->dsolve && a->dump_matrix), EM_ERR_INPUT,
           "--dump-matrix %s: a distributed solve (Solver/distributed, %d ranks) assembles each "
           "rank's rows only, never the whole matrix; dump it from a run on one rank or with "
           "Solver/distributed off",
           a->dump_matrix, em_dist_size(a->dist));
  if (r->dsolve && em_dist_rank(r->args->dist) > 0) return serve(r);
  EM_TRY(em_app_validate_size(r));
  /* created and locked: a second run is refused now (a peer: its scratch) */
  EM_TRY(r->peer ? em_sweep_dist_open(r) : em_app_outdir_open(r));
  em_stage_end(r->log, EM_STAGE_PARSE, NULL);
  em_app_device_early(r); /* the GPU's context while the case meshes */
  EM_TRY(make_mesh(r));
  if (r->dsolve) EM_TRY(em_app_mesh_send(r)); /* the serving ranks mesh not */
  EM_TRY(em_app_periodic_mesh(r));            /* app/periodic.c: Floquet pairs renumber the mesh */
  em_setup_opts so = em_run_config_setup_opts(&m->cfg);
  em_stage_begin(r->log, EM_STAGE_SETUP);
  EM_TRY(em_setup_build(m->cs, m->mesh, &so, &r->detail, &m->setup)); /* model/case_setup.c */
  if (m->cfg.eigen) { /* resonant modes: app/eigen.c */
    em_stage_end(r->log, EM_STAGE_SETUP, "case physics");
    EM_TRY(em_app_outdir_stage(r));
    em_app_device_join(r);
    EM_TRY(em_app_eigen(r));
    EM_TRY(em_app_outdir_commit(r));
    printf("# outputs in %s/ (modes.csv, mode_<i>.vtk)\n", r->out.dir);
    return EM_OK;
  }
  EM_TRY(make_problem(r));
  EM_TRY(em_results_alloc(&r->res, &m->cfg, m->setup.n_port));
  r->res.stages = &r->stages; /* summary.json's stage table */
  EM_TRY(em_app_check_signal());
  em_stage_end(r->log, EM_STAGE_SETUP, "case physics, device, topology");
  /* the outputs go to the partial folder (app/outdir.c); an MPI peer's to its scratch */
  if (!r->peer) EM_TRY(em_app_outdir_stage(r));
  EM_TRY(em_app_adapt(r)); /* Solver/adapt 1: the passes (app/adapt.c) */
  EM_TRY(em_sweep_run(r));
  if (r->peer) return EM_OK; /* rank 0 writes the run's files */
  if (r->noop) {             /* --resume of a complete result: it stays as it is */
    printf("# outputs in %s/ (complete: nothing to do)\n", r->final_dir);
    return EM_OK;
  }
  /* tables, summary.json (post/finish.c) and the plots into the partial
     folder, then the complete result moves in; the tables on stdout, but not
     those of each point of a quiet design sweep */
  em_stage_begin(r->log, EM_STAGE_WRITING); /* summary.json counts it up to itself */
  EM_TRY(em_post_finish(m, &r->res, &r->out, r->t_start, a->no_tables ? NULL : stdout));
  em_stage_end(r->log, EM_STAGE_WRITING, NULL);
  if (m->ff.plots) EM_TRY(em_app_plot(r->out.dir, r->log));
  EM_TRY(em_app_outdir_commit(r));
  if (!a->no_tables) printf("# outputs in %s/\n", r->out.dir);
  return EM_OK;
}

/* Seconds from the process's start (/proc/self/stat: its start in clock
 * ticks after boot) to the log's zero, to 0.01 s; -1 where unknown (issue
 * 24: a run's wall time beyond its log is this start plus its exit). */
static double started_before(const em_log *log) {
  FILE *f = fopen("/proc/self/stat", "r");
  char buf[1024];
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the command's name may hold spaces */
  unsigned long long start = 0;
  long hz = sysconf(_SC_CLK_TCK);
  struct timespec now;
  if (!p || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) ||
      sscanf(p + 2,
             "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
             &start) != 1)
    return -1;
  double age = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec - (double)start / (double)hz;
  double before = age - (em_wtime() - log->t0);
  return before >= -0.01 ? fmax(before, 0) : -1;
}

em_err em_app_run(const em_app_args *a, const em_log *log_in, int *flagged) {
  em_run r;
  memset(&r, 0, sizeof r);
  r.args = a;
  /* the run's time by stage rides on its logs (summary.json "stages_s") */
  em_log runlog = *log_in;
  em_stages_init(&r.stages, log_in);
  runlog.stages = &r.stages;
  const em_log *log = &runlog;
  r.log = log;
  /* the stages' own detail (assembly, factorization, iterations) only with
     -v: the default is one line per stage and per frequency */
  r.detail = *log;
  r.detail.level = log->level >= EM_LOG_VERBOSE ? EM_LOG_VERBOSE : EM_LOG_QUIET;
  r.detail.progress = log->level >= EM_LOG_INFO; /* a long factorization says how far it is */
  r.t_start = em_wtime();
  em_err err = run_case(&r); /* the signal handlers: app/main.c */
  em_app_device_join(&r);    /* a run that stopped before its device open */
  em_app_release_join(&r);   /* the solver released beside the outputs (app/release.c) */
  if (r.dsolve) {            /* rank 0: the serving ranks may go (model/dfsys.c) */
    em_err e = em_fsys_release(a->dist);
    if (!err) err = e;
    if (!err && em_dist_rank(a->dist) == 0) log_peak(&r);
  }
  if (flagged) *flagged = r.res.flagged;
  if (err) em_error_trace(err, __FILE__, __LINE__);
  if (r.peer)
    em_sweep_dist_close(&r, err);
  else
    em_app_outdir_close(&r, err);
  double t_free = em_wtime();
  em_results_free(&r.res);
  em_model_free(&r.m);
  /* after summary.json: the time the table cannot hold (issue 24's wall
     time beyond the stages) */
  em_log_verbose(log_in, "run: its memory released in %.2f s", em_wtime() - t_free);
  double before = started_before(log_in);
  if (before >= 0) /* the wall time of a run = this + the log's last time + the exit */
    em_log_verbose(log_in,
                   "run: the process began %.2f s before the log's clock (its libraries loaded)",
                   before);
  return err;
}
