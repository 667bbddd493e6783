// SPDX-License-Identifier: MIT
/*
 * Schedule and sync chaining: a recipe becomes, on one device, one
 * command buffer per engine queue for each segment of device work, placed
 * in HBM, plus the body of the launch's external job.
 *
 * Every work w has a sync object SOB(w); each engine that runs part of w
 * adds its share to it when done (an engine-barrier MSG_SHORT), the
 * shares summing to 8. A work waits for its dependencies on other queues
 * by arming monitors of its queue's pool (SOB >= 8 -> +1 on the queue's
 * fence 0) and a FENCE for their number: the engines chain without a
 * host round trip. Each queue first waits for the segment's start SOB,
 * which the external job raises after the launch's host -> device
 * copies; the external job then waits for every work and resets the
 * segment's sync objects. Two sets of sync objects alternate between
 * launches, so a queue that starts launch k+1 early never sees launch
 * k's counts. Addresses of persistent tensors, the workspace, constants
 * and kernels are patch points, filled in at launch.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "device/hlrt_cb.h"
#include "hw/gaudisim_hw_mme.h"
#include "gaudisim_accel.h"
#include "hw/gaudisim_hw_tpc.h"

#define SOB_DONE	8	/* a work's sync object when it has finished */
#define MAX_QUEUES	HLRT_SEG_QUEUES

struct emit {
	hlrt_device *dev;
	struct hlrt_recipe *r;
	struct loaded_recipe *lr;
	struct seg_image *seg;
	uint32_t parity;
	struct hlrt_pkt_buf q[MAX_QUEUES];	/* per queue slot (MME, TPC 0..7, DMA) */
	bool started[MAX_QUEUES];
	uint32_t cb_index[MAX_QUEUES];		/* image CB of the queue in this segment */
};

static uint32_t slot_queue(uint32_t slot)
{
	if (slot == 0)
		return GAUDISIM_QUEUE_ID_MME_0;
	if (slot <= GAUDISIM_NUM_TPC)
		return GAUDISIM_QUEUE_ID_TPC_0_0 + GAUDISIM_STREAMS_PER_QMAN * (slot - 1);
	return GAUDISIM_QUEUE_ID_DMA_2_0;
}

/*
 * A TPC work's size in bundles, roughly: per member, its kernel's bundles
 * plus two (a load and a store) per 64-element tile of the widest row a
 * member covers, for the kernels that loop over a row (an upper bound for
 * those that load and store a tile in one bundle, as the row gather
 * does). The rows are those of the tensors laid over the index space (as
 * many rows as it has in dimension 1), not those a member only looks up
 * in (a gather's index).
 */
static uint64_t work_bundles(const struct hlrt_recipe *r, const struct rwork *w,
			     uint64_t members)
{
	uint64_t row_tiles = 0, across = w->ispace[0] ? w->ispace[0] : 1;
	uint32_t t;

	for (t = 0; t < w->n_tensors; t++) {
		uint64_t tiles = (((uint64_t)w->t[t].size[0] + 63) / 64 + across - 1) / across;

		if (w->t[t].size[1] != w->ispace[1])
			continue;
		if (tiles > row_tiles)
			row_tiles = tiles;
	}
	return members * (r->kernels[w->kernel].size / GAUDISIM_TPC_BUNDLE_SIZE + 2 * row_tiles);
}

/*
 * How many TPCs a work's index space is split over: all of the recipe's
 * TPCs, but no more than give each at least HLRT_TPC_MIN_MEMBERS members,
 * and no more than it takes to keep each part within
 * HLRT_TPC_PART_WORK bundles. Every TPC of a split is a job of its own
 * (its queue's packets, a start, a sync share), which costs more than a
 * few members of work; a small node on fewer TPCs finishes sooner. The
 * results do not depend on it: a member's outputs depend on its
 * coordinates only (a kernel writes a register before it reads it in a
 * member, docs/tpc-isa.md, and nothing combines across members).
 */
uint32_t hlrt_work_tpc_split(const struct hlrt_recipe *r, const struct rwork *w,
			     struct gaudisim_tpc_part *parts)
{
	uint64_t members = 1, by_members, by_work;
	uint32_t d, max_parts = r->num_tpc;

	/* All members (the work's size needs them), capped at 2^32. */
	for (d = 0; d < 5 && members <= UINT32_MAX; d++)
		members *= w->ispace[d];
	if (members > (1ull << 32))
		members = 1ull << 32;
	by_members = members / HLRT_TPC_MIN_MEMBERS;
	by_work = (work_bundles(r, w, members) + HLRT_TPC_PART_WORK - 1) / HLRT_TPC_PART_WORK;
	if (by_members < max_parts)
		max_parts = by_members ? (uint32_t)by_members : 1;
	if (by_work < max_parts)
		max_parts = by_work ? (uint32_t)by_work : 1;
	return gaudisim_tpc_split(w->ispace, max_parts, parts);
}

/* The queue slots a work runs on, and its TPC parts. */
static uint32_t work_slots(const struct hlrt_recipe *r, const struct rwork *w, uint32_t *slots,
			   struct gaudisim_tpc_part *parts)
{
	uint32_t n, i;

	switch (w->engine) {
	case ENG_MME:
		slots[0] = 0;
		return 1;
	case ENG_DMA:
		slots[0] = MAX_QUEUES - 1;
		return 1;
	case ENG_TPC:
		n = hlrt_work_tpc_split(r, w, parts);
		for (i = 0; i < n; i++)
			slots[i] = 1 + i;
		return n;
	default:
		return 0;
	}
}

static hlrt_status add_patch(struct emit *e, uint32_t slot, uint32_t dword, uint32_t rt,
			     uint32_t hi, uint64_t addend)
{
	struct loaded_recipe *lr = e->lr;
	struct patch_point *p;

	if (lr->n_patches == lr->cap_patches) {
		uint32_t cap = lr->cap_patches ? 2 * lr->cap_patches : 256;

		p = realloc(lr->patches, sizeof(*p) * cap);
		if (!p)
			return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "patch table");
		lr->patches = p;
		lr->cap_patches = cap;
	}
	p = &lr->patches[lr->n_patches++];
	p->cb = e->cb_index[slot];
	p->dword = dword;
	p->rt = rt;
	p->hi = hi;
	p->addend = addend;
	return HLRT_SUCCESS;
}

/* WREG_32 of an address pair: both values are patch points. */
static hlrt_status wreg_addr(struct emit *e, uint32_t slot, uint32_t reg_lo, struct raddr a)
{
	struct hlrt_pkt_buf *b = &e->q[slot];
	hlrt_status st = add_patch(e, slot, b->n, a.tensor, 0, a.offset);

	hlrt_pkt_wreg(b, reg_lo, 0, 0);
	if (!st)
		st = add_patch(e, slot, b->n, a.tensor, 1, a.offset);
	hlrt_pkt_wreg(b, reg_lo + 4, 0, 0);
	return st;
}

static hlrt_status emit_tpc(struct emit *e, uint32_t slot, const struct rwork *w,
			    const struct gaudisim_tpc_part *part)
{
	struct hlrt_pkt_buf *b = &e->q[slot];
	const struct rkernel *k = &e->r->kernels[w->kernel];
	hlrt_status st;
	uint32_t d, t;

	st = wreg_addr(e, slot, GAUDISIM_TPC_KERNEL_ADDR_LO,
		       (struct raddr){ .tensor = RADDR_CODE | w->kernel });
	if (st)
		return st;
	hlrt_pkt_wreg(b, GAUDISIM_TPC_KERNEL_SIZE, k->size, 0);
	hlrt_pkt_wreg(b, GAUDISIM_TPC_WATCHDOG, 0, 0);
	for (d = 0; d < 5; d++) {
		hlrt_pkt_wreg(b, GAUDISIM_TPC_ISPACE_SIZE(d), w->ispace[d], 0);
		hlrt_pkt_wreg(b, GAUDISIM_TPC_PART_START(d), part->start[d], 0);
		hlrt_pkt_wreg(b, GAUDISIM_TPC_PART_SIZE(d), part->size[d], 0);
	}
	for (d = 0; d < w->n_args; d++)
		hlrt_pkt_wreg(b, GAUDISIM_TPC_ARG(d), w->args[d], 0);
	for (t = 0; t < w->n_tensors; t++) {
		const struct rtpc_tensor *td = &w->t[t];
		uint32_t base = GAUDISIM_TPC_TENSOR(t);

		st = wreg_addr(e, slot, base + GAUDISIM_TPC_T_BASE_LO, td->base);
		if (st)
			return st;
		hlrt_pkt_wreg(b, base + GAUDISIM_TPC_T_DTYPE, td->dtype, 0);
		hlrt_pkt_wreg(b, base + GAUDISIM_TPC_T_PAD, td->pad_value, 0);
		for (d = 0; d < 5; d++) {
			hlrt_pkt_wreg(b, base + GAUDISIM_TPC_T_SIZE(d), td->size[d], 0);
			hlrt_pkt_wreg(b, base + GAUDISIM_TPC_T_STRIDE(d), td->stride[d], 0);
		}
	}
	hlrt_pkt_wreg(b, GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO, 0);
	return HLRT_SUCCESS;
}

static hlrt_status emit_mme(struct emit *e, const struct rwork *w)
{
	struct hlrt_pkt_buf *b = &e->q[0];
	hlrt_status st = wreg_addr(e, 0, GAUDISIM_MME_A_ADDR_LO, w->a);

	if (!st)
		st = wreg_addr(e, 0, GAUDISIM_MME_B_ADDR_LO, w->b);
	if (!st)
		st = wreg_addr(e, 0, GAUDISIM_MME_C_ADDR_LO, w->c);
	if (!st)
		st = wreg_addr(e, 0, GAUDISIM_MME_D_ADDR_LO, w->d);
	if (st)
		return st;
	hlrt_pkt_wreg(b, GAUDISIM_MME_M, w->m, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_N, w->n, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_K, w->k, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_BATCH, w->batch, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_LDA, w->lda, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_LDB, w->ldb, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_LDC, w->ldc, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_LDD, w->ldd, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_A_BATCH_STRIDE_LO, (uint32_t)w->sa, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_A_BATCH_STRIDE_HI, (uint32_t)(w->sa >> 32), 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_B_BATCH_STRIDE_LO, (uint32_t)w->sb, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_B_BATCH_STRIDE_HI, (uint32_t)(w->sb >> 32), 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_C_BATCH_STRIDE_LO, (uint32_t)w->sc, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_C_BATCH_STRIDE_HI, (uint32_t)(w->sc >> 32), 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_D_BATCH_STRIDE_LO, (uint32_t)w->sd, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_D_BATCH_STRIDE_HI, (uint32_t)(w->sd >> 32), 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_DTYPE, w->mme_dtype, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_CTRL, w->ctrl, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_ALPHA, w->alpha, 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_BETA, w->beta, 0);
	/* a convolution mode: the geometry registers, from the work's args */
	if (w->ctrl & GAUDISIM_MME_CTRL_OP_MASK)
		for (uint32_t i = 0; i < w->n_args && i < GAUDISIM_MME_CONV_NUM_REGS; i++)
			hlrt_pkt_wreg(b, GAUDISIM_MME_CONV_BASE + 4 * i, w->args[i], 0);
	hlrt_pkt_wreg(b, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO, 0);
	return HLRT_SUCCESS;
}

static hlrt_status emit_dma(struct emit *e, const struct rwork *w)
{
	uint32_t slot = MAX_QUEUES - 1;
	struct hlrt_pkt_buf *b = &e->q[slot];
	uint64_t done = 0;
	hlrt_status st = HLRT_SUCCESS;

	while (done < w->size && !st) {
		uint64_t chunk = w->size - done < (1ull << 30) ? w->size - done : 1ull << 30;
		uint32_t at = b->n;

		if (w->memset) {
			hlrt_pkt_lin_dma(b, w->memset_value, 0, (uint32_t)chunk, true, 0);
		} else {
			hlrt_pkt_lin_dma(b, 0, 0, (uint32_t)chunk, false, 0);
			st = add_patch(e, slot, at + 2, w->src.tensor, 0, w->src.offset + done);
			if (!st)
				st = add_patch(e, slot, at + 3, w->src.tensor, 1,
					       w->src.offset + done);
		}
		if (!st)
			st = add_patch(e, slot, at + 4, w->dst.tensor, 0, w->dst.offset + done);
		if (!st)
			st = add_patch(e, slot, at + 5, w->dst.tensor, 1, w->dst.offset + done);
		done += chunk;
	}
	return st;
}

/* The device clock into the recipe's timestamp buffer (a patch point). */
static hlrt_status emit_timestamp(struct emit *e, uint32_t slot, uint64_t offset,
				  uint32_t barriers)
{
	struct hlrt_pkt_buf *b = &e->q[slot];
	uint32_t at = b->n;
	hlrt_status st;

	hlrt_pkt_timestamp(b, 0, barriers);
	st = add_patch(e, slot, at + 2, RADDR_PROF, 0, offset);
	return st ? st : add_patch(e, slot, at + 3, RADDR_PROF, 1, offset);
}

/*
 * Wait on the queue of slot until every sync object in sobs reaches
 * SOB_DONE: monitors of the queue's pool, one per group of 8 objects,
 * then one FENCE per batch of monitors.
 */
static void emit_wait(struct hlrt_pkt_buf *b, const uint32_t *pool, const uint32_t *sobs,
		      uint32_t n)
{
	uint32_t *arms = n ? malloc(sizeof(*arms) * n) : NULL;
	uint32_t i = 0, k = 0;

	if (n && !arms) {
		b->oom = true;
		return;
	}
	while (i < n) {
		uint32_t group = sobs[i] / GAUDISIM_SYNC_SOBS_PER_GROUP, mask = 0xff;

		while (i < n && sobs[i] / GAUDISIM_SYNC_SOBS_PER_GROUP == group) {
			mask &= ~(1u << (sobs[i] % GAUDISIM_SYNC_SOBS_PER_GROUP));
			i++;
		}
		arms[k++] = GAUDISIM_SYNC_MON_ARM_VALUE(group, mask, 0, SOB_DONE);
	}
	hlrt_pkt_wait(b, pool, HLRT_MONS_PER_QUEUE, arms, k);
	free(arms);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static hlrt_status emit_segment(struct emit *e, uint32_t sob0)
{
	struct seg_image *sg = e->seg;
	const struct hlrt_recipe *r = e->r;
	uint32_t start_sob = sob0, i, j, s;
	uint32_t *waits = malloc(sizeof(uint32_t) * (sg->end_work - sg->first_work + 1));
	hlrt_status st = HLRT_SUCCESS;

	if (!waits)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "schedule");
	for (i = sg->first_work; i < sg->end_work && !st; i++) {
		const struct rwork *w = &r->works[i];
		struct gaudisim_tpc_part parts[GAUDISIM_NUM_TPC];
		uint32_t slots[GAUDISIM_NUM_TPC], n = work_slots(r, w, slots, parts);
		uint32_t sob = sob0 + 1 + (i - sg->first_work);

		if (!n) {
			st = hlrt_fail(HLRT_INTERNAL, "work %u has no engine", i);
			break;
		}
		for (s = 0; s < n && !st; s++) {
			uint32_t slot = slots[s], nw = 0;
			struct hlrt_pkt_buf *b = &e->q[slot];
			const uint32_t *pool = hlrt_device_queue_monitors(e->dev, slot_queue(slot));
			uint32_t inc = SOB_DONE / n + (s < SOB_DONE % n ? 1 : 0);

			if (!e->started[slot]) {
				waits[nw++] = start_sob;
				e->started[slot] = true;
			}
			for (j = 0; j < w->n_deps; j++) {
				const struct rwork *d = &r->works[w->deps[j]];
				struct gaudisim_tpc_part dp[GAUDISIM_NUM_TPC];
				uint32_t ds[GAUDISIM_NUM_TPC], dn;

				if (w->deps[j] < sg->first_work)
					continue;	/* an earlier segment: already done */
				dn = work_slots(r, d, ds, dp);
				if (dn == 1 && ds[0] == slot)
					continue;	/* same queue: in order */
				waits[nw++] = sob0 + 1 + (w->deps[j] - sg->first_work);
			}
			qsort(waits, nw, sizeof(uint32_t), cmp_u32);
			emit_wait(b, pool, waits, nw);
			if (e->lr->profiled && !st)
				st = emit_timestamp(e, slot, hlrt_ts_work(i, slot), 0);
			if (st)
				break;
			if (w->engine == ENG_TPC)
				st = emit_tpc(e, slot, w, &parts[s]);
			else if (w->engine == ENG_MME)
				st = emit_mme(e, w);
			else
				st = emit_dma(e, w);
			/* the end: after the engine is idle (engine barrier) */
			if (e->lr->profiled && !st)
				st = emit_timestamp(e, slot, hlrt_ts_work(i, slot) + 8,
						    GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
			hlrt_pkt_sob(b, sob, GAUDISIM_SYNC_SOB_ADD(inc),
				     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
		}
	}
	free(waits);
	return st;
}

/*
 * The external job of a segment on the queue of one stream: start the
 * engines, wait for every work, reset the segment's sync objects.
 */
hlrt_status hlrt_emit_ext(hlrt_device *dev, struct loaded_recipe *lr, struct seg_image *sg,
			  uint32_t parity, uint32_t stream, uint32_t ext_queue)
{
	uint32_t n = sg->end_work - sg->first_work, sob0 = sg->sob_first[parity], i;
	uint32_t *sobs = malloc(sizeof(uint32_t) * (n + 1));
	uint64_t ts = lr->ts_addr + hlrt_ts_seg(lr->recipe->n_works, (uint32_t)(sg - lr->segs));
	struct hlrt_pkt_buf b;

	if (!sobs || hlrt_pkt_init(&b, 64 + 4 * n)) {
		free(sobs);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "schedule");
	}
	/* the host -> device copies are done (the DMA engine is idle) */
	if (lr->profiled)
		hlrt_pkt_timestamp(&b, ts + 8, GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
	hlrt_pkt_sob(&b, sob0, GAUDISIM_SYNC_SOB_ADD(SOB_DONE),
		     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
	for (i = 0; i < n; i++)
		sobs[i] = sob0 + 1 + i;
	emit_wait(&b, hlrt_device_queue_monitors(dev, ext_queue), sobs, n);
	if (lr->profiled)
		hlrt_pkt_timestamp(&b, ts + 16, GAUDISIM_PKT_CTL_MB);
	for (i = 0; i <= n; i++)
		hlrt_pkt_sob(&b, sob0 + i, GAUDISIM_SYNC_SOB_SET(0), 0);
	free(sobs);
	if (b.oom)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "schedule");
	sg->ext_body[parity][stream] = b.dw;
	sg->ext_n[parity][stream] = b.n;
	return HLRT_SUCCESS;
}

/* Move the queues' packet buffers into the segment's CB images. */
static hlrt_status take_cbs(struct emit *e)
{
	struct seg_image *sg = e->seg;
	struct loaded_recipe *lr = e->lr;
	uint32_t slot;

	for (slot = 0; slot < MAX_QUEUES; slot++) {
		struct cb_image *cb;

		if (!e->started[slot]) {
			hlrt_pkt_free(&e->q[slot]);
			continue;
		}
		if (e->q[slot].oom)
			return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "schedule");
		cb = &lr->cbs[e->cb_index[slot]];
		cb->queue = slot_queue(slot);
		cb->dw = e->q[slot].dw;
		cb->n = e->q[slot].n;
		e->q[slot].dw = NULL;
		if (cb->n * 4 > GAUDISIM_CB_MAX_SIZE)
			return hlrt_fail(HLRT_UNSUPPORTED, "a command buffer of %u bytes is too big",
					 cb->n * 4);
		sg->n_cbs++;
	}
	return HLRT_SUCCESS;
}

/*
 * Split the works into segments: runs of device works, and single CPU
 * works. Eager: one segment per node (the works of one node stay together).
 */
static hlrt_status make_segments(struct loaded_recipe *lr, const struct hlrt_recipe *r)
{
	uint32_t i = 0;

	lr->segs = calloc(r->n_works + 1, sizeof(*lr->segs));
	if (!lr->segs)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "schedule");
	while (i < r->n_works) {
		struct seg_image *sg = &lr->segs[lr->n_segs++];

		sg->first_work = i;
		if (r->works[i].engine == ENG_CPU) {
			sg->cpu = true;
			sg->end_work = ++i;
			continue;
		}
		do {
			i++;
		} while (i < r->n_works && r->works[i].engine != ENG_CPU &&
			 (!r->serial_launch || r->works[i].node == r->works[i - 1].node));
		sg->end_work = i;
	}
	return HLRT_SUCCESS;
}

/*
 * Eager segments run one at a time (launch waits after each), so they
 * share one pair of sync-object ranges, owned by the first device segment:
 * a long recipe does not run the device out of sync objects.
 */
static hlrt_status take_shared_sobs(hlrt_device *dev, struct loaded_recipe *lr)
{
	struct seg_image *owner = NULL;
	uint32_t s, p, n = 0;
	hlrt_status st;

	for (s = 0; s < lr->n_segs; s++) {
		struct seg_image *sg = &lr->segs[s];

		if (sg->cpu)
			continue;
		if (!owner)
			owner = sg;
		sg->n_sobs = sg->end_work - sg->first_work + 1;
		n = sg->n_sobs > n ? sg->n_sobs : n;
	}
	if (!owner)
		return HLRT_SUCCESS;
	owner->n_sobs = n;
	for (p = 0; p < 2; p++) {
		st = hlrt_device_take_sobs(dev, n, &owner->sob_first[p]);
		if (st)
			return st;
		owner->sob_taken[p] = true;
	}
	for (s = 0; s < lr->n_segs; s++) {
		lr->segs[s].sob_first[0] = owner->sob_first[0];
		lr->segs[s].sob_first[1] = owner->sob_first[1];
	}
	return HLRT_SUCCESS;
}

hlrt_status hlrt_emit(hlrt_device *dev, struct hlrt_recipe *r, struct loaded_recipe *lr)
{
	struct emit e = { .dev = dev, .r = r, .lr = lr };
	uint32_t s, p, slot, n_cbs = 0;
	hlrt_status st = make_segments(lr, r);

	if (!st && r->serial_launch)
		st = take_shared_sobs(dev, lr);
	if (st)
		return st;
	lr->cbs = calloc((size_t)lr->n_segs * 2 * MAX_QUEUES + 1, sizeof(*lr->cbs));
	if (!lr->cbs)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "schedule");
	for (s = 0; s < lr->n_segs && !st; s++) {
		struct seg_image *sg = &lr->segs[s];

		if (sg->cpu)
			continue;
		if (!r->serial_launch)
			sg->n_sobs = sg->end_work - sg->first_work + 1;
		for (p = 0; p < 2 && !st; p++) {
			if (!r->serial_launch) {
				st = hlrt_device_take_sobs(dev, sg->n_sobs, &sg->sob_first[p]);
				if (st)
					break;
				sg->sob_taken[p] = true;
			}
			e.seg = sg;
			e.parity = p;
			sg->cb_first[p] = n_cbs;
			for (slot = 0; slot < MAX_QUEUES; slot++) {
				e.started[slot] = false;
				e.cb_index[slot] = n_cbs + slot;
				if (hlrt_pkt_init(&e.q[slot], 256)) {
					st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "schedule");
					break;
				}
			}
			if (!st)
				st = emit_segment(&e, sg->sob_first[p]);
			if (!st)
				st = take_cbs(&e);
			for (slot = 0; slot < MAX_QUEUES; slot++)
				hlrt_pkt_free(&e.q[slot]);
			n_cbs += MAX_QUEUES;
		}
	}
	lr->n_cbs = n_cbs;
	return st;
}
