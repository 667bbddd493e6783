// SPDX-License-Identifier: MIT
/*
 * Plans: what one rank sends and receives, chunk by chunk, for a ring
 * reduce-scatter / all-gather and for a pipelined broadcast chain.
 *
 * Ring positions p = 0..n-1 (the communicator's ring order), segment q
 * the block of the rank at position q. Reduce-scatter step s: p sends
 * segment p-s-1 to the right and adds the left's segment p-s-2 into its
 * own; after n-1 steps p holds the sum of segment p. All-gather step s:
 * p sends segment p-s and copies in segment p-s-1. Each segment is cut
 * into the same number of chunks (at most a receive slot each), and a
 * chunk is sent as soon as the receive that made it is done, so the
 * steps overlap chunk by chunk. Sums are taken in a fixed order: segment
 * q ends as ((x[q+1] + x[q+2]) + ...) + x[q] over ring positions, which
 * the host reference reproduces (docs/collectives.md).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_internal.h"

#define DEP_RECV	0xfffffffeu	/* during planning: value = a receive's index */

static uint32_t chunks_for(uint64_t bytes)
{
	uint64_t k = (bytes + COLL_SLOT_BYTES - 1) / COLL_SLOT_BYTES;

	return k ? (uint32_t)k : 1;
}

uint64_t hlrt_coll_ring_chunks(const hlrt_comm *c, uint64_t max_seg_bytes, bool rs, bool ag)
{
	uint64_t steps = (uint64_t)(c->nranks - 1) * ((rs ? 1 : 0) + (ag ? 1 : 0));

	return steps * chunks_for(max_seg_bytes);
}

static hlrt_status alloc_plan(struct coll_plan *p, uint64_t n_recv, uint64_t n_send)
{
	if (n_recv > COLL_MAX_CHUNKS || n_send > COLL_MAX_CHUNKS)
		return hlrt_fail(HLRT_INTERNAL, "collective plan of %llu chunks",
				 (unsigned long long)n_recv);
	p->recv = calloc(n_recv + 1, sizeof(*p->recv));
	p->send = calloc(n_send + 1, sizeof(*p->send));
	if (!p->recv || !p->send) {
		hlrt_coll_plan_free(p);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "collective plan");
	}
	return HLRT_SUCCESS;
}

/* Chunk c of k of a segment: its first element and element count. */
static void chunk_of(uint64_t elems, uint32_t c, uint32_t k, uint64_t *first, uint64_t *n)
{
	uint64_t a = elems * c / k, b = elems * (c + 1) / k;

	*first = a;
	*n = b - a;
}

hlrt_status hlrt_coll_plan_ring(const hlrt_comm *c, struct coll_plan *p, const struct coll_segs *segs,
			   bool rs, bool ag)
{
	uint32_t n = c->nranks, pos = c->ring_pos, es = coll_dtype_size(p->dtype);
	uint64_t max_bytes = 0, addr[COLL_MAX_RANKS], elems[COLL_MAX_RANKS];
	uint32_t k, s, ch, q;
	uint32_t ag_base;
	hlrt_status st;

	for (q = 0; q < n; q++) {
		addr[q] = segs->addr[c->ring[q]];
		elems[q] = segs->elems[c->ring[q]];
		if (elems[q] * es > max_bytes)
			max_bytes = elems[q] * es;
	}
	k = chunks_for(max_bytes);
	p->tpcs = k < COLL_NUM_TPC ? k : COLL_NUM_TPC;
	st = alloc_plan(p, hlrt_coll_ring_chunks(c, max_bytes, rs, ag),
			hlrt_coll_ring_chunks(c, max_bytes, rs, ag));
	if (st)
		return st;
	ag_base = rs ? (n - 1) * k : 0;
	for (s = 0; rs && s + 1 < n; s++) {
		uint32_t sq = (pos + 2 * n - s - 1) % n, rq = (pos + 2 * n - s - 2) % n;

		for (ch = 0; ch < k; ch++) {
			struct coll_send *sd = &p->send[p->n_send++];
			struct coll_recv *rv = &p->recv[p->n_recv++];
			uint64_t f, cnt;

			chunk_of(elems[sq], ch, k, &f, &cnt);
			sd->src = addr[sq] + f * es;
			sd->bytes = (uint32_t)(cnt * es);
			sd->after.sob = s ? DEP_RECV : COLL_DEP_NONE;
			sd->after.value = s ? (s - 1) * k + ch : 0;
			chunk_of(elems[rq], ch, k, &f, &cnt);
			rv->dst = addr[rq] + f * es;
			rv->bytes = (uint32_t)(cnt * es);
			rv->reduce = true;
		}
	}
	for (s = 0; ag && s + 1 < n; s++) {
		uint32_t sq = (pos + n - s) % n, rq = (pos + 2 * n - s - 1) % n;

		for (ch = 0; ch < k; ch++) {
			struct coll_send *sd = &p->send[p->n_send++];
			struct coll_recv *rv = &p->recv[p->n_recv++];
			uint64_t f, cnt;

			chunk_of(elems[sq], ch, k, &f, &cnt);
			sd->src = addr[sq] + f * es;
			sd->bytes = (uint32_t)(cnt * es);
			if (s) {
				sd->after.sob = DEP_RECV;
				sd->after.value = ag_base + (s - 1) * k + ch;
			} else if (rs) {
				sd->after.sob = DEP_RECV;
				sd->after.value = (n - 2) * k + ch;
			} else {
				sd->after.sob = COLL_DEP_NONE;
			}
			chunk_of(elems[rq], ch, k, &f, &cnt);
			rv->dst = addr[rq] + f * es;
			rv->bytes = (uint32_t)(cnt * es);
			rv->reduce = false;
		}
	}
	return HLRT_SUCCESS;
}

hlrt_status hlrt_coll_plan_chain(const hlrt_comm *c, struct coll_plan *p, uint32_t root,
			    uint64_t addr, uint64_t bytes)
{
	uint32_t n = c->nranks, rpos = 0, d, k = chunks_for(bytes), ch, q;
	hlrt_status st;

	for (q = 0; q < n; q++)
		if (c->ring[q] == root)
			rpos = q;
	d = (c->ring_pos + n - rpos) % n;	/* hops from the root */
	st = alloc_plan(p, d ? k : 0, d + 1 < n ? k : 0);
	if (st)
		return st;
	for (ch = 0; ch < k; ch++) {
		uint64_t f = bytes * ch / k, cnt = bytes * (ch + 1) / k - f;

		if (d) {
			struct coll_recv *rv = &p->recv[p->n_recv++];

			rv->dst = addr + f;
			rv->bytes = (uint32_t)cnt;
			rv->reduce = false;
		}
		if (d + 1 < n) {
			struct coll_send *sd = &p->send[p->n_send++];

			sd->src = addr + f;
			sd->bytes = (uint32_t)cnt;
			sd->after.sob = d ? DEP_RECV : COLL_DEP_NONE;
			sd->after.value = ch;
		}
	}
	return HLRT_SUCCESS;
}

void hlrt_coll_plan_finish(struct coll_plan *p)
{
	uint32_t j, reduces = 0, copies = 0;
	uint32_t tpcs = p->tpcs && p->tpcs < COLL_NUM_TPC ? p->tpcs : COLL_NUM_TPC;

	memset(p->n_tpc, 0, sizeof(p->n_tpc));
	for (j = 0; j < p->n_recv; j++) {
		struct coll_recv *rv = &p->recv[j];

		if (rv->reduce) {
			rv->tpc = reduces++ % tpcs;
			rv->done.sob = COLL_SOB_TPC0 + rv->tpc;
			rv->done.value = ++p->n_tpc[rv->tpc];
		} else {
			rv->done.sob = COLL_SOB_DMA;
			rv->done.value = p->n_pre + ++copies;
		}
	}
	for (j = 0; j < p->n_send; j++)
		if (p->send[j].after.sob == DEP_RECV)
			p->send[j].after = p->recv[p->send[j].after.value].done;
	p->n_dma = p->n_pre + copies + p->n_post;
}

void hlrt_coll_plan_free(struct coll_plan *p)
{
	free(p->recv);
	free(p->send);
	p->recv = NULL;
	p->send = NULL;
}
