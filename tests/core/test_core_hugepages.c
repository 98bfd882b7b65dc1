/* em_calloc's large blocks in transparent huge pages (core/mem.c):
 * - a 64 MiB block is zeroed and writable end to end, a small one too;
 * - where the kernel gives huge pages on request (THP "madvise"), touching
 *   the 64 MiB block adds at least 2 MiB of AnonHugePages to the process
 *   (/proc/self/smaps_rollup), and none with EMSOLVE_HUGEPAGES=0 (so the
 *   advice is what makes them: with THP "always" both add, and the second
 *   check is skipped; with "never", or no such files, or under ASan, whose
 *   allocator maps its own blocks, only the first part runs).
 * Usage: test_core_hugepages [off] (off: the EMSOLVE_HUGEPAGES=0 half,
 * ctest runs both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "em_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* the bracketed mode of /sys/kernel/mm/transparent_hugepage/enabled */
static int thp_mode(char *mode, size_t len) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return 0;
  char line[128] = "";
  int ok = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  char *a = ok ? strchr(line, '[') : NULL, *b = a ? strchr(a, ']') : NULL;
  if (!a || !b) return 0;
  snprintf(mode, len, "%.*s", (int)(b - a - 1), a + 1);
  return 1;
}

/* AnonHugePages of the process, kB (-1: not readable) */
static long anon_huge_kb(void) {
  FILE *f = fopen("/proc/self/smaps_rollup", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) break;
  fclose(f);
  return kb;
}

int main(int argc, char **argv) {
  int off = argc > 1 && !strcmp(argv[1], "off");
  if (off) setenv("EMSOLVE_HUGEPAGES", "0", 1);
  size_t big = (size_t)64 << 20;
  unsigned char *s = NULL, *p = NULL;
  REQUIRE_OK(em_calloc(&s, 1000, 1, "a small block"));
  for (int i = 0; i < 1000; i++) EXPECT(s[i] == 0, "small block byte %d not zero", i);
  long before = anon_huge_kb();
  REQUIRE_OK(em_calloc(&p, big / 8, 8, "a large block"));
  size_t nonzero = 0;
  for (size_t i = 0; i < big; i += 4096) nonzero += p[i] != 0;
  EXPECT(nonzero == 0 && p[big - 1] == 0, "large block not zeroed (%zu pages)", nonzero);
  memset(p, 0x5a, big); /* every page touched */
  EXPECT(p[0] == 0x5a && p[big - 1] == 0x5a, "large block not writable");
  long after = anon_huge_kb();
  char mode[32] = "";
  int known = thp_mode(mode, sizeof mode) && before >= 0 && after >= 0;
  if (!known || UNDER_ASAN || !strcmp(mode, "never")) {
    printf("huge pages not checked (THP %s, %s)\n", known ? mode : "unknown",
           UNDER_ASAN ? "ASan" : "plain");
  } else if (off) {
    if (!strcmp(mode, "madvise"))
      EXPECT(after - before == 0, "EMSOLVE_HUGEPAGES=0, THP madvise: %ld kB of huge pages appeared",
             after - before);
  } else {
    EXPECT(after - before >= 2048, "THP %s: touching 64 MiB gave %ld kB of huge pages", mode,
           after - before);
  }
  printf("THP %s: %ld kB of huge pages for 64 MiB (%s)\n", mode, after - before,
         off ? "EMSOLVE_HUGEPAGES=0" : "advised");
  em_free(&p);
  em_free(&s);
  return TEST_RESULT();
}
