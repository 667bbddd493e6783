/* SPDX-License-Identifier: MIT */
/*
 * Engines on worker threads: the pool itself (every item runs once,
 * cancellation of queued and running items), asynchronous launches (the
 * run returns while the engine computes, STATUS shows it busy, the
 * completion message follows), results bit-identical to the synchronous
 * engines for the MME and for a kernel split over the eight TPCs, the MME
 * running beside a TPC, and resets while a worker runs: no completion
 * message, interrupt, event or memory write follows the reset.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsim_bf16.h"
#include "gsim_core_internal.h"
#include "gsim_mme.h"
#include "gsim_pool.h"
#include "hw/gaudisim_hw_mme.h"
#include "test_tpc.h"

#define THREADS		2u

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- the pool ----------------------------------------------------------------- */

struct count_item {
	struct gsim_work w;
	atomic_uint *total;
	unsigned int runs;
};

static void count_fn(struct gsim_work *w)
{
	struct count_item *it = (struct count_item *)w;

	it->runs++;
	atomic_fetch_add(it->total, 1);
}

START_TEST(test_pool_runs_every_item_once)
{
	struct gsim_pool *shared = gsim_pool_new(THREADS);
	struct gsim_client *pool = gsim_client_new(shared, NULL, NULL);
	struct count_item items[64];
	atomic_uint total = 0;
	unsigned int i, taken = 0;
	struct gsim_work *w;

	ck_assert_ptr_nonnull(pool);
	ck_assert_uint_eq(gsim_pool_threads(shared), THREADS);
	ck_assert_ptr_null(gsim_pool_new(0));
	ck_assert_ptr_null(gsim_client_new(NULL, NULL, NULL));
	for (i = 0; i < 64; i++) {
		items[i] = (struct count_item){ .w.fn = count_fn, .total = &total };
		gsim_pool_submit(pool, &items[i].w);
	}
	while (taken < 64) {
		ck_assert(gsim_pool_wait_done(pool, T_WORK_TIMEOUT_NS));
		while ((w = gsim_pool_take_done(pool))) {
			ck_assert_int_eq(w->state, GSIM_WORK_IDLE);
			taken++;
		}
	}
	ck_assert_uint_eq(atomic_load(&total), 64);
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(items[i].runs, 1);
	ck_assert_uint_eq(gsim_pool_in_flight(pool), 0);
	/* Nothing in flight: waiting returns at once, with nothing. */
	ck_assert(!gsim_pool_wait_done(pool, T_WORK_TIMEOUT_NS));
	gsim_client_free(pool);
	gsim_pool_free(shared);
}
END_TEST

struct spin_item {
	struct gsim_work w;
	atomic_bool started, returned;
	atomic_uint runs;
};

/* Runs until cancelled. */
static void spin_fn(struct gsim_work *w)
{
	struct spin_item *it = (struct spin_item *)w;

	atomic_fetch_add(&it->runs, 1);
	atomic_store(&it->started, true);
	while (!gsim_work_cancelled(w))
		sleep_ms(1);
	sleep_ms(20);	/* the canceller must wait for this, too */
	atomic_store(&it->returned, true);
}

static atomic_uint notified;

static void count_notify(void *opaque)
{
	(void)opaque;
	atomic_fetch_add(&notified, 1);
}

START_TEST(test_pool_cancel_queued_and_running)
{
	struct gsim_pool *shared = gsim_pool_new(1);
	struct gsim_client *pool = gsim_client_new(shared, count_notify, NULL);
	struct spin_item a = { .w.fn = spin_fn }, b = { .w.fn = spin_fn };
	unsigned int waited;

	ck_assert_ptr_nonnull(pool);
	atomic_store(&notified, 0);
	gsim_pool_submit(pool, &a.w);
	gsim_pool_submit(pool, &b.w);
	for (waited = 0; !atomic_load(&a.started); waited++) {
		ck_assert_uint_lt(waited, 10000);
		sleep_ms(1);
	}
	ck_assert_uint_eq(gsim_pool_in_flight(pool), 2);
	/* b is queued behind a on the single worker: it never runs. */
	gsim_pool_cancel(pool, &b.w);
	ck_assert_int_eq(b.w.state, GSIM_WORK_IDLE);
	/* a is running: cancel returns only once a's fn() returned. */
	gsim_pool_cancel(pool, &a.w);
	ck_assert(atomic_load(&a.returned));
	ck_assert_int_eq(a.w.state, GSIM_WORK_IDLE);
	sleep_ms(20);
	ck_assert_uint_eq(atomic_load(&b.runs), 0);
	ck_assert_ptr_null(gsim_pool_take_done(pool));
	ck_assert_uint_eq(gsim_pool_in_flight(pool), 0);
	/* Cancelled work is not reported as done. */
	ck_assert_uint_eq(atomic_load(&notified), 0);
	/* The pool goes on running new work. */
	{
		struct count_item c = { .w.fn = count_fn };
		atomic_uint total = 0;

		c.total = &total;
		gsim_pool_submit(pool, &c.w);
		ck_assert(gsim_pool_wait_done(pool, T_WORK_TIMEOUT_NS));
		ck_assert_ptr_eq(gsim_pool_take_done(pool), &c.w);
		ck_assert_uint_eq(atomic_load(&total), 1);
		/* The worker notifies right after queueing it as done. */
		for (waited = 0; atomic_load(&notified) == 0; waited++) {
			ck_assert_uint_lt(waited, 10000);
			sleep_ms(1);
		}
		sleep_ms(10);
		ck_assert_uint_eq(atomic_load(&notified), 1);
	}
	gsim_client_free(pool);
	gsim_pool_free(shared);
}
END_TEST

static atomic_uint notified_a, notified_b;

static void client_notify(void *opaque)
{
	atomic_fetch_add((atomic_uint *)opaque, 1);
}

/*
 * Two clients of one shared pool: each gets back only its own items and
 * its own callbacks; freeing one with work queued and running takes that
 * work back and leaves the other's running; the pool is one per size and
 * lives until its last reference goes.
 */
START_TEST(test_shared_pool_keeps_clients_apart)
{
	struct gsim_pool *one = gsim_pool_get_shared(1);
	struct gsim_pool *again = gsim_pool_get_shared(1);
	struct gsim_pool *two = gsim_pool_get_shared(2);
	struct gsim_client *a = gsim_client_new(one, client_notify, &notified_a);
	struct gsim_client *b = gsim_client_new(again, client_notify, &notified_b);
	struct count_item ia[8], ib[8];
	struct spin_item spin = { .w.fn = spin_fn };
	struct count_item behind = { .w.fn = count_fn };
	atomic_uint total = 0;
	unsigned int i, taken_a = 0, taken_b = 0, waited;
	struct gsim_work *w;

	ck_assert_ptr_nonnull(one);
	ck_assert_ptr_eq(one, again);
	ck_assert_ptr_ne(one, two);
	ck_assert_uint_eq(gsim_pool_threads(one), 1);
	ck_assert_uint_eq(gsim_pool_threads(two), 2);
	ck_assert_ptr_eq(gsim_client_pool(a), gsim_client_pool(b));
	atomic_store(&notified_a, 0);
	atomic_store(&notified_b, 0);
	for (i = 0; i < 8; i++) {
		ia[i] = (struct count_item){ .w.fn = count_fn, .total = &total };
		ib[i] = (struct count_item){ .w.fn = count_fn, .total = &total };
		gsim_pool_submit(a, &ia[i].w);
		gsim_pool_submit(b, &ib[i].w);
	}
	while (taken_a < 8 || taken_b < 8) {
		ck_assert(gsim_pool_wait_done(taken_a < 8 ? a : b, T_WORK_TIMEOUT_NS));
		while ((w = gsim_pool_take_done(a))) {
			ck_assert_uint_lt((struct count_item *)w - ia, 8);
			taken_a++;
		}
		while ((w = gsim_pool_take_done(b))) {
			ck_assert_uint_lt((struct count_item *)w - ib, 8);
			taken_b++;
		}
	}
	ck_assert_uint_eq(atomic_load(&total), 16);
	for (waited = 0; atomic_load(&notified_a) + atomic_load(&notified_b) < 16; waited++) {
		ck_assert_uint_lt(waited, 10000);
		sleep_ms(1);
	}
	ck_assert_uint_eq(atomic_load(&notified_a), 8);
	ck_assert_uint_eq(atomic_load(&notified_b), 8);

	/* b's item runs on the one worker, a's waits behind it: free b. */
	behind.total = &total;
	gsim_pool_submit(b, &spin.w);
	for (waited = 0; !atomic_load(&spin.started); waited++) {
		ck_assert_uint_lt(waited, 10000);
		sleep_ms(1);
	}
	gsim_pool_submit(a, &behind.w);
	ck_assert_uint_eq(gsim_pool_in_flight(a), 1);
	ck_assert_uint_eq(gsim_pool_in_flight(b), 1);
	/* Cancel the spinner the way an engine reset does, then free b. */
	gsim_pool_cancel(b, &spin.w);
	gsim_client_free(b);
	gsim_pool_put_shared(again);
	ck_assert(atomic_load(&spin.returned));
	ck_assert(gsim_pool_wait_done(a, T_WORK_TIMEOUT_NS));
	ck_assert_ptr_eq(gsim_pool_take_done(a), &behind.w);
	ck_assert_uint_eq(behind.runs, 1);

	/* Freeing a client with items still queued drops them unrun. */
	{
		struct spin_item hold = { .w.fn = spin_fn };
		struct count_item dropped = { .w.fn = count_fn, .total = &total };
		struct gsim_client *c = gsim_client_new(one, NULL, NULL);

		gsim_pool_submit(a, &hold.w);
		for (waited = 0; !atomic_load(&hold.started); waited++) {
			ck_assert_uint_lt(waited, 10000);
			sleep_ms(1);
		}
		gsim_pool_submit(c, &dropped.w);
		gsim_client_free(c);
		gsim_pool_cancel(a, &hold.w);
		sleep_ms(20);
		ck_assert_uint_eq(dropped.runs, 0);
		ck_assert_int_eq(dropped.w.state, GSIM_WORK_IDLE);
	}
	gsim_client_free(a);
	gsim_pool_put_shared(one);
	gsim_pool_put_shared(two);
	/* The last reference stopped the pool: the next one is new. */
	one = gsim_pool_get_shared(1);
	ck_assert_ptr_nonnull(one);
	ck_assert_uint_eq(gsim_pool_threads(one), 1);
	gsim_pool_put_shared(one);
}
END_TEST

/* ---- device helpers ------------------------------------------------------------ */

static uint64_t rng_state;

static uint32_t rnd32(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

/* Fractional values in [-2, 2): sums whose result depends on the order. */
static float rnd_frac(void)
{
	return (float)(int32_t)(rnd32() % 65536u - 32768) / 16384.0f + 1.0f / 3.0f;
}

static uint8_t *dev(uint64_t addr)
{
	if (addr >= GAUDISIM_SRAM_BASE)
		return T->core->sram + (addr - GAUDISIM_SRAM_BASE);
	return T->core->hbm + addr;
}

static uint32_t eng_reg(unsigned int e, uint32_t off)
{
	return rd(GAUDISIM_ENGINE_BLOCK(e) + off);
}

static void eng_wr(unsigned int e, uint32_t off, uint32_t v)
{
	wr(GAUDISIM_ENGINE_BLOCK(e) + off, v);
}

/* The completion message of engine e goes to an SRAM word. */
#define COMP_ADDR(e)	(GAUDISIM_SRAM_BASE + 0x1000 + 4 * (e))
#define COMP_VALUE	0x600dcafeu

static void comp_setup(unsigned int e)
{
	eng_wr(e, GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)COMP_ADDR(e));
	eng_wr(e, GAUDISIM_ENG_WR_COMP_ADDR_HI, (uint32_t)(COMP_ADDR(e) >> 32));
	eng_wr(e, GAUDISIM_ENG_WR_COMP_WDATA, COMP_VALUE);
	eng_wr(e, GAUDISIM_ENG_WR_COMP_EN, 1);
	memset(dev(COMP_ADDR(e)), 0, 4);
}

static uint32_t comp_word(unsigned int e)
{
	return dev_rd32(dev(COMP_ADDR(e)));
}

static bool eng_busy(unsigned int e)
{
	return eng_reg(e, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_BUSY;
}

/* ---- the MME -------------------------------------------------------------------- */

#define MME_A	(GAUDISIM_HBM_USER_BASE + (16ull << 20))
#define MME_B	(GAUDISIM_HBM_USER_BASE + (96ull << 20))
#define MME_C	(GAUDISIM_HBM_USER_BASE + (176ull << 20))
#define MME_D	(GAUDISIM_HBM_USER_BASE + (256ull << 20))

struct gemm {
	uint32_t m, n, k, batch;
	unsigned int in, out;
	bool ta, tb;
	float alpha, beta;
};

static uint64_t elems(uint32_t rows, uint32_t cols, uint32_t batch)
{
	return (uint64_t)rows * cols * batch;
}

static void fill_operand(uint64_t addr, uint64_t n, unsigned int dtype)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		float v = rnd_frac();

		if (dtype == GAUDISIM_DTYPE_BF16) {
			uint16_t h = gsim_f32_to_bf16(v);

			memcpy(dev(addr) + 2 * i, &h, 2);
		} else {
			memcpy(dev(addr) + 4 * i, &v, 4);
		}
	}
}

/* Program a dense GEMM into MME engine e through MMIO and COMMIT it (the host's launch). */
static void mme_commit(unsigned int e, const struct gemm *g)
{
	uint32_t lda = g->ta ? g->m : g->k, ldb = g->tb ? g->k : g->n;

	eng_wr(e, GAUDISIM_MME_A_ADDR_LO, (uint32_t)MME_A);
	eng_wr(e, GAUDISIM_MME_A_ADDR_HI, (uint32_t)(MME_A >> 32));
	eng_wr(e, GAUDISIM_MME_B_ADDR_LO, (uint32_t)MME_B);
	eng_wr(e, GAUDISIM_MME_B_ADDR_HI, (uint32_t)(MME_B >> 32));
	eng_wr(e, GAUDISIM_MME_C_ADDR_LO, (uint32_t)MME_C);
	eng_wr(e, GAUDISIM_MME_C_ADDR_HI, (uint32_t)(MME_C >> 32));
	eng_wr(e, GAUDISIM_MME_D_ADDR_LO, (uint32_t)MME_D);
	eng_wr(e, GAUDISIM_MME_D_ADDR_HI, (uint32_t)(MME_D >> 32));
	eng_wr(e, GAUDISIM_MME_M, g->m);
	eng_wr(e, GAUDISIM_MME_N, g->n);
	eng_wr(e, GAUDISIM_MME_K, g->k);
	eng_wr(e, GAUDISIM_MME_BATCH, g->batch);
	eng_wr(e, GAUDISIM_MME_LDA, lda);
	eng_wr(e, GAUDISIM_MME_LDB, ldb);
	eng_wr(e, GAUDISIM_MME_LDC, g->n);
	eng_wr(e, GAUDISIM_MME_LDD, g->n);
	eng_wr(e, GAUDISIM_MME_A_BATCH_STRIDE_LO, (uint32_t)((uint64_t)g->m * g->k));
	eng_wr(e, GAUDISIM_MME_B_BATCH_STRIDE_LO, (uint32_t)((uint64_t)g->k * g->n));
	eng_wr(e, GAUDISIM_MME_C_BATCH_STRIDE_LO, (uint32_t)((uint64_t)g->m * g->n));
	eng_wr(e, GAUDISIM_MME_D_BATCH_STRIDE_LO, (uint32_t)((uint64_t)g->m * g->n));
	eng_wr(e, GAUDISIM_MME_DTYPE, GAUDISIM_MME_DTYPE_VALUE(g->in, g->out));
	eng_wr(e, GAUDISIM_MME_CTRL, (g->ta ? GAUDISIM_MME_CTRL_TRANSPOSE_A : 0) |
				     (g->tb ? GAUDISIM_MME_CTRL_TRANSPOSE_B : 0));
	eng_wr(e, GAUDISIM_MME_ALPHA, gsim_f32_bits(g->alpha));
	eng_wr(e, GAUDISIM_MME_BETA, gsim_f32_bits(g->beta));
	ck_assert_uint_ne(wr(GAUDISIM_ENGINE_BLOCK(e) + GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO) &
			  GSIM_KICK_RUN, 0);
}

static void mme_fill(const struct gemm *g, uint64_t seed)
{
	rng_state = seed;
	fill_operand(MME_A, elems(g->m, g->k, g->batch), g->in);
	fill_operand(MME_B, elems(g->k, g->n, g->batch), g->in);
	fill_operand(MME_C, elems(g->m, g->n, g->batch), g->out);
}

/* D of one GEMM on MME e of a fresh core with the given worker count (malloc'ed). */
static uint8_t *mme_result(unsigned int e, const struct gemm *g, unsigned int threads,
			   uint64_t *bytes)
{
	uint8_t *copy;

	T = th_new_threads(T_HOST_SIZE, threads);
	ck_assert_uint_eq(gsim_core_threads(T->core), threads);
	mme_fill(g, 0x5eed0000u + g->m * 7u + g->k);
	comp_setup(e);
	mme_commit(e, g);
	run_all();
	ck_assert_uint_eq(eng_reg(e, GAUDISIM_ENG_STATUS), 0);
	ck_assert_uint_eq(eng_reg(e, GAUDISIM_ENG_LAUNCH_CNT), 1);
	ck_assert_uint_eq(comp_word(e), COMP_VALUE);
	*bytes = elems(g->m, g->n, g->batch) * gaudisim_dtype_size(g->out);
	copy = malloc(*bytes);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, dev(MME_D), *bytes);
	th_free(T);
	T = NULL;
	return copy;
}

START_TEST(test_mme_threaded_matches_serial)
{
	static const struct gemm cases[] = {
		{ 96, 80, 200, 1, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, false, false, 1, 0 },
		{ 70, 33, 129, 3, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, true, false, 0.5f, 2 },
		{ 65, 90, 48, 2, GAUDISIM_DTYPE_BF16, GAUDISIM_DTYPE_BF16, false, true, 1, 1 },
		{ 40, 50, 1100, 1, GAUDISIM_DTYPE_BF16, GAUDISIM_DTYPE_FP32, true, true, 1.5f, 0 },
		/* Large enough to run as several blocks of the direct path. */
		{ 1536, 1024, 1024, 1, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, false, false, 1, 1 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t n0, n1, n2;
		uint8_t *serial = mme_result(GAUDISIM_ENGINE_MME, &cases[i], 0, &n0);
		uint8_t *threaded = mme_result(GAUDISIM_ENGINE_MME, &cases[i], THREADS, &n1);
		/* The second MME computes the same D. */
		uint8_t *mme1 = mme_result(GAUDISIM_ENGINE_MME_1, &cases[i], THREADS, &n2);

		ck_assert_uint_eq(n0, n1);
		ck_assert_uint_eq(n0, n2);
		ck_assert_msg(!memcmp(serial, threaded, n0), "case %u: threaded D differs", i);
		ck_assert_msg(!memcmp(serial, mme1, n0), "case %u: MME 1's D differs", i);
		free(serial);
		free(threaded);
		free(mme1);
	}
}
END_TEST

/* ---- the TPCs -------------------------------------------------------------------- */

#define RELU_IN		TT_DATA
#define RELU_OUT	(TT_DATA + (32u << 20))
#define RELU_N		(3u << 20)

static void tpcs_init(void)
{
	unsigned int n;

	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		ck_assert_int_eq(gsim_tpc_init(T->core, TT_E(n)), 0);
}

/* Program l split over all TPCs and COMMIT each through MMIO. */
static unsigned int tpc_commit_all(const struct tt_launch *l)
{
	struct gaudisim_tpc_part parts[GAUDISIM_NUM_TPC];
	unsigned int np = gaudisim_tpc_split(l->isize, GAUDISIM_NUM_TPC, parts), i;

	for (i = 0; i < np; i++) {
		tt_program(i, l, &parts[i]);
		comp_setup(TT_E(i));
	}
	for (i = 0; i < np; i++)
		wr(GAUDISIM_ENGINE_BLOCK(TT_E(i)) + GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
	return np;
}

static uint8_t *relu_result(unsigned int threads, uint64_t bundles[GAUDISIM_NUM_TPC])
{
	uint32_t size[GAUDISIM_TPC_NUM_DIMS] = { RELU_N, 1, 1, 1, 1 };
	struct tt_launch l;
	unsigned int np, i;
	uint8_t *copy;

	T = th_new_threads(T_HOST_SIZE, threads);
	tpcs_init();
	rng_state = 0xfeedu;
	for (i = 0; i < RELU_N; i++) {
		float v = rnd_frac();

		memcpy(dev(RELU_IN) + 4 * i, &v, 4);
	}
	tt_init(&l, TT_KERNEL, tt_asm_file(TT_KERNEL, "relu"));
	l.isize[0] = (RELU_N + 4095) / 4096;
	tt_tensor(&l, 0, RELU_IN, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	tt_tensor(&l, 1, RELU_OUT, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	np = tpc_commit_all(&l);
	ck_assert_uint_eq(np, GAUDISIM_NUM_TPC);
	run_all();
	for (i = 0; i < GAUDISIM_NUM_TPC; i++) {
		ck_assert_uint_eq(eng_reg(TT_E(i), GAUDISIM_ENG_STATUS), 0);
		ck_assert_uint_eq(comp_word(TT_E(i)), COMP_VALUE);
		bundles[i] = (uint64_t)eng_reg(TT_E(i), GAUDISIM_TPC_BUNDLES_HI) << 32 |
			     eng_reg(TT_E(i), GAUDISIM_TPC_BUNDLES_LO);
		ck_assert_uint_gt(bundles[i], 0);
	}
	copy = malloc(4ull * RELU_N);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, dev(RELU_OUT), 4ull * RELU_N);
	th_free(T);
	T = NULL;
	return copy;
}

START_TEST(test_tpc_split_threaded_matches_serial)
{
	uint64_t b0[GAUDISIM_NUM_TPC], b1[GAUDISIM_NUM_TPC];
	uint8_t *serial = relu_result(0, b0);
	uint8_t *threaded = relu_result(THREADS, b1);
	unsigned int i;
	float v;

	ck_assert(!memcmp(serial, threaded, 4ull * RELU_N));
	for (i = 0; i < GAUDISIM_NUM_TPC; i++)
		ck_assert_uint_eq(b0[i], b1[i]);
	/* And it is relu: a negative input became +0 somewhere. */
	for (i = 0; i < RELU_N; i++) {
		memcpy(&v, threaded + 4 * i, 4);
		ck_assert(v >= 0);
	}
	free(serial);
	free(threaded);
}
END_TEST

/*
 * A kernel that runs for as long as ARG(0) says and stores its loop count
 * into T0's first tile on every iteration: what a reset must stop.
 */
static const char spin_kernel[] =
	"	mov.f32 V1, 0.0\n"
	"top:	add.f32 V1, V1, 1.0 ; st.f32 T0, I0, V1 ; loop S20, S0, top\n"
	"	halt\n";

#define SPIN_OUT	(TT_DATA + (64u << 20))

static void spin_launch(unsigned int tpc, uint32_t iterations)
{
	uint32_t size[GAUDISIM_TPC_NUM_DIMS] = { 64, 1, 1, 1, 1 };
	struct tt_launch l;

	tt_init(&l, TT_KERNEL2, tt_asm(TT_KERNEL2, spin_kernel));
	l.args[0] = iterations;
	l.watchdog = 0xffffffffu;	/* 3 slots, 1 bundle per iteration: never the limit */
	tt_tensor(&l, 0, SPIN_OUT + 256 * tpc, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	tt_program(tpc, &l, NULL);
	comp_setup(TT_E(tpc));
	wr(GAUDISIM_ENGINE_BLOCK(TT_E(tpc)) + GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
}

static float spin_value(unsigned int tpc)
{
	float v;

	memcpy(&v, dev(SPIN_OUT + 256 * tpc), 4);
	return v;
}

static void threaded_setup(void)
{
	T = th_new_threads(T_HOST_SIZE, THREADS);
	tpcs_init();
}

START_TEST(test_async_launch_status_and_completion)
{
	const unsigned int e = TT_E(0);
	const uint32_t iterations = 1u << 22;

	spin_launch(0, iterations);
	/* The run hands the kernel to a worker and returns. */
	ck_assert(!gsim_core_run(T->core));
	ck_assert(gsim_core_work_in_flight(T->core));
	ck_assert(eng_busy(e));
	ck_assert_uint_eq(comp_word(e), 0);
	run_all();
	ck_assert(!eng_busy(e));
	ck_assert_uint_eq(eng_reg(e, GAUDISIM_ENG_STATUS), 0);
	ck_assert_uint_eq(comp_word(e), COMP_VALUE);
	ck_assert_float_eq(spin_value(0), (float)iterations);
	ck_assert(!gsim_core_work_in_flight(T->core));
}
END_TEST

/* Started, still running on a worker, and writing memory. */
static void wait_running(unsigned int tpc)
{
	unsigned int waited;

	ck_assert(!gsim_core_run(T->core));
	for (waited = 0; spin_value(tpc) == 0; waited++) {
		ck_assert_uint_lt(waited, 20000);
		sleep_ms(1);
	}
	ck_assert(gsim_core_work_in_flight(T->core));
	ck_assert(eng_busy(TT_E(tpc)));
}

/* Nothing of the cancelled kernel follows: no store, message, IRQ or event. */
static void check_void_after_reset(unsigned int tpc, unsigned int msix_before)
{
	float v = spin_value(tpc);

	ck_assert(v > 0 && v < (float)(1u << 27));
	ck_assert(!gsim_core_work_in_flight(T->core));
	ck_assert(!eng_busy(TT_E(tpc)));
	sleep_ms(50);
	ck_assert_float_eq(spin_value(tpc), v);
	run_all();
	ck_assert_float_eq(spin_value(tpc), v);
	ck_assert_uint_eq(comp_word(TT_E(tpc)), 0);
	ck_assert_uint_eq(T->msix_total, msix_before);
}

START_TEST(test_hard_reset_while_running)
{
	unsigned int msix;

	float other;

	spin_launch(0, 1u << 27);
	spin_launch(1, 1u << 27);
	wait_running(0);
	msix = T->msix_total;
	gsim_core_reset(T->core);
	/* TPC 1 ran on the other worker, or was still queued: stopped either way. */
	other = spin_value(1);
	check_void_after_reset(0, msix);
	ck_assert_float_eq(spin_value(1), other);
	ck_assert_uint_eq(comp_word(TT_E(1)), 0);
	ck_assert_uint_eq(eng_reg(TT_E(0), GAUDISIM_ENG_LAUNCH_CNT), 0);

	/* The engines work again after the reset. */
	tpcs_init();
	spin_launch(0, 1000);
	run_all();
	ck_assert_float_eq(spin_value(0), 1000);
	ck_assert_uint_eq(comp_word(TT_E(0)), COMP_VALUE);
}
END_TEST

START_TEST(test_soft_reset_while_running)
{
	unsigned int msix;

	spin_launch(2, 1u << 27);
	wait_running(2);
	msix = T->msix_total;
	ck_assert_uint_eq(wr(GAUDISIM_ENGINE_BLOCK(TT_E(2)) + GAUDISIM_ENG_SOFT_RESET,
			     GAUDISIM_ENG_SOFT_RESET_GO) & GSIM_KICK_RESET, 0);
	/* The soft reset posts RESET_DONE; the EQ is off here, so no MSI-X. */
	check_void_after_reset(2, msix);
	spin_launch(2, 500);
	run_all();
	ck_assert_float_eq(spin_value(2), 500);
}
END_TEST

START_TEST(test_mme_overlaps_tpc)
{
	static const struct gemm g = {
		64, 64, 64, 1, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, false, false, 1, 0,
	};
	unsigned int waited;

	/* A long kernel (seconds) on one worker ... */
	spin_launch(0, 1u << 30);
	wait_running(0);
	/* ... does not hold up a GEMM, which the other worker runs. */
	mme_fill(&g, 1);
	comp_setup(GAUDISIM_ENGINE_MME);
	mme_commit(GAUDISIM_ENGINE_MME, &g);
	for (waited = 0; comp_word(GAUDISIM_ENGINE_MME) != COMP_VALUE; waited++) {
		ck_assert_uint_lt(waited, 20000);
		gsim_core_run(T->core);
		gsim_core_wait_work(T->core, 1000000);
	}
	ck_assert(!eng_busy(GAUDISIM_ENGINE_MME));
	ck_assert(eng_busy(TT_E(0)));
	gsim_core_reset(T->core);
	ck_assert(!gsim_core_work_in_flight(T->core));
}
END_TEST

/*
 * A GEMM of at most GSIM_MME_INLINE_FLOPS completes inside the run that
 * launched it, with no worker involved; one just above goes to a worker.
 * Both give the serial result (test_mme_threaded_matches_serial).
 */
START_TEST(test_small_gemm_runs_inline)
{
	/* The MLP's first layer: 2 * 128 * 128 * 784 FLOPs. */
	static const struct gemm small = {
		128, 128, 784, 1, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, false, false, 1, 0,
	};
	static const struct gemm big = {
		256, 256, 257, 1, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, false, false, 1, 0,
	};

	ck_assert_uint_le(2ull * small.m * small.n * small.k, GSIM_MME_INLINE_FLOPS);
	ck_assert_uint_gt(2ull * big.m * big.n * big.k, GSIM_MME_INLINE_FLOPS);
	mme_fill(&small, 3);
	comp_setup(GAUDISIM_ENGINE_MME);
	mme_commit(GAUDISIM_ENGINE_MME, &small);
	gsim_core_run(T->core);
	ck_assert(!gsim_core_work_in_flight(T->core));
	ck_assert(!eng_busy(GAUDISIM_ENGINE_MME));
	ck_assert_uint_eq(comp_word(GAUDISIM_ENGINE_MME), COMP_VALUE);

	mme_fill(&big, 4);
	comp_setup(GAUDISIM_ENGINE_MME);
	mme_commit(GAUDISIM_ENGINE_MME, &big);
	ck_assert(!gsim_core_run(T->core));
	ck_assert(eng_busy(GAUDISIM_ENGINE_MME) || gsim_core_work_in_flight(T->core) ||
		  comp_word(GAUDISIM_ENGINE_MME) != COMP_VALUE);
	run_all();
	ck_assert_uint_eq(comp_word(GAUDISIM_ENGINE_MME), COMP_VALUE);
	ck_assert_uint_eq(eng_reg(GAUDISIM_ENGINE_MME, GAUDISIM_ENG_LAUNCH_CNT), 2);
}
END_TEST

START_TEST(test_mme_reset_while_running)
{
	/* Several seconds of portable GEMM, a fraction of one with OpenBLAS. */
	static const struct gemm g = {
		2048, 2048, 2048, 1, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, false, false, 1, 0,
	};
	const uint64_t dbytes = 4ull * 2048 * 2048;
	uint8_t *before = malloc(dbytes);
	unsigned int msix;

	ck_assert_ptr_nonnull(before);
	mme_fill(&g, 2);
	memset(dev(MME_D), 0x7f, dbytes);
	comp_setup(GAUDISIM_ENGINE_MME);
	mme_commit(GAUDISIM_ENGINE_MME, &g);
	ck_assert(!gsim_core_run(T->core));
	ck_assert(eng_busy(GAUDISIM_ENGINE_MME));
	msix = T->msix_total;
	gsim_core_reset(T->core);
	ck_assert(!gsim_core_work_in_flight(T->core));
	ck_assert(!eng_busy(GAUDISIM_ENGINE_MME));
	/* Whatever reached D before the reset stays; nothing more arrives. */
	memcpy(before, dev(MME_D), dbytes);
	sleep_ms(100);
	run_all();
	ck_assert(!memcmp(before, dev(MME_D), dbytes));
	ck_assert_uint_eq(comp_word(GAUDISIM_ENGINE_MME), 0);
	ck_assert_uint_eq(T->msix_total, msix);
	free(before);
}
END_TEST

/* ---- HBM-DMA ---------------------------------------------------------------------- */

#define IQ		GAUDISIM_QUEUE_ID_DMA_2_0
#define IQ_SOB		7u
#define XFER_SRC	(GAUDISIM_HBM_USER_BASE + (16ull << 20))
#define XFER_DST	(GAUDISIM_HBM_USER_BASE + (64ull << 20))
#define XFER_SIZE	(24u << 20)

START_TEST(test_hbm_dma_on_worker)
{
	struct cb cb = cb_new(256);
	long first_bad = -1;
	uint64_t i;

	iq_setup(IQ, 4);
	cb_memset(&cb, XFER_SRC, 0xa5, XFER_SIZE);
	/* An overlapping copy too: memmove semantics. */
	cb_lin_dma(&cb, XFER_SRC, XFER_DST, XFER_SIZE, 0);
	cb_lin_dma(&cb, XFER_DST, XFER_DST + 4096, XFER_SIZE - 4096, 0);
	cb_sob_add(&cb, IQ_SOB, 1);
	iq_submit(IQ, &cb);
	/* The memset goes to a worker; the stream waits on its engine. */
	ck_assert(!gsim_core_run(T->core));
	ck_assert(gsim_core_work_in_flight(T->core));
	ck_assert_uint_eq(sm_sob_rd(IQ_SOB), 0);
	run_all();
	ck_assert_uint_eq(sm_sob_rd(IQ_SOB), 1);
	ck_assert_uint_eq(qrd_ci(IQ), qrd_pi(IQ));
	ck_assert_uint_eq(rd(QQ_REG(IQ, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_ERR_MASK, 0);
	for (i = 0; i < XFER_SIZE && first_bad < 0; i++)
		if (dev(XFER_DST)[i] != 0xa5)
			first_bad = (long)i;
	ck_assert_msg(first_bad < 0, "byte %ld of the copy is not the pattern", first_bad);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 3u * XFER_SIZE - 4096);
}
END_TEST

START_TEST(test_reset_during_hbm_dma)
{
	const uint32_t size = 384u << 20;
	struct cb cb = cb_new(256);
	uint8_t seen[384];
	unsigned int i;

	iq_setup(IQ, 4);
	cb_memset(&cb, XFER_SRC, 0x3c, size);
	cb_sob_add(&cb, IQ_SOB, 1);
	iq_submit(IQ, &cb);
	ck_assert(!gsim_core_run(T->core));
	ck_assert(gsim_core_work_in_flight(T->core));
	gsim_core_reset(T->core);
	ck_assert(!gsim_core_work_in_flight(T->core));
	/* One byte per MiB: none changes any more. */
	for (i = 0; i < 384; i++)
		seen[i] = dev(XFER_SRC + ((uint64_t)i << 20) + 12345)[0];
	sleep_ms(50);
	run_all();
	for (i = 0; i < 384; i++)
		ck_assert_uint_eq(dev(XFER_SRC + ((uint64_t)i << 20) + 12345)[0], seen[i]);
	ck_assert_uint_eq(sm_sob_rd(IQ_SOB), 0);
}
END_TEST

/*
 * Two devices of one process share one pool of THREADS workers. A device
 * removed while its kernel runs takes it back; the other device's work
 * goes on running on the same workers.
 */
START_TEST(test_devices_share_the_workers)
{
	struct th *mine = T, *other = th_new_threads(T_HOST_SIZE, THREADS);

	ck_assert_ptr_nonnull(other);
	ck_assert_uint_eq(gsim_core_threads(other->core), THREADS);
	ck_assert_ptr_eq(gsim_client_pool(other->core->pool), gsim_client_pool(mine->core->pool));

	T = other;
	tpcs_init();
	spin_launch(0, 1u << 27);
	wait_running(0);
	T = mine;
	spin_launch(1, 1u << 27);
	th_free(other);		/* cancels its kernel, waits for its worker */

	/* Ours still runs (or waits for the worker just freed): reset it. */
	gsim_core_reset(T->core);
	tpcs_init();
	spin_launch(0, 1000);
	spin_launch(1, 2000);
	run_all();
	ck_assert_float_eq(spin_value(0), 1000);
	ck_assert_float_eq(spin_value(1), 2000);
	ck_assert_uint_eq(comp_word(TT_E(1)), COMP_VALUE);
}
END_TEST

Suite *threads_suite(void)
{
	Suite *s = suite_create("threads");
	TCase *tc = tcase_create("pool");

	tcase_add_test(tc, test_pool_runs_every_item_once);
	tcase_add_test(tc, test_pool_cancel_queued_and_running);
	tcase_add_test(tc, test_shared_pool_keeps_clients_apart);
	suite_add_tcase(s, tc);

	tc = tcase_create("identical");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_mme_threaded_matches_serial);
	tcase_add_test(tc, test_tpc_split_threaded_matches_serial);
	suite_add_tcase(s, tc);

	tc = tcase_create("async");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, threaded_setup, th_teardown);
	tcase_add_test(tc, test_async_launch_status_and_completion);
	tcase_add_test(tc, test_hard_reset_while_running);
	tcase_add_test(tc, test_soft_reset_while_running);
	tcase_add_test(tc, test_mme_overlaps_tpc);
	tcase_add_test(tc, test_mme_reset_while_running);
	tcase_add_test(tc, test_small_gemm_runs_inline);
	tcase_add_test(tc, test_hbm_dma_on_worker);
	tcase_add_test(tc, test_reset_during_hbm_dma);
	tcase_add_test(tc, test_devices_share_the_workers);
	suite_add_tcase(s, tc);
	return s;
}
