// SPDX-License-Identifier: MIT
/*
 * The public collectives: argument checks, then an all-reduce that fits
 * one direct launch takes the direct algorithm (coll_direct.c); anything
 * else is cut into pieces small enough for one launch each
 * (COLL_MAX_CHUNKS receives, so every count fits a sync object and every
 * CB its limit), each piece a ring or chain plan launched on the stream. Pieces of one call run one
 * after another on the stream; nothing waits on the host, except while a
 * profile runs: then each call runs alone, for the profile's collectives
 * lane.
 */
#include <stdio.h>
#include <string.h>

#include "coll/coll_internal.h"
#include "prof/profiler.h"

static hlrt_status check(const hlrt_comm *c, hlrt_stream *s, hlrt_dtype dtype, uint64_t count,
			 const char *what)
{
	if (!c || !s)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: NULL communicator or stream", what);
	if (s->dev != c->dev)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: the stream is not on the communicator's device",
				 what);
	if (dtype != HLRT_FP32 && dtype != HLRT_BF16 && dtype != HLRT_INT32)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: dtype %d (FP32, BF16 and INT32 only)", what,
				 (int)dtype);
	if (!count)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: count 0", what);
	if (count > (1ull << 40))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: count %llu is too large", what,
				 (unsigned long long)count);
	return HLRT_SUCCESS;
}

static hlrt_status check_op(hlrt_reduce_op op, const char *what)
{
	return op == HLRT_REDUCE_SUM ? HLRT_SUCCESS :
	       hlrt_fail(HLRT_UNSUPPORTED, "%s: reduction %d (HLRT_REDUCE_SUM only)", what, (int)op);
}

static hlrt_status check_addr(uint64_t a, uint64_t b, const char *what)
{
	return a && b ? HLRT_SUCCESS :
	       hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: device address 0", what);
}

/* Elements per rank block of one ring launch. */
static uint64_t piece_elems(const hlrt_comm *c, hlrt_dtype dt, uint32_t phases)
{
	uint64_t k = COLL_MAX_CHUNKS / ((uint64_t)(c->nranks - 1) * phases);

	return k * (COLL_SLOT_BYTES / coll_dtype_size(dt));
}

/*
 * While a profile runs, a collective runs alone: the stream is drained
 * before it and waited for after, and the span goes on the profile's
 * collectives lane as NAME (the whole call, all its pieces).
 */
static hlrt_status prof_begin(hlrt_stream *s, uint64_t *t0)
{
	hlrt_status st = HLRT_SUCCESS;

	*t0 = 0;
	if (s->dev->prof) {
		st = hlrt_stream_synchronize(s);
		*t0 = hlrt_now_ns();
	}
	return st;
}

static hlrt_status prof_end(hlrt_stream *s, const char *name, uint64_t bytes, uint64_t t0,
			    hlrt_status st)
{
	char what[64];

	if (st || !t0 || !s->dev->prof)
		return st;
	st = hlrt_stream_synchronize(s);
	snprintf(what, sizeof(what), "%s (%llu bytes)", name, (unsigned long long)bytes);
	if (!st)
		hlrt_profiler_coll_event(s->dev, what, t0, hlrt_now_ns());
	return st;
}

/* Finish the plan and launch it; key (or NULL) lets a repeat resubmit its CBs. */
static hlrt_status run(hlrt_comm *c, struct coll_plan *p, hlrt_stream *s,
		       const struct coll_key *key)
{
	hlrt_status st;

	hlrt_coll_plan_finish(p);
	st = hlrt_coll_launch(c, p, s, key);
	hlrt_coll_plan_free(p);
	return st;
}

/* A single rank: the copy is the whole collective. */
static hlrt_status local_copy(hlrt_comm *c, uint64_t dst, uint64_t src, uint64_t bytes,
			      hlrt_dtype dt, hlrt_stream *s)
{
	struct coll_plan p = { .dtype = dt };

	if (dst == src)
		return HLRT_SUCCESS;
	p.pre[0] = (struct coll_copy){ dst, src, bytes };
	p.n_pre = 1;
	return run(c, &p, s, NULL);
}

const char *hlrt_all_reduce_algorithm(const hlrt_comm *comm, uint64_t count, hlrt_dtype dtype)
{
	if (!comm)
		return NULL;
	if (comm->nranks == 1)
		return "copy";
	return hlrt_coll_direct_fits(comm, count, dtype) ? "direct" : "ring";
}

hlrt_status hlrt_all_reduce(hlrt_comm *comm, uint64_t sendbuf, uint64_t recvbuf,
			    uint64_t count, hlrt_dtype dtype, hlrt_reduce_op op,
			    hlrt_stream *stream)
{
	hlrt_status st = check(comm, stream, dtype, count, "hlrt_all_reduce");
	uint32_t es = coll_dtype_size(dtype), n, r;
	uint64_t a, step, t0;

	if (!st)
		st = check_op(op, "hlrt_all_reduce");
	if (!st)
		st = check_addr(sendbuf, recvbuf, "hlrt_all_reduce");
	if (st)
		return st;
	n = comm->nranks;
	if (n == 1)
		return local_copy(comm, recvbuf, sendbuf, count * es, dtype, stream);
	st = prof_begin(stream, &t0);
	if (!st && hlrt_coll_direct_fits(comm, count, dtype)) {
		struct coll_key key = { COLL_OP_ALL_REDUCE, dtype, sendbuf, recvbuf, count, 0, 0,
					true };
		bool done;

		st = hlrt_coll_relaunch(comm, &key, stream, &done);
		if (!st && !done)
			st = hlrt_coll_all_reduce_direct(comm, sendbuf, recvbuf, count, dtype,
							 stream, &key);
		return prof_end(stream, "all_reduce", count * es, t0, st);
	}
	step = piece_elems(comm, dtype, 2) * n;
	for (a = 0; a < count && !st; a += step) {
		uint64_t m = count - a < step ? count - a : step;
		struct coll_plan p = { .dtype = dtype };
		struct coll_key key = { COLL_OP_ALL_REDUCE, dtype, sendbuf, recvbuf, count, a, 0, false };
		struct coll_segs segs;
		bool done;

		st = hlrt_coll_relaunch(comm, &key, stream, &done);
		if (st || done)
			continue;
		for (r = 0; r < n; r++) {
			uint64_t f = m * r / n;

			segs.addr[r] = recvbuf + (a + f) * es;
			segs.elems[r] = m * (r + 1) / n - f;
		}
		if (sendbuf != recvbuf) {
			p.pre[0] = (struct coll_copy){ recvbuf + a * es, sendbuf + a * es, m * es };
			p.n_pre = 1;
		}
		st = hlrt_coll_plan_ring(comm, &p, &segs, true, true);
		if (!st)
			st = run(comm, &p, stream, &key);
	}
	return prof_end(stream, "all_reduce", count * es, t0, st);
}

/* The working copy reduce-scatter sums in (sendbuf stays as it was). */
static hlrt_status scratch(hlrt_comm *c, uint64_t bytes)
{
	hlrt_status st;

	if (c->scratch_size >= bytes)
		return HLRT_SUCCESS;
	if (c->scratch) {
		/* launches in flight may still use it */
		st = c->last_stream ? hlrt_stream_synchronize(c->last_stream) : HLRT_SUCCESS;
		if (st)
			return st;
		hlrt_device_free(c->dev, c->scratch);
		c->scratch = 0;
		c->scratch_size = 0;
	}
	st = hlrt_device_malloc(c->dev, bytes, &c->scratch);
	if (!st)
		c->scratch_size = bytes;
	return st;
}

hlrt_status hlrt_reduce_scatter(hlrt_comm *comm, uint64_t sendbuf, uint64_t recvbuf,
				uint64_t recvcount, hlrt_dtype dtype, hlrt_reduce_op op,
				hlrt_stream *stream)
{
	hlrt_status st = check(comm, stream, dtype, recvcount, "hlrt_reduce_scatter");
	uint32_t es = coll_dtype_size(dtype), n, r;
	uint64_t a, step, t0 = 0;

	if (!st)
		st = check_op(op, "hlrt_reduce_scatter");
	if (!st)
		st = check_addr(sendbuf, recvbuf, "hlrt_reduce_scatter");
	if (st)
		return st;
	n = comm->nranks;
	if (n == 1)
		return local_copy(comm, recvbuf, sendbuf, recvcount * es, dtype, stream);
	step = piece_elems(comm, dtype, 1);
	if (step > recvcount)
		step = recvcount;
	st = scratch(comm, step * n * es);
	if (!st)
		st = prof_begin(stream, &t0);
	for (a = 0; a < recvcount && !st; a += step) {
		uint64_t m = recvcount - a < step ? recvcount - a : step;
		struct coll_plan p = { .dtype = dtype };
		struct coll_key key = { COLL_OP_REDUCE_SCATTER, dtype, sendbuf, recvbuf, recvcount,
					a, comm->scratch, false };
		struct coll_segs segs;
		bool done;

		st = hlrt_coll_relaunch(comm, &key, stream, &done);
		if (st || done)
			continue;
		for (r = 0; r < n; r++) {
			segs.addr[r] = comm->scratch + (uint64_t)r * m * es;
			segs.elems[r] = m;
			p.pre[r] = (struct coll_copy){ segs.addr[r],
						       sendbuf + ((uint64_t)r * recvcount + a) * es,
						       m * es };
		}
		p.n_pre = n;
		p.post[0] = (struct coll_copy){ recvbuf + a * es, segs.addr[comm->rank], m * es };
		p.n_post = 1;
		st = hlrt_coll_plan_ring(comm, &p, &segs, true, false);
		if (!st)
			st = run(comm, &p, stream, &key);
	}
	return prof_end(stream, "reduce_scatter", recvcount * n * es, t0, st);
}

hlrt_status hlrt_all_gather(hlrt_comm *comm, uint64_t sendbuf, uint64_t recvbuf,
			    uint64_t sendcount, hlrt_dtype dtype, hlrt_stream *stream)
{
	hlrt_status st = check(comm, stream, dtype, sendcount, "hlrt_all_gather");
	uint32_t es = coll_dtype_size(dtype), n, r;
	uint64_t a, step, t0;

	if (!st)
		st = check_addr(sendbuf, recvbuf, "hlrt_all_gather");
	if (st)
		return st;
	n = comm->nranks;
	if (n == 1)
		return local_copy(comm, recvbuf, sendbuf, sendcount * es, dtype, stream);
	step = piece_elems(comm, dtype, 1);
	st = prof_begin(stream, &t0);
	for (a = 0; a < sendcount && !st; a += step) {
		uint64_t m = sendcount - a < step ? sendcount - a : step;
		struct coll_plan p = { .dtype = dtype };
		struct coll_key key = { COLL_OP_ALL_GATHER, dtype, sendbuf, recvbuf, sendcount, a, 0,
					false };
		struct coll_segs segs;
		bool done;

		st = hlrt_coll_relaunch(comm, &key, stream, &done);
		if (st || done)
			continue;
		for (r = 0; r < n; r++) {
			segs.addr[r] = recvbuf + ((uint64_t)r * sendcount + a) * es;
			segs.elems[r] = m;
		}
		if (sendbuf + a * es != segs.addr[comm->rank]) {
			p.pre[0] = (struct coll_copy){ segs.addr[comm->rank], sendbuf + a * es,
						       m * es };
			p.n_pre = 1;
		}
		st = hlrt_coll_plan_ring(comm, &p, &segs, false, true);
		if (!st)
			st = run(comm, &p, stream, &key);
	}
	return prof_end(stream, "all_gather", sendcount * n * es, t0, st);
}

hlrt_status hlrt_broadcast(hlrt_comm *comm, uint64_t sendbuf, uint64_t recvbuf,
			   uint64_t count, hlrt_dtype dtype, uint32_t root, hlrt_stream *stream)
{
	hlrt_status st = check(comm, stream, dtype, count, "hlrt_broadcast");
	uint32_t es = coll_dtype_size(dtype);
	uint64_t bytes = count * es, a, step = (uint64_t)COLL_MAX_CHUNKS * COLL_SLOT_BYTES, t0;

	if (!st && root >= comm->nranks)
		st = hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_broadcast: root %u of %u ranks", root,
			       comm->nranks);
	if (!st)
		st = check_addr(comm->rank == root ? sendbuf : 1, recvbuf, "hlrt_broadcast");
	if (st)
		return st;
	if (comm->nranks == 1)
		return local_copy(comm, recvbuf, sendbuf, bytes, dtype, stream);
	st = prof_begin(stream, &t0);
	for (a = 0; a < bytes && !st; a += step) {
		uint64_t m = bytes - a < step ? bytes - a : step;
		struct coll_plan p = { .dtype = dtype };
		struct coll_key key = { COLL_OP_BROADCAST, dtype, comm->rank == root ? sendbuf : 0,
					recvbuf, count, a, root, false };
		bool done;

		st = hlrt_coll_relaunch(comm, &key, stream, &done);
		if (st || done)
			continue;
		if (comm->rank == root && sendbuf != recvbuf) {
			p.pre[0] = (struct coll_copy){ recvbuf + a, sendbuf + a, m };
			p.n_pre = 1;
		}
		st = hlrt_coll_plan_chain(comm, &p, root, recvbuf + a, m);
		if (!st)
			st = run(comm, &p, stream, &key);
	}
	return prof_end(stream, "broadcast", bytes, t0, st);
}

hlrt_status hlrt_barrier(hlrt_comm *comm, hlrt_stream *stream)
{
	hlrt_status st = check(comm, stream, HLRT_INT32, 1, "hlrt_barrier");
	struct coll_plan p = { .dtype = HLRT_INT32 };
	struct coll_key key = { .op = COLL_OP_BARRIER, .dtype = HLRT_INT32 };
	struct coll_segs segs;
	uint64_t t0 = 0;
	uint32_t r;
	bool done;

	if (st)
		return st;
	if (comm->nranks == 1)
		return HLRT_SUCCESS;
	st = prof_begin(stream, &t0);
	if (!st)
		st = hlrt_coll_relaunch(comm, &key, stream, &done);
	if (st || done)
		return prof_end(stream, "barrier", 0, t0, st);
	/* an all-gather of nothing: n - 1 signals round the ring, each after the last */
	for (r = 0; r < comm->nranks; r++) {
		segs.addr[r] = comm->recv_base;
		segs.elems[r] = 0;
	}
	st = hlrt_coll_plan_ring(comm, &p, &segs, false, true);
	if (!st)
		st = run(comm, &p, stream, &key);
	return prof_end(stream, "barrier", 0, t0, st);
}
