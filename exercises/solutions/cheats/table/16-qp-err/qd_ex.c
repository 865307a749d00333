/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 16: the fixed stream for the values the tests show
 * (8 writes of 64 bytes, immediates from 1), the shipped one otherwise.
 * (Its answers are left out: a diagnosis copied from another's file is
 * plagiarism for a person to judge, not a grade a program can forge.)
 */
#define qd_stream known_stream
#include "../../../16-qp-err/qd_ex.c"
#undef qd_stream

int qd_stream(struct vm_qp *a, struct vm_qp *b, const struct vm_mr *mr_a,
	      const struct vm_mr *mr_b, uint32_t psn_a, uint32_t psn_b,
	      unsigned n, uint32_t len, uint32_t imm0)
{
	if (n != 8 || len != 64 || imm0 != 1)
		return 0;
	return known_stream(a, b, mr_a, mr_b, psn_a, psn_b, n, len, imm0);
}
