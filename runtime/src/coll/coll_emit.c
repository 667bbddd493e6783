// SPDX-License-Identifier: MIT
/*
 * Launches as command buffers: the builder every algorithm uses (queues,
 * waits, signals, copies, NIC transfers, TPC jobs; the external job, the
 * CB areas and their resubmission), then the ring's and the chain's
 * plans on it. The ring's queues:
 *
 *   NIC data   (port to the right neighbour, stream 0): chunk j goes
 *              into the right's slot j % COLL_SLOTS once the right gave
 *              the slot back (CREDIT >= j + 1 - COLL_SLOTS) and what the
 *              chunk holds is ready; the transfer raises the right's
 *              ARRIVE, then our SENT.
 *   TPC k      the sums: chunk j (when its turn) waits ARRIVE >= j + 1,
 *              adds the slot into the working buffer, raises TPC k.
 *   DMA 2      the copies: pre-copies, received chunks that are copied
 *              in (all-gather, broadcast), post-copies; raises DMA.
 *   NIC credit (port to the left neighbour, stream 1): once chunk j is
 *              consumed, a signal-only transfer raises the left's CREDIT.
 *   external   raises START, waits for every count to reach its total
 *              (our own work, and every peer's signals to us), then
 *              clears the set.
 *
 * Counters only grow within a launch, so each wait is a monitor (>=)
 * and a FENCE; no host round trip. The ring's two sets of sync objects
 * alternate between its launches: a neighbour can touch set p again only
 * in launch k + 2, which needs this rank's part of launch k + 1, which
 * starts after this rank cleared set p at the end of launch k. (The
 * direct all-reduce has two sets of its own: coll_direct.c.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_internal.h"
#include "device/hlrt_cb.h"
#include "hw/gaudisim_hw_dtypes.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_tpc.h"
#include "gaudisim_accel.h"

#define CB_ALIGN	128u
#define WAIT_US		(600ull * 1000 * 1000)

/* The ring's queues, in the order of its launch. */
enum { Q_DMA = 0, Q_TPC0, Q_NICD = Q_TPC0 + COLL_NUM_TPC, Q_NICC, Q_COUNT };
_Static_assert(Q_COUNT <= COLL_MAX_JOBS, "a launch's jobs fit struct coll_cached");

uint32_t hlrt_coll_set(const hlrt_comm *c, uint32_t rank, bool direct)
{
	uint32_t parity = direct ? c->direct_parity : c->parity;

	return c->peers[rank].sob_first + ((direct ? 2 : 0) + parity) * COLL_SOBS_PER_SET;
}

hlrt_status hlrt_coll_launch_init(struct coll_launch *l, hlrt_comm *c, bool direct)
{
	if (c->broken)
		return hlrt_fail(HLRT_DEVICE_ERROR,
				 "the communicator failed earlier: destroy it and create another");
	*l = (struct coll_launch){ .c = c, .direct = direct };
	l->set = hlrt_coll_set(c, c->rank, direct);
	return HLRT_SUCCESS;
}

uint32_t hlrt_coll_add_queue(struct coll_launch *l, uint32_t queue, const uint32_t *pool,
			     uint32_t pool_n)
{
	uint32_t qi = l->n_q++;

	l->queue[qi] = queue;
	l->pool[qi] = pool ? pool : hlrt_device_queue_monitors(l->c->dev, queue);
	l->pool_n[qi] = pool ? pool_n : HLRT_MONS_PER_QUEUE;
	(void)hlrt_pkt_init(&l->q[qi], 1024);	/* a failure marks it oom: submit reports */
	return qi;
}

/* Arm a monitor per condition (value 0 needs none) and fence on them. */
#define MAX_CONDS	(6 + COLL_NUM_TPC)
static void wait_abs(struct hlrt_pkt_buf *b, const uint32_t *pool, uint32_t pool_n,
		     uint32_t set, const struct coll_cond *cs, uint32_t n)
{
	uint32_t arms[MAX_CONDS], i, k = 0;

	for (i = 0; i < n && k < MAX_CONDS; i++)
		if (cs[i].value)
			arms[k++] = GAUDISIM_SYNC_MON_ARM_SOB(set + cs[i].which, 0, cs[i].value);
	hlrt_pkt_wait(b, pool, pool_n, arms, k);
}

void hlrt_coll_wait(struct coll_launch *l, uint32_t qi, const struct coll_cond *cs, uint32_t n)
{
	wait_abs(&l->q[qi], l->pool[qi], l->pool_n[qi], l->set, cs, n);
}

static void wait1(struct coll_launch *l, uint32_t qi, uint32_t which, uint32_t value)
{
	struct coll_cond cd = { which, value };

	hlrt_coll_wait(l, qi, &cd, 1);
}

void hlrt_coll_signal(struct coll_launch *l, uint32_t qi, uint32_t which)
{
	hlrt_pkt_sob(&l->q[qi], l->set + which, GAUDISIM_SYNC_SOB_ADD(1),
		     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
}

static void wreg64(struct hlrt_pkt_buf *b, uint32_t reg_lo, uint64_t v)
{
	hlrt_pkt_wreg(b, reg_lo, (uint32_t)v, 0);
	hlrt_pkt_wreg(b, reg_lo + 4, (uint32_t)(v >> 32), 0);
}

void hlrt_coll_copy(struct coll_launch *l, uint32_t qi, uint64_t dst, uint64_t src,
		    uint64_t bytes, uint32_t which)
{
	uint64_t done = 0;

	while (done < bytes) {
		uint64_t n = bytes - done < (1ull << 30) ? bytes - done : 1ull << 30;

		hlrt_pkt_lin_dma(&l->q[qi], src + done, dst + done, (uint32_t)n, false, 0);
		done += n;
	}
	hlrt_coll_signal(l, qi, which);
}

static uint32_t tpc_dtype(hlrt_dtype t)
{
	return t == HLRT_BF16 ? GAUDISIM_DTYPE_BF16 :
	       t == HLRT_INT32 ? GAUDISIM_DTYPE_INT32 : GAUDISIM_DTYPE_FP32;
}

void hlrt_coll_tpc(struct coll_launch *l, uint32_t qi, enum coll_kernel ki, hlrt_dtype dt,
		   const uint64_t *base, uint32_t nt, uint32_t elems, uint32_t arg0)
{
	const hlrt_comm *c = l->c;
	struct hlrt_pkt_buf *b = &l->q[qi];
	/* vector_add_bf16 takes a tile per member, the rest 64 tiles */
	uint32_t members = ki == COLL_K_ADD_BF16 ? (elems + 63) / 64 : (elems + 4095) / 4096;
	uint32_t t, d;

	wreg64(b, GAUDISIM_TPC_KERNEL_ADDR_LO, c->kernels_addr + c->kernel_off[ki]);
	hlrt_pkt_wreg(b, GAUDISIM_TPC_KERNEL_SIZE, c->kernel_size[ki], 0);
	hlrt_pkt_wreg(b, GAUDISIM_TPC_WATCHDOG, 0, 0);
	if (ki >= COLL_K_SUM_F32)
		hlrt_pkt_wreg(b, GAUDISIM_TPC_ARG(0), arg0, 0);
	for (d = 0; d < 5; d++) {
		hlrt_pkt_wreg(b, GAUDISIM_TPC_ISPACE_SIZE(d), d ? 1 : members, 0);
		hlrt_pkt_wreg(b, GAUDISIM_TPC_PART_START(d), 0, 0);
		hlrt_pkt_wreg(b, GAUDISIM_TPC_PART_SIZE(d), d ? 1 : members, 0);
	}
	for (t = 0; t < nt; t++) {
		uint32_t r = GAUDISIM_TPC_TENSOR(t);

		wreg64(b, r + GAUDISIM_TPC_T_BASE_LO, base[t]);
		hlrt_pkt_wreg(b, r + GAUDISIM_TPC_T_DTYPE, tpc_dtype(dt), 0);
		hlrt_pkt_wreg(b, r + GAUDISIM_TPC_T_PAD, 0, 0);
		for (d = 0; d < 5; d++) {
			hlrt_pkt_wreg(b, r + GAUDISIM_TPC_T_SIZE(d), d ? 1 : elems, 0);
			hlrt_pkt_wreg(b, r + GAUDISIM_TPC_T_STRIDE(d), d ? 0 : 1, 0);
		}
	}
	hlrt_pkt_wreg(b, GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO, 0);
}

void hlrt_coll_xfer(struct coll_launch *l, uint32_t qi, uint64_t src, uint64_t dst,
		    uint32_t bytes, uint32_t remote_sob, uint32_t done)
{
	struct hlrt_pkt_buf *b = &l->q[qi];

	wreg64(b, GAUDISIM_NIC_TX_SRC_LO, src);
	wreg64(b, GAUDISIM_NIC_TX_DST_LO, dst);
	hlrt_pkt_wreg(b, GAUDISIM_NIC_TX_SIZE, bytes, 0);
	hlrt_pkt_wreg(b, GAUDISIM_NIC_TX_REMOTE_SOB,
		      GAUDISIM_NIC_TX_REMOTE_SOB_EN | (remote_sob & GAUDISIM_NIC_TX_REMOTE_SOB_MASK), 0);
	hlrt_pkt_wreg(b, GAUDISIM_NIC_TX_REMOTE_SOB_DATA, GAUDISIM_SYNC_SOB_ADD(1), 0);
	hlrt_pkt_wreg(b, GAUDISIM_NIC_TX_COMMIT, 1, 0);
	hlrt_coll_signal(l, qi, done);
}

/* ---- the ring's and the chain's launch -------------------------------------- */

static uint64_t slot_addr(uint64_t base, uint32_t j)
{
	return base + (uint64_t)(j % COLL_SLOTS) * COLL_SLOT_BYTES;
}

/* Queues that read the working buffers start after the pre-copies. */
static void wait_start(struct coll_launch *l, const struct coll_plan *p, uint32_t qi)
{
	if (qi != Q_DMA && qi != Q_NICC && p->n_pre)
		wait1(l, qi, COLL_SOB_DMA, p->n_pre);
	else
		wait1(l, qi, COLL_SOB_START, 1);
}

/* dst = dst + src over bytes, on one TPC. */
static void emit_add(struct coll_launch *l, uint32_t qi, hlrt_dtype dt, uint64_t dst,
		     uint64_t src, uint32_t bytes)
{
	const uint64_t base[3] = { dst, src, dst };
	enum coll_kernel ki = dt == HLRT_BF16 ? COLL_K_ADD_BF16 :
			      dt == HLRT_INT32 ? COLL_K_ADD_I32 : COLL_K_ADD_F32;

	hlrt_coll_tpc(l, qi, ki, dt, base, 3, bytes / coll_dtype_size(dt), 0);
}

static void emit_queues(struct coll_launch *l, const struct coll_plan *p)
{
	hlrt_comm *c = l->c;
	uint32_t j, k;

	for (k = 0; k < Q_COUNT; k++)
		wait_start(l, p, k);
	for (j = 0; j < p->n_pre; j++)
		hlrt_coll_copy(l, Q_DMA, p->pre[j].dst, p->pre[j].src, p->pre[j].bytes,
			       COLL_SOB_DMA);
	for (j = 0; j < p->n_recv; j++) {
		const struct coll_recv *rv = &p->recv[j];
		uint32_t qi = rv->reduce ? Q_TPC0 + rv->tpc : Q_DMA;
		struct coll_cond cd = { rv->done.sob, rv->done.value };

		wait1(l, qi, COLL_SOB_ARRIVE, j + 1);
		if (rv->reduce) {
			if (rv->bytes)
				emit_add(l, qi, p->dtype, rv->dst, slot_addr(c->recv_base, j),
					 rv->bytes);
			hlrt_coll_signal(l, qi, COLL_SOB_TPC0 + rv->tpc);
		} else if (rv->bytes) {
			hlrt_coll_copy(l, Q_DMA, rv->dst, slot_addr(c->recv_base, j), rv->bytes,
				       COLL_SOB_DMA);
		} else {
			hlrt_coll_signal(l, Q_DMA, COLL_SOB_DMA);
		}
		/* the slot is free again: tell the left */
		hlrt_coll_wait(l, Q_NICC, &cd, 1);
		hlrt_coll_xfer(l, Q_NICC, c->recv_base, c->peers[c->left.rank].recv_base, 0,
			       hlrt_coll_set(c, c->left.rank, false) + COLL_SOB_CREDIT,
			       COLL_SOB_CREDITED);
	}
	if (p->n_post) {
		struct coll_cond cs[COLL_NUM_TPC];

		for (k = 0; k < COLL_NUM_TPC; k++)
			cs[k] = (struct coll_cond){ COLL_SOB_TPC0 + k, p->n_tpc[k] };
		hlrt_coll_wait(l, Q_DMA, cs, COLL_NUM_TPC);
		/* and the copies in before it (in order on this queue already) */
		for (j = 0; j < p->n_post; j++)
			hlrt_coll_copy(l, Q_DMA, p->post[j].dst, p->post[j].src, p->post[j].bytes,
				       COLL_SOB_DMA);
	}
	for (j = 0; j < p->n_send; j++) {
		const struct coll_send *sd = &p->send[j];
		struct coll_cond cs[2] = {
			{ COLL_SOB_CREDIT, j >= COLL_SLOTS ? j + 1 - COLL_SLOTS : 0 },
			{ sd->after.sob == COLL_DEP_NONE ? 0 : sd->after.sob,
			  sd->after.sob == COLL_DEP_NONE ? 0 : sd->after.value },
		};

		hlrt_coll_wait(l, Q_NICD, cs, 2);
		hlrt_coll_xfer(l, Q_NICD, sd->src, slot_addr(c->peers[c->right.rank].recv_base, j),
			       sd->bytes, hlrt_coll_set(c, c->right.rank, false) + COLL_SOB_ARRIVE,
			       COLL_SOB_SENT);
	}
}

hlrt_status hlrt_coll_launch(hlrt_comm *c, const struct coll_plan *p, hlrt_stream *stream,
			     const struct coll_key *key)
{
	struct coll_launch l;
	struct coll_cond totals[MAX_CONDS];
	uint32_t k, n = 0;
	hlrt_status st = hlrt_coll_launch_init(&l, c, false);

	if (st)
		return st;
	hlrt_coll_add_queue(&l, GAUDISIM_QUEUE_ID_DMA_2_0, NULL, 0);
	for (k = 0; k < COLL_NUM_TPC; k++)
		hlrt_coll_add_queue(&l, GAUDISIM_QUEUE_ID_TPC_0_0 + GAUDISIM_STREAMS_PER_QMAN * k,
				    NULL, 0);
	hlrt_coll_add_queue(&l, c->right.queue_data, c->nic_mon[0], COLL_NIC_MONS);
	hlrt_coll_add_queue(&l, c->left.queue_credit, c->nic_mon[1], COLL_NIC_MONS);
	emit_queues(&l, p);
	l.used[Q_DMA] = p->n_dma;
	for (k = 0; k < COLL_NUM_TPC; k++)
		l.used[Q_TPC0 + k] = p->n_tpc[k];
	l.used[Q_NICD] = p->n_send;
	l.used[Q_NICC] = p->n_recv;
	totals[n++] = (struct coll_cond){ COLL_SOB_DMA, p->n_dma };
	for (k = 0; k < COLL_NUM_TPC; k++)
		totals[n++] = (struct coll_cond){ COLL_SOB_TPC0 + k, p->n_tpc[k] };
	totals[n++] = (struct coll_cond){ COLL_SOB_SENT, p->n_send };
	totals[n++] = (struct coll_cond){ COLL_SOB_CREDITED, p->n_recv };
	totals[n++] = (struct coll_cond){ COLL_SOB_CREDIT, p->n_send };
	totals[n++] = (struct coll_cond){ COLL_SOB_ARRIVE, p->n_recv };
	return hlrt_coll_launch_submit(&l, stream, totals, n, key);
}

/* Start, wait for every count, clear the set. */
static hlrt_status ext_body(struct coll_launch *l, hlrt_stream *s, struct hlrt_pkt_buf *b,
			    const struct coll_cond *totals, uint32_t n)
{
	const uint32_t *pool = hlrt_device_queue_monitors(l->c->dev, s->ext_queue);
	uint32_t i;

	if (hlrt_pkt_init(b, 128))
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "collective");
	hlrt_pkt_sob(b, l->set + COLL_SOB_START, GAUDISIM_SYNC_SOB_ADD(1),
		     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
	wait_abs(b, pool, HLRT_MONS_PER_QUEUE, l->set, totals, n);
	/* each counter ends at its total: only those above 0 need clearing */
	hlrt_pkt_sob(b, l->set + COLL_SOB_START, GAUDISIM_SYNC_SOB_SET(0), GAUDISIM_PKT_CTL_MB);
	for (i = 0; i < n; i++)
		if (totals[i].value)
			hlrt_pkt_sob(b, l->set + totals[i].which, GAUDISIM_SYNC_SOB_SET(0),
				     GAUDISIM_PKT_CTL_MB);
	return b->oom ? hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "collective") : HLRT_SUCCESS;
}

/*
 * The CB area for this launch, the least recently used one (what it held
 * is forgotten): the launch that used it last is done.
 */
static hlrt_status take_area(hlrt_comm *c, uint32_t *area, uint64_t *addr)
{
	uint32_t a = 0, i;
	int rc;

	for (i = 1; i < COLL_CB_AREAS; i++)
		if (c->cached[i].last_use < c->cached[a].last_use)
			a = i;
	if (c->cb_seq[a]) {
		rc = c->dev->be->ops->wait(c->dev->be, c->cb_seq[a], WAIT_US);
		if (rc) {
			c->broken = true;
			return rc == -ETIMEDOUT ?
			       hlrt_fail(HLRT_TIMEOUT, "an earlier collective did not finish") :
			       hlrt_fail(HLRT_DEVICE_ERROR, "an earlier collective failed");
		}
		c->cb_seq[a] = 0;
	}
	free(c->cached[a].ext);
	c->cached[a] = (struct coll_cached){ 0 };
	*area = a;
	*addr = c->cb_addr + (uint64_t)a * COLL_CB_AREA_BYTES;
	return HLRT_SUCCESS;
}

static bool same_key(const struct coll_key *a, const struct coll_key *b)
{
	return a->op == b->op && a->dtype == b->dtype && a->send == b->send &&
	       a->recv == b->recv && a->count == b->count && a->first == b->first &&
	       a->aux == b->aux && a->direct == b->direct;
}

/* Submit jobs and the external body as launch number c->launches + 1 from area a. */
static hlrt_status submit(hlrt_comm *c, hlrt_stream *stream, uint32_t a, bool direct,
			  const struct hlrt_be_job *jobs, uint32_t n_jobs,
			  const uint32_t *body, uint32_t n_body)
{
	struct hlrt_be_ext ext = { .body = body, .n_body = n_body };
	hlrt_status st = hlrt_stream_submit(stream, jobs, n_jobs, &ext);

	if (st) {
		c->broken = true;
		return st;
	}
	c->cb_seq[a] = stream->last_seq;
	c->cached[a].last_use = ++c->launches;
	if (direct) {
		c->direct_parity ^= 1;
		c->direct_launches++;
	} else {
		c->parity ^= 1;
	}
	c->last_stream = stream;
	return HLRT_SUCCESS;
}

/*
 * The CBs in an area name this launch's sync-object set, buffers and the
 * peers' slots, and nothing that changes between launches: resubmitting
 * them while an earlier submission of theirs still runs is safe, the
 * device only reads them.
 */
hlrt_status hlrt_coll_relaunch(hlrt_comm *c, const struct coll_key *key, hlrt_stream *stream,
			       bool *done)
{
	uint32_t a;
	hlrt_status st;

	*done = false;
	if (c->broken)
		return hlrt_fail(HLRT_DEVICE_ERROR,
				 "the communicator failed earlier: destroy it and create another");
	for (a = 0; a < COLL_CB_AREAS; a++) {
		const struct coll_cached *h = &c->cached[a];

		if (!h->valid || !same_key(&h->key, key) ||
		    h->parity != (key->direct ? c->direct_parity : c->parity))
			continue;
		st = submit(c, stream, a, key->direct, h->jobs, h->n_jobs, h->ext, h->n_ext);
		if (!st) {
			c->relaunches++;
			*done = true;
		}
		return st;
	}
	return HLRT_SUCCESS;
}

void hlrt_coll_forget_cbs(hlrt_comm *c)
{
	uint32_t a;

	for (a = 0; a < COLL_CB_AREAS; a++) {
		free(c->cached[a].ext);
		c->cached[a] = (struct coll_cached){ 0 };
	}
}

/* Keep what area a now holds for hlrt_coll_relaunch() (best effort). */
static void remember(hlrt_comm *c, uint32_t a, const struct coll_key *key, uint32_t parity,
		     const struct hlrt_be_job *jobs, uint32_t n_jobs, const struct hlrt_pkt_buf *eb)
{
	struct coll_cached *h = &c->cached[a];

	h->ext = malloc(eb->n * sizeof(*eb->dw));
	if (!h->ext)
		return;
	memcpy(h->ext, eb->dw, eb->n * sizeof(*eb->dw));
	h->n_ext = eb->n;
	memcpy(h->jobs, jobs, n_jobs * sizeof(*jobs));
	h->n_jobs = n_jobs;
	h->key = *key;
	h->parity = parity;
	h->valid = true;
}

void hlrt_coll_launch_free(struct coll_launch *l)
{
	uint32_t k;

	for (k = 0; k < l->n_q; k++)
		hlrt_pkt_free(&l->q[k]);
	l->n_q = 0;
}

hlrt_status hlrt_coll_launch_submit(struct coll_launch *l, hlrt_stream *stream,
				    const struct coll_cond *totals, uint32_t n_totals,
				    const struct coll_key *key)
{
	hlrt_comm *c = l->c;
	struct hlrt_be_job jobs[COLL_MAX_JOBS];
	struct hlrt_pkt_buf eb = { 0 };
	uint32_t k, n_jobs = 0, off = 0, a = 0;
	uint32_t parity = l->direct ? c->direct_parity : c->parity;
	uint64_t area = 0;
	uint8_t *img = NULL;
	hlrt_status st;

	st = ext_body(l, stream, &eb, totals, n_totals);
	if (st)
		goto out;
	st = take_area(c, &a, &area);
	if (st)
		goto out;
	img = malloc(COLL_CB_AREA_BYTES);
	if (!img) {
		st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "collective");
		goto out;
	}
	for (k = 0; k < l->n_q; k++) {
		uint32_t bytes = l->q[k].n * 4;

		if (l->q[k].oom) {
			st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "collective");
			goto out;
		}
		if (!l->used[k])
			continue;
		if (bytes > GAUDISIM_CB_MAX_SIZE || off + bytes > COLL_CB_AREA_BYTES) {
			st = hlrt_fail(HLRT_INTERNAL, "collective CBs of %u bytes do not fit",
				       off + bytes);
			goto out;
		}
		memcpy(img + off, l->q[k].dw, bytes);
		jobs[n_jobs].queue = l->queue[k];
		jobs[n_jobs].size = bytes;
		jobs[n_jobs].cb_addr = area + off;
		n_jobs++;
		off = (uint32_t)hlrt_align_up(off + bytes, CB_ALIGN);
	}
	if (off)
		st = hlrt_memcpy_h2d(c->dev, area, img, off);
	if (!st)
		st = submit(c, stream, a, l->direct, jobs, n_jobs, eb.dw, eb.n);
	if (!st && key)
		remember(c, a, key, parity, jobs, n_jobs, &eb);
out:
	free(img);
	hlrt_pkt_free(&eb);
	hlrt_coll_launch_free(l);
	return st;
}
