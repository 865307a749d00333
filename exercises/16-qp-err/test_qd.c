/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 16: a QP that ends in ERR. The student's
 * stream runs in the worker (wk_qd.c) against exercise 12's model of the
 * verbs rules, which the grader keeps (vm_world.h): it sees every
 * completion and the QPs' states, and says them when a case fails. The
 * diagnosis (answers.txt, --answers FILE) is checked against what the
 * model itself shows for each of the two faults, reproduced here.
 */
#include "grade.h"
#include "qd_rpc.h"
#include "vm_world.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

static const char *answers;

/* The names of the completion statuses, as the answers spell them. */
static const char *const status_name[] = {
	[VM_WC_SUCCESS] = "success",
	[VM_WC_LOC_PROT_ERR] = "loc_prot_err",
	[VM_WC_REM_ACCESS_ERR] = "rem_access_err",
	[VM_WC_RNR_RETRY_EXC_ERR] = "rnr_retry_exc_err",
	[VM_WC_RETRY_EXC_ERR] = "retry_exc_err",
	[VM_WC_WR_FLUSH_ERR] = "wr_flush_err",
};

/* The same names, as they are written in an answer (no underscores). */
static const char *squeezed(const char *name)
{
	static char out[32];
	size_t n = 0;

	for (; *name && n + 1 < sizeof(out); name++)
		if (*name != '_')
			out[n++] = *name;
	out[n] = '\0';
	return out;
}

/* The student's qd_stream(), run in the worker on the grader's model. */
static int stream(uint32_t psn_a, uint32_t psn_b, unsigned n, uint32_t len,
		  uint32_t imm0)
{
	struct qd_req q = { .w = request(&qa, mr_a, NULL).w,
			    .psn_a = psn_a,
			    .psn_b = psn_b,
			    .n = n,
			    .len = len,
			    .imm0 = imm0 };
	int32_t r;

	gr_call_exact(QD_STREAM, &q, sizeof(q), &r, sizeof(r));
	return r;
}

static const char *const state_name[] = { "RESET", "INIT", "RTR", "RTS",
					  "ERR" };

/* What the device shows: the QPs' states, what a's send CQ reported. */
static void report(void)
{
	struct vm_qp_attr x, y;
	struct vm_wc wc;
	unsigned k;

	vm_query_qp(&qa, &x);
	vm_query_qp(&qb, &y);
	while (vm_poll_cq(&a_scq, 1, &wc) == 1) /* left unpolled */
		vw_polled[0][wc.status]++;
	fprintf(stderr,
		"the device: QP a in %s, QP b in %s; a's send CQ "
		"reported",
		state_name[x.qp_state], state_name[y.qp_state]);
	for (k = 0; k <= VM_WC_WR_FLUSH_ERR; k++)
		if (vw_polled[0][k])
			fprintf(stderr, " %s %llu", status_name[k],
				(unsigned long long)vw_polled[0][k]);
	fprintf(stderr, "; its first error: %s\n",
		vw_first_error[0] < 0 ? "none"
				      : status_name[vw_first_error[0]]);
}

/* Drawn PSNs (24 bits, apart), count, length, immediates: all arrive. */
static int streams(void)
{
	unsigned n = 4 + (unsigned)gr_below(40), i;
	uint32_t len = 1 + (uint32_t)gr_below(1024), imm0 = (uint32_t)gr_rand();
	uint32_t psn_a = (uint32_t)gr_below(1u << 24),
		 psn_b = (psn_a + 1 + (uint32_t)gr_below(1000)) & 0xffffff;
	struct vm_wc wc;
	int r;

	setup();
	for (i = 0; i < len; i++)
		buf_a[i] = (uint8_t)gr_rand();
	r = stream(psn_a, psn_b, n, len, imm0);
	if (r != (int)n) {
		report();
		gr_fail_at(__FILE__, __LINE__,
			   "qd_stream() of %u writes: %d completed", n, r);
		return GR_FAIL;
	}
	for (i = 0; i < n; i++) {
		GR_CHECK(vm_poll_cq(&b_rcq, 1, &wc) == 1 &&
				 wc.status == VM_WC_SUCCESS &&
				 wc.opcode == VM_WC_RECV_RDMA_WITH_IMM &&
				 ntohl(wc.imm_data) == imm0 + i,
			 "write %u: no completion at b with immediate %#x", i,
			 imm0 + i);
		GR_CHECK(!memcmp(buf_b + (size_t)i * len, buf_a, len),
			 "write %u: its %u bytes did not land", i, len);
		if (gr_failures)
			break;
	}
	return gr_verdict();
}

/* After the stream both QPs are ready to send on: RTS, no error. */
static int states(void)
{
	struct vm_qp_attr x, y;
	struct vm_wc wc;
	uint32_t psn_a = (uint32_t)gr_below(1u << 24);

	setup();
	stream(psn_a, (psn_a + 1 + (uint32_t)gr_below(999)) & 0xffffff,
	       2 + (unsigned)gr_below(20), 1 + (uint32_t)gr_below(2048),
	       (uint32_t)gr_rand());
	vm_query_qp(&qa, &x);
	vm_query_qp(&qb, &y);
	GR_CHECK(x.qp_state == VM_QPS_RTS && y.qp_state == VM_QPS_RTS,
		 "after the stream: QP a in %s, QP b in %s, expected both in "
		 "RTS",
		 state_name[x.qp_state], state_name[y.qp_state]);
	while (vm_poll_cq(&a_scq, 1, &wc) == 1)
		GR_CHECK(wc.status == VM_WC_SUCCESS,
			 "an error completion on a's send CQ: %s",
			 status_name[wc.status]);
	return gr_verdict();
}

/* One connection step of b, done right but for psn or access. */
static enum vm_wc_status reproduce(uint32_t b_rq_psn, unsigned b_access)
{
	struct qx_peer to_b;
	struct vm_send_wr w;
	struct vm_sge sge;
	struct vm_wc wc = { .status = VM_WC_SUCCESS };
	struct vm_qp_attr a = { .qp_state = VM_QPS_INIT, .port_num = 1 };

	setup();
	to_b = (struct qx_peer){ nb.lid, qb.qp_num, 200 };
	/* a, right; b as asked (the grader's own steps, on its model). */
	a.qp_access_flags = VM_ACCESS_LOCAL_WRITE | VM_ACCESS_REMOTE_WRITE;
	vm_modify_qp(&qa, &a,
		     VM_QP_STATE | VM_QP_PKEY_INDEX | VM_QP_PORT |
			     VM_QP_ACCESS_FLAGS);
	a.qp_access_flags = b_access;
	vm_modify_qp(&qb, &a,
		     VM_QP_STATE | VM_QP_PKEY_INDEX | VM_QP_PORT |
			     VM_QP_ACCESS_FLAGS);
	a = (struct vm_qp_attr){ .qp_state = VM_QPS_RTR,
				 .path_mtu = VM_MTU_4096,
				 .max_dest_rd_atomic = 1,
				 .min_rnr_timer = 12 };
	a.dlid = to_b.lid, a.dest_qp_num = to_b.qpn, a.rq_psn = 200;
	vm_modify_qp(&qa, &a,
		     VM_QP_STATE | VM_QP_AV | VM_QP_PATH_MTU | VM_QP_DEST_QPN |
			     VM_QP_RQ_PSN | VM_QP_MAX_DEST_RD_ATOMIC |
			     VM_QP_MIN_RNR_TIMER);
	a.dlid = na.lid, a.dest_qp_num = qa.qp_num, a.rq_psn = b_rq_psn;
	vm_modify_qp(&qb, &a,
		     VM_QP_STATE | VM_QP_AV | VM_QP_PATH_MTU | VM_QP_DEST_QPN |
			     VM_QP_RQ_PSN | VM_QP_MAX_DEST_RD_ATOMIC |
			     VM_QP_MIN_RNR_TIMER);
	a = (struct vm_qp_attr){ .qp_state = VM_QPS_RTS,
				 .sq_psn = 100,
				 .timeout = 14,
				 .retry_cnt = 7,
				 .rnr_retry = 7,
				 .max_rd_atomic = 1 };
	vm_modify_qp(&qa, &a,
		     VM_QP_STATE | VM_QP_SQ_PSN | VM_QP_TIMEOUT |
			     VM_QP_RETRY_CNT | VM_QP_RNR_RETRY |
			     VM_QP_MAX_QP_RD_ATOMIC);
	a.sq_psn = 200;
	vm_modify_qp(&qb, &a,
		     VM_QP_STATE | VM_QP_SQ_PSN | VM_QP_TIMEOUT |
			     VM_QP_RETRY_CNT | VM_QP_RNR_RETRY |
			     VM_QP_MAX_QP_RD_ATOMIC);
	sge = (struct vm_sge){ (uintptr_t)buf_a, 8, mr_a->lkey };
	vm_post_recv(&qb, &(struct vm_recv_wr){
				  .sg_list = &(struct vm_sge){ (uintptr_t)buf_b,
							       0, mr_b->lkey },
				  .num_sge = 1 });
	w = (struct vm_send_wr){ .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = VM_WR_RDMA_WRITE_WITH_IMM,
				 .send_flags = VM_SEND_SIGNALED,
				 .remote_addr = (uintptr_t)buf_b,
				 .rkey = mr_b->rkey };
	vm_post_send(&qa, &w);
	vm_poll_cq(&a_scq, 1, &wc);
	return wc.status;
}

/* The diagnosis: what the model shows for each fault, and the cause. */
static int diagnosis(void)
{
	unsigned all = VM_ACCESS_LOCAL_WRITE | VM_ACCESS_REMOTE_WRITE;
	const char *first = status_name[reproduce(200 + 9, all)];
	const char *second = status_name[reproduce(100, VM_ACCESS_LOCAL_WRITE)];
	const struct {
		const char *key, *want;
	} q[] = { { "first_status", first },
		  { "first_cause", "rq_psn" },
		  { "second_status", second },
		  { "second_cause", "qp_access_flags" } };
	unsigned i;
	char want[32];

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		const char *got = gr_answer(answers, q[i].key);

		snprintf(want, sizeof(want), "%s", squeezed(q[i].want));
		GR_CHECK(!strcmp(got, want),
			 "%s: you said \"%s\"; the model shows %s", q[i].key,
			 got, q[i].want);
	}
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "streams", 5, "every write lands, its immediate at b, in order",
	  streams },
	{ "states", 2, "both QPs in RTS after the stream, no error", states },
	{ "diagnosis", 3, "the two faults, as the device reported them",
	  diagnosis },
	{ 0 }
};

int main(int argc, char **argv)
{
	answers = gr_take_option(&argc, argv, "--answers");
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "16-qp-err", cases);
}
