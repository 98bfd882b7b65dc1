/* shape_pattern.h - matrices shaped to trigger each automatic format
 * choice (formats/choose.c): a row-length distribution with a long tail,
 * and rows made of dense 64-column blocks.  Used by the unit test of the
 * choice (small) and by the SpMV benchmark that grounds it (large). */
#ifndef EM_SHAPE_PATTERN_H
#define EM_SHAPE_PATTERN_H

#include "em_core.h"

/* A (square) with m of its rows, row (2k + 1) n / (2m) for k = 0..m-1,
 * replaced by rows of len <= n entries at columns floor(k n / len): the
 * long tail of a row-length distribution (rows coupled to many unknowns,
 * as a constraint or an integral-equation row would be).  Values: the
 * em_fem_pair_value hash. */
em_err em_pattern_long_rows(const em_csr *A, int32_t m, int32_t len, unsigned seed, em_csr **out);

/* n x n (n a multiple of 64), every row row_len entries in row_len / fill
 * words of fill bits each (fill divides 64): row i holds the 64-column
 * words (i / 64 + w) mod (n / 64), w = 0..row_len / fill - 1, and in each
 * the bits i mod s + k s, k = 0..fill-1, s = 64 / fill.  fill = 64 is a
 * banded matrix of dense 64 x 64 blocks. */
em_err em_pattern_blocks(int32_t n, int fill, int row_len, unsigned seed, em_csr **out);

#endif
