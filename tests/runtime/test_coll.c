// SPDX-License-Identifier: MIT
/*
 * Collectives on the in-process NIC fabric: n devices (modules 0..n-1),
 * one thread per rank, each with its own device, stream and communicator
 * from one unique id. The matrix (2/4/8 ranks x op x dtype x sizes,
 * including 1 element, counts not divisible by the ranks and sizes of
 * several chunks) compares bit for bit against coll_ref.h; a cut link
 * fails with an error instead of hanging, and after the link is restored
 * a new communicator works; the rendezvous and the argument checks
 * answer bad input with errors.
 */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll/coll_internal.h"
#include "coll_ref.h"
#include "hw/gaudisim_hw_nic.h"
#include "rt_test.h"
#include "sim_backend.h"

#define MAX_RANKS	8

enum op { OP_ALL_REDUCE, OP_REDUCE_SCATTER, OP_ALL_GATHER, OP_BROADCAST, OP_COUNT };

struct job {
	uint32_t n;
	hlrt_comm_id id;
	enum op op;
	hlrt_dtype dtype;
	uint64_t count;		/* per-rank block (RS: recv, AG: send) or whole buffer */
	uint32_t root;
	bool cut;		/* cut module 0's link to module 1 first */
};

struct rank_ctx {
	const struct job *job;
	uint32_t rank;
	hlrt_status st;		/* of the collective's synchronize */
	char err[256];
	bool mismatch;
	uint64_t bad_index;
	uint32_t regs_live, regs_left;	/* NIC registrations before and after destroy */
	uint64_t launches, direct_launches;
};

static void *inputs_of(const struct job *j, uint32_t r, uint64_t elems)
{
	void *p = malloc(elems * coll_ref_esize(j->dtype) + 1);

	coll_ref_fill(p, elems, j->dtype, r);
	return p;
}

/* What rank r must hold afterwards, from everyone's inputs. */
static void *expected(const struct job *j, uint32_t r, uint64_t *elems)
{
	uint32_t es = coll_ref_esize(j->dtype), n = j->n, q;
	void *in[MAX_RANKS] = { 0 }, *out;
	uint64_t in_elems = j->op == OP_REDUCE_SCATTER ? j->count * n : j->count;

	for (q = 0; q < n; q++)
		in[q] = inputs_of(j, q, in_elems);
	switch (j->op) {
	case OP_ALL_REDUCE:
		*elems = j->count;
		out = malloc(j->count * es);
		coll_ref_all_reduce(out, in, n, j->count, j->dtype);
		break;
	case OP_REDUCE_SCATTER:
		*elems = j->count;
		out = malloc(j->count * es);
		coll_ref_sum(out, in, n, r, r * j->count, j->count, j->dtype);
		break;
	case OP_ALL_GATHER:
		*elems = j->count * n;
		out = malloc(*elems * es);
		for (q = 0; q < n; q++)
			memcpy((uint8_t *)out + q * j->count * es, in[q], j->count * es);
		break;
	default:
		*elems = j->count;
		out = malloc(j->count * es);
		memcpy(out, in[j->root], j->count * es);
		break;
	}
	for (q = 0; q < n; q++)
		free(in[q]);
	return out;
}

static hlrt_status enqueue(hlrt_comm *c, const struct job *j, uint32_t rank, uint64_t in,
			   uint64_t out, hlrt_stream *s)
{
	switch (j->op) {
	case OP_ALL_REDUCE:
		return hlrt_all_reduce(c, in, out, j->count, j->dtype, HLRT_REDUCE_SUM, s);
	case OP_REDUCE_SCATTER:
		return hlrt_reduce_scatter(c, in, out, j->count, j->dtype, HLRT_REDUCE_SUM, s);
	case OP_ALL_GATHER:
		return hlrt_all_gather(c, in, out, j->count, j->dtype, s);
	default:
		(void)rank;
		return hlrt_broadcast(c, in, out, j->count, j->dtype, j->root, s);
	}
}

static void rank_fail(struct rank_ctx *x, hlrt_status st, const char *what)
{
	x->st = st ? st : HLRT_INTERNAL;
	snprintf(x->err, sizeof(x->err), "rank %u: %s: %s", x->rank, what, hlrt_last_error());
}

/*
 * One rank: device, stream, communicator, the op three times (the second
 * on the other SOB set, the third resubmitting the first's CBs).
 */
static void *rank_main(void *arg)
{
	struct rank_ctx *x = arg;
	const struct job *j = x->job;
	uint32_t es = coll_ref_esize(j->dtype), round;
	uint64_t in_elems = j->op == OP_REDUCE_SCATTER ? j->count * j->n : j->count;
	uint64_t out_elems = j->op == OP_ALL_GATHER ? j->count * j->n : j->count;
	uint64_t want_elems, in = 0, out = 0, i;
	hlrt_device *dev = NULL;
	hlrt_stream *s = NULL;
	hlrt_comm *c = NULL;
	void *host_in = inputs_of(j, x->rank, in_elems), *host_out = malloc(out_elems * es);
	void *want = expected(j, x->rank, &want_elems);
	hlrt_status st;

	st = hlrt_device_acquire(x->rank, &dev);
	if (st) {
		rank_fail(x, st, "acquire");
		goto out;
	}
	st = hlrt_stream_create(dev, &s);
	if (!st)
		st = hlrt_device_malloc(dev, in_elems * es, &in);
	if (!st)
		st = hlrt_device_malloc(dev, out_elems * es, &out);
	if (!st)
		st = hlrt_memcpy_h2d(dev, in, host_in, in_elems * es);
	if (!st)
		st = hlrt_comm_init_rank(&c, j->n, &j->id, x->rank, dev);
	if (st) {
		rank_fail(x, st, "set-up");
		goto out;
	}
	if (j->cut && x->rank == 0)
		sim_fabric_set_link(0, (uint32_t)gaudisim_nic_port_to(0, 1), false);
	for (round = 0; round < 3; round++) {
		st = hlrt_memset_async(s, out, 0xa5, out_elems * es);
		if (!st)
			st = enqueue(c, j, x->rank, in, out, s);
		if (!st)
			st = hlrt_stream_synchronize(s);
		if (st) {
			rank_fail(x, st, "collective");
			goto out;
		}
		st = hlrt_memcpy_d2h(dev, host_out, out, out_elems * es);
		if (st) {
			rank_fail(x, st, "read back");
			goto out;
		}
		for (i = 0; i < want_elems * es; i++) {
			if (((uint8_t *)host_out)[i] != ((uint8_t *)want)[i]) {
				x->mismatch = true;
				x->bad_index = i / es;
				goto out;
			}
		}
	}
out:
	if (c) {
		x->launches = c->launches;
		x->direct_launches = c->direct_launches;
		x->regs_live = sim_nic_registrations(dev);
		hlrt_comm_destroy(c);
		x->regs_left = sim_nic_registrations(dev);
	}
	if (dev)
		hlrt_device_release(dev);
	free(host_in);
	free(host_out);
	free(want);
	return NULL;
}

/* Run the job on n rank threads on the installed fabric; returns how many ranks failed. */
static uint32_t run_ranks(struct job *j, struct rank_ctx *ctx)
{
	pthread_t t[MAX_RANKS];
	uint32_t r, failed = 0;

	HLRT_OK(hlrt_comm_get_unique_id(&j->id));
	for (r = 0; r < j->n; r++) {
		memset(&ctx[r], 0, sizeof(ctx[r]));
		ctx[r].job = j;
		ctx[r].rank = r;
		ck_assert_int_eq(pthread_create(&t[r], NULL, rank_main, &ctx[r]), 0);
	}
	for (r = 0; r < j->n; r++) {
		pthread_join(t[r], NULL);
		failed += ctx[r].st || ctx[r].mismatch;
	}
	return failed;
}

static uint32_t run_job(struct job *j, struct rank_ctx *ctx)
{
	uint32_t failed;

	ck_assert_int_eq(sim_install_fabric(j->n), 0);
	failed = run_ranks(j, ctx);
	sim_uninstall_fabric();
	return failed;
}

static const char *const op_names[OP_COUNT] = {
	"all_reduce", "reduce_scatter", "all_gather", "broadcast",
};

/*
 * Run the job and check every rank; direct: how many of its 3 rounds must
 * have taken the direct all-reduce (-1: not checked).
 */
static void check_job_algo(uint32_t n, enum op op, hlrt_dtype dt, uint64_t count, uint32_t root,
			   int direct)
{
	struct job j = { .n = n, .op = op, .dtype = dt, .count = count, .root = root };
	struct rank_ctx ctx[MAX_RANKS];
	uint32_t r;

	run_job(&j, ctx);
	for (r = 0; r < n; r++) {
		ck_assert_msg(!ctx[r].st, "%s %s x%llu on %u ranks: %s", op_names[op],
			      hlrt_dtype_suffix(dt), (unsigned long long)count, n, ctx[r].err);
		ck_assert_msg(!ctx[r].mismatch, "%s %s x%llu on %u ranks: rank %u differs at %llu",
			      op_names[op], hlrt_dtype_suffix(dt), (unsigned long long)count, n, r,
			      (unsigned long long)ctx[r].bad_index);
		/* Peers wrote only what the communicator registered, and only while it lived. */
		ck_assert_uint_eq(ctx[r].regs_live, n > 1 ? 1 : 0);
		ck_assert_uint_eq(ctx[r].regs_left, 0);
		if (direct >= 0)
			ck_assert_msg(ctx[r].direct_launches == (uint64_t)direct,
				      "%s x%llu on %u ranks: %llu direct launches, want %d",
				      op_names[op], (unsigned long long)count, n,
				      (unsigned long long)ctx[r].direct_launches, direct);
	}
}

static void check_job(uint32_t n, enum op op, hlrt_dtype dt, uint64_t count, uint32_t root)
{
	check_job_algo(n, op, dt, count, root, -1);
}

static const hlrt_dtype dtypes[3] = { HLRT_FP32, HLRT_BF16, HLRT_INT32 };

/* Every op and dtype at 1 element and at a count no rank count divides. */
static void small_matrix(uint32_t n)
{
	uint32_t o, d;

	for (o = 0; o < OP_COUNT; o++) {
		for (d = 0; d < 3; d++) {
			check_job(n, o, dtypes[d], 1, n - 1);
			check_job(n, o, dtypes[d], 1000003 % 997 + n * 13 + 1, 0);
		}
	}
}

START_TEST(matrix_two_ranks)
{
	small_matrix(2);
}
END_TEST

START_TEST(matrix_four_ranks)
{
	small_matrix(4);
}
END_TEST

START_TEST(matrix_eight_ranks)
{
	small_matrix(8);
}
END_TEST

/* Several chunks per segment: the slots wrap and the credits matter. */
START_TEST(large_buffers_pipeline)
{
	check_job(2, OP_ALL_REDUCE, HLRT_INT32, 5u << 20, 0);	/* 10 MiB blocks: 10 chunks */
	check_job(4, OP_ALL_REDUCE, HLRT_FP32, (3u << 20) + 5, 0);
	check_job(8, OP_ALL_GATHER, HLRT_BF16, (1u << 20) + 3, 0);
	check_job(4, OP_REDUCE_SCATTER, HLRT_INT32, (1u << 19) + 1, 0);
	check_job(8, OP_BROADCAST, HLRT_FP32, (3u << 20) + 1, 5);
}
END_TEST

/*
 * An all-reduce of three ranks or more that fits the direct area takes
 * the direct algorithm, one launch per call; the ring (forced with HLRT_COLL_ALGO=ring) and the
 * direct algorithm both give the reference's bits, at 1 element, at
 * counts no rank count divides, with empty blocks (fewer elements than
 * ranks) and at the largest direct size; one element more takes the ring.
 */
static uint64_t direct_max(uint32_t n, uint32_t es)
{
	/* 2(n-1) slots of the largest block, 256-byte aligned, in half of the area */
	uint64_t slot = (COLL_DIRECT_BYTES / 2) / (2 * (n - 1)) / 256 * 256;

	return slot / es * n;
}

START_TEST(small_all_reduce_goes_direct)
{
	static const uint32_t ranks[] = { 2, 4, 8 };
	uint32_t k, d;

	for (k = 0; k < 3; k++) {
		uint32_t n = ranks[k];
		int direct = n > 2 ? 3 : 0;	/* two ranks keep the ring */

		for (d = 0; d < 3; d++) {
			uint32_t es = coll_ref_esize(dtypes[d]);

			check_job_algo(n, OP_ALL_REDUCE, dtypes[d], 1, 0, direct);
			check_job_algo(n, OP_ALL_REDUCE, dtypes[d], n - 1, 0, direct);
			check_job_algo(n, OP_ALL_REDUCE, dtypes[d], 4099, 0, direct);
			setenv("HLRT_COLL_ALGO", "ring", 1);
			check_job_algo(n, OP_ALL_REDUCE, dtypes[d], 4099, 0, 0);
			unsetenv("HLRT_COLL_ALGO");
			if (d == 0) {
				check_job_algo(n, OP_ALL_REDUCE, dtypes[d], direct_max(n, es), 0,
					       direct);
				check_job_algo(n, OP_ALL_REDUCE, dtypes[d], direct_max(n, es) + n, 0,
					       0);
			}
		}
		/* the other ops keep the ring */
		check_job_algo(n, OP_REDUCE_SCATTER, HLRT_FP32, 4099, 0, 0);
	}
}
END_TEST

/*
 * The tests below run one thread per rank on a fresh fabric of n
 * devices; each thread's context starts with its place in the job.
 */
struct rank_head {
	hlrt_comm_id id;
	uint32_t rank, n;
};

/* fn on n threads, the r-th given ctx's r-th element (of size bytes). */
static void run_rank_threads(void *ctx, size_t size, uint32_t n, void *(*fn)(void *))
{
	pthread_t t[MAX_RANKS];
	hlrt_comm_id id;
	uint32_t r;

	ck_assert_int_eq(sim_install_fabric(n), 0);
	HLRT_OK(hlrt_comm_get_unique_id(&id));
	for (r = 0; r < n; r++) {
		struct rank_head *h = (struct rank_head *)((char *)ctx + r * size);

		h->id = id;
		h->rank = r;
		h->n = n;
		ck_assert_int_eq(pthread_create(&t[r], NULL, fn, h), 0);
	}
	for (r = 0; r < n; r++)
		pthread_join(t[r], NULL);
	sim_uninstall_fabric();
}

/*
 * Ring and direct launches interleaved on a stream with no host wait:
 * each algorithm has its own receive area and sync-object sets, so a rank
 * a ring launch ahead of another never writes into what the other still
 * reads. In-place INT32 sums (exact): after k all-reduces a buffer holds
 * n^(k-1) times the first sum.
 */
#define MIX_BIG		(600u * 1024)	/* elements: the ring on 4 ranks */
#define MIX_SMALL	5003u		/* the direct algorithm */
#define MIX_ROUNDS	4

struct mix_ctx {
	struct rank_head h;
	hlrt_status st;
	char err[256];
	bool mismatch;
	uint64_t direct_launches, launches;
};

static int32_t mix_input(uint32_t r, uint64_t i)
{
	return (int32_t)((i * 2654435761u + r * 40503u) % 100003u) - 50000;
}

/* Element i after k in-place all-reduces over n ranks (wrapping, as the device). */
static int32_t mix_after(uint32_t n, uint64_t i, uint32_t k)
{
	uint32_t s = 0, r;

	for (r = 0; r < n; r++)
		s += (uint32_t)mix_input(r, i);
	for (r = 1; r < k; r++)
		s *= n;
	return (int32_t)s;
}

static void *mix_rank(void *arg)
{
	struct mix_ctx *x = arg;
	int32_t *big = malloc(MIX_BIG * 4), *small = malloc(MIX_SMALL * 4);
	hlrt_device *dev = NULL;
	hlrt_stream *s = NULL;
	hlrt_comm *c = NULL;
	uint64_t a = 0, b = 0, i;
	uint32_t k;
	hlrt_status st;

	for (i = 0; i < MIX_BIG; i++)
		big[i] = mix_input(x->h.rank, i);
	for (i = 0; i < MIX_SMALL; i++)
		small[i] = mix_input(x->h.rank, i);
	st = hlrt_device_acquire(x->h.rank, &dev);
	if (!st)
		st = hlrt_stream_create(dev, &s);
	if (!st)
		st = hlrt_device_malloc(dev, MIX_BIG * 4, &a);
	if (!st)
		st = hlrt_device_malloc(dev, MIX_SMALL * 4, &b);
	if (!st)
		st = hlrt_memcpy_h2d(dev, a, big, MIX_BIG * 4);
	if (!st)
		st = hlrt_memcpy_h2d(dev, b, small, MIX_SMALL * 4);
	if (!st)
		st = hlrt_comm_init_rank(&c, x->h.n, &x->h.id, x->h.rank, dev);
	/* ring, direct, direct, ring, ...: both parities of both algorithms */
	for (k = 0; k < MIX_ROUNDS && !st; k++) {
		st = hlrt_all_reduce(c, a, a, MIX_BIG, HLRT_INT32, HLRT_REDUCE_SUM, s);
		if (!st)
			st = hlrt_all_reduce(c, b, b, MIX_SMALL, HLRT_INT32, HLRT_REDUCE_SUM, s);
		if (!st)
			st = hlrt_all_reduce(c, b, b, MIX_SMALL, HLRT_INT32, HLRT_REDUCE_SUM, s);
	}
	if (!st)
		st = hlrt_stream_synchronize(s);
	if (!st)
		st = hlrt_memcpy_d2h(dev, big, a, MIX_BIG * 4);
	if (!st)
		st = hlrt_memcpy_d2h(dev, small, b, MIX_SMALL * 4);
	for (i = 0; !st && i < MIX_BIG && !x->mismatch; i++)
		x->mismatch = big[i] != mix_after(x->h.n, i, MIX_ROUNDS);
	for (i = 0; !st && i < MIX_SMALL && !x->mismatch; i++)
		x->mismatch = small[i] != mix_after(x->h.n, i, 2 * MIX_ROUNDS);
	if (st)
		snprintf(x->err, sizeof(x->err), "rank %u: %s", x->h.rank, hlrt_last_error());
	x->st = st;
	if (c) {
		x->launches = c->launches;
		x->direct_launches = c->direct_launches;
		hlrt_comm_destroy(c);
	}
	if (dev)
		hlrt_device_release(dev);
	free(big);
	free(small);
	return NULL;
}

START_TEST(ring_and_direct_interleave_without_host_waits)
{
	struct mix_ctx ctx[4];
	uint32_t r, n = 4;

	memset(ctx, 0, sizeof(ctx));
	run_rank_threads(ctx, sizeof(ctx[0]), n, mix_rank);
	for (r = 0; r < n; r++) {
		ck_assert_msg(!ctx[r].st, "%s", ctx[r].err);
		ck_assert_msg(!ctx[r].mismatch, "rank %u: a result differs", r);
		ck_assert_uint_eq(ctx[r].direct_launches, 2 * MIX_ROUNDS);
		ck_assert_uint_eq(ctx[r].launches, 3 * MIX_ROUNDS);
	}
}
END_TEST

/*
 * What makes interleaving safe, checked where no timing can hide it: the
 * direct halves lie inside the registered area and apart from the ring's
 * slots and from each other, and the four sync-object sets are distinct
 * and inside the registered range.
 */
START_TEST(direct_and_ring_share_no_area_or_set)
{
	static hlrt_comm c = { .nranks = 4, .rank = 2 };
	uint64_t half = COLL_DIRECT_BYTES / 2, a[2];
	uint32_t r, p, sets[4], i, k;

	for (r = 0; r < 4; r++) {
		c.peers[r].recv_base = 0x10000000ull * (r + 1);
		c.peers[r].sob_first = 512 + COLL_SOB_SETS * COLL_SOBS_PER_SET * r;
	}
	for (r = 0; r < 4; r++) {
		uint64_t base = c.peers[r].recv_base;

		for (p = 0; p < 2; p++) {
			c.parity = c.direct_parity = p;
			a[p] = hlrt_coll_direct_area(&c, r);
			ck_assert_uint_ge(a[p], base + (uint64_t)COLL_SLOTS * COLL_SLOT_BYTES);
			ck_assert_uint_le(a[p] + half, base + COLL_RECV_BYTES);
			sets[p] = hlrt_coll_set(&c, r, false);
			sets[2 + p] = hlrt_coll_set(&c, r, true);
		}
		ck_assert_uint_ge(a[1] > a[0] ? a[1] - a[0] : a[0] - a[1], half);
		for (i = 0; i < 4; i++) {
			ck_assert_uint_ge(sets[i], c.peers[r].sob_first);
			ck_assert_uint_le(sets[i] + COLL_SOBS_PER_SET,
					  c.peers[r].sob_first + COLL_SOB_SETS * COLL_SOBS_PER_SET);
			for (k = 0; k < i; k++)
				ck_assert_uint_ne(sets[i], sets[k]);
		}
	}
	ck_assert_uint_lt(COLL_SOB_GATHERED, COLL_SOBS_PER_SET);
}
END_TEST

START_TEST(cut_link_fails_then_a_new_communicator_works)
{
	struct job j = { .n = 2, .op = OP_ALL_REDUCE, .dtype = HLRT_INT32, .count = 4096,
			 .cut = true };
	uint32_t port = (uint32_t)gaudisim_nic_port_to(0, 1);
	struct rank_ctx ctx[MAX_RANKS];

	setenv("SIM_TIMEOUT_MS", "1500", 1);
	ck_assert_int_eq(sim_install_fabric(2), 0);
	ck_assert_uint_eq(run_ranks(&j, ctx), 2);
	ck_assert_msg(ctx[0].st && ctx[1].st, "both ranks see the failure");
	ck_assert_msg(!ctx[0].mismatch && !ctx[1].mismatch, "an error, not wrong data");
	/* the link back up: fresh devices and a new communicator work on it */
	ck_assert_int_eq(sim_fabric_set_link(0, port, true), 0);
	j.cut = false;
	ck_assert_uint_eq(run_ranks(&j, ctx), 0);
	sim_uninstall_fabric();
	unsetenv("SIM_TIMEOUT_MS");
}
END_TEST

/* Barriers and back-to-back ops without a host wait between them. */
struct chain_ctx {
	struct rank_head h;
	hlrt_status st;
	char err[256];
	int32_t result[3];
};

static void *chain_rank(void *arg)
{
	struct chain_ctx *x = arg;
	hlrt_device *dev = NULL;
	hlrt_stream *s = NULL;
	hlrt_comm *c = NULL;
	uint64_t a = 0, b = 0;
	int32_t v = (int32_t)x->h.rank + 1, all[MAX_RANKS];
	hlrt_status st;

	st = hlrt_device_acquire(x->h.rank, &dev);
	if (!st)
		st = hlrt_stream_create(dev, &s);
	if (!st)
		st = hlrt_device_malloc(dev, 4096, &a);
	if (!st)
		st = hlrt_device_malloc(dev, 4096, &b);
	if (!st)
		st = hlrt_memcpy_h2d(dev, a, &v, 4);
	if (!st)
		st = hlrt_comm_init_rank(&c, x->h.n, &x->h.id, x->h.rank, dev);
	/* sum, barrier, gather the sums, broadcast rank 1's: one sync at the end */
	if (!st)
		st = hlrt_all_reduce(c, a, a, 1, HLRT_INT32, HLRT_REDUCE_SUM, s);
	if (!st)
		st = hlrt_barrier(c, s);
	if (!st)
		st = hlrt_all_gather(c, a, b, 1, HLRT_INT32, s);
	if (!st)
		st = hlrt_barrier(c, s);
	if (!st)
		st = hlrt_broadcast(c, b + 4, b + 4, 1, HLRT_INT32, 1, s);
	if (!st)
		st = hlrt_stream_synchronize(s);
	if (!st)
		st = hlrt_memcpy_d2h(dev, all, b, 4 * x->h.n);
	if (st)
		snprintf(x->err, sizeof(x->err), "rank %u: %s", x->h.rank, hlrt_last_error());
	x->st = st;
	x->result[0] = all[0];
	x->result[1] = all[x->h.n - 1];
	if (c)
		hlrt_comm_destroy(c);
	if (dev)
		hlrt_device_release(dev);
	return NULL;
}

START_TEST(ops_chain_on_a_stream_without_host_waits)
{
	struct chain_ctx ctx[4];
	uint32_t r, n = 4;

	memset(ctx, 0, sizeof(ctx));
	run_rank_threads(ctx, sizeof(ctx[0]), n, chain_rank);
	for (r = 0; r < n; r++) {
		ck_assert_msg(!ctx[r].st, "%s", ctx[r].err);
		ck_assert_int_eq(ctx[r].result[0], 10);		/* 1 + 2 + 3 + 4 */
		ck_assert_int_eq(ctx[r].result[1], 10);
	}
}
END_TEST

/*
 * A call repeated on the same buffers resubmits the CBs of its earlier
 * launch on the same SOB set: a training step's gradient and count sums,
 * new data every time, each result exact; other buffers plan anew.
 */
#define RELAUNCH_ITERS	6
#define RELAUNCH_ELEMS	5003

struct relaunch_ctx {
	struct rank_head h;
	hlrt_status st;
	char err[256];
	bool mismatch;
	uint64_t launches, relaunches, after_other;
};

static void *relaunch_rank(void *arg)
{
	struct relaunch_ctx *x = arg;
	float *host = malloc(RELAUNCH_ELEMS * 4), *got = malloc(RELAUNCH_ELEMS * 4);
	float *want = malloc(RELAUNCH_ELEMS * 4);
	void *in[MAX_RANKS] = { 0 };
	hlrt_device *dev = NULL;
	hlrt_stream *s = NULL;
	hlrt_comm *c = NULL;
	uint64_t a = 0, b = 0, other = 0;
	uint32_t it, q;
	int32_t cnt;
	hlrt_status st;

	for (q = 0; q < x->h.n; q++)
		in[q] = malloc(RELAUNCH_ELEMS * 4);
	st = hlrt_device_acquire(x->h.rank, &dev);
	if (!st)
		st = hlrt_stream_create(dev, &s);
	if (!st)
		st = hlrt_device_malloc(dev, RELAUNCH_ELEMS * 4, &a);
	if (!st)
		st = hlrt_device_malloc(dev, 4096, &b);
	if (!st)
		st = hlrt_device_malloc(dev, RELAUNCH_ELEMS * 4, &other);
	if (!st)
		st = hlrt_comm_init_rank(&c, x->h.n, &x->h.id, x->h.rank, dev);
	for (it = 0; it < RELAUNCH_ITERS && !st && !x->mismatch; it++) {
		/* this iteration's inputs: rank q's are coll_ref_fill(q + n * it) */
		for (q = 0; q < x->h.n; q++)
			coll_ref_fill(in[q], RELAUNCH_ELEMS, HLRT_FP32, q + x->h.n * it);
		coll_ref_all_reduce(want, in, x->h.n, RELAUNCH_ELEMS, HLRT_FP32);
		cnt = (int32_t)(x->h.rank + it);
		st = hlrt_memcpy_h2d(dev, a, in[x->h.rank], RELAUNCH_ELEMS * 4);
		if (!st)
			st = hlrt_memcpy_h2d(dev, b, &cnt, 4);
		if (!st)
			st = hlrt_all_reduce(c, a, a, RELAUNCH_ELEMS, HLRT_FP32, HLRT_REDUCE_SUM, s);
		if (!st)
			st = hlrt_all_reduce(c, b, b, 1, HLRT_INT32, HLRT_REDUCE_SUM, s);
		if (!st)
			st = hlrt_stream_synchronize(s);
		if (!st)
			st = hlrt_memcpy_d2h(dev, got, a, RELAUNCH_ELEMS * 4);
		if (!st)
			st = hlrt_memcpy_d2h(dev, &cnt, b, 4);
		if (!st && (memcmp(got, want, RELAUNCH_ELEMS * 4) ||
			    cnt != (int32_t)(x->h.n * (x->h.n - 1) / 2 + x->h.n * it)))
			x->mismatch = true;
	}
	if (!st) {
		x->launches = c->launches;
		x->relaunches = c->relaunches;
		st = hlrt_memcpy_h2d(dev, other, in[x->h.rank], RELAUNCH_ELEMS * 4);
	}
	if (!st)
		st = hlrt_all_reduce(c, other, other, RELAUNCH_ELEMS, HLRT_FP32, HLRT_REDUCE_SUM, s);
	if (!st)
		st = hlrt_stream_synchronize(s);
	if (!st)
		st = hlrt_memcpy_d2h(dev, got, other, RELAUNCH_ELEMS * 4);
	if (!st) {
		x->after_other = c->relaunches;
		x->mismatch |= memcmp(got, want, RELAUNCH_ELEMS * 4) != 0;
	}
	if (st)
		snprintf(x->err, sizeof(x->err), "rank %u: %s", x->h.rank, hlrt_last_error());
	x->st = st;
	if (c)
		hlrt_comm_destroy(c);
	if (dev)
		hlrt_device_release(dev);
	for (q = 0; q < x->h.n; q++)
		free(in[q]);
	free(host);
	free(got);
	free(want);
	return NULL;
}

START_TEST(repeated_calls_resubmit_their_cbs)
{
	struct relaunch_ctx ctx[4];
	uint32_t r, n = 4;

	memset(ctx, 0, sizeof(ctx));
	run_rank_threads(ctx, sizeof(ctx[0]), n, relaunch_rank);
	for (r = 0; r < n; r++) {
		ck_assert_msg(!ctx[r].st, "%s", ctx[r].err);
		ck_assert_msg(!ctx[r].mismatch, "rank %u: a result differs", r);
		/* the gradients on set 0, the count on set 1: both planned once */
		ck_assert_uint_eq(ctx[r].launches, 2 * RELAUNCH_ITERS);
		ck_assert_uint_eq(ctx[r].relaunches, 2 * RELAUNCH_ITERS - 2);
		/* another buffer is another launch */
		ck_assert_uint_eq(ctx[r].after_other, ctx[r].relaunches);
	}
}
END_TEST

/*
 * The sums go on as many TPCs as a ring step has chunks: a small
 * all-reduce submits one TPC job, not four idle ones; the receives still
 * count up on each TPC in order.
 */
static void plan_tpcs(uint64_t seg_elems, uint32_t *n_tpc)
{
	hlrt_comm c = { .nranks = 8, .ring_pos = 3 };
	struct coll_plan p = { .dtype = HLRT_FP32 };
	struct coll_segs segs;
	uint32_t r;

	for (r = 0; r < 8; r++) {
		c.ring[r] = r;
		segs.addr[r] = 0x100000 + r * seg_elems * 4;
		segs.elems[r] = seg_elems;
	}
	HLRT_OK(hlrt_coll_plan_ring(&c, &p, &segs, true, true));
	hlrt_coll_plan_finish(&p);
	memcpy(n_tpc, p.n_tpc, sizeof(p.n_tpc));
	for (r = 0; r < p.n_recv; r++)
		if (p.recv[r].reduce)
			ck_assert_uint_lt(p.recv[r].tpc, COLL_NUM_TPC);
	hlrt_coll_plan_free(&p);
}

START_TEST(small_sums_use_one_tpc)
{
	uint32_t n[COLL_NUM_TPC];

	/* 32 KiB over 8 ranks: one chunk a step, 7 sums, all on TPC 0 */
	plan_tpcs(1024, n);
	ck_assert_uint_eq(n[0], 7);
	ck_assert_uint_eq(n[1] + n[2] + n[3], 0);
	/* 3 chunks a step: three TPCs, 7 sums each */
	plan_tpcs(3 * (COLL_SLOT_BYTES / 4) - 1, n);
	ck_assert_uint_eq(n[0], 7);
	ck_assert_uint_eq(n[1], 7);
	ck_assert_uint_eq(n[2], 7);
	ck_assert_uint_eq(n[3], 0);
	/* 8 chunks a step: all four TPCs */
	plan_tpcs(8 * (COLL_SLOT_BYTES / 4), n);
	ck_assert_uint_eq(n[0] + n[1] + n[2] + n[3], 56);
	ck_assert_uint_eq(n[3], 14);
}
END_TEST

/*
 * The profiler's collectives lane, per rank: each rank's profile has a
 * "Collectives" lane with one event per call (named by the op and its
 * bytes), none overlapping, whose busy time (their union) is their sum and
 * lies within the wall time of the calls.
 */
struct prof_ctx {
	struct rank_head h;
	hlrt_status st;
	char err[256], path[64];
	uint64_t wall_ns;
};

static void *prof_rank(void *arg)
{
	struct prof_ctx *x = arg;
	hlrt_device *dev = NULL;
	hlrt_stream *s = NULL;
	hlrt_comm *c = NULL;
	uint64_t a = 0, t0;
	hlrt_status st;

	st = hlrt_device_acquire(x->h.rank, &dev);
	if (!st)
		st = hlrt_stream_create(dev, &s);
	if (!st)
		st = hlrt_device_malloc(dev, 1 << 20, &a);
	if (!st)
		st = hlrt_comm_init_rank(&c, x->h.n, &x->h.id, x->h.rank, dev);
	if (!st)
		st = hlrt_profiler_start(dev, x->path);
	t0 = hlrt_now_ns();
	if (!st)
		st = hlrt_all_reduce(c, a, a, 1 << 18, HLRT_FP32, HLRT_REDUCE_SUM, s);
	if (!st)
		st = hlrt_barrier(c, s);
	if (!st)
		st = hlrt_all_gather(c, a, a + (1 << 19), 1000, HLRT_INT32, s);
	if (!st)
		st = hlrt_stream_synchronize(s);
	x->wall_ns = hlrt_now_ns() - t0;
	if (!st)
		st = hlrt_profiler_stop(dev);
	if (st)
		snprintf(x->err, sizeof(x->err), "rank %u: %s", x->h.rank, hlrt_last_error());
	x->st = st;
	if (c)
		hlrt_comm_destroy(c);
	if (dev)
		hlrt_device_release(dev);
	return NULL;
}

static int by_start(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

START_TEST(profile_has_a_collectives_lane_per_rank)
{
	static const char *const want[3] = { "all_reduce (1048576 bytes)", "barrier (0 bytes)",
					     "all_gather (8000 bytes)" };
	struct prof_ctx ctx[2];
	uint32_t r, n = 2;

	memset(ctx, 0, sizeof(ctx));
	for (r = 0; r < n; r++)
		snprintf(ctx[r].path, sizeof(ctx[r].path), "/tmp/rt-coll-prof-%d-%u.json",
			 (int)getpid(), r);
	run_rank_threads(ctx, sizeof(ctx[0]), n, prof_rank);
	for (r = 0; r < n; r++) {
		json_error_t je;
		json_t *root, *evs, *e;
		json_int_t tid = -1;
		double iv[8][2], sum = 0, busy = 0, end = 0;
		size_t i, k = 0;

		ck_assert_msg(!ctx[r].st, "%s", ctx[r].err);
		root = json_load_file(ctx[r].path, 0, &je);
		ck_assert_msg(root != NULL, "%s: %s", ctx[r].path, je.text);
		evs = json_object_get(root, "traceEvents");
		json_array_foreach(evs, i, e) {
			json_t *args = json_object_get(e, "args");

			if (!strcmp(json_string_value(json_object_get(e, "ph")), "M") && args &&
			    json_object_get(args, "name") &&
			    !strcmp(json_string_value(json_object_get(args, "name")), "Collectives"))
				tid = json_integer_value(json_object_get(e, "tid"));
		}
		ck_assert_msg(tid >= 0, "rank %u: no Collectives lane", r);
		json_array_foreach(evs, i, e) {
			if (strcmp(json_string_value(json_object_get(e, "ph")), "X") ||
			    json_integer_value(json_object_get(e, "pid")) != 1 ||
			    json_integer_value(json_object_get(e, "tid")) != tid)
				continue;
			ck_assert_uint_lt(k, 3);
			ck_assert_str_eq(json_string_value(json_object_get(e, "name")), want[k]);
			ck_assert_str_eq(json_string_value(json_object_get(e, "cat")), "collective");
			iv[k][0] = json_number_value(json_object_get(e, "ts"));
			iv[k][1] = iv[k][0] + json_number_value(json_object_get(e, "dur"));
			ck_assert(iv[k][1] > iv[k][0]);
			sum += iv[k][1] - iv[k][0];
			k++;
		}
		ck_assert_uint_eq(k, 3);
		/* the union of the intervals, as hl-prof-summary takes a lane's busy time */
		qsort(iv, k, sizeof(iv[0]), by_start);
		for (i = 0; i < k; i++) {
			double lo = iv[i][0] > end ? iv[i][0] : end;

			if (iv[i][1] > lo)
				busy += iv[i][1] - lo;
			if (iv[i][1] > end)
				end = iv[i][1];
		}
		ck_assert_msg(fabs(busy - sum) < 1e-3, "rank %u: events overlap (busy %g, sum %g)",
			      r, busy, sum);
		ck_assert_msg(busy * 1000.0 <= (double)ctx[r].wall_ns,
			      "rank %u: busy %g us beyond the calls' %g us", r, busy,
			      ctx[r].wall_ns / 1000.0);
		json_decref(root);
		unlink(ctx[r].path);
	}
}
END_TEST

START_TEST(ids_and_rendezvous_errors)
{
	hlrt_comm_id id, id2;
	hlrt_device *dev;
	hlrt_comm *c = NULL;
	char text[HLRT_COMM_ID_MAX + 8];

	ck_assert_int_eq(hlrt_comm_get_unique_id(NULL), HLRT_INVALID_ARGUMENT);
	HLRT_OK(hlrt_comm_get_unique_id(&id));
	HLRT_OK(hlrt_comm_get_unique_id(&id2));
	ck_assert_str_ne(id.text, id2.text);
	HLRT_OK(hlrt_comm_id_parse(id.text, &id2));
	ck_assert_str_eq(id.text, id2.text);
	ck_assert_int_eq(hlrt_comm_id_parse("nccl:1234", &id2), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_comm_id_parse("hlrt1:12:/tmp", &id2), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_comm_id_parse("hlrt1:0123456789abcdef:rel", &id2),
			 HLRT_INVALID_ARGUMENT);
	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = 0;
	ck_assert_int_eq(hlrt_comm_id_parse(text, &id2), HLRT_INVALID_ARGUMENT);

	ck_assert_int_eq(sim_install_fabric(2), 0);
	HLRT_OK(hlrt_device_acquire(0, &dev));
	ck_assert_int_eq(hlrt_comm_init_rank(&c, 0, &id, 0, dev), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_comm_init_rank(&c, 2, &id, 2, dev), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_comm_init_rank(&c, 2, NULL, 0, dev), HLRT_INVALID_ARGUMENT);
	/* rank 1 never comes: a bounded wait and a clear error */
	setenv("HLRT_COMM_TIMEOUT_MS", "200", 1);
	ck_assert_int_eq(hlrt_comm_init_rank(&c, 2, &id, 0, dev), HLRT_TIMEOUT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "missing"));
	unsetenv("HLRT_COMM_TIMEOUT_MS");
	/* a rendezvous directory others may write, or a symlink, is refused */
	{
		char dir[] = "/tmp/hlrt-test-comm-XXXXXX", link[64], bad[HLRT_COMM_ID_MAX];

		ck_assert_ptr_nonnull(mkdtemp(dir));
		ck_assert_int_eq(chmod(dir, 0777), 0);
		snprintf(bad, sizeof(bad), "hlrt1:0123456789abcdef:%s", dir);
		HLRT_OK(hlrt_comm_id_parse(bad, &id2));
		ck_assert_int_eq(hlrt_comm_init_rank(&c, 1, &id2, 0, dev), HLRT_INVALID_ARGUMENT);
		ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "writable by others"));
		ck_assert_int_eq(chmod(dir, 0700), 0);
		snprintf(link, sizeof(link), "%s.link", dir);
		ck_assert_int_eq(symlink(dir, link), 0);
		snprintf(bad, sizeof(bad), "hlrt1:0123456789abcdef:%s", link);
		HLRT_OK(hlrt_comm_id_parse(bad, &id2));
		ck_assert_int_eq(hlrt_comm_init_rank(&c, 1, &id2, 0, dev), HLRT_INVALID_ARGUMENT);
		ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "not a directory"));
		ck_assert_int_eq(unlink(link), 0);
		ck_assert_int_eq(rmdir(dir), 0);
	}
	/* a single rank works alone: collectives are copies */
	{
		hlrt_stream *s;
		uint64_t a, b;
		int32_t v = 42, w = 0;

		HLRT_OK(hlrt_comm_get_unique_id(&id));
		HLRT_OK(hlrt_comm_init_rank(&c, 1, &id, 0, dev));
		HLRT_OK(hlrt_stream_create(dev, &s));
		HLRT_OK(hlrt_device_malloc(dev, 4096, &a));
		HLRT_OK(hlrt_device_malloc(dev, 4096, &b));
		HLRT_OK(hlrt_memcpy_h2d(dev, a, &v, 4));
		HLRT_OK(hlrt_all_reduce(c, a, b, 1, HLRT_INT32, HLRT_REDUCE_SUM, s));
		HLRT_OK(hlrt_stream_synchronize(s));
		HLRT_OK(hlrt_memcpy_d2h(dev, &w, b, 4));
		ck_assert_int_eq(w, 42);
		/* bad arguments, and the communicator still works after them */
		ck_assert_int_eq(hlrt_all_reduce(c, a, b, 0, HLRT_INT32, HLRT_REDUCE_SUM, s),
				 HLRT_INVALID_ARGUMENT);
		ck_assert_int_eq(hlrt_all_reduce(c, a, b, 1, (hlrt_dtype)77, HLRT_REDUCE_SUM, s),
				 HLRT_UNSUPPORTED);
		ck_assert_int_eq(hlrt_all_reduce(c, a, b, 1, HLRT_INT32, (hlrt_reduce_op)3, s),
				 HLRT_UNSUPPORTED);
		ck_assert_int_eq(hlrt_all_reduce(c, 0, b, 1, HLRT_INT32, HLRT_REDUCE_SUM, s),
				 HLRT_INVALID_ARGUMENT);
		ck_assert_int_eq(hlrt_broadcast(c, a, b, 1, HLRT_INT32, 1, s),
				 HLRT_INVALID_ARGUMENT);
		ck_assert_int_eq(hlrt_all_gather(NULL, a, b, 1, HLRT_INT32, s),
				 HLRT_INVALID_ARGUMENT);
		HLRT_OK(hlrt_broadcast(c, a, b, 1, HLRT_INT32, 0, s));
		HLRT_OK(hlrt_stream_synchronize(s));
		HLRT_OK(hlrt_comm_destroy(c));
	}
	hlrt_device_release(dev);
	sim_uninstall_fabric();
}
END_TEST

/* Two boxes of eight: box 0 up the modules, box 1 down; hops between boxes link equal modules. */
START_TEST(ring_order_across_two_boxes)
{
	struct coll_record recs[16];
	uint32_t ring[16], i;

	for (i = 0; i < 16; i++) {
		/* ranks not in box/module order, as a launcher may number them */
		uint32_t slot = (i * 5) % 16;

		recs[i] = (struct coll_record){ .rank = i, .box = slot / 8, .module = slot % 8 };
	}
	HLRT_OK(hlrt_coll_ring_order(recs, 16, ring));
	for (i = 0; i < 16; i++) {
		const struct coll_record *r = &recs[ring[i]];

		ck_assert_uint_eq(r->box, i / 8);
		ck_assert_uint_eq(r->module, i < 8 ? i : 15 - i);
	}
	/* box 1 without module 7: the crossing would join modules 7 and 6 */
	for (i = 0; i < 15; i++)
		recs[i] = (struct coll_record){ .rank = i, .box = i / 8, .module = i % 8 };
	ck_assert_int_eq(hlrt_coll_ring_order(recs, 15, ring), HLRT_UNSUPPORTED);
	/* two ranks on one module of one box */
	recs[1].module = 0;
	ck_assert_int_eq(hlrt_coll_ring_order(recs, 2, ring), HLRT_INVALID_ARGUMENT);
	/* one box: module order whatever the rank order */
	for (i = 0; i < 4; i++)
		recs[i] = (struct coll_record){ .rank = i, .box = 0, .module = 6 - 2 * i };
	HLRT_OK(hlrt_coll_ring_order(recs, 4, ring));
	ck_assert_uint_eq(ring[0], 3);
	ck_assert_uint_eq(ring[3], 0);
}
END_TEST

Suite *coll_suite(void)
{
	Suite *s = suite_create("collectives");
	TCase *tc = tcase_create("collectives");

	tcase_add_test(tc, ids_and_rendezvous_errors);
	tcase_add_test(tc, ring_order_across_two_boxes);
	tcase_add_test(tc, matrix_two_ranks);
	tcase_add_test(tc, matrix_four_ranks);
	tcase_add_test(tc, matrix_eight_ranks);
	tcase_add_test(tc, large_buffers_pipeline);
	tcase_add_test(tc, small_all_reduce_goes_direct);
	tcase_add_test(tc, ring_and_direct_interleave_without_host_waits);
	tcase_add_test(tc, direct_and_ring_share_no_area_or_set);
	tcase_add_test(tc, ops_chain_on_a_stream_without_host_waits);
	tcase_add_test(tc, repeated_calls_resubmit_their_cbs);
	tcase_add_test(tc, small_sums_use_one_tpc);
	tcase_add_test(tc, profile_has_a_collectives_lane_per_rank);
	tcase_add_test(tc, cut_link_fails_then_a_new_communicator_works);
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	return s;
}
