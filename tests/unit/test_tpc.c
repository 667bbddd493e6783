/* SPDX-License-Identifier: MIT */
/*
 * TPC unit tests: the shared helpers, and the register block, launch
 * checks, errors, watchdog, reset, resumable runs, the decode cache and
 * the index-space split. The suite also collects the operation, kernel
 * and random-program tests of the other test_tpc*.c files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_tpc.h"

/* ---- helpers ----------------------------------------------------------------- */

void tt_setup(void)
{
	unsigned int n;

	th_setup();
	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		ck_assert_int_eq(gsim_tpc_init(T->core, TT_E(n)), 0);
}

void tt_teardown(void)
{
	unsigned int n;

	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		gsim_tpc_fini(T->core, TT_E(n));
	ck_assert_ptr_null(T->core->tpc);
	th_teardown();
}

uint32_t tt_rd(unsigned int n, uint32_t off)
{
	uint32_t v = 0xdeadbeef;

	ck_assert_msg(gsim_tpc_reg_read(T->core, TT_E(n), off, &v), "no register 0x%x", off);
	return v;
}

enum gsim_reg_status tt_wr(unsigned int n, uint32_t off, uint32_t value)
{
	bool launch = false;
	enum gsim_reg_status st =
		gsim_tpc_reg_write(T->core, TT_E(n), off, value, GSIM_ORIGIN_CB, &launch);

	ck_assert(!launch || off == GAUDISIM_TPC_COMMIT);
	return st;
}

uint8_t *tt_mem(uint64_t addr)
{
	return hbm_ptr(addr);
}

uint32_t tt_asm(uint64_t addr, const char *text)
{
	char err[512];
	uint8_t *code;
	size_t size;
	int rc = tpc_assemble(text, strlen(text), "kernel", &code, &size, err, sizeof(err));

	ck_assert_msg(rc == 0, "assembly failed: %s", err);
	memcpy(tt_mem(addr), code, size);
	free(code);
	return (uint32_t)size;
}

uint32_t tt_asm_file(uint64_t addr, const char *kernel_name)
{
	/* The kernels live beside the sources: ../../runtime/kernels from here. */
	char path[1024], dir[1024], *slash;
	uint32_t size;
	char *text;
	long len;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", __FILE__);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	ck_assert_int_lt(snprintf(path, sizeof(path), "%s/../../runtime/kernels/%s.tpcs", dir,
				  kernel_name), (int)sizeof(path));
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(fread(text, 1, (size_t)len, f), len);
	fclose(f);
	size = tt_asm(addr, text);
	free(text);
	return size;
}

void tt_init(struct tt_launch *l, uint64_t kernel, uint32_t ksize)
{
	unsigned int d;

	memset(l, 0, sizeof(*l));
	l->kernel = kernel;
	l->ksize = ksize;
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		l->isize[d] = 1;
}

void tt_tensor(struct tt_launch *l, unsigned int t, uint64_t addr, unsigned int dtype,
	       const uint32_t *size, const uint32_t *stride, uint32_t pad)
{
	struct tt_tensor *x = &l->t[t];
	unsigned int d;

	x->used = true;
	x->addr = addr;
	x->dtype = dtype;
	x->pad = pad;
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		x->size[d] = size[d];
		x->stride[d] = stride ? stride[d] : d ? x->stride[d - 1] * size[d - 1] : 1;
	}
}

void tt_program(unsigned int n, const struct tt_launch *l, const struct gaudisim_tpc_part *p)
{
	unsigned int d, t, i;

	ck_assert_int_eq(tt_wr(n, GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)l->kernel), GSIM_REG_OK);
	ck_assert_int_eq(tt_wr(n, GAUDISIM_TPC_KERNEL_ADDR_HI, (uint32_t)(l->kernel >> 32)),
			 GSIM_REG_OK);
	ck_assert_int_eq(tt_wr(n, GAUDISIM_TPC_KERNEL_SIZE, l->ksize), GSIM_REG_OK);
	ck_assert_int_eq(tt_wr(n, GAUDISIM_TPC_WATCHDOG, l->watchdog), GSIM_REG_OK);
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		tt_wr(n, GAUDISIM_TPC_ISPACE_SIZE(d), l->isize[d]);
		tt_wr(n, GAUDISIM_TPC_PART_START(d), p ? p->start[d] : 0);
		tt_wr(n, GAUDISIM_TPC_PART_SIZE(d), p ? p->size[d] : 0);
	}
	for (i = 0; i < GAUDISIM_TPC_NUM_ARGS; i++)
		tt_wr(n, GAUDISIM_TPC_ARG(i), l->args[i]);
	for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
		const struct tt_tensor *x = &l->t[t];
		uint32_t base = GAUDISIM_TPC_TENSOR(t);

		if (!x->used)
			continue;
		tt_wr(n, base + GAUDISIM_TPC_T_BASE_LO, (uint32_t)x->addr);
		tt_wr(n, base + GAUDISIM_TPC_T_BASE_HI, (uint32_t)(x->addr >> 32));
		tt_wr(n, base + GAUDISIM_TPC_T_DTYPE, x->dtype);
		tt_wr(n, base + GAUDISIM_TPC_T_PAD, x->pad);
		for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
			tt_wr(n, base + GAUDISIM_TPC_T_SIZE(d), x->size[d]);
			tt_wr(n, base + GAUDISIM_TPC_T_STRIDE(d), x->stride[d]);
		}
	}
}

int tt_run(const struct tt_launch *l, unsigned int ntpc)
{
	struct gaudisim_tpc_part parts[GAUDISIM_NUM_TPC];
	unsigned int np = gaudisim_tpc_split(l->isize, ntpc, parts), i;
	int first = 0;

	ck_assert_uint_ge(np, 1);
	for (i = 0; i < np; i++)
		tt_program(i, l, &parts[i]);
	for (i = 0; i < np; i++) {
		int err = gsim_tpc_launch(T->core, TT_E(i)) & 0xff;

		ck_assert_uint_eq(tt_err(i), (unsigned int)err);
		if (err && !first)
			first = err;
	}
	return first;
}

unsigned int tt_err(unsigned int n)
{
	/* The core shows it in GAUDISIM_ENG_STATUS once the TPC is one of its
	 * engines; the engine model keeps it too. */
	return T->core->tpc->unit[n].last_err;
}

static uint64_t tt_state = 1;

void tt_seed(uint64_t seed)
{
	tt_state = seed;
}

uint64_t tt_rand(void)
{
	return tpc_rand64(&tt_state);
}

uint32_t tt_rand_value(unsigned int dt)
{
	static const uint32_t fspecial[] = {
		0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
		0x7fc00000, 0x7f800001, 0x00000001, 0x7f7fffff, 0x00800000, 0x3fc00000,
		0x40000000, 0x3f000000, 0xc2c80000, 0x4b800001,
	};
	uint32_t r = (uint32_t)tt_rand();
	unsigned int pick = (unsigned int)(tt_rand() % 8);

	if (dt == GAUDISIM_DTYPE_FP32 || dt == GAUDISIM_DTYPE_BF16) {
		float f;

		if (pick == 0)
			return fspecial[r % (sizeof(fspecial) / sizeof(fspecial[0]))];
		if (pick == 1)
			return r;	/* any bit pattern */
		f = (float)((double)(int32_t)r / 2147483648.0 * 200.0);
		memcpy(&r, &f, sizeof(r));
		/* BF16 lanes usually hold BF16 values; sometimes not. */
		return dt == GAUDISIM_DTYPE_BF16 && pick != 2 ? r & 0xffff0000u : r;
	}
	if (pick == 0) {
		static const uint32_t ispecial[] = { 0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u,
						     0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff };

		r = ispecial[r % (sizeof(ispecial) / sizeof(ispecial[0]))];
	}
	if (pick <= 1)
		return r;	/* not necessarily in the type's range */
	/* Usually a value of the type, in register format. */
	switch (dt) {
	case GAUDISIM_DTYPE_INT16:
		return (uint32_t)(int32_t)(int16_t)r;
	case GAUDISIM_DTYPE_UINT16:
		return r & 0xffff;
	case GAUDISIM_DTYPE_INT8:
		return (uint32_t)(int32_t)(int8_t)r;
	case GAUDISIM_DTYPE_UINT8:
		return r & 0xff;
	default:
		return pick == 2 ? r % 64 : r;
	}
}

/* ---- register block -------------------------------------------------------------- */

START_TEST(test_reg_reset_values)
{
	unsigned int n, d, t;

	for (n = 0; n < GAUDISIM_NUM_TPC; n++) {
		ck_assert_uint_eq(tt_err(n), 0);
		ck_assert_uint_eq(tt_rd(n, GAUDISIM_TPC_KERNEL_SIZE), 0);
		for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
			ck_assert_uint_eq(tt_rd(n, GAUDISIM_TPC_ISPACE_SIZE(d)), 1);
			ck_assert_uint_eq(tt_rd(n, GAUDISIM_TPC_PART_START(d)), 0);
			ck_assert_uint_eq(tt_rd(n, GAUDISIM_TPC_PART_SIZE(d)), 0);
		}
		for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
			uint32_t b = GAUDISIM_TPC_TENSOR(t);

			ck_assert_uint_eq(tt_rd(n, b + GAUDISIM_TPC_T_DTYPE), GAUDISIM_DTYPE_FP32);
			for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
				ck_assert_uint_eq(tt_rd(n, b + GAUDISIM_TPC_T_SIZE(d)), 1);
				ck_assert_uint_eq(tt_rd(n, b + GAUDISIM_TPC_T_STRIDE(d)), d == 0);
			}
		}
	}
}
END_TEST

START_TEST(test_reg_readback)
{
	uint32_t off, v;
	bool launch = false;

	/* Every configuration register holds any value; the gaps do not exist. */
	for (off = 0; off < GAUDISIM_TPC_CFG_END; off += 4) {
		enum gsim_reg_status st = tt_wr(3, off, 0xa5000000u | off);
		bool reserved = off >= GAUDISIM_TPC_TENSOR_BASE &&
				(off - GAUDISIM_TPC_TENSOR_BASE) % GAUDISIM_TPC_TENSOR_STRIDE >=
				GAUDISIM_TPC_T_END;

		if (st == GSIM_REG_OK) {
			ck_assert_uint_eq(tt_rd(3, off), 0xa5000000u | off);
		} else if (reserved) {
			ck_assert_int_eq(st, GSIM_REG_BAD_VALUE);
			ck_assert_uint_eq(tt_rd(3, off), 0);
		} else {
			ck_assert_int_eq(st, GSIM_REG_UNKNOWN);
			ck_assert(!gsim_tpc_reg_read(T->core, TT_E(3), off, &v));
		}
	}
	ck_assert_int_eq(tt_wr(3, GAUDISIM_TPC_ARG(15), 7), GSIM_REG_OK);
	ck_assert_int_eq(tt_wr(3, 0x010, 1), GSIM_REG_UNKNOWN);
	ck_assert_int_eq(tt_wr(3, GAUDISIM_TPC_KERNEL_ADDR_LO + 1, 1), GSIM_REG_UNKNOWN);
	/* Other TPCs are untouched. */
	ck_assert_uint_eq(tt_rd(2, GAUDISIM_TPC_ARG(15)), 0);

	/* Read-only registers. */
	ck_assert_int_eq(tt_wr(3, GAUDISIM_TPC_ERR_PC, 0), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(tt_wr(3, GAUDISIM_TPC_BUNDLES_LO, 0), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(tt_wr(3, GAUDISIM_TPC_ERR_COORD(4), 0), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(tt_wr(3, GAUDISIM_TPC_MEMBERS_HI, 0), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(tt_wr(3, GAUDISIM_TPC_REGS_END, 0), GSIM_REG_UNKNOWN);

	/* COMMIT takes GO only and asks for a launch. */
	ck_assert_int_eq(gsim_tpc_reg_write(T->core, TT_E(3), GAUDISIM_TPC_COMMIT, 2,
					    GSIM_ORIGIN_MMIO, &launch), GSIM_REG_BAD_VALUE);
	ck_assert(!launch);
	ck_assert_int_eq(gsim_tpc_reg_write(T->core, TT_E(3), GAUDISIM_TPC_COMMIT,
					    GAUDISIM_TPC_COMMIT_GO, GSIM_ORIGIN_MMIO, &launch),
			 GSIM_REG_OK);
	ck_assert(launch);
	ck_assert_uint_eq(tt_rd(3, GAUDISIM_TPC_COMMIT), 0);

	/* Not a TPC engine. */
	ck_assert(!gsim_tpc_reg_read(T->core, GAUDISIM_ENGINE_MME, 0, &v));
	ck_assert_int_eq(gsim_tpc_reg_write(T->core, GAUDISIM_ENGINE_TPC_7 + 1, 0, 0,
					    GSIM_ORIGIN_MMIO, &launch), GSIM_REG_UNKNOWN);
}
END_TEST

/* ---- launches ------------------------------------------------------------------------ */

START_TEST(test_launch_counts)
{
	struct tt_launch l;

	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, "halt\n"));
	l.isize[0] = 3;
	l.isize[1] = 2;
	l.isize[3] = 5;
	ck_assert_int_eq(tt_run(&l, 1), 0);
	ck_assert_uint_eq(tt_err(0), 0);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_MEMBERS_LO), 30);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_BUNDLES_LO), 30);

	/* Split over 8: every member runs exactly once somewhere. */
	ck_assert_int_eq(tt_run(&l, 8), 0);
	{
		uint32_t members = 0, n;

		for (n = 0; n < GAUDISIM_NUM_TPC; n++)
			members += tt_rd(n, GAUDISIM_TPC_MEMBERS_LO);
		ck_assert_uint_eq(members, 30 + 30);
	}
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* Each member writes its coordinates, arguments and identity into T0. */
START_TEST(test_member_state)
{
	static const char *const text =
		"(SP1) halt\n"				/* SP1..7 are false at member start */
		"iget S20, I0.0\n"
		"iget S21, I0.1\n"
		"mul.i32 S22, S21, 4\n"
		"add.i32 S22, S22, S20\n"		/* linear member index */
		"iset I1.01234, 0\n"
		"iadd I1.0, I1, S22\n"
		/* The store runs before the SPU in a bundle: store, then step. */
		"sts.i32 T0, I1, S0 ; iset I1.1, 1\n"	/* ARG0 */
		"sts.i32 T0, I1, S15 ; iset I1.1, 2\n"	/* ARG15 */
		"sts.i32 T0, I1, S16 ; rd S23, tpcid\n"	/* S16..S31 start at 0 */
		"iset I1.1, 3\n"
		"sts.i32 T0, I1, S23 ; rd S24, pstart.0\n"
		"iset I1.1, 4\n"
		"sts.i32 T0, I1, S24 ; rd S24, pend.1\n"
		"iset I1.1, 5\n"
		"sts.i32 T0, I1, S24 ; rd S24, isize.1\n"
		"iset I1.1, 6\n"
		"sts.i32 T0, I1, S24 ; rd S24, T0.size.1\n"
		"iset I1.1, 7\n"
		"sts.i32 T0, I1, S24 ; rd S24, T0.stride.1\n"
		"iset I1.1, 8\n"
		"sts.i32 T0, I1, S24 ; halt\n";
	const uint32_t size[5] = { 16, 9, 1, 1, 1 };
	struct tt_launch l;
	uint32_t *out = (uint32_t *)tt_mem(TT_DATA);
	unsigned int m;

	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, text));
	l.isize[0] = 4;
	l.isize[1] = 4;
	l.args[0] = 0x1234;
	l.args[15] = 0xfedc;
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	memset(out, 0xee, 16 * 9 * 4);
	ck_assert_int_eq(tt_run(&l, 2), 0);
	for (m = 0; m < 16; m++) {
		unsigned int tpc = m / 8;	/* split along dim 1: rows 0-1, 2-3 */

		ck_assert_uint_eq(out[m], 0x1234);
		ck_assert_uint_eq(out[16 + m], 0xfedc);
		ck_assert_uint_eq(out[32 + m], 0);
		ck_assert_uint_eq(out[48 + m], tpc);
		ck_assert_uint_eq(out[64 + m], 0);
		ck_assert_uint_eq(out[80 + m], 2 + 2 * tpc);
		ck_assert_uint_eq(out[96 + m], 4);
		ck_assert_uint_eq(out[112 + m], 9);
		ck_assert_uint_eq(out[128 + m], 16);
	}
}
END_TEST

/* Vector registers carry over between the members of one TPC's launch
 * and are zero at launch. */
START_TEST(test_vregs_persist)
{
	static const char *const text =
		"iset I1.0, 0\n"
		"st.i32 T0, I0, V5 ; add.i32 V5, V5, 1 ; halt\n";
	const uint32_t size[5] = { 64, 3, 1, 1, 1 };
	struct tt_launch l;
	int32_t *out = (int32_t *)tt_mem(TT_DATA);
	unsigned int i;

	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, text));
	l.isize[1] = 3;
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(tt_run(&l, 1), 0);
		/* The VPU runs before the store in a bundle. */
		ck_assert_int_eq(out[0], 1);
		ck_assert_int_eq(out[64 + 5], 2);
		ck_assert_int_eq(out[128 + 63], 3);
	}
}
END_TEST

START_TEST(test_kernel_errors)
{
	struct tt_launch l;
	uint32_t size = tt_asm(TT_KERNEL, "halt\n"), errs = 0;
	static const struct {
		uint64_t addr;
		uint32_t size;
	} bad[] = {
		{ TT_KERNEL, 0 },
		{ TT_KERNEL, 33 },
		{ TT_KERNEL + 16, 32 },
		{ TT_KERNEL, (GAUDISIM_TPC_MAX_BUNDLES + 1) * 32 },
		{ T_HBM_SIZE - 32, 64 },
		{ T_HBM_SIZE, 32 },
		{ GAUDISIM_CFG_BASE, 32 },
		{ GAUDISIM_HOST_BASE, 32 },
		{ 0xffffffffffffffe0ull, 64 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tt_init(&l, bad[i].addr, bad[i].size);
		ck_assert_int_eq(tt_run(&l, 1), GAUDISIM_TPC_ERR_KERNEL);
		ck_assert_uint_eq(tt_err(0), GAUDISIM_TPC_ERR_KERNEL);
		ck_assert_uint_eq(T->errors, ++errs);	/* each one logged */
	}
	/* The TPC keeps working; a kernel in SRAM is fine too. */
	tt_init(&l, TT_KERNEL, size);
	ck_assert_int_eq(tt_run(&l, 1), 0);
	memcpy(T->core->sram + 0x1000, tt_mem(TT_KERNEL), size);
	tt_init(&l, GAUDISIM_SRAM_BASE + 0x1000, size);
	ck_assert_int_eq(tt_run(&l, 1), 0);
	ck_assert_uint_eq(tt_err(0), 0);
	ck_assert_uint_eq(T->errors, errs);
}
END_TEST

START_TEST(test_ispace_errors)
{
	struct tt_launch l;
	struct gaudisim_tpc_part p = { { 0 }, { 0 } };

	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, "halt\n"));
	l.isize[2] = 0;
	tt_program(0, &l, NULL);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), GAUDISIM_TPC_ERR_ISPACE);

	l.isize[2] = 10;
	p.start[2] = 10;
	tt_program(0, &l, &p);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), GAUDISIM_TPC_ERR_ISPACE);
	p.start[2] = 4;
	p.size[2] = 7;
	tt_program(0, &l, &p);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), GAUDISIM_TPC_ERR_ISPACE);
	p.size[2] = 0xfffffffdu;	/* start + size wraps */
	tt_program(0, &l, &p);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), GAUDISIM_TPC_ERR_ISPACE);
	p.size[2] = 6;
	tt_program(0, &l, &p);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), 0);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_MEMBERS_LO), 6);
}
END_TEST

START_TEST(test_tensor_errors)
{
	static const char *const text = "ld.f32 V1, T2, I0\nst.f32 T5, I0, V1 ; halt\n";
	const uint32_t size[5] = { 100, 4, 1, 1, 1 };
	struct tt_launch good, l;
	uint32_t ks = tt_asm(TT_KERNEL, text);

	tt_init(&good, TT_KERNEL, ks);
	tt_tensor(&good, 2, TT_DATA, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	tt_tensor(&good, 5, TT_DATA + 0x10000, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	/* Unused descriptors are not looked at. */
	tt_tensor(&good, 0, 0xffffffffffffull, 6, size, NULL, 0);
	ck_assert_int_eq(tt_run(&good, 1), 0);

#define EXPECT_TENSOR_ERR(which)						\
	do {									\
		ck_assert_int_eq(tt_run(&l, 1), GAUDISIM_TPC_ERR_TENSOR);	\
		ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_INFO), which);	\
	} while (0)

	l = good;
	l.t[2].dtype = GAUDISIM_DTYPE_INT32;		/* kernel loads it as f32 */
	EXPECT_TENSOR_ERR(2);
	l = good;
	l.t[5].dtype = 6;				/* no such memory type */
	EXPECT_TENSOR_ERR(5);
	l = good;
	l.t[5].size[3] = 0;
	EXPECT_TENSOR_ERR(5);
	l = good;
	l.t[2].addr += 2;				/* not element-aligned */
	EXPECT_TENSOR_ERR(2);
	l = good;
	l.t[2].addr = T_HBM_SIZE - 100 * 4 * 4 + 4;	/* last row runs off HBM */
	EXPECT_TENSOR_ERR(2);
	l = good;
	l.t[5].stride[4] = 0xffffffffu;
	l.t[5].size[4] = 0xffffffffu;
	l.t[5].stride[3] = 0xffffffffu;
	l.t[5].size[3] = 0xffffffffu;
	EXPECT_TENSOR_ERR(5);
	l = good;
	l.t[2].addr = GAUDISIM_CFG_BASE;
	EXPECT_TENSOR_ERR(2);
	l = good;
	l.t[2].addr = GAUDISIM_HOST_BASE + 0x1000;
	EXPECT_TENSOR_ERR(2);
	/* A tensor in SRAM is fine. */
	l = good;
	l.t[2].addr = GAUDISIM_SRAM_BASE;
	ck_assert_int_eq(tt_run(&l, 1), 0);

	/* One tensor accessed with two dtypes. */
	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, "ld.f32 V1, T0, I0\nlds.i32 S1, T0, I0 ; halt\n"));
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	EXPECT_TENSOR_ERR(0);
#undef EXPECT_TENSOR_ERR
}
END_TEST

START_TEST(test_illegal_bundle)
{
	struct tt_launch l;
	uint32_t ks;

	/* Garbage that is never reached does not matter. */
	ks = tt_asm(TT_KERNEL, "halt\n.raw 1, 2, 3, 4, 5, 6, 7, 8\n");
	tt_init(&l, TT_KERNEL, ks);
	ck_assert_int_eq(tt_run(&l, 1), 0);

	/* Reached: the launch stops there. */
	ks = tt_asm(TT_KERNEL, "iset I1.0, 1\n.raw 0x3f, 0, 0, 0, 0, 0, 0, 0\nhalt\n");
	tt_init(&l, TT_KERNEL, ks);
	l.isize[1] = 3;
	ck_assert_int_eq(tt_run(&l, 1), GAUDISIM_TPC_ERR_ILLEGAL);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_PC), 1);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_INFO),
			  GAUDISIM_TPC_BAD_OPCODE | GAUDISIM_TPC_SLOT_LOAD << 8);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_COORD(1)), 0);
	/* Counters add up over launches: 1 (the first launch) + 1 (iset). */
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_BUNDLES_LO), 2);

	/* An immediate nobody uses makes the bundle illegal. */
	ks = tt_asm(TT_KERNEL, ".raw 0, 0, 0, 0, 0, 0, 0, 5\nhalt\n");
	tt_init(&l, TT_KERNEL, ks);
	ck_assert_int_eq(tt_run(&l, 1), GAUDISIM_TPC_ERR_ILLEGAL);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_INFO) & 0xff, GAUDISIM_TPC_BAD_IMM);

	/* A branch past the kernel is illegal too. */
	ks = tt_asm(TT_KERNEL, "jmp @2\nhalt\n");
	tt_init(&l, TT_KERNEL, ks);
	ck_assert_int_eq(tt_run(&l, 1), GAUDISIM_TPC_ERR_ILLEGAL);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_INFO),
			  GAUDISIM_TPC_BAD_TARGET | GAUDISIM_TPC_SLOT_SPU << 8);
}
END_TEST

START_TEST(test_run_past_end)
{
	struct tt_launch l;

	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, "nop\n(!SP0) halt\n"));
	ck_assert_int_eq(tt_run(&l, 1), GAUDISIM_TPC_ERR_END);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_PC), 1);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_BUNDLES_LO), 2);
}
END_TEST

START_TEST(test_watchdog_and_reset)
{
	static const char *const spin = "top: jmp top\n";
	const uint32_t size[5] = { 64, 1, 1, 1, 1 };
	struct tt_launch l;
	float *out = (float *)tt_mem(TT_DATA);
	uint32_t ks = tt_asm(TT_KERNEL, spin);

	/* An event queue of 4 entries in host memory hears about the timeout. */
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_LO, (uint32_t)host_bus(T_DATA_OFF));
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_HI, (uint32_t)(host_bus(T_DATA_OFF) >> 32));
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_SIZE, 2);
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CTL, GAUDISIM_EQ_CTL_ENABLE);

	tt_init(&l, TT_KERNEL, ks);
	l.watchdog = 1000;
	l.isize[0] = 4;
	tt_program(0, &l, NULL);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)),
			 GAUDISIM_TPC_ERR_WATCHDOG | GSIM_ENGINE_ERR_POSTED);
	ck_assert_uint_eq(tt_err(0), GAUDISIM_TPC_ERR_WATCHDOG);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_BUNDLES_LO), 1000);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_PC), 0);
	ck_assert(!gsim_tpc_busy(T->core, TT_E(0)));
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(host_rd32(T_DATA_OFF)),
			  GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT);
	ck_assert(host_rd32(T_DATA_OFF) & GAUDISIM_EQ_CTL_READY);
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 4), TT_E(0));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 12), GAUDISIM_TPC_ERR_WATCHDOG);
	ck_assert_uint_eq(host_rd64(T_DATA_OFF + 16), TT_KERNEL);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_EVENT_CNT), 1);

	/* Exactly the budget is fine: 4 members x 2 bundles. */
	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, "nop\nhalt\n"));
	l.watchdog = 8;
	l.isize[0] = 4;
	ck_assert_int_eq(tt_run(&l, 1), 0);
	l.watchdog = 7;
	ck_assert_int_eq(tt_run(&l, 1), GAUDISIM_TPC_ERR_WATCHDOG);

	/* Soft reset: registers and status back to reset values, and the TPC works. */
	gsim_tpc_reset(T->core, TT_E(0));
	ck_assert_uint_eq(tt_err(0), 0);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_ERR_PC), 0);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_BUNDLES_LO), 0);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_WATCHDOG), 0);
	tt_init(&l, TT_KERNEL,
		tt_asm(TT_KERNEL, "mov.f32 V1, 2.5\nst.f32 T0, I0, V1 ; halt\n"));
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	ck_assert_int_eq(tt_run(&l, 1), 0);
	ck_assert(out[63] == 2.5f);
}
END_TEST

/* start / run in slices / finish gives what one launch gives. */
START_TEST(test_resumable_run)
{
	static const char *const text =
		"mov.i32 S5, 0\n"
		"top: add.i32 S5, S5, 3\n"
		"loop S6, 10, top\n"
		"sts.i32 T0, I0, S5 ; halt\n";
	const uint32_t size[5] = { 50, 1, 1, 1, 1 };
	struct tt_launch l;
	int32_t *out = (int32_t *)tt_mem(TT_DATA);
	unsigned int slices = 0, i;
	bool launch = false;

	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, text));
	l.isize[0] = 50;
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	tt_program(0, &l, NULL);
	ck_assert_int_eq(gsim_tpc_start(T->core, TT_E(0)), 0);
	ck_assert(gsim_tpc_busy(T->core, TT_E(0)));

	/* A COMMIT now is refused; the launch goes on. */
	gsim_tpc_reg_write(T->core, TT_E(0), GAUDISIM_TPC_COMMIT, 1, GSIM_ORIGIN_CB, &launch);
	ck_assert(launch);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), GAUDISIM_TPC_ERR_BUSY);
	ck_assert(gsim_tpc_busy(T->core, TT_E(0)));

	while (gsim_tpc_run(T->core, TT_E(0), 7))
		slices++;
	ck_assert(gsim_tpc_busy(T->core, TT_E(0)));
	ck_assert_int_eq(gsim_tpc_finish(T->core, TT_E(0)), 0);
	ck_assert(!gsim_tpc_busy(T->core, TT_E(0)));
	/* 50 members x (1 + 10 * 2 + 1) bundles */
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_BUNDLES_LO), 1100);
	ck_assert_uint_ge(slices, 1100 / 7 - 1);
	for (i = 0; i < 50; i++)
		ck_assert_int_eq(out[i], 30);
	ck_assert_uint_eq(tt_err(0), 0);

	/* Reset in the middle: the work is dropped, nothing is reported. */
	memset(out, 0, 50 * 4);
	ck_assert_int_eq(gsim_tpc_start(T->core, TT_E(0)), 0);
	ck_assert(gsim_tpc_run(T->core, TT_E(0), 100));
	gsim_tpc_reset(T->core, TT_E(0));
	ck_assert(!gsim_tpc_busy(T->core, TT_E(0)));
	ck_assert(!gsim_tpc_run(T->core, TT_E(0), 100));
	ck_assert_int_eq(gsim_tpc_finish(T->core, TT_E(0)), 0);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_MEMBERS_LO), 0);
	ck_assert_uint_eq(tt_rd(0, GAUDISIM_TPC_BUNDLES_LO), 0);
}
END_TEST

/*
 * The interpreter build: GSIM_TPC_ISA forces each build this CPU runs
 * (the core reports it), "auto" or nothing takes the widest it runs, the
 * configuration's name wins over the environment, and an unknown name or
 * a build the CPU cannot run is refused with a message.
 */
START_TEST(test_isa_choice)
{
	const struct gsim_tpc_isa *widest = NULL;
	const char *err = NULL;
	unsigned int i, runs = 0;

	ck_assert_uint_ge(gsim_tpc_isa_count(), 1);
	ck_assert_ptr_eq(gsim_tpc_isa_at(gsim_tpc_isa_count() - 1), &gsim_tpc_isa_base);
	ck_assert_ptr_null(gsim_tpc_isa_at(gsim_tpc_isa_count()));
	ck_assert(gsim_tpc_isa_runs(&gsim_tpc_isa_base));
	for (i = 0; i < gsim_tpc_isa_count(); i++) {
		const struct gsim_tpc_isa *isa = gsim_tpc_isa_at(i);

		ck_assert_int_eq(setenv("GSIM_TPC_ISA", isa->name, 1), 0);
		if (!gsim_tpc_isa_runs(isa)) {
			err = NULL;
			ck_assert_ptr_null(gsim_tpc_isa_choose(NULL, &err));
			ck_assert_ptr_nonnull(strstr(err, "cannot run"));
			printf("skipped: test_isa_choice[%s]: this CPU cannot run the build\n",
			       isa->name);
			continue;
		}
		if (!widest)
			widest = isa;
		runs++;
		{
			struct th *t = th_new(4096);

			ck_assert_str_eq(gsim_core_tpc_isa(t->core), isa->name);
			th_free(t);
		}
	}
	ck_assert_uint_ge(runs, 1);

	ck_assert_int_eq(setenv("GSIM_TPC_ISA", "auto", 1), 0);
	ck_assert_ptr_eq(gsim_tpc_isa_choose(NULL, &err), widest);
	ck_assert_ptr_eq(gsim_tpc_isa_choose("base", &err), &gsim_tpc_isa_base);
	ck_assert_int_eq(unsetenv("GSIM_TPC_ISA"), 0);
	ck_assert_ptr_eq(gsim_tpc_isa_choose(NULL, &err), widest);
	ck_assert_ptr_eq(gsim_tpc_isa_choose("", &err), widest);

	ck_assert_int_eq(setenv("GSIM_TPC_ISA", "avx9000", 1), 0);
	err = NULL;
	ck_assert_ptr_null(gsim_tpc_isa_choose(NULL, &err));
	ck_assert_ptr_nonnull(strstr(err, "unknown"));
	ck_assert_ptr_eq(gsim_tpc_isa_choose(GSIM_TPC_ISA_BASE, &err), &gsim_tpc_isa_base);
	{
		struct gsim_core_config cfg = {
			.hbm_size = T_HBM_SIZE, .hbm_bar_size = T_BAR_SIZE, .tpc_isa = "AVX2",
		};

		err = NULL;
		ck_assert_ptr_null(gsim_core_new(&cfg, &T->core->ops, NULL, &err));
		ck_assert_ptr_nonnull(strstr(err, "unknown"));
	}
	ck_assert_int_eq(unsetenv("GSIM_TPC_ISA"), 0);
}
END_TEST

START_TEST(test_decode_cache)
{
	const uint32_t size[5] = { 64, 1, 1, 1, 1 };
	struct gsim_tpc_set *set = T->core->tpc;
	struct tt_launch l;
	float *out = (float *)tt_mem(TT_DATA);
	uint32_t ks = tt_asm(TT_KERNEL, "mov.f32 V1, 1.0\nst.f32 T0, I0, V1 ; halt\n");

	tt_init(&l, TT_KERNEL, ks);
	l.isize[1] = 8;
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	ck_assert_int_eq(tt_run(&l, 8), 0);
	ck_assert_uint_eq(set->cache_misses, 1);
	ck_assert_uint_eq(set->cache_hits, 7);
	ck_assert(out[0] == 1.0f);

	/* Rewritten in place: a different kernel, decoded again. */
	tt_asm(TT_KERNEL, "mov.f32 V1, 2.0\nst.f32 T0, I0, V1 ; halt\n");
	ck_assert_int_eq(tt_run(&l, 1), 0);
	ck_assert_uint_eq(set->cache_misses, 2);
	ck_assert(out[0] == 2.0f);

	/* The same code elsewhere is the same kernel. */
	l.kernel = TT_KERNEL2;
	tt_asm(TT_KERNEL2, "mov.f32 V1, 1.0\nst.f32 T0, I0, V1 ; halt\n");
	ck_assert_int_eq(tt_run(&l, 1), 0);
	ck_assert_uint_eq(set->cache_misses, 2);
	ck_assert(out[0] == 1.0f);

	/* More kernels than entries: old ones are evicted, all still run. */
	{
		char text[128];
		unsigned int i;

		for (i = 0; i < 3 * GSIM_TPC_CACHE_ENTRIES; i++) {
			snprintf(text, sizeof(text), "mov.f32 V1, %u\nst.f32 T0, I0, V1 ; halt\n",
				 i + 10);
			tt_asm(TT_KERNEL2, text);
			ck_assert_int_eq(tt_run(&l, 2), 0);
			ck_assert(out[5] == (float)(i + 10));
		}
	}
}
END_TEST

START_TEST(test_split)
{
	static const uint32_t shapes[][5] = {
		{ 65536, 1, 1, 1, 1 }, { 1, 100, 1, 1, 1 }, { 3, 1, 1, 1, 1 },
		{ 7, 2, 3, 1, 1 }, { 1, 1, 1, 1, 1 }, { 10, 10, 10, 10, 9 },
		{ 5, 1, 7, 1, 1 }, { 0xffffffffu, 1, 1, 1, 1 },
	};
	struct gaudisim_tpc_part p[GAUDISIM_NUM_TPC];
	unsigned int s, n, i, d, np;

	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		for (n = 1; n <= GAUDISIM_NUM_TPC; n++) {
			uint64_t total = 1, covered = 0;

			np = gaudisim_tpc_split(shapes[s], n, p);
			ck_assert_uint_ge(np, 1);
			ck_assert_uint_le(np, n);
			for (d = 0; d < 5; d++)
				total *= shapes[s][d];
			for (i = 0; i < np; i++) {
				uint64_t m = 1;

				for (d = 0; d < 5; d++) {
					ck_assert_uint_ge(p[i].size[d], 1);
					ck_assert_uint_le((uint64_t)p[i].start[d] + p[i].size[d],
							  shapes[s][d]);
					m *= p[i].size[d];
				}
				covered += m;
				/* Parts follow each other along one dimension. */
				if (i)
					for (d = 0; d < 5; d++)
						ck_assert(p[i].start[d] == p[i - 1].start[d] ||
							  p[i].start[d] == p[i - 1].start[d] +
							  p[i - 1].size[d]);
			}
			ck_assert_uint_eq(covered, total);
		}
	}
	ck_assert_uint_eq(gaudisim_tpc_split(shapes[0], 0, p), 0);
	{
		const uint32_t zero[5] = { 4, 0, 1, 1, 1 };

		ck_assert_uint_eq(gaudisim_tpc_split(zero, 8, p), 0);
	}
	/* 8 TPCs on 65536 members: 8 parts of 8192 along dim 0. */
	ck_assert_uint_eq(gaudisim_tpc_split(shapes[0], 8, p), 8);
	ck_assert_uint_eq(p[7].start[0], 7 * 8192);
	ck_assert_uint_eq(p[7].size[0], 8192);
}
END_TEST

/* ---- through the core: register BAR, TPC queues, common registers, events ---- */

/* The TPCs are engines of the core: its engine table lists their ops. */
static void core_setup(void)
{
	unsigned int n;

	tt_setup();
	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		ck_assert_ptr_eq(T->core->engine[TT_E(n)].ops, &gsim_tpc_engine_ops);
	th_eq_setup(5);
}

/* The registers of a launch as WREG_32 packets, then COMMIT. */
static void cb_launch(struct cb *cb, const struct tt_launch *l, const struct gaudisim_tpc_part *p)
{
	unsigned int d, t;

	cb_wreg32(cb, GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)l->kernel);
	cb_wreg32(cb, GAUDISIM_TPC_KERNEL_ADDR_HI, (uint32_t)(l->kernel >> 32));
	cb_wreg32(cb, GAUDISIM_TPC_KERNEL_SIZE, l->ksize);
	cb_wreg32(cb, GAUDISIM_TPC_WATCHDOG, l->watchdog);
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		cb_wreg32(cb, GAUDISIM_TPC_ISPACE_SIZE(d), l->isize[d]);
		cb_wreg32(cb, GAUDISIM_TPC_PART_START(d), p ? p->start[d] : 0);
		cb_wreg32(cb, GAUDISIM_TPC_PART_SIZE(d), p ? p->size[d] : 0);
	}
	for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
		const struct tt_tensor *x = &l->t[t];
		uint32_t b = GAUDISIM_TPC_TENSOR(t);

		if (!x->used)
			continue;
		cb_wreg32(cb, b + GAUDISIM_TPC_T_BASE_LO, (uint32_t)x->addr);
		cb_wreg32(cb, b + GAUDISIM_TPC_T_BASE_HI, (uint32_t)(x->addr >> 32));
		cb_wreg32(cb, b + GAUDISIM_TPC_T_DTYPE, x->dtype);
		cb_wreg32(cb, b + GAUDISIM_TPC_T_PAD, x->pad);
		for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
			cb_wreg32(cb, b + GAUDISIM_TPC_T_SIZE(d), x->size[d]);
			cb_wreg32(cb, b + GAUDISIM_TPC_T_STRIDE(d), x->stride[d]);
		}
	}
	cb_wreg32(cb, GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
}

static uint32_t eng_rd(unsigned int n, uint32_t off)
{
	return rd(GAUDISIM_TPC_BLOCK(n) + off);
}

/* vector_add of n floats: a = i, b = 2i; out must be 3i. */
static void add_setup(struct tt_launch *l, uint32_t n)
{
	const uint32_t size[5] = { n, 1, 1, 1, 1 };
	float *a = (float *)tt_mem(TT_DATA), *b = (float *)tt_mem(TT_DATA + 0x100000);
	uint32_t i;

	for (i = 0; i < n; i++) {
		a[i] = (float)i;
		b[i] = 2.0f * (float)i;
	}
	memset(tt_mem(TT_DATA + 0x200000), 0, (size_t)n * 4);
	tt_init(l, TT_KERNEL, tt_asm_file(TT_KERNEL, "vector_add"));
	l->isize[0] = (n + 63) / 64;
	tt_tensor(l, 0, TT_DATA, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	tt_tensor(l, 1, TT_DATA + 0x100000, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	tt_tensor(l, 2, TT_DATA + 0x200000, GAUDISIM_DTYPE_FP32, size, NULL, 0);
}

static void add_check(uint32_t n)
{
	const float *out = (const float *)tt_mem(TT_DATA + 0x200000);
	uint32_t i;

	for (i = 0; i < n; i++)
		ck_assert_msg(out[i] == 3.0f * (float)i, "out[%u] = %g", i, out[i]);
}

/* One CB per TPC queue, the index space split over four TPCs. */
START_TEST(test_core_cb_launch)
{
	struct gaudisim_tpc_part parts[4];
	struct tt_launch l;
	unsigned int np, i;

	add_setup(&l, 10000);
	np = gaudisim_tpc_split(l.isize, 4, parts);
	ck_assert_uint_eq(np, 4);
	for (i = 0; i < np; i++) {
		unsigned int q = gaudisim_engine_queue_id(TT_E(i), i % GAUDISIM_STREAMS_PER_QMAN);
		struct cb cb = cb_new(4096);

		cb_launch(&cb, &l, &parts[i]);
		iq_setup(q, 3);
		iq_submit(q, &cb);
	}
	run_all();
	add_check(10000);
	for (i = 0; i < np; i++) {
		ck_assert_uint_eq(eng_rd(i, GAUDISIM_ENG_STATUS), 0);
		ck_assert_uint_eq(eng_rd(i, GAUDISIM_ENG_LAUNCH_CNT), 1);
		ck_assert_uint_eq(eng_rd(i, GAUDISIM_ENG_ERR_CNT), 0);
		ck_assert_uint_gt(eng_rd(i, GAUDISIM_TPC_BUNDLES_LO), 0);
	}
	ck_assert_uint_eq(eng_rd(0, GAUDISIM_TPC_MEMBERS_LO) + eng_rd(1, GAUDISIM_TPC_MEMBERS_LO) +
			  eng_rd(2, GAUDISIM_TPC_MEMBERS_LO) + eng_rd(3, GAUDISIM_TPC_MEMBERS_LO),
			  (10000 + 63) / 64);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* Programmed over MMIO: COMMIT only latches, the run loop launches. */
START_TEST(test_core_mmio_launch)
{
	struct tt_launch l;
	unsigned int d, t;

	add_setup(&l, 777);
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		wr(GAUDISIM_TPC_BLOCK(5) + GAUDISIM_TPC_ISPACE_SIZE(d), l.isize[d]);
	wr(GAUDISIM_TPC_BLOCK(5) + GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)l.kernel);
	wr(GAUDISIM_TPC_BLOCK(5) + GAUDISIM_TPC_KERNEL_SIZE, l.ksize);
	for (t = 0; t < 3; t++) {
		uint32_t b = GAUDISIM_TPC_BLOCK(5) + GAUDISIM_TPC_TENSOR(t);

		wr(b + GAUDISIM_TPC_T_BASE_LO, (uint32_t)l.t[t].addr);
		wr(b + GAUDISIM_TPC_T_SIZE(0), l.t[t].size[0]);
	}
	ck_assert_uint_eq(rd(GAUDISIM_TPC_BLOCK(5) + GAUDISIM_TPC_T_SIZE(0) + GAUDISIM_TPC_TENSOR(2)),
			  777);
	ck_assert(wr(GAUDISIM_TPC_BLOCK(5) + GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO) &
		  GSIM_KICK_RUN);
	run_all();
	add_check(777);
	ck_assert_uint_eq(eng_rd(5, GAUDISIM_ENG_STATUS), 0);
	ck_assert_uint_eq(eng_rd(5, GAUDISIM_ENG_LAUNCH_CNT), 1);
	/* A wrong COMMIT value is refused and logged. */
	wr(GAUDISIM_TPC_BLOCK(5) + GAUDISIM_TPC_COMMIT, 7);
	ck_assert_uint_eq(T->errors, 1);
	run_all();
	ck_assert_uint_eq(eng_rd(5, GAUDISIM_ENG_LAUNCH_CNT), 1);
}
END_TEST

/* Errors reach STATUS and the event queue; soft reset brings the TPC back. */
START_TEST(test_core_errors_and_reset)
{
	unsigned int q = gaudisim_engine_queue_id(TT_E(2), 1);
	struct tt_launch l, spin;
	struct gaudisim_eq_entry ev;
	struct cb cb;
	int at;

	iq_setup(q, 3);
	/* A tensor outside HBM: refused, ENGINE_ERR from the core. */
	add_setup(&l, 100);
	l.t[1].addr = T_HBM_SIZE - 64;
	cb = cb_new(4096);
	cb_launch(&cb, &l, NULL);
	iq_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_ENG_STATUS),
			  GAUDISIM_ENG_STATUS_ERR |
			  GAUDISIM_TPC_ERR_TENSOR << GAUDISIM_ENG_STATUS_ERR_SHIFT);
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_ENG_ERR_CNT), 1);
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_TPC_ERR_INFO), 1);
	at = th_eq_find(0, GAUDISIM_EQ_EVENT_ENGINE_ERR);
	ck_assert_int_ge(at, 0);
	ev = th_eq_entry((unsigned int)at);
	ck_assert_uint_eq(ev.engine, TT_E(2));
	ck_assert_uint_eq(ev.queue, q);
	ck_assert_uint_eq(ev.code, GAUDISIM_TPC_ERR_TENSOR);

	/* A kernel that never ends: ENGINE_TIMEOUT from the TPC, no ENGINE_ERR. */
	tt_init(&spin, TT_KERNEL2, tt_asm(TT_KERNEL2, "top: jmp top\n"));
	spin.watchdog = 5000;
	cb = cb_new(4096);
	cb_launch(&cb, &spin, NULL);
	iq_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_ENG_STATUS),
			  GAUDISIM_ENG_STATUS_ERR |
			  GAUDISIM_TPC_ERR_WATCHDOG << GAUDISIM_ENG_STATUS_ERR_SHIFT);
	at = th_eq_find((unsigned int)at + 1, GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT);
	ck_assert_int_ge(at, 0);
	ev = th_eq_entry((unsigned int)at);
	ck_assert_uint_eq(ev.engine, TT_E(2));
	ck_assert_uint_eq(ev.queue, q);
	ck_assert_uint_eq(ev.code, GAUDISIM_TPC_ERR_WATCHDOG);
	ck_assert_uint_eq(ev.addr, TT_KERNEL2);
	ck_assert_int_lt(th_eq_find((unsigned int)at + 1, GAUDISIM_EQ_EVENT_ENGINE_ERR), 0);
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_TPC_BUNDLES_LO), 5000);

	/* Soft reset: registers back to reset values; the next launch runs. */
	wr(GAUDISIM_TPC_BLOCK(2) + GAUDISIM_ENG_SOFT_RESET, GAUDISIM_ENG_SOFT_RESET_GO);
	run_all();
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_ENG_STATUS), 0);
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_TPC_WATCHDOG), 0);
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_TPC_ISPACE_SIZE(0)), 1);
	iq_setup(q, 3);
	add_setup(&l, 300);
	cb = cb_new(4096);
	cb_launch(&cb, &l, NULL);
	iq_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(eng_rd(2, GAUDISIM_ENG_STATUS), 0);
	add_check(300);
}
END_TEST

/* A core with two workers and the eight TPCs, instead of the fixture's. */
static void threaded_core_setup(void)
{
	unsigned int n;

	T = th_new_threads(T_HOST_SIZE, 2);
	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		ck_assert_int_eq(gsim_tpc_init(T->core, TT_E(n)), 0);
}

/*
 * With workers, a launch of a few bundles ends inside launch(); a long one
 * returns GSIM_ENGINE_ASYNC after its first bundles and resumes where they
 * stopped; one of many members goes to the worker without running here.
 */
START_TEST(test_short_launch_runs_inline)
{
	const uint32_t size[5] = { 64, 1, 1, 1, 1 }, iterations = 100000;
	int32_t *out = (int32_t *)tt_mem(TT_DATA);
	float spin;
	struct tt_launch l;
	uint64_t bundles;

	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, "mov.i32 V1, 42\nst.i32 T0, I0, V1 ; halt\n"));
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	tt_program(0, &l, NULL);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), GAUDISIM_TPC_ERR_NONE);
	ck_assert(!gsim_tpc_busy(T->core, TT_E(0)));
	ck_assert_int_eq(out[63], 42);

	tt_init(&l, TT_KERNEL2, tt_asm(TT_KERNEL2,
				       "	mov.f32 V1, 0.0\n"
				       "top:	add.f32 V1, V1, 1.0 ; st.f32 T0, I0, V1 ; "
				       "loop S20, S0, top\n"
				       "	halt\n"));
	l.args[0] = iterations;
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_FP32, size, NULL, 0);
	tt_program(0, &l, NULL);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), GSIM_ENGINE_ASYNC);
	ck_assert(gsim_tpc_busy(T->core, TT_E(0)));
	memcpy(&spin, tt_mem(TT_DATA), sizeof(spin));
	ck_assert(spin > 0 && spin < (float)iterations);	/* the first bundles ran */
	/* What a worker does, then the owner's finish. */
	while (gsim_tpc_run(T->core, TT_E(0), 1000))
		;
	ck_assert_int_eq(gsim_tpc_finish(T->core, TT_E(0)), GAUDISIM_TPC_ERR_NONE);
	memcpy(&spin, tt_mem(TT_DATA), sizeof(spin));
	ck_assert_float_eq(spin, (float)iterations);
	bundles = (uint64_t)tt_rd(0, GAUDISIM_TPC_BUNDLES_HI) << 32 |
		  tt_rd(0, GAUDISIM_TPC_BUNDLES_LO);
	ck_assert_uint_eq(bundles, 2 + (iterations + 2));	/* both launches */

	/* 4096 members: long from the start, none of it runs inside launch(). */
	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, "mov.i32 V1, 7\nst.i32 T0, I0, V1 ; halt\n"));
	l.isize[0] = 4096;
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	tt_program(0, &l, NULL);
	ck_assert_int_eq(gsim_tpc_launch(T->core, TT_E(0)), GSIM_ENGINE_ASYNC);
	ck_assert_uint_eq(T->core->tpc->unit[0].job.bundles, 0);
	while (gsim_tpc_run(T->core, TT_E(0), 1000))
		;
	ck_assert_int_eq(gsim_tpc_finish(T->core, TT_E(0)), GAUDISIM_TPC_ERR_NONE);
	ck_assert_int_eq(out[0], 7);
}
END_TEST

Suite *tpc_suite(void)
{
	Suite *s = suite_create("tpc");
	TCase *tc = tcase_create("engine");

	tcase_add_checked_fixture(tc, tt_setup, tt_teardown);
	tcase_add_test(tc, test_reg_reset_values);
	tcase_add_test(tc, test_reg_readback);
	tcase_add_test(tc, test_launch_counts);
	tcase_add_test(tc, test_member_state);
	tcase_add_test(tc, test_vregs_persist);
	tcase_add_test(tc, test_kernel_errors);
	tcase_add_test(tc, test_ispace_errors);
	tcase_add_test(tc, test_tensor_errors);
	tcase_add_test(tc, test_illegal_bundle);
	tcase_add_test(tc, test_run_past_end);
	tcase_add_test(tc, test_watchdog_and_reset);
	tcase_add_test(tc, test_resumable_run);
	tcase_add_test(tc, test_decode_cache);
	tcase_add_test(tc, test_isa_choice);
	tcase_add_test(tc, test_split);
	suite_add_tcase(s, tc);

	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, core_setup, tt_teardown);
	tcase_add_test(tc, test_core_cb_launch);
	tcase_add_test(tc, test_core_mmio_launch);
	tcase_add_test(tc, test_core_errors_and_reset);
	suite_add_tcase(s, tc);

	tc = tcase_create("threaded");
	tcase_add_checked_fixture(tc, threaded_core_setup, tt_teardown);
	tcase_add_test(tc, test_short_launch_runs_inline);
	suite_add_tcase(s, tc);

	tpc_add_op_tests(s);
	tpc_add_kernel_tests(s);
	tpc_add_random_tests(s);
	return s;
}
