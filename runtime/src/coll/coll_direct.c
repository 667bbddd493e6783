// SPDX-License-Identifier: MIT
/*
 * The direct all-reduce, for buffers small enough that the ring's
 * 2(n-1) dependent hops cost more than its pipelining saves: inside one
 * box every rank is linked to every other, so each rank sends every peer
 * that peer's block (the reduce-scatter in one hop), sums its own block's
 * n copies with one TPC job, and sends the sum to every peer (the
 * all-gather in one hop), which copies it into place. The bytes each rank
 * sends are the ring's, 2(n-1)/n of the buffer.
 *
 * Positions are the ring's (c->ring); position q's block is rank
 * ring[q]'s. Position o receives the block of position o+e (e = 1..n-1)
 * in reduce-scatter slot e-1 and that position's sum in all-gather slot
 * e-1, and sums in the ring's order, ((x[o+1] + x[o+2]) + ...) + x[o]
 * (kernel coll_sum_*): both algorithms give the same bits.
 *
 * Queues: DMA 2 (the pre-copy, then, once GATHERED = n-1, the all-gather
 * copies), TPC 0 (once ARRIVE = n-1, the sum), and for each peer stream
 * 2 of the port to it (its block, then, once the sum is done, ours).
 *
 * The direct area and two sets of sync objects belong to direct launches
 * alone and alternate by their own parity: a peer writes half (and set)
 * p in direct launch k+2 only after its direct launch k+1 finished, which
 * needed this rank's block of launch k+1, which this rank sends only
 * after it finished launch k. The ring's argument covers neighbours only
 * (every other rank may be a launch behind), which is why the two
 * algorithms share neither area nor sets.
 */
#include "coll/coll_internal.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_tpc.h"

#define HALF_BYTES	(COLL_DIRECT_BYTES / 2)
#define SLOT_ALIGN	256u

/* Bytes between slots: the largest block, aligned. */
static uint64_t slot_stride(uint64_t count, uint32_t n, hlrt_dtype dt)
{
	return hlrt_align_up((count + n - 1) / n * coll_dtype_size(dt), SLOT_ALIGN);
}

bool hlrt_coll_direct_fits(const hlrt_comm *c, uint64_t count, hlrt_dtype dt)
{
	uint32_t n = c->nranks;

	/* two ranks: the ring is two hops already, and measured no slower */
	if (!c->direct_ok || n < 3 || hlrt_config_coll_ring_only())
		return false;
	return 2ull * (n - 1) * slot_stride(count, n, dt) <= HALF_BYTES;
}

uint64_t hlrt_coll_direct_area(const hlrt_comm *c, uint32_t rank)
{
	return c->peers[rank].recv_base + (uint64_t)COLL_SLOTS * COLL_SLOT_BYTES +
	       (uint64_t)c->direct_parity * HALF_BYTES;
}

static enum coll_kernel sum_kernel(hlrt_dtype dt)
{
	return dt == HLRT_BF16 ? COLL_K_SUM_BF16 : dt == HLRT_INT32 ? COLL_K_SUM_I32 :
	       COLL_K_SUM_F32;
}

hlrt_status hlrt_coll_all_reduce_direct(hlrt_comm *c, uint64_t send, uint64_t recv,
					uint64_t count, hlrt_dtype dt, hlrt_stream *stream,
					const struct coll_key *key)
{
	uint32_t n = c->nranks, pos = c->ring_pos, es = coll_dtype_size(dt), q, e;
	uint64_t stride = slot_stride(count, n, dt), mine = hlrt_coll_direct_area(c, c->rank);
	uint64_t addr[COLL_MAX_RANKS], bytes[COLL_MAX_RANKS], base[GAUDISIM_TPC_NUM_TENSORS];
	uint32_t q_dma, q_tpc, q_nic[COLL_MAX_RANKS], pre = send != recv;
	struct coll_cond start = { pre ? COLL_SOB_DMA : COLL_SOB_START, 1 };
	struct coll_cond sum_after[2] = { start, { COLL_SOB_ARRIVE, n - 1 } };
	struct coll_cond sum_done = { COLL_SOB_TPC0, 1 };
	struct coll_cond totals[] = {
		{ COLL_SOB_DMA, pre + n - 1 }, { COLL_SOB_TPC0, 1 }, { COLL_SOB_SENT, 2 * (n - 1) },
		{ COLL_SOB_ARRIVE, n - 1 }, { COLL_SOB_GATHERED, n - 1 },
	};
	struct coll_launch l;
	hlrt_status st = hlrt_coll_launch_init(&l, c, true);

	if (st)
		return st;
	for (q = 0; q < n; q++) {
		uint32_t r = c->ring[q];
		uint64_t f = count * r / n;

		addr[q] = recv + f * es;
		bytes[q] = (count * (r + 1) / n - f) * es;
	}
	q_dma = hlrt_coll_add_queue(&l, GAUDISIM_QUEUE_ID_DMA_2_0, NULL, 0);
	q_tpc = hlrt_coll_add_queue(&l, GAUDISIM_QUEUE_ID_TPC_0_0, NULL, 0);
	for (e = 1; e < n; e++)
		q_nic[e] = hlrt_coll_add_queue(&l, c->link[e].queue_data, c->direct_mon[e - 1],
					       COLL_NIC_MONS);

	/* DMA: our buffer into recv, then every peer's sum into place */
	hlrt_coll_wait(&l, q_dma, &(struct coll_cond){ COLL_SOB_START, 1 }, 1);
	if (pre)
		hlrt_coll_copy(&l, q_dma, recv, send, count * es, COLL_SOB_DMA);
	hlrt_coll_wait(&l, q_dma, &(struct coll_cond){ COLL_SOB_GATHERED, n - 1 }, 1);
	for (e = 1; e < n; e++) {
		uint64_t slot = mine + (uint64_t)(n - 1 + e - 1) * stride;

		if (bytes[(pos + e) % n])
			hlrt_coll_copy(&l, q_dma, addr[(pos + e) % n], slot, bytes[(pos + e) % n],
				       COLL_SOB_DMA);
		else
			hlrt_coll_signal(&l, q_dma, COLL_SOB_DMA);
	}

	/* TPC 0: our block += the peers' copies of it, in the ring's order */
	hlrt_coll_wait(&l, q_tpc, sum_after, 2);
	for (e = 1; e < GAUDISIM_TPC_NUM_TENSORS; e++)
		base[e - 1] = mine + (uint64_t)(e < n ? e - 1 : 0) * stride;
	base[GAUDISIM_TPC_NUM_TENSORS - 1] = addr[pos];
	if (bytes[pos])
		hlrt_coll_tpc(&l, q_tpc, sum_kernel(dt), dt, base, GAUDISIM_TPC_NUM_TENSORS,
			      (uint32_t)(bytes[pos] / es), n - 1);
	hlrt_coll_signal(&l, q_tpc, COLL_SOB_TPC0);

	/* to the peer at position pos+e (we are its e' = n-e): its block, then our sum */
	for (e = 1; e < n; e++) {
		uint32_t o = (pos + e) % n, rank = c->ring[o], slot = n - e - 1;
		uint64_t theirs = hlrt_coll_direct_area(c, rank);
		uint32_t set = hlrt_coll_set(c, rank, true);

		hlrt_coll_wait(&l, q_nic[e], &start, 1);
		hlrt_coll_xfer(&l, q_nic[e], addr[o], theirs + (uint64_t)slot * stride,
			       (uint32_t)bytes[o], set + COLL_SOB_ARRIVE, COLL_SOB_SENT);
		hlrt_coll_wait(&l, q_nic[e], &sum_done, 1);
		hlrt_coll_xfer(&l, q_nic[e], addr[pos],
			       theirs + (uint64_t)(n - 1 + slot) * stride, (uint32_t)bytes[pos],
			       set + COLL_SOB_GATHERED, COLL_SOB_SENT);
	}
	for (q = 0; q < l.n_q; q++)
		l.used[q] = true;
	return hlrt_coll_launch_submit(&l, stream, totals, sizeof(totals) / sizeof(totals[0]),
				       key);
}
