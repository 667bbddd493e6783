/* The shared generator: published SplitMix64 values, draws, the shuffle. */
#include <string.h>

#include "suites.h"
#include "train_rng.h"

START_TEST(splitmix64_reference_values)
{
	/* The published outputs of SplitMix64 from seeds 0 and 1234567. */
	struct train_rng r;

	train_rng_seed(&r, 0);
	ck_assert_uint_eq(train_rng_next(&r), 0xe220a8397b1dcdafull);
	ck_assert_uint_eq(train_rng_next(&r), 0x6e789e6aa1b965f4ull);
	ck_assert_uint_eq(train_rng_next(&r), 0x06c45d188009454full);
	train_rng_seed(&r, 1234567);
	ck_assert_uint_eq(train_rng_next(&r), 6457827717110365317ull);
}
END_TEST

START_TEST(shuffle_by_hand)
{
	/*
	 * Seed 0: the first draw's top half 0xe220a839 = 3793791033 = 0 mod 3
	 * swaps [2] with [0] -> {2,1,0}; the second's 0x6e789e6a is even, so
	 * [1] swaps with [0] -> {1,2,0}.
	 */
	struct train_rng r;
	uint32_t idx[3] = { 0, 1, 2 };

	train_rng_seed(&r, 0);
	train_rng_shuffle(&r, idx, 3);
	ck_assert_uint_eq(idx[0], 1);
	ck_assert_uint_eq(idx[1], 2);
	ck_assert_uint_eq(idx[2], 0);
}
END_TEST

START_TEST(uniform_and_below_stay_in_range)
{
	struct train_rng r;
	uint32_t hist[7] = { 0 };

	train_rng_seed(&r, 42);
	for (int i = 0; i < 70000; i++) {
		float u = train_rng_uniform(&r);
		uint32_t b = train_rng_below(&r, 7);

		ck_assert(u >= 0.0f && u < 1.0f);
		ck_assert_uint_lt(b, 7);
		hist[b]++;
	}
	/* 10000 expected per bucket; 5 sigma is about 490. */
	for (int i = 0; i < 7; i++)
		ck_assert_uint_lt(hist[i] > 10000 ? hist[i] - 10000 : 10000 - hist[i], 500);
	ck_assert_uint_eq(train_rng_below(&r, 1), 0);
}
END_TEST

START_TEST(epoch_order_is_a_permutation_fixed_by_seed_and_epoch)
{
	enum { N = 1000 };
	static uint32_t a[N], b[N], c[N], d[N];
	static unsigned char seen[N];

	train_rng_epoch_order(7, 1, a, N);
	train_rng_epoch_order(7, 1, b, N);
	train_rng_epoch_order(7, 2, c, N);
	train_rng_epoch_order(8, 1, d, N);
	ck_assert_mem_eq(a, b, sizeof(a));
	ck_assert(memcmp(a, c, sizeof(a)) != 0);
	ck_assert(memcmp(a, d, sizeof(a)) != 0);
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < N; i++) {
		ck_assert_uint_lt(a[i], N);
		ck_assert(!seen[a[i]]);
		seen[a[i]] = 1;
	}
}
END_TEST

START_TEST(streams_differ)
{
	struct train_rng init, shuf;

	train_rng_stream(&init, 1, TRAIN_RNG_INIT, 0);
	train_rng_stream(&shuf, 1, TRAIN_RNG_SHUFFLE, 0);
	ck_assert_uint_ne(train_rng_next(&init), train_rng_next(&shuf));
}
END_TEST

Suite *rng_suite(void)
{
	Suite *s = suite_create("rng");
	TCase *tc = tcase_create("rng");

	tcase_add_test(tc, splitmix64_reference_values);
	tcase_add_test(tc, shuffle_by_hand);
	tcase_add_test(tc, uniform_and_below_stay_in_range);
	tcase_add_test(tc, epoch_order_is_a_permutation_fixed_by_seed_and_epoch);
	tcase_add_test(tc, streams_differ);
	suite_add_tcase(s, tc);
	return s;
}
