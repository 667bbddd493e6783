// SPDX-License-Identifier: MIT
/*
 * A plan as command buffers, one launch on the stream. The queues:
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
 * and a FENCE; no host round trip. Two sets of sync objects alternate
 * between launches: a peer can touch set p again only in launch k + 2,
 * which needs this rank's part of launch k + 1, which starts after this
 * rank cleared set p at the end of launch k.
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

enum { Q_DMA = 0, Q_TPC0, Q_NICD = Q_TPC0 + COLL_NUM_TPC, Q_NICC, Q_COUNT };
_Static_assert(Q_COUNT <= COLL_MAX_JOBS, "a launch's jobs fit struct coll_cached");

struct cond {
	uint32_t sob, value;	/* absolute SOB index */
};

struct emitter {
	hlrt_comm *c;
	const struct coll_plan *p;
	uint32_t set;		/* first SOB of this launch's set */
	struct hlrt_pkt_buf q[Q_COUNT];
	const uint32_t *pool[Q_COUNT];
	uint32_t pool_n[Q_COUNT];
	uint32_t queue[Q_COUNT];
};

static uint32_t peer_sob(const hlrt_comm *c, uint32_t rank, uint32_t parity, uint32_t which)
{
	return c->peers[rank].sob_first + parity * COLL_SOBS_PER_SET + which;
}

/* Arm a monitor per condition (value 0 needs none) and fence on them. */
#define MAX_CONDS	(6 + COLL_NUM_TPC)
static void wait_conds(struct hlrt_pkt_buf *b, const uint32_t *pool, uint32_t pool_n,
		       const struct cond *cs, uint32_t n)
{
	uint32_t arms[MAX_CONDS], i, k = 0;

	for (i = 0; i < n && k < MAX_CONDS; i++)
		if (cs[i].value)
			arms[k++] = GAUDISIM_SYNC_MON_ARM_SOB(cs[i].sob, 0, cs[i].value);
	hlrt_pkt_wait(b, pool, pool_n, arms, k);
}

static void emit_wait(struct emitter *e, uint32_t qi, const struct cond *cs, uint32_t n)
{
	wait_conds(&e->q[qi], e->pool[qi], e->pool_n[qi], cs, n);
}

static void wait1(struct emitter *e, uint32_t qi, uint32_t which, uint32_t value)
{
	struct cond cd = { e->set + which, value };

	emit_wait(e, qi, &cd, 1);
}

/* Work done on this queue: +1 on our counter once the engine is idle. */
static void signal_done(struct emitter *e, uint32_t qi, uint32_t which)
{
	hlrt_pkt_sob(&e->q[qi], e->set + which, GAUDISIM_SYNC_SOB_ADD(1),
		     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
}

/* Queues that read the working buffers start after the pre-copies. */
static void wait_start(struct emitter *e, uint32_t qi)
{
	if (qi != Q_DMA && qi != Q_NICC && e->p->n_pre)
		wait1(e, qi, COLL_SOB_DMA, e->p->n_pre);
	else
		wait1(e, qi, COLL_SOB_START, 1);
}

static void wreg64(struct hlrt_pkt_buf *b, uint32_t reg_lo, uint64_t v)
{
	hlrt_pkt_wreg(b, reg_lo, (uint32_t)v, 0);
	hlrt_pkt_wreg(b, reg_lo + 4, (uint32_t)(v >> 32), 0);
}

static void emit_copy(struct emitter *e, uint64_t dst, uint64_t src, uint64_t bytes)
{
	uint64_t done = 0;

	while (done < bytes) {
		uint64_t n = bytes - done < (1ull << 30) ? bytes - done : 1ull << 30;

		hlrt_pkt_lin_dma(&e->q[Q_DMA], src + done, dst + done, (uint32_t)n, false, 0);
		done += n;
	}
	signal_done(e, Q_DMA, COLL_SOB_DMA);
}

static uint32_t tpc_dtype(hlrt_dtype t)
{
	return t == HLRT_BF16 ? GAUDISIM_DTYPE_BF16 :
	       t == HLRT_INT32 ? GAUDISIM_DTYPE_INT32 : GAUDISIM_DTYPE_FP32;
}

/* dst = dst + src over n elements, on one TPC. */
static void emit_add(struct emitter *e, uint32_t qi, uint64_t dst, uint64_t src, uint32_t bytes)
{
	const hlrt_comm *c = e->c;
	struct hlrt_pkt_buf *b = &e->q[qi];
	hlrt_dtype dt = e->p->dtype;
	uint32_t ki = dt == HLRT_BF16 ? 1 : dt == HLRT_INT32 ? 2 : 0;
	uint32_t n = bytes / coll_dtype_size(dt), t, d;
	uint32_t members = dt == HLRT_BF16 ? (n + 63) / 64 : (n + 4095) / 4096;
	const uint64_t base[3] = { dst, src, dst };

	wreg64(b, GAUDISIM_TPC_KERNEL_ADDR_LO, c->kernels_addr + c->kernel_off[ki]);
	hlrt_pkt_wreg(b, GAUDISIM_TPC_KERNEL_SIZE, c->kernel_size[ki], 0);
	hlrt_pkt_wreg(b, GAUDISIM_TPC_WATCHDOG, 0, 0);
	for (d = 0; d < 5; d++) {
		hlrt_pkt_wreg(b, GAUDISIM_TPC_ISPACE_SIZE(d), d ? 1 : members, 0);
		hlrt_pkt_wreg(b, GAUDISIM_TPC_PART_START(d), 0, 0);
		hlrt_pkt_wreg(b, GAUDISIM_TPC_PART_SIZE(d), d ? 1 : members, 0);
	}
	for (t = 0; t < 3; t++) {
		uint32_t r = GAUDISIM_TPC_TENSOR(t);

		wreg64(b, r + GAUDISIM_TPC_T_BASE_LO, base[t]);
		hlrt_pkt_wreg(b, r + GAUDISIM_TPC_T_DTYPE, tpc_dtype(dt), 0);
		hlrt_pkt_wreg(b, r + GAUDISIM_TPC_T_PAD, 0, 0);
		for (d = 0; d < 5; d++) {
			hlrt_pkt_wreg(b, r + GAUDISIM_TPC_T_SIZE(d), d ? 1 : n, 0);
			hlrt_pkt_wreg(b, r + GAUDISIM_TPC_T_STRIDE(d), d ? 0 : 1, 0);
		}
	}
	hlrt_pkt_wreg(b, GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO, 0);
}

/* One NIC transfer: bytes from src into dst on the peer, then +1 on its SOB. */
static void emit_xfer(struct emitter *e, uint32_t qi, uint64_t src, uint64_t dst,
		      uint32_t bytes, uint32_t remote_sob, uint32_t done)
{
	struct hlrt_pkt_buf *b = &e->q[qi];

	wreg64(b, GAUDISIM_NIC_TX_SRC_LO, src);
	wreg64(b, GAUDISIM_NIC_TX_DST_LO, dst);
	hlrt_pkt_wreg(b, GAUDISIM_NIC_TX_SIZE, bytes, 0);
	hlrt_pkt_wreg(b, GAUDISIM_NIC_TX_REMOTE_SOB,
		      GAUDISIM_NIC_TX_REMOTE_SOB_EN | (remote_sob & GAUDISIM_NIC_TX_REMOTE_SOB_MASK), 0);
	hlrt_pkt_wreg(b, GAUDISIM_NIC_TX_REMOTE_SOB_DATA, GAUDISIM_SYNC_SOB_ADD(1), 0);
	hlrt_pkt_wreg(b, GAUDISIM_NIC_TX_COMMIT, 1, 0);
	signal_done(e, qi, done);
}

static uint64_t slot_addr(uint64_t base, uint32_t j)
{
	return base + (uint64_t)(j % COLL_SLOTS) * COLL_SLOT_BYTES;
}

static void emit_queues(struct emitter *e)
{
	const struct coll_plan *p = e->p;
	hlrt_comm *c = e->c;
	uint32_t j, k, par = c->parity;

	for (k = 0; k < Q_COUNT; k++)
		wait_start(e, k);
	for (j = 0; j < p->n_pre; j++)
		emit_copy(e, p->pre[j].dst, p->pre[j].src, p->pre[j].bytes);
	for (j = 0; j < p->n_recv; j++) {
		const struct coll_recv *rv = &p->recv[j];
		uint32_t qi = rv->reduce ? Q_TPC0 + rv->tpc : Q_DMA;
		struct cond cd = { e->set + rv->done.sob, rv->done.value };

		wait1(e, qi, COLL_SOB_ARRIVE, j + 1);
		if (rv->reduce) {
			if (rv->bytes)
				emit_add(e, qi, rv->dst, slot_addr(c->recv_base, j), rv->bytes);
			signal_done(e, qi, COLL_SOB_TPC0 + rv->tpc);
		} else if (rv->bytes) {
			emit_copy(e, rv->dst, slot_addr(c->recv_base, j), rv->bytes);
		} else {
			signal_done(e, Q_DMA, COLL_SOB_DMA);
		}
		/* the slot is free again: tell the left */
		emit_wait(e, Q_NICC, &cd, 1);
		emit_xfer(e, Q_NICC, c->recv_base, c->peers[c->left.rank].recv_base, 0,
			  peer_sob(c, c->left.rank, par, COLL_SOB_CREDIT), COLL_SOB_CREDITED);
	}
	if (p->n_post) {
		struct cond cs[COLL_NUM_TPC];

		for (k = 0; k < COLL_NUM_TPC; k++) {
			cs[k].sob = e->set + COLL_SOB_TPC0 + k;
			cs[k].value = p->n_tpc[k];
		}
		emit_wait(e, Q_DMA, cs, COLL_NUM_TPC);
		/* and the copies in before it (in order on this queue already) */
		for (j = 0; j < p->n_post; j++)
			emit_copy(e, p->post[j].dst, p->post[j].src, p->post[j].bytes);
	}
	for (j = 0; j < p->n_send; j++) {
		const struct coll_send *sd = &p->send[j];
		struct cond cs[2] = {
			{ e->set + COLL_SOB_CREDIT, j >= COLL_SLOTS ? j + 1 - COLL_SLOTS : 0 },
			{ e->set + (sd->after.sob == COLL_DEP_NONE ? 0 : sd->after.sob),
			  sd->after.sob == COLL_DEP_NONE ? 0 : sd->after.value },
		};

		emit_wait(e, Q_NICD, cs, 2);
		emit_xfer(e, Q_NICD, sd->src, slot_addr(c->peers[c->right.rank].recv_base, j),
			  sd->bytes, peer_sob(c, c->right.rank, par, COLL_SOB_ARRIVE), COLL_SOB_SENT);
	}
}

/* Start, wait for every count, clear the set. */
static hlrt_status ext_body(struct emitter *e, hlrt_stream *s, struct hlrt_pkt_buf *b)
{
	const struct coll_plan *p = e->p;
	const uint32_t *pool = hlrt_device_queue_monitors(e->c->dev, s->ext_queue);
	struct cond cs[MAX_CONDS];
	uint32_t n = 0, i, k;

	if (hlrt_pkt_init(b, 128))
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "collective");
	hlrt_pkt_sob(b, e->set + COLL_SOB_START, GAUDISIM_SYNC_SOB_ADD(1),
		     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
	cs[n++] = (struct cond){ e->set + COLL_SOB_DMA, p->n_dma };
	for (k = 0; k < COLL_NUM_TPC; k++)
		cs[n++] = (struct cond){ e->set + COLL_SOB_TPC0 + k, p->n_tpc[k] };
	cs[n++] = (struct cond){ e->set + COLL_SOB_SENT, p->n_send };
	cs[n++] = (struct cond){ e->set + COLL_SOB_CREDITED, p->n_recv };
	cs[n++] = (struct cond){ e->set + COLL_SOB_CREDIT, p->n_send };
	cs[n++] = (struct cond){ e->set + COLL_SOB_ARRIVE, p->n_recv };
	wait_conds(b, pool, HLRT_MONS_PER_QUEUE, cs, n);
	/* each counter ends at its total: only those above 0 need clearing */
	hlrt_pkt_sob(b, e->set + COLL_SOB_START, GAUDISIM_SYNC_SOB_SET(0), GAUDISIM_PKT_CTL_MB);
	for (i = 0; i < n; i++)
		if (cs[i].value)
			hlrt_pkt_sob(b, cs[i].sob, GAUDISIM_SYNC_SOB_SET(0), GAUDISIM_PKT_CTL_MB);
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
	       a->aux == b->aux;
}

/* Submit jobs and the external body as launch number c->launches + 1 from area a. */
static hlrt_status submit(hlrt_comm *c, hlrt_stream *stream, uint32_t a,
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
	c->parity ^= 1;
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

		if (!h->valid || h->parity != c->parity || !same_key(&h->key, key))
			continue;
		st = submit(c, stream, a, h->jobs, h->n_jobs, h->ext, h->n_ext);
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

hlrt_status hlrt_coll_launch(hlrt_comm *c, const struct coll_plan *p, hlrt_stream *stream,
			     const struct coll_key *key)
{
	struct emitter e = { .c = c, .p = p };
	struct hlrt_be_job jobs[Q_COUNT];
	struct hlrt_pkt_buf eb = { 0 };
	uint32_t k, n_jobs = 0, off = 0, a = 0, parity = c->parity;
	uint64_t area = 0;
	uint8_t *img = NULL;
	hlrt_status st;

	if (c->broken)
		return hlrt_fail(HLRT_DEVICE_ERROR,
				 "the communicator failed earlier: destroy it and create another");
	e.set = c->sob_first + c->parity * COLL_SOBS_PER_SET;
	e.queue[Q_DMA] = GAUDISIM_QUEUE_ID_DMA_2_0;
	for (k = 0; k < COLL_NUM_TPC; k++)
		e.queue[Q_TPC0 + k] = GAUDISIM_QUEUE_ID_TPC_0_0 + GAUDISIM_STREAMS_PER_QMAN * k;
	for (k = 0; k < Q_NICD; k++) {
		e.pool[k] = hlrt_device_queue_monitors(c->dev, e.queue[k]);
		e.pool_n[k] = HLRT_MONS_PER_QUEUE;
	}
	e.queue[Q_NICD] = c->right.queue_data;
	e.queue[Q_NICC] = c->left.queue_credit;
	e.pool[Q_NICD] = c->nic_mon[0];
	e.pool[Q_NICC] = c->nic_mon[1];
	e.pool_n[Q_NICD] = e.pool_n[Q_NICC] = COLL_NIC_MONS;
	for (k = 0; k < Q_COUNT; k++) {
		if (hlrt_pkt_init(&e.q[k], 1024)) {
			st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "collective");
			goto out;
		}
	}
	emit_queues(&e);
	st = ext_body(&e, stream, &eb);
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
	for (k = 0; k < Q_COUNT; k++) {
		uint32_t bytes = e.q[k].n * 4;
		bool used = k == Q_DMA ? p->n_dma :
			    k == Q_NICD ? p->n_send :
			    k == Q_NICC ? p->n_recv : p->n_tpc[k - Q_TPC0];

		if (e.q[k].oom) {
			st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "collective");
			goto out;
		}
		if (!used)
			continue;
		if (bytes > GAUDISIM_CB_MAX_SIZE || off + bytes > COLL_CB_AREA_BYTES) {
			st = hlrt_fail(HLRT_INTERNAL, "collective CBs of %u bytes do not fit",
				       off + bytes);
			goto out;
		}
		memcpy(img + off, e.q[k].dw, bytes);
		jobs[n_jobs].queue = e.queue[k];
		jobs[n_jobs].size = bytes;
		jobs[n_jobs].cb_addr = area + off;
		n_jobs++;
		off = (uint32_t)hlrt_align_up(off + bytes, CB_ALIGN);
	}
	if (off)
		st = hlrt_memcpy_h2d(c->dev, area, img, off);
	if (!st)
		st = submit(c, stream, a, jobs, n_jobs, eb.dw, eb.n);
	if (!st && key)
		remember(c, a, key, parity, jobs, n_jobs, &eb);
out:
	free(img);
	hlrt_pkt_free(&eb);
	for (k = 0; k < Q_COUNT; k++)
		hlrt_pkt_free(&e.q[k]);
	return st;
}
