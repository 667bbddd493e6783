/* SPDX-License-Identifier: MIT */
/*
 * The kernels of runtime/kernels (assembled from their text at test time)
 * against the reference ops, on random 1-D..5-D shapes with partial tiles,
 * padded and strided layouts, split over 1..8 TPCs. Bytes of device
 * memory that are not elements of an output tensor must not change.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_bf16.h"
#include "test_tpc.h"

#define D GAUDISIM_TPC_NUM_DIMS

/* A tensor laid out in device memory, and a dense host copy of it. */
struct layout {
	uint64_t addr;
	unsigned int dtype, esize;
	uint32_t size[D];
	uint32_t stride[D];
	uint64_t bytes;		/* extent in device memory */
	uint64_t count;		/* elements */
};

static uint64_t next_addr;

static void layout_make(struct layout *t, unsigned int dtype, const uint32_t *size, bool padded)
{
	uint64_t last = 0;
	unsigned int d;

	t->dtype = dtype;
	t->esize = gaudisim_dtype_size(dtype);
	t->count = 1;
	for (d = 0; d < D; d++) {
		t->size[d] = size[d];
		if (d == 0)
			t->stride[0] = padded && tt_rand() % 3 == 0 ? 2 : 1;
		else
			t->stride[d] = t->stride[d - 1] * t->size[d - 1] +
				       (padded ? (uint32_t)(tt_rand() % 9) : 0);
		last += (uint64_t)(size[d] - 1) * t->stride[d];
		t->count *= size[d];
	}
	t->bytes = (last + 1) * t->esize;
	/* Element-aligned, sometimes not 64-byte aligned. */
	t->addr = next_addr + (padded ? t->esize * (tt_rand() % 16) : 0);
	next_addr = (t->addr + t->bytes + 4096 + 255) & ~255ull;
	ck_assert_uint_le(next_addr, TT_DATA + TT_DATA_SIZE);
}

/* Element offset (in elements) of dense index i. */
static uint64_t layout_off(const struct layout *t, uint64_t i)
{
	uint64_t off = 0;
	unsigned int d;

	for (d = 0; d < D; d++) {
		off += (i % t->size[d]) * t->stride[d];
		i /= t->size[d];
	}
	return off;
}

static uint8_t *elem_ptr(const struct layout *t, uint64_t i)
{
	return tt_mem(t->addr) + layout_off(t, i) * t->esize;
}

/* Random bytes, eight per draw. */
static void noise(uint8_t *m, uint64_t n)
{
	uint64_t i, r = 0;

	for (i = 0; i < n; i++) {
		if (!(i & 7))
			r = tt_rand();
		m[i] = (uint8_t)(r >> (8 * (i & 7)));
	}
}

/* Fill the extent with noise, then the elements from a dense array. */
static void layout_store(const struct layout *t, const void *dense)
{
	uint8_t *m = tt_mem(t->addr);
	uint64_t i;

	noise(m, t->bytes);
	for (i = 0; i < t->count; i++)
		memcpy(elem_ptr(t, i), (const uint8_t *)dense + i * t->esize, t->esize);
}

/* Noise in an output's extent plus 64 guard bytes on each side; a copy
 * of it to compare the bytes that are not elements with afterwards. */
static uint8_t *guard_fill(const struct layout *t)
{
	uint8_t *m = tt_mem(t->addr - 64), *copy = malloc(t->bytes + 128);
	uint64_t i;

	ck_assert_ptr_nonnull(copy);
	noise(copy, t->bytes + 128);
	for (i = 0; i < t->bytes + 128; i++)
		m[i] = copy[i];
	return copy;
}

static void guard_check(const struct layout *t, uint8_t *copy)
{
	uint8_t *m = tt_mem(t->addr - 64);
	uint64_t i;

	/* Put the elements into the copy, then everything must match. */
	for (i = 0; i < t->count; i++)
		memcpy(copy + 64 + layout_off(t, i) * t->esize, elem_ptr(t, i), t->esize);
	ck_assert_msg(!memcmp(m, copy, t->bytes + 128), "bytes outside the output changed");
	free(copy);
}

static void random_shape(uint32_t *size, uint32_t max0)
{
	unsigned int rank = 1 + (unsigned int)(tt_rand() % D), d;

	for (d = 0; d < D; d++)
		size[d] = d == 0 ? 1 + (uint32_t)(tt_rand() % max0) :
			  d < rank ? 1 + (uint32_t)(tt_rand() % 4) : 1;
	/* Long rows come with few of them: bounded test time. */
	while (size[0] > 1000 && size[1] * size[2] * size[3] * size[4] > 4)
		for (d = 1; d < D; d++)
			if (size[d] > 1) {
				size[d]--;
				break;
			}
}

static float rand_float(float lo, float hi)
{
	return lo + (hi - lo) * (float)(tt_rand() % 1000001) / 1e6f;
}

static void launch_tensor(struct tt_launch *l, unsigned int t, const struct layout *x,
			  uint32_t pad)
{
	tt_tensor(l, t, x->addr, x->dtype, x->size, x->stride, pad);
}

/* ---- vector_add ------------------------------------------------------------------ */

static void vector_add_case(bool bf16, const uint32_t *size, unsigned int ntpc, bool padded)
{
	unsigned int dt = bf16 ? GAUDISIM_DTYPE_BF16 : GAUDISIM_DTYPE_FP32;
	struct layout a, b, o;
	struct tt_launch l;
	uint64_t n, i;
	void *da, *db, *want;
	uint8_t *guard;
	unsigned int d;

	next_addr = TT_DATA + 4096;
	layout_make(&a, dt, size, padded);
	layout_make(&b, dt, size, padded);
	layout_make(&o, dt, size, padded);
	n = a.count;
	da = malloc(n * 4);
	db = malloc(n * 4);
	want = malloc(n * 4);
	for (i = 0; i < n; i++) {
		float x = rand_float(-1000, 1000), y = rand_float(-1000, 1000);

		if (bf16) {
			((uint16_t *)da)[i] = (uint16_t)(tt_rand() % 0x10000);
			((uint16_t *)db)[i] = (uint16_t)(gsim_f32_bits(y) >> 16);
		} else {
			((float *)da)[i] = x;
			((float *)db)[i] = y;
		}
	}
	if (bf16)
		gsim_ref_tpc_add_bf16(da, db, want, 1, n, n, n, n);
	else
		gsim_ref_tpc_add_f32(da, db, want, 1, n, n, n, n);
	layout_store(&a, da);
	layout_store(&b, db);
	guard = guard_fill(&o);

	tt_init(&l, TT_KERNEL, tt_asm_file(TT_KERNEL, bf16 ? "vector_add_bf16" : "vector_add"));
	l.isize[0] = (size[0] + 63) / 64;
	for (d = 1; d < D; d++)
		l.isize[d] = size[d];
	launch_tensor(&l, 0, &a, 0);
	launch_tensor(&l, 1, &b, 0);
	launch_tensor(&l, 2, &o, 0);
	ck_assert_int_eq(tt_run(&l, ntpc), 0);

	for (i = 0; i < n; i++) {
		const uint8_t *got = elem_ptr(&o, i), *exp = (uint8_t *)want + i * o.esize;

		if (memcmp(got, exp, o.esize)) {
			uint32_t g = 0, e = 0;

			memcpy(&g, got, o.esize);
			memcpy(&e, exp, o.esize);
			/* NaN results may differ in payload only. */
			if (bf16 && (g & 0x7fff) > 0x7f80 && (e & 0x7fff) > 0x7f80)
				continue;
			ck_abort_msg("vector_add%s element %llu: 0x%x want 0x%x",
				     bf16 ? "_bf16" : "", (unsigned long long)i, g, e);
		}
	}
	guard_check(&o, guard);
	free(da);
	free(db);
	free(want);
}

START_TEST(test_vector_add)
{
	static const uint32_t fixed[][D] = {
		{ 1, 1, 1, 1, 1 }, { 64, 1, 1, 1, 1 }, { 65, 1, 1, 1, 1 }, { 63, 3, 1, 1, 1 },
		{ 200, 2, 3, 1, 2 }, { 100000, 1, 1, 1, 1 },
	};
	uint32_t size[D];
	unsigned int k;

	tt_seed(0x8001);
	for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		vector_add_case(false, fixed[k], 1 + k % 8, k % 2);
	for (k = 0; k < 24; k++) {
		random_shape(size, 300);
		vector_add_case(false, size, 1 + (unsigned int)(tt_rand() % 8), k % 2);
	}
	for (k = 0; k < 12; k++) {
		random_shape(size, 300);
		vector_add_case(true, size, 1 + (unsigned int)(tt_rand() % 8), k % 2);
	}
}
END_TEST

/* ---- relu ----------------------------------------------------------------------------- */

static void relu_case(const uint32_t *size, unsigned int ntpc, bool padded)
{
	static const uint32_t specials[] = { 0x80000000, 0x7fc00000, 0xff800000, 0x7f800000,
					     0x00000001, 0x80000001, 0 };
	struct layout x, o;
	struct tt_launch l;
	float *dx, *want;
	uint64_t n, i;
	uint8_t *guard;
	unsigned int d;

	next_addr = TT_DATA + 4096;
	layout_make(&x, GAUDISIM_DTYPE_FP32, size, padded);
	layout_make(&o, GAUDISIM_DTYPE_FP32, size, padded);
	n = x.count;
	dx = malloc(n * 4);
	want = malloc(n * 4);
	for (i = 0; i < n; i++) {
		dx[i] = rand_float(-5, 5);
		if (tt_rand() % 16 == 0)
			memcpy(&dx[i], &specials[tt_rand() % 7], 4);
	}
	gsim_ref_tpc_relu_f32(dx, want, 1, n, n, n);
	layout_store(&x, dx);
	guard = guard_fill(&o);

	tt_init(&l, TT_KERNEL, tt_asm_file(TT_KERNEL, "relu"));
	l.isize[0] = (size[0] + 4095) / 4096;
	for (d = 1; d < D; d++)
		l.isize[d] = size[d];
	launch_tensor(&l, 0, &x, 0);
	launch_tensor(&l, 1, &o, 0);
	ck_assert_int_eq(tt_run(&l, ntpc), 0);
	for (i = 0; i < n; i++)
		ck_assert_msg(!memcmp(elem_ptr(&o, i), &want[i], 4), "relu element %llu",
			      (unsigned long long)i);
	guard_check(&o, guard);
	free(dx);
	free(want);
}

START_TEST(test_relu)
{
	static const uint32_t fixed[][D] = {
		{ 1, 1, 1, 1, 1 }, { 4096, 1, 1, 1, 1 }, { 4097, 2, 1, 1, 1 }, { 300, 1, 2, 2, 2 },
		{ 1 << 18, 1, 1, 1, 1 }, { 12345, 3, 1, 1, 1 }, { 8191, 1, 1, 1, 2 },
	};
	uint32_t size[D];
	unsigned int k;

	tt_seed(0x8002);
	for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		relu_case(fixed[k], 8 - k, k % 2);
	for (k = 0; k < 24; k++) {
		random_shape(size, k % 2 ? 700 : 9000);
		relu_case(size, 1 + (unsigned int)(tt_rand() % 8), k % 2);
	}
}
END_TEST

/* ---- reduce_sum and softmax ------------------------------------------------------------ */

static void row_case(bool softmax, const uint32_t *size, unsigned int ntpc, bool padded)
{
	uint32_t osize[D];
	struct layout x, o;
	struct tt_launch l;
	uint64_t n, rows, r, i;
	float *dx;
	double *want;
	uint8_t *guard;
	unsigned int d;

	memcpy(osize, size, sizeof(osize));
	if (!softmax)
		osize[0] = 1;
	next_addr = TT_DATA + 4096;
	layout_make(&x, GAUDISIM_DTYPE_FP32, size, padded);
	layout_make(&o, GAUDISIM_DTYPE_FP32, osize, padded);
	n = size[0];
	rows = x.count / n;
	dx = malloc(x.count * 4);
	want = malloc(x.count * sizeof(double));
	for (i = 0; i < x.count; i++)
		dx[i] = softmax ? rand_float(-10, 10) : rand_float(-1, 1);
	if (softmax)
		gsim_ref_tpc_softmax_f32(dx, want, rows, n, n, n);
	else
		gsim_ref_tpc_reduce_sum_f32(dx, want, rows, n, n);
	layout_store(&x, dx);
	guard = guard_fill(&o);

	tt_init(&l, TT_KERNEL, tt_asm_file(TT_KERNEL, softmax ? "softmax" : "reduce_sum"));
	for (d = 1; d < D; d++)
		l.isize[d] = size[d];
	/* reduce_sum pads with 0, softmax with -inf (see the kernels). */
	launch_tensor(&l, 0, &x, softmax ? 0xff800000u : 0);
	launch_tensor(&l, 1, &o, 0);
	ck_assert_int_eq(tt_run(&l, ntpc), 0);

	for (r = 0; r < rows; r++) {
		double abs_sum = 0;

		for (i = 0; i < n; i++)
			abs_sum += fabs(dx[r * n + i]);
		for (i = 0; i < (softmax ? n : 1); i++) {
			float got;
			double ref = want[softmax ? r * n + i : r], tol;

			memcpy(&got, elem_ptr(&o, softmax ? r * n + i : r), 4);
			/* n + 64 roundings of the sum (+ exp, rcp, mul for softmax). */
			tol = softmax ? ref * (3e-7 + (double)(n + 70) * 1.2e-7) + 1e-37
				      : (double)(n + 64) * 6e-8 * abs_sum + 1e-37;
			ck_assert_msg(fabs(got - ref) <= tol,
				      "%s row %llu [%llu] of %llu: %.9g vs %.9g",
				      softmax ? "softmax" : "reduce_sum", (unsigned long long)r,
				      (unsigned long long)i, (unsigned long long)n, got, ref);
		}
	}
	guard_check(&o, guard);
	free(dx);
	free(want);
}

START_TEST(test_reduce_sum)
{
	static const uint32_t fixed[][D] = {
		{ 1, 1, 1, 1, 1 }, { 64, 1, 1, 1, 1 }, { 65, 3, 1, 1, 1 }, { 1000, 7, 1, 1, 1 },
		{ 5, 2, 3, 2, 2 },
	};
	uint32_t size[D];
	unsigned int k;

	tt_seed(0x8003);
	for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		row_case(false, fixed[k], 1 + k, k % 2);
	for (k = 0; k < 20; k++) {
		random_shape(size, 500);
		row_case(false, size, 1 + (unsigned int)(tt_rand() % 8), k % 2);
	}
}
END_TEST

START_TEST(test_softmax)
{
	static const uint32_t fixed[][D] = {
		{ 1, 1, 1, 1, 1 }, { 64, 1, 1, 1, 1 }, { 10, 9, 1, 1, 1 }, { 1000, 3, 1, 1, 1 },
		{ 129, 2, 2, 2, 1 },
	};
	uint32_t size[D];
	unsigned int k;

	tt_seed(0x8004);
	for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		row_case(true, fixed[k], 8 - k, k % 2);
	for (k = 0; k < 20; k++) {
		random_shape(size, 500);
		row_case(true, size, 1 + (unsigned int)(tt_rand() % 8), k % 2);
	}
}
END_TEST

void tpc_add_kernel_tests(Suite *s)
{
	TCase *tc = tcase_create("kernels");

	tcase_add_checked_fixture(tc, tt_setup, tt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_vector_add);
	tcase_add_test(tc, test_relu);
	tcase_add_test(tc, test_reduce_sum);
	tcase_add_test(tc, test_softmax);
	suite_add_tcase(s, tc);
}
