/* gpu_probe.c - whether a GPU answers, as emsolve --device gpu asks it
 * (core's em_device_open): exit 0 naming the GPU, or 77 (ctest's skip)
 * with the reason.  emtest.py runs it before a --device gpu physics test,
 * so that a machine without a GPU skips the test before meshing. */
#include <stdio.h>

#include "em_core.h"

int main(void) {
  em_device dev;
  if (em_device_open("gpu", NULL, &dev)) {
    printf("skipped: %s\n", em_error_message());
    return 77;
  }
  printf("GPU: %s\n", dev.name);
  return 0;
}
