/* Names and parsers of the solver options: every name parses back to its
 * value; unknown words are EM_ERR_INPUT naming the word and the known ones. */
#include <string.h>

#include "em_solver.h"
#include "em_test.h"

int main(void) {
  for (int m = EM_KSP_BICGSTAB; m <= EM_KSP_FGMRES; m++) {
    em_ksp_method p;
    EXPECT_OK(em_ksp_method_parse(em_ksp_method_name((em_ksp_method)m), &p));
    EXPECT((int)p == m, "method %d", m);
  }
  for (int t = EM_PC_NONE; t <= EM_PC_ILU0; t++) {
    em_pc_type p;
    EXPECT_OK(em_pc_type_parse(em_pc_type_name((em_pc_type)t), &p));
    EXPECT((int)p == t, "pc %d", t);
  }
  for (int o = EM_ORDERING_NATURAL; o <= EM_ORDERING_BMC; o++) {
    em_pc_ordering p;
    EXPECT_OK(em_ordering_parse(em_ordering_name((em_pc_ordering)o), &p));
    EXPECT((int)p == o, "ordering %d", o);
  }
  for (int t = EM_TRSV_AUTO; t <= EM_TRSV_CUSPARSE; t++) {
    em_pc_trsv p;
    EXPECT_OK(em_pc_trsv_parse(em_pc_trsv_name((em_pc_trsv)t), &p));
    EXPECT((int)p == t, "trsv %d", t);
  }
  EXPECT(!strcmp(em_ksp_method_name(EM_KSP_COCR), "cocr"), "cocr");
  EXPECT(!strcmp(em_ordering_name(EM_ORDERING_ND), "nd"), "nd");
  EXPECT(!strcmp(em_ksp_reason_name(EM_KSP_MAX_ITER), "max-iterations"), "reason");
  EXPECT(!strcmp(em_ksp_reason_name((em_ksp_reason)99), "?"), "unknown reason");
  em_ksp_method m;
  em_err e = em_ksp_method_parse("cg", &m);
  EXPECT(e == EM_ERR_INPUT && strstr(em_error_message(), "'cg'") &&
             strstr(em_error_message(), "bicgstab, cocg, cocr, gmres, fgmres"),
         "unknown method: %s", em_error_message());
  em_error_clear();
  em_pc_type t;
  EXPECT_ERR(em_pc_type_parse("ilu1", &t), EM_ERR_INPUT);
  EXPECT_ERR(em_pc_type_parse(NULL, &t), EM_ERR_INPUT);
  em_pc_ordering o;
  e = em_ordering_parse("metis", &o);
  EXPECT(e == EM_ERR_INPUT && strstr(em_error_message(), "Solver/ordering"), "%s",
         em_error_message());
  em_error_clear();
  em_ksp_opts ko;
  em_ksp_opts_default(&ko);
  EXPECT(ko.tol == 1e-8 && ko.max_it == 1000 && ko.restart == 50 && ko.method == EM_KSP_BICGSTAB,
         "ksp defaults");
  em_pc_opts po;
  em_pc_opts_default(&po);
  EXPECT(po.type == EM_PC_NONE && po.trsv == EM_TRSV_AUTO && po.block_size == 0, "pc defaults");
  return TEST_RESULT();
}
