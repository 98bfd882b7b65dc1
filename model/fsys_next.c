/* fsys_next.c - a sweep's next frequency assembled while this one
 * factorizes (issue 24, Deliver 5: the host's work out of the GPU's way).
 *
 * At a sweep's later frequencies the GPU refactors (about 0.5 s at the
 * default order-3 DRA on an H200) while the host waits, then the host
 * assembles the next frequency (about 0.3 s) while the GPU waits.  When
 * the caller names the next frequency (em_fsys_set_next), em_fsys_solve
 * starts its assembly on a second host thread just before the
 * preconditioner's refactorization and joins it before it returns; the
 * next solve takes the system instead of assembling.  The assembly is the
 * same function on the same inputs (the assembler's pattern, colouring
 * and frequency-independent cache, the problem at that frequency), so the
 * system is the same bits, only made earlier; its ports are copies set to
 * that frequency, the setup's ports stay at this one (the caller's
 * post-processing reads them).  Nothing else touches the assembler while
 * the thread runs.  An assembly that fails is dropped silently: the next
 * solve assembles again and reports the error with its message (the error
 * trace is per thread). */
#include <math.h>
#include <pthread.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fsys_impl.h"

struct em_fsys_next {
  pthread_t th;
  int running;   /* a thread to join */
  double f;      /* its frequency */
  fsys_prob *fp; /* its problem (read by the assembly only) */
  em_system *sys;
  double t;    /* its wall time */
  int threads; /* the caller's OpenMP threads: the thread's team (a new
                  thread starts from the defaults, not from what the run
                  set) */
};

em_err em_fsys_problem(em_fsys *s, double k0, int copies, fsys_prob *fp) {
  const em_fsys_desc *d = &s->d;
  int np = d->setup->n_port;
  em_robin *rb = fp->rb;
  /* each excited port's term (its own right-hand side column,
     Excitation/ports; the others matched loads) and the ABC's, gamma
     proportional to k0 */
  uint32_t ex = d->excite ? d->excite : em_excite_all(np);
  for (int i = 0; i < np; i++) {
    em_port *p = &d->setup->port[i];
    if (copies) {
      fp->port[i] = *p;
      p = &fp->port[i];
    }
    EM_TRY(em_port_set_frequency(p, k0));
    int col = em_excite_column(ex, i);
    if (d->port_source) /* a plane wave drives: the ports are its loads */
      em_port_robin_load(p, &rb[i]);
    else
      em_port_robin(p, col >= 0, col, &rb[i]);
  }
  for (int i = 0; i < s->n_abc_terms; i++) {
    rb[np + i] = s->abc[i];
    rb[np + i].gamma *= k0;
  }
  int n_rb = np + s->n_abc_terms; /* then the surface impedances and lumped sheets */
  int n_sf = d->setup->n_surface;
  EM_CHECK(n_rb + n_sf <= FSYS_MAX_ROBIN, EM_ERR_INPUT,
           "%d ports, %d ABC media and %d surface boundaries: at most %d Robin terms", np,
           s->n_abc_terms, n_sf, FSYS_MAX_ROBIN);
  for (int i = 0; i < n_sf; i++) em_surface_robin(&d->setup->surface[i], k0, &rb[n_rb++]);
  fp->media = (em_media){d->mesh, d->setup->medium, d->setup->has_pml ? &d->setup->pml : NULL, k0};
  fp->prob = (em_problem){.k0 = k0,
                          .material = em_media_material,
                          .material_ctx = &fp->media,
                          .tet_vary = s->vary,
                          .n_robin = n_rb,
                          .robin = rb,
                          .n_rhs = em_excite_count(ex)};
  if (d->prepare) EM_TRY(d->prepare(d->prepare_ctx, k0, &fp->prob));
  for (int i = 0; i < np && d->port_source; i++)
    EM_TRY(d->port_source(d->prepare_ctx, k0, i, &rb[i]));
  return EM_OK;
}

void em_fsys_set_next(em_fsys *s, double f_next) {
  if (s) s->next_f = isfinite(f_next) && f_next > 0 ? f_next : 0;
}

void em_fsys_next_wait(em_fsys *s) {
  em_fsys_next *n = s->next;
  if (!n || !n->running) return;
  pthread_join(n->th, NULL);
  n->running = 0;
  em_free(&n->fp);
}

void em_fsys_next_free(em_fsys *s) {
  if (!s->next) return;
  em_fsys_next_wait(s);
  em_system_destroy(&s->next->sys);
  em_free(&s->next);
}

/* The thread: the problem at n->f on copies of the ports, then the
 * assembly, silent (the solve that takes it says so). */
static void *next_main(void *arg) {
  em_fsys *s = arg;
  em_fsys_next *n = s->next;
#ifdef _OPENMP
  omp_set_num_threads(n->threads);
#endif
  double t0 = em_wtime();
  em_err err = em_fsys_problem(s, 2 * M_PI * n->f / EM_C0, 1, n->fp);
  if (!err) err = em_assemble_with(s->asm_, &n->fp->prob, NULL, &n->sys);
  if (err) {
    em_system_destroy(&n->sys);
    em_error_clear(); /* this thread's trace: the solve at n->f reports it */
  }
  n->t = em_wtime() - t0;
  return NULL;
}

/* Memory for a second assembled system (20 bytes an entry) beside the
 * first (em_fsys_fits_host), and the value map kept (the same budget's
 * sign, fsys.c). */
static int next_fits(const em_fsys *s) {
  double nnz = 0;
  for (int i = 0; i < s->nb; i++)
    for (int j = 0; j < s->nb; j++) nnz += (double)s->blk[i][j].nnz;
  return s->src && em_fsys_fits_host(nnz, 20);
}

void em_fsys_next_start(em_fsys *s, const em_log *log) {
  double f = s->next_f;
  s->next_f = 0; /* one hint, one solve */
  /* a plane wave's prepare and port_source keep the source's state, which
     this frequency's post-processing reads: nothing ahead then */
  if (!f || !s->asm_ || s->d.periodic || em_fsys_distributed(s) || s->d.keep_matrix ||
      s->d.prepare || s->d.port_source)
    return;
  if (s->next && (s->next->running || s->next->sys)) em_fsys_next_free(s); /* another's */
  if (!next_fits(s)) return;
  if (!s->next && em_calloc(&s->next, 1, sizeof *s->next, "next frequency")) {
    em_error_clear();
    return;
  }
  em_fsys_next *n = s->next;
  n->f = f;
  n->t = 0;
  n->threads = 1;
#ifdef _OPENMP
  n->threads = omp_get_max_threads();
#endif
  n->threads = em_ahead_threads(s->d.solve, n->threads); /* Solver/ahead_threads */
  if (em_calloc(&n->fp, 1, sizeof *n->fp, "next frequency")) {
    em_error_clear();
    return;
  }
  if (pthread_create(&n->th, NULL, next_main, s)) {
    em_free(&n->fp);
    return; /* the next solve assembles itself */
  }
  n->running = 1;
  em_log_verbose(log, "assembly of %.6g GHz started beside this frequency's factorization",
                 f * 1e-9);
}

em_system *em_fsys_next_take(em_fsys *s, double f, double *t) {
  em_fsys_next *n = s->next;
  *t = 0;
  if (!n) return NULL;
  em_fsys_next_wait(s);
  em_system *sys = NULL;
  if (n->f == f && n->sys) {
    sys = n->sys;
    n->sys = NULL;
    *t = n->t;
  }
  em_fsys_next_free(s); /* another frequency's, or taken */
  return sys;
}
