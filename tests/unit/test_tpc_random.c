/* SPDX-License-Identifier: MIT */
/*
 * Random TPC programs never crash the device: random legal bundles, raw
 * random bytes and mixtures run against random tensor descriptors with a
 * small watchdog; every launch ends in a clean HALT or one of the
 * documented errors, and no byte outside the tensors' extents changes.
 */
#include <stdlib.h>
#include <string.h>

#include "test_tpc.h"

#define REGION		0x10000u	/* device memory per tensor */
#define GUARD		0x1000u		/* canary bytes at each end of a region */
#define MAX_BUNDLES	48

static uint8_t canary[GAUDISIM_TPC_NUM_TENSORS][2][GUARD];

static uint64_t region(unsigned int t)
{
	return TT_DATA + (uint64_t)t * REGION;
}

/* Descriptors that fit their region, with the dtypes the code uses. */
static void random_tensors(struct tt_launch *l, const struct gsim_tpc_kernel *k)
{
	unsigned int t, d;

	for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
		unsigned int dt = k->tensor_dt[t];
		uint32_t size[5], stride[5];
		uint64_t last = 0, es;

		if (dt == GSIM_TPC_TENSOR_UNUSED)
			continue;
		if (dt == GSIM_TPC_TENSOR_MIXED)
			dt = GAUDISIM_DTYPE_FP32;	/* refused at launch, which is fine */
		es = gaudisim_dtype_size(dt);
		do {
			last = 0;
			for (d = 0; d < 5; d++) {
				size[d] = 1 + (uint32_t)(tt_rand() % (d == 0 ? 150 : 3));
				stride[d] = d == 0 ? 1 + (uint32_t)(tt_rand() % 2) :
					    stride[d - 1] * size[d - 1] + (uint32_t)(tt_rand() % 3);
				last += (uint64_t)(size[d] - 1) * stride[d];
			}
		} while ((last + 1) * es > REGION - 2 * GUARD);
		tt_tensor(l, t, region(t) + GUARD, dt, size, stride, (uint32_t)tt_rand());
	}
}

static void guards_fill(void)
{
	unsigned int t, e;

	for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++)
		for (e = 0; e < 2; e++) {
			uint8_t *m = tt_mem(region(t) + (e ? REGION - GUARD : 0));
			unsigned int i;

			for (i = 0; i < GUARD; i++)
				m[i] = canary[t][e][i] = (uint8_t)tt_rand();
		}
}

static void guards_check(void)
{
	unsigned int t, e;

	for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++)
		for (e = 0; e < 2; e++)
			ck_assert_msg(!memcmp(tt_mem(region(t) + (e ? REGION - GUARD : 0)),
					      canary[t][e], GUARD),
				      "a store left tensor T%u's extent", t);
}

/* Write code, launch it over a random index space, check the outcome. */
static int run_program(const uint8_t *code, uint32_t nb, bool all_legal)
{
	struct gsim_tpc_kernel *k = gsim_tpc_kernel_decode(code, nb * GAUDISIM_TPC_BUNDLE_SIZE);
	struct tt_launch l;
	unsigned int d, mixed = 0, t;
	int err;

	ck_assert_ptr_nonnull(k);
	memcpy(tt_mem(TT_KERNEL), code, (size_t)nb * GAUDISIM_TPC_BUNDLE_SIZE);
	tt_init(&l, TT_KERNEL, nb * GAUDISIM_TPC_BUNDLE_SIZE);
	l.watchdog = 2000;
	for (d = 0; d < 5; d++)
		l.isize[d] = 1 + (uint32_t)(tt_rand() % (d < 2 ? 3 : 2));
	for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
		l.args[t] = (uint32_t)tt_rand();
		l.args[t + 8] = (uint32_t)(tt_rand() % 200) - 50;
		mixed |= k->tensor_dt[t] == GSIM_TPC_TENSOR_MIXED;
	}
	random_tensors(&l, k);
	gsim_tpc_kernel_put(k);

	guards_fill();
	err = tt_run(&l, 1 + (unsigned int)(tt_rand() % 3));
	guards_check();
	ck_assert_msg(err == GAUDISIM_TPC_ERR_NONE || err == GAUDISIM_TPC_ERR_END ||
		      err == GAUDISIM_TPC_ERR_WATCHDOG ||
		      (err == GAUDISIM_TPC_ERR_TENSOR && mixed) ||
		      (err == GAUDISIM_TPC_ERR_ILLEGAL && !all_legal),
		      "unexpected error %d", err);
	/* The kernel is not something a launch writes. */
	ck_assert(!memcmp(tt_mem(TT_KERNEL), code, (size_t)nb * GAUDISIM_TPC_BUNDLE_SIZE));
	return err;
}

static void halt_slot(uint8_t *bundle)
{
	struct gaudisim_tpc_slot s;

	memset(&s, 0, sizeof(s));
	s.opc = GAUDISIM_TPC_OP_HALT;
	gaudisim_tpc_slot_encode(bundle, GAUDISIM_TPC_SLOT_SPU, &s);
}

START_TEST(test_random_legal_programs)
{
	uint8_t code[MAX_BUNDLES * GAUDISIM_TPC_BUNDLE_SIZE];
	uint64_t st = 0x5eed0001;
	unsigned int iter, outcome[16] = { 0 };

	tt_seed(0x9001);
	for (iter = 0; iter < 400; iter++) {
		uint32_t nb = 1 + (uint32_t)(tt_rand() % MAX_BUNDLES), pc;

		for (pc = 0; pc < nb; pc++) {
			uint8_t *b = code + pc * GAUDISIM_TPC_BUNDLE_SIZE;

			tpc_random_bundle(&st, nb, b);
			if (tt_rand() % 6 == 0)
				halt_slot(b);
			ck_assert_int_eq(gaudisim_tpc_check_bundle(b, nb, NULL), GAUDISIM_TPC_OK);
		}
		outcome[run_program(code, nb, true) & 15]++;
	}
	/* The mix exercised more than one way of ending. */
	ck_assert_uint_gt(outcome[GAUDISIM_TPC_ERR_NONE], 10);
	ck_assert_uint_gt(outcome[GAUDISIM_TPC_ERR_END] + outcome[GAUDISIM_TPC_ERR_WATCHDOG], 10);
}
END_TEST

START_TEST(test_random_bytes)
{
	uint8_t code[MAX_BUNDLES * GAUDISIM_TPC_BUNDLE_SIZE];
	uint64_t st = 0x5eed0002;
	unsigned int iter, i;

	tt_seed(0x9002);
	for (iter = 0; iter < 300; iter++) {
		uint32_t nb = 1 + (uint32_t)(tt_rand() % MAX_BUNDLES), pc;

		for (pc = 0; pc < nb; pc++) {
			uint8_t *b = code + pc * GAUDISIM_TPC_BUNDLE_SIZE;

			/* Raw bytes, legal bundles, and legal ones with a flipped bit. */
			switch (tt_rand() % 3) {
			case 0:
				for (i = 0; i < GAUDISIM_TPC_BUNDLE_SIZE; i++)
					b[i] = (uint8_t)tt_rand();
				break;
			case 1:
				tpc_random_bundle(&st, nb, b);
				break;
			default:
				tpc_random_bundle(&st, nb, b);
				b[tt_rand() % GAUDISIM_TPC_BUNDLE_SIZE] ^=
					(uint8_t)(1u << (tt_rand() % 8));
				break;
			}
		}
		run_program(code, nb, false);
	}
	/* After all that, a real kernel still runs. */
	{
		const uint32_t size[5] = { 64, 1, 1, 1, 1 };
		struct tt_launch l;
		int32_t *out = (int32_t *)tt_mem(TT_DATA);

		tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, "mov.i32 V1, 42\nst.i32 T0, I0, V1 ; halt\n"));
		tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_INT32, size, NULL, 0);
		ck_assert_int_eq(tt_run(&l, 8), 0);
		ck_assert_int_eq(out[63], 42);
	}
}
END_TEST

void tpc_add_random_tests(Suite *s)
{
	TCase *tc = tcase_create("random");

	tcase_add_checked_fixture(tc, tt_setup, tt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_legal_programs);
	tcase_add_test(tc, test_random_bytes);
	suite_add_tcase(s, tc);
}
