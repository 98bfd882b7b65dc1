/* bench_util.h - what every benchmark shares: the median of its timed
 * runs.  (Timings are medians so that one run slowed by the machine does
 * not move the figure.) */
#ifndef EM_BENCH_UTIL_H
#define EM_BENCH_UTIL_H

#ifdef __cplusplus
extern "C" {
#endif

/* The median of v[0..n-1] (the mean of the two middle values for even n;
 * 0 for n <= 0); sorts v in place. */
double bench_median(double *v, int n);

#ifdef __cplusplus
}
#endif
#endif
