/* SPDX-License-Identifier: MIT */
/*
 * Random TPC programs never crash the device: random legal bundles, raw
 * random bytes and mixtures run against random tensor descriptors with a
 * small watchdog; every launch ends in a clean HALT or one of the
 * documented errors, and no byte outside the tensors' extents changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_runner.h"
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
	struct gsim_tpc_kernel *k =
		gsim_tpc_kernel_decode(code, nb * GAUDISIM_TPC_BUNDLE_SIZE, false, NULL);
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

/* The architectural state of TPC 0 after a launch, and every tensor region. */
struct tpc_outcome {
	int err;
	union gsim_tpc_vreg v[GAUDISIM_TPC_NUM_VREGS];
	union gsim_tpc_vreg vp[GAUDISIM_TPC_NUM_VPREDS];
	uint32_t s[GAUDISIM_TPC_NUM_SREGS];
	int32_t irf[GAUDISIM_TPC_NUM_IREGS][GAUDISIM_TPC_NUM_DIMS];
	uint8_t sp[GAUDISIM_TPC_NUM_SPREDS];
	uint8_t mem[GAUDISIM_TPC_NUM_TENSORS * REGION];
};

static void run_in_mode(const struct tt_launch *l, bool portable, const struct gsim_tpc_isa *isa,
			const uint8_t *init, struct tpc_outcome *o)
{
	const struct gsim_tpc_exec *x = T->core->tpc->unit[0].x;

	T->core->tpc_portable = portable;
	T->core->tpc_isa = isa;
	memcpy(tt_mem(region(0)), init, sizeof(o->mem));
	o->err = tt_run(l, 1);
	memcpy(o->v, x->v, sizeof(o->v));
	memcpy(o->vp, x->vp, sizeof(o->vp));
	memcpy(o->s, x->s, sizeof(o->s));
	memcpy(o->irf, x->irf, sizeof(o->irf));
	memcpy(o->sp, x->sp, sizeof(o->sp));
	memcpy(o->mem, tt_mem(region(0)), sizeof(o->mem));
}

/* Is code decoded for the given interpreter and build in the core's decode cache? */
static bool cached(const uint8_t *code, uint32_t size, bool portable,
		   const struct gsim_tpc_isa *isa)
{
	unsigned int i;

	for (i = 0; i < GSIM_TPC_CACHE_ENTRIES; i++) {
		const struct gsim_tpc_kernel *k = T->core->tpc->cache[i];

		if (k && k->portable == portable && k->isa == isa && k->size == size &&
		    !memcmp(k->bytes, code, size))
			return true;
	}
	return false;
}

/* Give every load and store of tensor t the dtype tdt[t], so launches run. */
static void one_dtype_per_tensor(uint8_t *bundle, uint32_t nb, const unsigned int *tdt)
{
	static const unsigned int slots[2] = { GAUDISIM_TPC_SLOT_LOAD, GAUDISIM_TPC_SLOT_STORE };
	uint8_t orig[GAUDISIM_TPC_BUNDLE_SIZE];
	unsigned int i;

	memcpy(orig, bundle, sizeof(orig));
	for (i = 0; i < 2; i++) {
		struct gaudisim_tpc_slot sl;

		gaudisim_tpc_slot_decode(bundle, slots[i], &sl);
		if (!sl.opc)
			continue;
		sl.dt = tdt[slots[i] == GAUDISIM_TPC_SLOT_LOAD ? sl.sa : sl.dst];
		gaudisim_tpc_slot_encode(bundle, slots[i], &sl);
	}
	if (gaudisim_tpc_check_bundle(bundle, nb, NULL) != GAUDISIM_TPC_OK)
		memcpy(bundle, orig, sizeof(orig));
}

/*
 * The fast handlers (specialised loops, partial-tile copies, fused
 * bundles) of the interpreter build _i (gsim_tpc_isa_at()) against the
 * portable interpreter of the baseline build: random legal programs over
 * random data give the same error, registers and memory, bit for bit.
 */
START_TEST(test_random_fast_matches_portable)
{
	const struct gsim_tpc_isa *isa = gsim_tpc_isa_at((unsigned int)_i);
	static struct tpc_outcome fast, port;
	static uint8_t init[GAUDISIM_TPC_NUM_TENSORS * REGION];
	uint8_t code[MAX_BUNDLES * GAUDISIM_TPC_BUNDLE_SIZE];
	uint64_t st = 0x5eed0003;
	unsigned int iter, ran = 0, t, d, tdt[GAUDISIM_TPC_NUM_TENSORS];

	tt_seed(0x9003);
	for (iter = 0; iter < 300; iter++) {
		uint32_t nb = 1 + (uint32_t)(tt_rand() % MAX_BUNDLES), pc, i;
		struct gsim_tpc_kernel *k;
		struct tt_launch l;

		for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
			/* Mostly 4-byte types: the fast paths are theirs. */
			static const unsigned int mem_dt[] = {
				GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_INT32,
				GAUDISIM_DTYPE_UINT32, GAUDISIM_DTYPE_BF16, GAUDISIM_DTYPE_INT16,
				GAUDISIM_DTYPE_UINT16, GAUDISIM_DTYPE_INT8, GAUDISIM_DTYPE_UINT8,
			};

			tdt[t] = mem_dt[tt_rand() % (sizeof(mem_dt) / sizeof(mem_dt[0]))];
		}
		for (pc = 0; pc < nb; pc++) {
			uint8_t *b = code + pc * GAUDISIM_TPC_BUNDLE_SIZE;

			tpc_random_bundle(&st, nb, b);
			one_dtype_per_tensor(b, nb, tdt);
			if (tt_rand() % 4 == 0)
				halt_slot(b);
		}
		k = gsim_tpc_kernel_decode(code, nb * GAUDISIM_TPC_BUNDLE_SIZE, false, NULL);
		ck_assert_ptr_nonnull(k);
		memcpy(tt_mem(TT_KERNEL), code, (size_t)nb * GAUDISIM_TPC_BUNDLE_SIZE);
		tt_init(&l, TT_KERNEL, nb * GAUDISIM_TPC_BUNDLE_SIZE);
		l.watchdog = 2000;
		for (d = 0; d < 5; d++)
			l.isize[d] = 1 + (uint32_t)(tt_rand() % (d < 2 ? 3 : 2));
		for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
			l.args[t] = tt_rand_value(GAUDISIM_DTYPE_FP32);
			l.args[t + 8] = (uint32_t)(tt_rand() % 200) - 50;
		}
		random_tensors(&l, k);
		gsim_tpc_kernel_put(k);
		for (i = 0; i < sizeof(init); i += 4) {
			uint32_t w = tt_rand_value(tt_rand() % 2 ? GAUDISIM_DTYPE_FP32 :
							       GAUDISIM_DTYPE_INT32);

			memcpy(init + i, &w, 4);
		}

		run_in_mode(&l, true, &gsim_tpc_isa_base, init, &port);
		run_in_mode(&l, false, isa, init, &fast);
		T->core->tpc_portable = false;
		/* A switch of interpreter or build decodes the kernel again. */
		ck_assert(cached(code, nb * GAUDISIM_TPC_BUNDLE_SIZE, true, &gsim_tpc_isa_base));
		ck_assert(cached(code, nb * GAUDISIM_TPC_BUNDLE_SIZE, false, isa));
		ck_assert_msg(fast.err == port.err, "%s iteration %u: error %d, portable %d",
			      isa->name, iter,
			      fast.err, port.err);
		ck_assert_msg(!memcmp(fast.v, port.v, sizeof(fast.v)), "%s iteration %u: V differ",
			      isa->name, iter);
		ck_assert_msg(!memcmp(fast.vp, port.vp, sizeof(fast.vp)),
			      "%s iteration %u: VP differ",
			      isa->name, iter);
		ck_assert_msg(!memcmp(fast.s, port.s, sizeof(fast.s)) &&
			      !memcmp(fast.irf, port.irf, sizeof(fast.irf)) &&
			      !memcmp(fast.sp, port.sp, sizeof(fast.sp)),
			      "%s iteration %u: scalar state differs",
			      isa->name, iter);
		ck_assert_msg(!memcmp(fast.mem, port.mem, sizeof(fast.mem)),
			      "%s iteration %u: memory differs",
			      isa->name, iter);
		ran += fast.err == GAUDISIM_TPC_ERR_NONE;
	}
	ck_assert_uint_gt(ran, 100);
}
END_TEST

/*
 * The loops a kernel runs as one bundle that jumps to itself (relu's tiles,
 * a bias gradient's rows, a row's maximum, a gather's row copy): the fast
 * build runs them without going back to its run loop
 * (gsim_tpc_dbundle.loop), and must leave what the portable interpreter
 * leaves, bit for bit: the registers, the memory, the error, when the loop
 * walks dimension 0 or an outer one, forwards or backwards, in and out of
 * the tensor (pad loads, dropped stores), over whole tiles of rows inside
 * every tensor (outer strides 0 among them), ends at the last bundle, runs
 * out of watchdog budget midway or is run in slices of a few bundles.
 */
static const char *const loop_ops[][2] = {
	/* element-wise, stored: ld -> op -> st */
	{ "max.f32 V1, V1, 0.0", "st" }, { "mul.f32 V1, V1, S1", "st" },
	{ "add.f32 V1, V1, V3", "st" }, { "sub.i32 V1, V3, V1", "st" },
	/* accumulations: ld -> op into another register */
	{ "add.f32 V2, V2, V1", "" }, { "max.f32 V2, V2, V1", "" },
	{ "add.i32 V2, V2, V1", "" }, { "mul.f32 V2, V1, V2", "" },
	/* copies (a gather's rows): ld -> st, FP32 then INT32 (loop_kind_i32()) */
	{ NULL, "st" }, { NULL, "st" },
};
/* What a failure names the case by. */
#define LOOP_OP_NAME(kind) (loop_ops[kind][0] ? loop_ops[kind][0] : "copy")
#define LOOP_KINDS (sizeof(loop_ops) / sizeof(loop_ops[0]))

static bool loop_kind_i32(unsigned int kind)
{
	return kind == 3 || kind == 6 || kind == 9;
}

/* The fast decode of code gives the loop bundle at pc a loop handler. */
static void check_loop_bound(const uint8_t *code, uint32_t size, uint32_t pc,
			     const struct gsim_tpc_isa *isa)
{
	struct gsim_tpc_kernel *k = gsim_tpc_kernel_decode(code, size, false, isa);

	ck_assert_ptr_nonnull(k);
	ck_assert_msg(k->b[pc].loop, "%s: bundle %u has no loop handler", isa->name, pc);
	gsim_tpc_kernel_put(k);
}

static int run_sliced(const struct tt_launch *l, uint64_t slice)
{
	tt_program(0, l, NULL);
	if (gsim_tpc_start(T->core, TT_E(0)) == 0)
		while (gsim_tpc_run(T->core, TT_E(0), slice))
			;
	gsim_tpc_finish(T->core, TT_E(0));
	return (int)tt_err(0);
}

START_TEST(test_loop_bundles_match_portable)
{
	const struct gsim_tpc_isa *isa = gsim_tpc_isa_at((unsigned int)_i);
	static struct tpc_outcome fast, port;
	static uint8_t init[GAUDISIM_TPC_NUM_TENSORS * REGION];
	const struct gsim_tpc_exec *x = T->core->tpc->unit[0].x;
	unsigned int iter, cut = 0, ended = 0, i;

	tt_seed(0x9004);
	for (iter = 0; iter < 240; iter++) {
		/* inside: whole tiles along dimension 0 of rows inside every tensor */
		bool inside = tt_rand() % 3 == 0;
		unsigned int kind = (unsigned int)(tt_rand() % LOOP_KINDS),
			     dim = inside ? 0 : (unsigned int)(tt_rand() % 3);
		const char *dt = loop_kind_i32(kind) ? "i32" : "f32";
		bool last = tt_rand() % 5 == 0, store = loop_ops[kind][1][0] != 0;
		int step = inside ? 64 : dim == 0 ? (int)(tt_rand() % 2 ? 64 : 1 + tt_rand() % 80) :
						    (int)(1 + tt_rand() % 2);
		char text[512];
		uint32_t ksize, size[5] = { 1, 1, 1, 1, 1 };
		struct tt_launch l;
		unsigned int t, d;
		uint64_t slice;

		if (!inside && tt_rand() % 3 == 0)
			step = -step;
		/* I1 from S8..S12, the bound in S13; V2, V3 from S1, S2. */
		snprintf(text, sizeof(text),
			 "iset I1.0, S8\n iset I1.1, S9\n iset I1.2, S10\n"
			 "mov.f32 V2, S1\n mov.f32 V3, S2\n"
			 "loop: ld.%s V1, T0, I1%s%s%s%s%s ; iloop I1.%u, %d, S13, loop\n%s",
			 dt, loop_ops[kind][0] ? " ; " : "", loop_ops[kind][0] ? loop_ops[kind][0] : "",
			 store ? " ; st." : "", store ? dt : "", store ? " T1, I1, V1" : "",
			 dim, step, last ? "" : "st.f32 T2, I0, V2 ; halt\n");
		ksize = tt_asm(TT_KERNEL, text);
		check_loop_bound(tt_mem(TT_KERNEL), ksize, 5, isa);

		tt_init(&l, TT_KERNEL, ksize);
		l.watchdog = tt_rand() % 4 == 0 ? 6 + (uint32_t)(tt_rand() % 200) : 100000;
		for (t = 0; t < 3; t++) {
			uint32_t stride[5];
			unsigned int dt = loop_kind_i32(kind) ? GAUDISIM_DTYPE_INT32 :
				GAUDISIM_DTYPE_FP32;

			uint64_t end;

			do {	/* within the region */
				end = 1;
				for (d = 0; d < 5; d++) {
					size[d] = d == 0 && inside ? 64 * (1 + (uint32_t)(tt_rand() % 4)) +
									(uint32_t)(tt_rand() % 64) :
						  d == 0 ? 1 + (uint32_t)(tt_rand() % 150) :
						  d < 3 ? 1 + (uint32_t)(tt_rand() % (inside ? 4 : 12)) : 1;
					/* an outer stride 0 now and then, as a gather's */
					stride[d] = d == 0 ? (!inside && tt_rand() % 4 == 0 ? 2 : 1) :
						    tt_rand() % 6 == 0 ? 0 :
						    stride[d - 1] * size[d - 1] +
						    (uint32_t)(tt_rand() % 3);
					end += (uint64_t)(size[d] - 1) * stride[d];
				}
			} while (end * 4 > REGION - 2 * GUARD);
			tt_tensor(&l, t, region(t) + GUARD, t == 2 ? GAUDISIM_DTYPE_FP32 : dt, size,
				  stride, tt_rand() % 2 ? 0 : tt_rand_value(dt));
		}
		l.args[1] = tt_rand_value(GAUDISIM_DTYPE_FP32);
		l.args[2] = tt_rand_value(tt_rand() % 2 ? GAUDISIM_DTYPE_FP32 : GAUDISIM_DTYPE_INT32);
		for (d = 0; d < 3; d++)
			l.args[8 + d] = inside ? 0 : (uint32_t)((int32_t)(tt_rand() % 200) - 70);
		/* The bound: a few runs to a few hundred, either way. */
		l.args[13] = (uint32_t)((int32_t)l.args[8 + dim] +
					step * (int32_t)(inside ? 1 + tt_rand() % 5 : tt_rand() % 300));
		for (i = 0; i < sizeof(init); i += 4) {
			uint32_t w = tt_rand_value(tt_rand() % 2 ? GAUDISIM_DTYPE_FP32 :
							       GAUDISIM_DTYPE_INT32);

			memcpy(init + i, &w, 4);
		}

		run_in_mode(&l, true, &gsim_tpc_isa_base, init, &port);
		slice = tt_rand() % 2 ? 0 : 1 + tt_rand() % 9;
		if (slice) {
			/* The same launch in slices of a few bundles. */
			T->core->tpc_portable = false;
			T->core->tpc_isa = isa;
			memcpy(tt_mem(region(0)), init, sizeof(init));
			fast.err = run_sliced(&l, slice);
			memcpy(fast.v, x->v, sizeof(fast.v));
			memcpy(fast.vp, x->vp, sizeof(fast.vp));
			memcpy(fast.s, x->s, sizeof(fast.s));
			memcpy(fast.irf, x->irf, sizeof(fast.irf));
			memcpy(fast.sp, x->sp, sizeof(fast.sp));
			memcpy(fast.mem, tt_mem(region(0)), sizeof(fast.mem));
		} else {
			run_in_mode(&l, false, isa, init, &fast);
		}
		T->core->tpc_portable = false;
		ck_assert_msg(fast.err == port.err, "%s iteration %u (%s, I1.%u %+d): error %d, portable %d",
			      isa->name, iter, LOOP_OP_NAME(kind), dim, step, fast.err, port.err);
		ck_assert_msg(!memcmp(fast.v, port.v, sizeof(fast.v)),
			      "%s iteration %u (%s, I1.%u %+d): V differ", isa->name, iter,
			      LOOP_OP_NAME(kind), dim, step);
		ck_assert_msg(!memcmp(fast.s, port.s, sizeof(fast.s)) &&
			      !memcmp(fast.irf, port.irf, sizeof(fast.irf)),
			      "%s iteration %u (%s, I1.%u %+d): scalar state differs", isa->name, iter,
			      LOOP_OP_NAME(kind), dim, step);
		ck_assert_msg(!memcmp(fast.mem, port.mem, sizeof(fast.mem)),
			      "%s iteration %u (%s, I1.%u %+d): memory differs", isa->name, iter,
			      LOOP_OP_NAME(kind), dim, step);
		cut += port.err == GAUDISIM_TPC_ERR_WATCHDOG;
		ended += port.err == GAUDISIM_TPC_ERR_END;
	}
	/* Each way out of a loop was taken. */
	ck_assert_uint_gt(cut, 10);
	ck_assert_uint_gt(ended, 10);
}
END_TEST

void tpc_add_random_tests(Suite *s)
{
	TCase *tc = tcase_create("random");
	unsigned int i;

	tcase_add_checked_fixture(tc, tt_setup, tt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_legal_programs);
	tcase_add_test(tc, test_random_bytes);
	suite_add_tcase(s, tc);

	/* Every interpreter build this CPU runs; the others are reported skipped. */
	tc = tcase_create("random-isa");
	tcase_add_checked_fixture(tc, tt_setup, tt_teardown);
	tcase_set_timeout(tc, 60);
	for (i = 0; i < gsim_tpc_isa_count(); i++) {
		const struct gsim_tpc_isa *isa = gsim_tpc_isa_at(i);

		if (gsim_tpc_isa_runs(isa)) {
			tcase_add_loop_test(tc, test_random_fast_matches_portable, (int)i,
					    (int)i + 1);
			tcase_add_loop_test(tc, test_loop_bundles_match_portable, (int)i,
					    (int)i + 1);
		} else {
			check_skip("test_random_fast_matches_portable", isa->name,
				   "this CPU cannot run the build");
			check_skip("test_loop_bundles_match_portable", isa->name,
				   "this CPU cannot run the build");
		}
	}
	suite_add_tcase(s, tc);
}
