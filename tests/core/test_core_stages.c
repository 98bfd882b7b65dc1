/* test_core_stages.c - the stage table with a stage run on another
 * thread (em_stages_join): each stage keeps its own duration, the wait
 * for the thread is taken off the stage that waited, "overlapped" is
 * what ran side by side, and the stages and "other" add up to the wall
 * time plus "overlapped"; the thread's line says "(overlapped)". */
#define _GNU_SOURCE /* open_memstream */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* main: ASSEMBLY for `main_s`, then waits inside PC for the thread that
 * runs ORDERING for `bg_s`; returns the table's figures. */
static void scenario(double main_s, double bg_s, FILE *f, double t[EM_STAGE_COUNT], double *total,
                     double *over) {
  em_log base;
  em_log_init(&base, f, EM_LOG_VERBOSE);
  em_stages st;
  em_stages_init(&st, &base);
  em_log log = base;
  log.stages = &st;
  bg_arg a = {base, bg_s};
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
  fclose(f);
  EXPECT(buf && strstr(buf, "ordering: 0.4") && strstr(buf, "beside (overlapped)\n"),
         "the thread's line says overlapped: %.200s", buf ? buf : "");
  char line[128] = "";
  const char *as = buf ? strstr(buf, "assembly: 0.") : NULL;
  if (as) snprintf(line, sizeof line, "%.*s", (int)strcspn(as, "\n"), as);
  EXPECT(line[0] && !strstr(line, "overlapped"), "the main thread's line unmarked: '%s'", line);
  free(buf);
  return TEST_RESULT();
}
