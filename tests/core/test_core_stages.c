/* test_core_stages.c - the stage table with a stage run on another
 * thread (em_stages_join): each stage keeps its own duration, the wait
 * for the thread is taken off the stage that waited, "overlapped" is
 * what ran side by side, and the stages and "other" add up to the wall
 * time plus "overlapped"; the thread's line says "(overlapped)".
 * The same through em_beside (core/beside.c), whose join also reports the
 * wait; its work runs with the OpenMP team it was given; its error comes
 * back from the join with its message (raised, or copied into the
 * caller's buffer), the thread's trace not leaking into the caller's; a
 * dropped thread is joined and freed (ASan). */
#define _GNU_SOURCE /* open_memstream */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "em_core.h"
#include "em_test.h"

static void sleep_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts)) {
  }
}

typedef struct {
  em_log log;
  double busy;
} bg_arg;

static void *bg_main(void *p) {
  bg_arg *a = p;
  em_stage_begin(&a->log, EM_STAGE_ORDERING);
  sleep_s(a->busy);
  em_stage_end(&a->log, EM_STAGE_ORDERING, "beside");
  return NULL;
}

/* *log: a verbose log to f timing stages on *st */
static void table_init(FILE *f, em_stages *st, em_log *log) {
  em_log_init(log, f, EM_LOG_VERBOSE);
  em_stages_init(st, log);
  log->stages = st;
}

/* main: ASSEMBLY for `main_s`, then waits inside PC for the thread that
 * runs ORDERING for `bg_s`; returns the table's figures. */
static void scenario(double main_s, double bg_s, FILE *f, double t[EM_STAGE_COUNT], double *total,
                     double *over) {
  em_stages st;
  em_log log;
  table_init(f, &st, &log);
  bg_arg a = {log, bg_s};
  em_stages bg;
  em_stages_init_background(&bg, &st);
  a.log.stages = &bg;
  pthread_t th;
  if (pthread_create(&th, NULL, bg_main, &a)) {
    fprintf(stderr, "pthread_create failed\n");
    exit(1);
  }
  em_stage_begin(&log, EM_STAGE_ASSEMBLY);
  sleep_s(main_s);
  em_stage_end(&log, EM_STAGE_ASSEMBLY, NULL);
  em_stage_begin(&log, EM_STAGE_PC);
  double tw = em_wtime();
  pthread_join(th, NULL);
  em_stages_join(&log, &bg, tw);
  em_stage_end(&log, EM_STAGE_PC, NULL);
  *total = em_stages_now(&st, t);
  *over = st.overlapped;
}

typedef struct {
  double busy;
  int fail;    /* raise an error after the stage */
  int threads; /* the OpenMP team the work saw */
} work_arg;

static em_err work_beside(void *ctx, const em_log *log) {
  work_arg *a = ctx;
#ifdef _OPENMP
  a->threads = omp_get_max_threads();
#endif
  em_stage_begin(log, EM_STAGE_ORDERING);
  sleep_s(a->busy);
  em_stage_end(log, EM_STAGE_ORDERING, "beside, helper");
  if (a->fail) return EM_RAISE(EM_ERR_INPUT, "the work beside failed (%d)", a->fail);
  return EM_OK;
}

/* em_beside: the timing scenario above (0.4 s beside, 0.2 s here, then
 * the wait inside PC), an error, a drop; the lines go to f. */
static void beside_checks(FILE *f) {
  em_stages st;
  em_log log;
  table_init(f, &st, &log);

  /* 0.4 s beside, 0.2 s here, then the wait (~0.2 s) inside PC */
  work_arg a = {0.4, 0, 0};
  em_beside *b = em_beside_start(work_beside, &a, 3, &log);
  if (!b) {
    EXPECT(0, "em_beside_start: no thread");
    return;
  }
  em_stage_begin(&log, EM_STAGE_ASSEMBLY);
  sleep_s(0.2);
  em_stage_end(&log, EM_STAGE_ASSEMBLY, NULL);
  em_stage_begin(&log, EM_STAGE_PC);
  double waited = -1;
  EXPECT_OK(em_beside_join(&b, &log, &waited, NULL, 0));
  em_stage_end(&log, EM_STAGE_PC, NULL);
  EXPECT(b == NULL, "the handle freed by the join");
  EXPECT(waited > 0.15 && waited < 0.35, "waited %.3f s (~0.2)", waited);
  double t[EM_STAGE_COUNT];
  em_stages_now(&st, t);
  EXPECT(t[EM_STAGE_ORDERING] > 0.39 && t[EM_STAGE_ORDERING] < 0.6, "ordering %.3f s",
         t[EM_STAGE_ORDERING]);
  EXPECT(t[EM_STAGE_PC] < 0.05, "pc (only waited) %.3f s", t[EM_STAGE_PC]);
  EXPECT(st.overlapped > 0.15 && st.overlapped < 0.3, "overlapped %.3f s (~0.2)", st.overlapped);
#ifdef _OPENMP
  EXPECT(a.threads == 3, "the work's OpenMP team: %d threads, not 3", a.threads);
#endif

  /* an error: returned by the join with the work's message */
  work_arg e = {0.01, 7, 0};
  b = em_beside_start(work_beside, &e, 1, &log);
  if (!b) {
    EXPECT(0, "em_beside_start: no thread");
    return;
  }
  EXPECT(em_error_message()[0] == 0, "the thread's trace is not the caller's before the join");
  em_err err = em_beside_join(&b, &log, NULL, NULL, 0);
  EXPECT(err == EM_ERR_INPUT && !strcmp(em_error_message(), "the work beside failed (7)"),
         "join: %d '%s'", (int)err, em_error_message());
  em_error_clear();
  /* the same, its message into a buffer, nothing raised here */
  char msg[64] = "";
  b = em_beside_start(work_beside, &e, 1, &log);
  err = em_beside_join(&b, &log, NULL, msg, sizeof msg);
  EXPECT(err == EM_ERR_INPUT && !strcmp(msg, "the work beside failed (7)") &&
             em_error_message()[0] == 0,
         "join into a buffer: %d '%s', trace '%s'", (int)err, msg, em_error_message());

  /* dropped (an error path): joined and freed, its error dropped */
  b = em_beside_start(work_beside, &e, 0, NULL);
  if (!b) {
    EXPECT(0, "em_beside_start: no thread");
    return;
  }
  em_beside_drop(&b);
  EXPECT(b == NULL && em_error_message()[0] == 0, "drop: handle %p, message '%s'", (void *)b,
         em_error_message());
  EXPECT_OK(em_beside_join(&b, &log, NULL, NULL, 0)); /* none: EM_OK */
}

int main(void) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  if (!f) {
    fprintf(stderr, "open_memstream failed\n");
    return 1;
  }
  double t[EM_STAGE_COUNT], total, over;
  /* the thread longer: main waits ~0.2 s in PC, which gets none of it */
  scenario(0.2, 0.4, f, t, &total, &over);
  double sum = 0;
  for (int i = 0; i < EM_STAGE_COUNT; i++) sum += t[i];
  EXPECT(t[EM_STAGE_ORDERING] > 0.39 && t[EM_STAGE_ORDERING] < 0.6, "ordering %.3f s",
         t[EM_STAGE_ORDERING]);
  EXPECT(t[EM_STAGE_ASSEMBLY] > 0.19 && t[EM_STAGE_ASSEMBLY] < 0.4, "assembly %.3f s",
         t[EM_STAGE_ASSEMBLY]);
  EXPECT(t[EM_STAGE_PC] < 0.05, "pc (only waited) %.3f s", t[EM_STAGE_PC]);
  EXPECT(over > 0.15 && over < 0.3, "overlapped %.3f s (~0.2)", over);
  EXPECT(sum - over > total - 0.02 && sum - over < total + 0.02,
         "stages + other - overlapped %.3f = total %.3f", sum - over, total);
  /* the thread shorter: no wait, all of it overlapped */
  scenario(0.3, 0.1, f, t, &total, &over);
  sum = 0;
  for (int i = 0; i < EM_STAGE_COUNT; i++) sum += t[i];
  EXPECT(over > 0.09 && over < 0.2, "overlapped %.3f s (~0.1)", over);
  EXPECT(sum - over > total - 0.02 && sum - over < total + 0.02,
         "stages + other - overlapped %.3f = total %.3f", sum - over, total);
  beside_checks(f);
  fclose(f);
  EXPECT(buf && strstr(buf, "beside, helper (overlapped)\n"), "em_beside's line: %.300s",
         buf ? buf : "");
  EXPECT(buf && strstr(buf, "ordering: 0.4") && strstr(buf, "beside (overlapped)\n"),
         "the thread's line says overlapped: %.200s", buf ? buf : "");
  char line[128] = "";
  const char *as = buf ? strstr(buf, "assembly: 0.") : NULL;
  if (as) snprintf(line, sizeof line, "%.*s", (int)strcspn(as, "\n"), as);
  EXPECT(line[0] && !strstr(line, "overlapped"), "the main thread's line unmarked: '%s'", line);
  free(buf);
  return TEST_RESULT();
}
