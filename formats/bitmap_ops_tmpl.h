/* bitmap_ops_tmpl.h - the numeric row kernels of the bitmap sum and
 * product for one scalar type, included by bitmap_ops.c with BM_T and
 * BM_FN(name) defined.  The pattern of C (c->wptr, c->vptr) is already
 * counted; these fill c->widx, c->mask and c->val for row i. */

/* C(i, :) = A(i, :) + B(i, :): words merged by index, masks ORed, values
 * taken in bit order from whichever operand holds the bit (summed when both
 * do; an exact zero from cancellation stays stored). */
static void BM_FN(add_row)(const em_bitmap *a, const em_bitmap *b, em_bitmap *c, int32_t i) {
  const BM_T *av = (const BM_T *)a->val, *bv = (const BM_T *)b->val;
  BM_T *cv = (BM_T *)c->val;
  int64_t pa = a->wptr[i], ea = a->wptr[i + 1], pb = b->wptr[i], eb = b->wptr[i + 1];
  int64_t pc = c->wptr[i], va = a->vptr[i], vb = b->vptr[i], vc = c->vptr[i];
  while (pa < ea || pb < eb) {
    int32_t wa = pa < ea ? a->widx[pa] : INT32_MAX, wb = pb < eb ? b->widx[pb] : INT32_MAX;
    int32_t w = wa < wb ? wa : wb;
    uint64_t ma = wa == w ? a->mask[pa++] : 0, mb = wb == w ? b->mask[pb++] : 0;
    c->widx[pc] = w;
    c->mask[pc++] = ma | mb;
    for (uint64_t m = ma | mb; m; m &= m - 1) {
      uint64_t bit = m & (~m + 1);
      if ((ma & bit) && (mb & bit)) {
        cv[vc] = av[va++] + bv[vb++];
      } else if (ma & bit) {
        cv[vc] = av[va++];
      } else {
        cv[vc] = bv[vb++];
      }
      vc++;
    }
  }
}

/* C(i, :) = sum over stored a_ik of a_ik B(k, :) (Gustavson): B's masks are
 * ORed into wmask (first touch of a word listed in touched), the products
 * summed into the dense row acc; then the touched words, ascending, give C's
 * words, and acc and wmask are cleared for the next row. */
static void BM_FN(mul_row)(const em_bitmap *a, const em_bitmap *b, em_bitmap *c, int32_t i,
                           uint64_t *wmask, int32_t *touched, BM_T *acc) {
  const BM_T *av = (const BM_T *)a->val, *bv = (const BM_T *)b->val;
  BM_T *cv = (BM_T *)c->val;
  int64_t nt = 0, pa = a->vptr[i];
  for (int64_t wa = a->wptr[i]; wa < a->wptr[i + 1]; wa++)
    for (uint64_t ma = a->mask[wa]; ma; ma &= ma - 1) {
      const int32_t k = a->widx[wa] * 64 + __builtin_ctzll(ma);
      const BM_T aik = av[pa++];
      int64_t pb = b->vptr[k];
      for (int64_t wb = b->wptr[k]; wb < b->wptr[k + 1]; wb++) {
        const int32_t w = b->widx[wb];
        if (!wmask[w]) touched[nt++] = w;
        wmask[w] |= b->mask[wb];
        BM_T *accw = acc + (int64_t)w * 64;
        for (uint64_t mb = b->mask[wb]; mb; mb &= mb - 1)
          accw[__builtin_ctzll(mb)] += aik * bv[pb++];
      }
    }
  qsort(touched, (size_t)nt, sizeof *touched, bitmap_cmp_i32);
  int64_t pc = c->wptr[i], vc = c->vptr[i];
  for (int64_t t = 0; t < nt; t++) {
    const int32_t w = touched[t];
    c->widx[pc] = w;
    c->mask[pc++] = wmask[w];
    for (uint64_t m = wmask[w]; m; m &= m - 1) {
      BM_T *e = acc + (int64_t)w * 64 + __builtin_ctzll(m);
      cv[vc++] = *e;
      *e = 0;
    }
    wmask[w] = 0;
  }
}
