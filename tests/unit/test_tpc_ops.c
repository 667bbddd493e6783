/* SPDX-License-Identifier: MIT */
/*
 * TPC operations against the reference ops (gsim_ref_tpc.c): every
 * VPU and SPU operation on every dtype it takes, with the three kinds of
 * SRC_B, predicates, conversions with every rounding mode, reductions,
 * loads and stores of every dtype with partial tiles, padding and
 * strides, the index registers and control flow.
 *
 * Operands travel as raw 32-bit lanes through INT32 tensors, so any
 * register value (also one outside a narrow type's range) can be fed in.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_tpc.h"

#define L GAUDISIM_TPC_LANES
/* Four 64-lane INT32 vectors: a, b, c (old destination), out. */
#define VA	(TT_DATA + 0x0000)
#define VB	(TT_DATA + 0x1000)
#define VC	(TT_DATA + 0x2000)
#define VOUT	(TT_DATA + 0x3000)
#define VS	(TT_DATA + 0x4000)	/* a scalar operand */

static uint32_t *vec(uint64_t addr)
{
	return (uint32_t *)tt_mem(addr);
}

/* A launch with T0..T3 = a, b, c, out (64 x INT32) and T4 = one scalar. */
static void lanes_launch(struct tt_launch *l, const char *text, unsigned int members)
{
	const uint32_t size[5] = { L, 1, 1, 1, 1 }, one[5] = { 1, 1, 1, 1, 1 };

	tt_init(l, TT_KERNEL, tt_asm(TT_KERNEL, text));
	l->isize[0] = members;
	tt_tensor(l, 0, VA, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	tt_tensor(l, 1, VB, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	tt_tensor(l, 2, VC, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	tt_tensor(l, 3, VOUT, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	tt_tensor(l, 4, VS, GAUDISIM_DTYPE_INT32, one, NULL, 0);
}

static void run_text(const char *text, unsigned int members)
{
	struct tt_launch l;

	lanes_launch(&l, text, members);
	ck_assert_msg(tt_run(&l, 1) == 0, "launch failed: %s", T->last_error);
}

static bool is_float(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_FP32 || dt == GAUDISIM_DTYPE_BF16;
}

static bool is_nan32(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

/* Same bits, or (float types) both NaN: NaN payloads are not specified. */
static void check_lane(const char *what, unsigned int dt, unsigned int i, uint32_t got,
		       uint32_t want)
{
	if (got == want || (is_float(dt) && is_nan32(got) && is_nan32(want)))
		return;
	ck_abort_msg("%s lane %u: got 0x%08x, want 0x%08x", what, i, got, want);
}

static void fill_operands(unsigned int dt)
{
	unsigned int i;

	for (i = 0; i < L; i++) {
		vec(VA)[i] = tt_rand_value(dt);
		vec(VB)[i] = tt_rand_value(dt);
		vec(VC)[i] = tt_rand_value(dt);
		vec(VOUT)[i] = 0xdeadbeef;
	}
	vec(VS)[0] = tt_rand_value(dt);
}

/* The ALU opcodes with the operand shape d, a[, b]. */
static const unsigned int alu_ops[] = {
	GAUDISIM_TPC_OP_MOV, GAUDISIM_TPC_OP_ADD, GAUDISIM_TPC_OP_SUB, GAUDISIM_TPC_OP_MUL,
	GAUDISIM_TPC_OP_MAC, GAUDISIM_TPC_OP_MIN, GAUDISIM_TPC_OP_MAX, GAUDISIM_TPC_OP_AND,
	GAUDISIM_TPC_OP_OR, GAUDISIM_TPC_OP_XOR, GAUDISIM_TPC_OP_SHL, GAUDISIM_TPC_OP_SHR,
	GAUDISIM_TPC_OP_NOT, GAUDISIM_TPC_OP_ABS, GAUDISIM_TPC_OP_NEG, GAUDISIM_TPC_OP_EXP,
	GAUDISIM_TPC_OP_LOG, GAUDISIM_TPC_OP_RCP, GAUDISIM_TPC_OP_RSQRT, GAUDISIM_TPC_OP_SQRT,
	GAUDISIM_TPC_OP_TANH,
};
#define N_ALU_OPS (sizeof(alu_ops) / sizeof(alu_ops[0]))

/* SRC_B as text: V2, S1 (loaded from VS) or an immediate. */
enum bkind { B_VEC, B_SREG, B_IMM };

static void imm_text(char *buf, size_t n, unsigned int dt, uint32_t v)
{
	if (is_float(dt))
		snprintf(buf, n, "0x%08x", v);
	else
		snprintf(buf, n, "%d", (int32_t)v);
}

/* One VPU ALU operation over 64 lanes against the reference. */
static void vpu_alu_case(unsigned int opc, unsigned int dt, enum bkind bk, int rounds)
{
	const struct gaudisim_tpc_opinfo *op = gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_VPU, opc);
	char text[512], b[32], what[64];
	unsigned int i;
	int r;

	for (r = 0; r < rounds; r++) {
		fill_operands(dt);
		if (bk == B_VEC)
			snprintf(b, sizeof(b), "V2");
		else if (bk == B_SREG)
			snprintf(b, sizeof(b), "S1");
		else
			imm_text(b, sizeof(b), dt, vec(VS)[0]);
		if (op->a == GAUDISIM_TPC_R_NONE)
			snprintf(what, sizeof(what), "V3, %s", b);
		else if (op->b == GAUDISIM_TPC_R_NONE)
			snprintf(what, sizeof(what), "V3, V1");
		else
			snprintf(what, sizeof(what), "V3, V1, %s", b);
		snprintf(text, sizeof(text),
			 "ld.i32 V1, T0, I0\n"
			 "ld.i32 V2, T1, I0\n"
			 "lds.i32 S1, T4, I0\n"
			 "ld.i32 V3, T2, I0\n"
			 "%s.%s %s\n"
			 "st.i32 T3, I0, V3 ; halt\n",
			 op->name, tpc_dtype_name(dt), what);
		run_text(text, 1);
		snprintf(what, sizeof(what), "vpu %s.%s b%d", op->name, tpc_dtype_name(dt), bk);
		for (i = 0; i < L; i++) {
			uint32_t bv = bk == B_VEC ? vec(VB)[i] : vec(VS)[0];

			check_lane(what, dt, i, vec(VOUT)[i],
				   gsim_ref_tpc_lane(opc, dt, vec(VA)[i], bv, vec(VC)[i]));
		}
	}
}

/* The same operation on the SPU: member m works on lane m. */
static void spu_alu_case(unsigned int opc, unsigned int dt, bool imm)
{
	const struct gaudisim_tpc_opinfo *op = gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_SPU, opc);
	char text[512], b[32], what[64];
	unsigned int i;

	fill_operands(dt);
	if (imm)
		imm_text(b, sizeof(b), dt, vec(VS)[0]);
	else
		snprintf(b, sizeof(b), "S2");
	if (op->a == GAUDISIM_TPC_R_NONE)
		snprintf(what, sizeof(what), "S3, %s", b);
	else if (op->b == GAUDISIM_TPC_R_NONE)
		snprintf(what, sizeof(what), "S3, S1");
	else
		snprintf(what, sizeof(what), "S3, S1, %s", b);
	snprintf(text, sizeof(text),
		 "lds.i32 S1, T0, I0\n"
		 "lds.i32 S2, T1, I0\n"
		 "lds.i32 S3, T2, I0\n"
		 "%s.%s %s\n"
		 "sts.i32 T3, I0, S3 ; halt\n",
		 op->name, tpc_dtype_name(dt), what);
	run_text(text, L);
	snprintf(what, sizeof(what), "spu %s.%s", op->name, tpc_dtype_name(dt));
	for (i = 0; i < L; i++)
		check_lane(what, dt, i, vec(VOUT)[i],
			   gsim_ref_tpc_lane(opc, dt, vec(VA)[i], imm ? vec(VS)[0] : vec(VB)[i],
					     vec(VC)[i]));
}

START_TEST(test_vpu_alu)
{
	unsigned int k, dt;

	tt_seed(0x7001);
	for (k = 0; k < N_ALU_OPS; k++) {
		const struct gaudisim_tpc_opinfo *op =
			gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_VPU, alu_ops[k]);

		for (dt = 0; dt < GAUDISIM_DTYPE_COUNT; dt++) {
			if (!gaudisim_tpc_dtype_in(dt, op->types))
				continue;
			vpu_alu_case(alu_ops[k], dt, B_VEC, 3);
			if (op->b != GAUDISIM_TPC_R_NONE) {
				vpu_alu_case(alu_ops[k], dt, B_SREG, 1);
				vpu_alu_case(alu_ops[k], dt, B_IMM, 1);
			}
		}
	}
}
END_TEST

START_TEST(test_spu_alu)
{
	unsigned int k, dt;

	tt_seed(0x7002);
	for (k = 0; k < N_ALU_OPS; k++) {
		const struct gaudisim_tpc_opinfo *op =
			gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_SPU, alu_ops[k]);

		for (dt = 0; dt < GAUDISIM_DTYPE_COUNT; dt++) {
			if (!gaudisim_tpc_dtype_in(dt, op->types))
				continue;
			spu_alu_case(alu_ops[k], dt, false);
			if (op->b != GAUDISIM_TPC_R_NONE)
				spu_alu_case(alu_ops[k], dt, true);
		}
	}
}
END_TEST

/* The special functions stay within 2 ulp of the exact value (FP32). */
START_TEST(test_special_accuracy)
{
	static const unsigned int ops[] = { GAUDISIM_TPC_OP_EXP, GAUDISIM_TPC_OP_LOG,
					    GAUDISIM_TPC_OP_TANH, GAUDISIM_TPC_OP_RCP,
					    GAUDISIM_TPC_OP_SQRT, GAUDISIM_TPC_OP_RSQRT };
	unsigned int k, i;

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		const struct gaudisim_tpc_opinfo *op =
			gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_VPU, ops[k]);
		char text[256];

		for (i = 0; i < L; i++) {
			float x = ops[k] == GAUDISIM_TPC_OP_EXP ? -40.0f + 1.3f * (float)i :
				  ops[k] == GAUDISIM_TPC_OP_TANH ? -8.0f + 0.25f * (float)i :
				  0.01f + 3.7f * (float)(i * i);

			memcpy(&vec(VA)[i], &x, 4);
		}
		snprintf(text, sizeof(text),
			 "ld.i32 V1, T0, I0\n%s.f32 V3, V1\nst.i32 T3, I0, V3 ; halt\n", op->name);
		run_text(text, 1);
		for (i = 0; i < L; i++) {
			float x, got;
			double exact;

			memcpy(&x, &vec(VA)[i], 4);
			memcpy(&got, &vec(VOUT)[i], 4);
			switch (ops[k]) {
			case GAUDISIM_TPC_OP_EXP:
				exact = exp(x);
				break;
			case GAUDISIM_TPC_OP_LOG:
				exact = log(x);
				break;
			case GAUDISIM_TPC_OP_TANH:
				exact = tanh(x);
				break;
			case GAUDISIM_TPC_OP_RCP:
				exact = 1.0 / x;
				break;
			case GAUDISIM_TPC_OP_SQRT:
				exact = sqrt(x);
				break;
			default:
				exact = 1.0 / sqrt(x);
				break;
			}
			ck_assert_msg(fabs(got - exact) <= fabs(nextafterf((float)exact, INFINITY) -
							      (float)exact) * 2.0 + 1e-45,
				      "%s(%a) = %a, exact %a", op->name, x, got, exact);
		}
	}
}
END_TEST

/*
 * exp, log and tanh on runs of equal lanes (a padded row: ten values, then
 * -inf; a broadcast sum; NaNs; -0 beside +0), written in place and to
 * another register: every lane is the host C library's result for that
 * lane, bit for bit (the fast path reuses a run's first result).
 */
START_TEST(test_special_runs_of_equal_lanes)
{
	static const unsigned int ops[] = { GAUDISIM_TPC_OP_EXP, GAUDISIM_TPC_OP_LOG,
					    GAUDISIM_TPC_OP_TANH };
	static const char *const forms[] = {
		"ld.i32 V1, T0, I0\n%s.f32 V3, V1\nst.i32 T3, I0, V3 ; halt\n",
		"ld.i32 V1, T0, I0\n%s.f32 V1, V1\nst.i32 T3, I0, V1 ; halt\n",
	};
	unsigned int k, f, i;

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		const struct gaudisim_tpc_opinfo *op =
			gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_VPU, ops[k]);

		for (f = 0; f < 2; f++) {
			char text[256];

			for (i = 0; i < L; i++) {
				float x = i < 10 ? 0.5f + (float)i : -INFINITY;

				if (i >= 40)
					x = 2.75f;		/* a broadcast value */
				if (i == 50 || i == 51)
					x = NAN;
				if (i == 60)
					x = -0.0f;
				if (i == 61)
					x = 0.0f;
				memcpy(&vec(VA)[i], &x, 4);
			}
			snprintf(text, sizeof(text), forms[f], op->name);
			run_text(text, 1);
			for (i = 0; i < L; i++) {
				float x, want;
				uint32_t bits;

				memcpy(&x, &vec(VA)[i], 4);
				want = ops[k] == GAUDISIM_TPC_OP_EXP ? expf(x) :
				       ops[k] == GAUDISIM_TPC_OP_LOG ? logf(x) : tanhf(x);
				memcpy(&bits, &want, 4);
				ck_assert_msg(vec(VOUT)[i] == bits, "%s lane %u (%a): %08x, want %08x",
					      op->name, i, x, vec(VOUT)[i], bits);
			}
		}
	}
}
END_TEST

START_TEST(test_cmp)
{
	unsigned int dt, cond;
	char text[512];

	tt_seed(0x7003);
	for (dt = 0; dt < GAUDISIM_DTYPE_COUNT; dt++) {
		if (!gaudisim_dtype_size(dt))
			continue;
		for (cond = 0; cond < GAUDISIM_TPC_NUM_CONDS; cond++) {
			unsigned int i;

			fill_operands(dt);
			/* Equal lanes must occur too. */
			for (i = 0; i < L; i += 5)
				vec(VB)[i] = vec(VA)[i];
			snprintf(text, sizeof(text),
				 "ld.i32 V1, T0, I0 ; mov.i32 V4, 0\n"
				 "ld.i32 V2, T1, I0 ; cmp.%s.%s VP2, V1, V2\n"
				 "(VP2) mov.i32 V4, 1\n"
				 "st.i32 T3, I0, V4 ; halt\n",
				 tpc_cond_names[cond], tpc_dtype_name(dt));
			run_text(text, 1);
			for (i = 0; i < L; i++)
				ck_assert_msg(vec(VOUT)[i] ==
					      gsim_ref_tpc_cmp(cond, dt, vec(VA)[i], vec(VB)[i]),
					      "vpu cmp.%s.%s lane %u: 0x%08x vs 0x%08x",
					      tpc_cond_names[cond], tpc_dtype_name(dt), i,
					      vec(VA)[i], vec(VB)[i]);

			/* SPU, with the negated predicate. */
			snprintf(text, sizeof(text),
				 "lds.i32 S1, T0, I0\n"
				 "lds.i32 S2, T1, I0\n"
				 "cmp.%s.%s SP3, S1, S2\n"
				 "mov.i32 S4, 1\n"
				 "(!SP3) mov.i32 S4, 0\n"
				 "sts.i32 T3, I0, S4 ; halt\n",
				 tpc_cond_names[cond], tpc_dtype_name(dt));
			run_text(text, L);
			for (i = 0; i < L; i++)
				ck_assert_uint_eq(vec(VOUT)[i],
						  gsim_ref_tpc_cmp(cond, dt, vec(VA)[i], vec(VB)[i]));
		}
	}
}
END_TEST

/* Values that make conversions interesting: ties, range edges, specials. */
static uint32_t cvt_value(unsigned int src, unsigned int i)
{
	static const float ties[] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 127.5f, -128.5f,
				      255.5f, 32767.5f, -32768.5f, 65535.5f, 2147483520.0f,
				      -2147483648.0f, 4294967040.0f, 1e10f, -1e10f, 0.0f,
				      -0.0f, 1.00390625f, 1.01171875f, 3.4e38f };
	static const uint32_t fbits[] = { 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001,
					  0x3f808000, 0x3f818000, 0x7f7fffff, 0xff7fffff,
					  0x00000001, 0x807fffff, 0x3f80ffff, 0xbf808001 };
	static const uint32_t ibits[] = { 0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x01000001,
					  0x00ffffff, 0x7fffff80, 0xffffff80, 0x7f, 0x80, 0xff,
					  0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x01000003,
					  0x02000005, 0xfeffffff, 0x40000040 };
	uint32_t u;

	if (is_float(src)) {
		if (i < sizeof(ties) / sizeof(ties[0])) {
			memcpy(&u, &ties[i], 4);
			return u;
		}
		i -= (unsigned int)(sizeof(ties) / sizeof(ties[0]));
		if (i < sizeof(fbits) / sizeof(fbits[0]))
			return fbits[i];
		return tt_rand_value(src);
	}
	if (i < sizeof(ibits) / sizeof(ibits[0]))
		return ibits[i];
	return tt_rand_value(src);
}

START_TEST(test_cvt)
{
	unsigned int src, dst, rm, i;
	char text[512], what[64];

	tt_seed(0x7004);
	for (src = 0; src < GAUDISIM_DTYPE_COUNT; src++) {
		if (!gaudisim_dtype_size(src))
			continue;
		for (dst = 0; dst < GAUDISIM_DTYPE_COUNT; dst++) {
			if (!gaudisim_dtype_size(dst))
				continue;
			for (rm = 0; rm < 4; rm++) {
				for (i = 0; i < L; i++)
					vec(VA)[i] = cvt_value(src, i);
				snprintf(text, sizeof(text),
					 "ld.i32 V1, T0, I0\n"
					 "cvt.%s.%s.%s V3, V1\n"
					 "st.i32 T3, I0, V3 ; halt\n",
					 tpc_dtype_name(src), tpc_dtype_name(dst), tpc_rm_names[rm]);
				run_text(text, 1);
				snprintf(what, sizeof(what), "cvt.%s.%s.%s", tpc_dtype_name(src),
					 tpc_dtype_name(dst), tpc_rm_names[rm]);
				for (i = 0; i < L; i++)
					check_lane(what, dst, i, vec(VOUT)[i],
						   gsim_ref_tpc_cvt(src, dst, rm, vec(VA)[i]));
				/* The SPU converts the same way. */
				if (rm == (src + dst) % 4) {
					snprintf(text, sizeof(text),
						 "lds.i32 S1, T0, I0\n"
						 "cvt.%s.%s.%s S3, S1\n"
						 "sts.i32 T3, I0, S3 ; halt\n",
						 tpc_dtype_name(src), tpc_dtype_name(dst),
						 tpc_rm_names[rm]);
					run_text(text, L);
					for (i = 0; i < L; i++)
						check_lane(what, dst, i, vec(VOUT)[i],
							   gsim_ref_tpc_cvt(src, dst, rm,
									    vec(VA)[i]));
				}
			}
		}
	}
	/* Spot checks of the documented rules, independent of the reference. */
	{
		float two_and_half = 2.5f, neg = -1.5f;

		memcpy(&vec(VA)[0], &two_and_half, 4);
		memcpy(&vec(VA)[1], &neg, 4);
		vec(VA)[2] = 0x7fc00000;	/* NaN -> 0 */
		vec(VA)[3] = 0x4f000000;	/* 2^31 -> saturates */
		run_text("ld.i32 V1, T0, I0\ncvt.f32.i32.rne V3, V1\nst.i32 T3, I0, V3 ; halt\n", 1);
		ck_assert_int_eq((int32_t)vec(VOUT)[0], 2);
		ck_assert_int_eq((int32_t)vec(VOUT)[1], -2);
		ck_assert_int_eq((int32_t)vec(VOUT)[2], 0);
		ck_assert_int_eq((int32_t)vec(VOUT)[3], INT32_MAX);
		vec(VA)[0] = 300;
		vec(VA)[1] = (uint32_t)-5;
		run_text("ld.i32 V1, T0, I0\ncvt.i32.u8 V3, V1\nst.i32 T3, I0, V3 ; halt\n", 1);
		ck_assert_uint_eq(vec(VOUT)[0], 255);
		ck_assert_uint_eq(vec(VOUT)[1], 0);
		vec(VA)[0] = 0x01000001;	/* 2^24 + 1: not an FP32 value */
		run_text("ld.i32 V1, T0, I0\ncvt.i32.f32.ru V3, V1\nst.i32 T3, I0, V3 ; halt\n", 1);
		ck_assert_uint_eq(vec(VOUT)[0], 0x4b800001);
	}
}
END_TEST

START_TEST(test_reductions)
{
	static const unsigned int ops[] = { GAUDISIM_TPC_OP_RSUM, GAUDISIM_TPC_OP_RMAX,
					    GAUDISIM_TPC_OP_RMIN };
	unsigned int k, dt, i, r;
	char text[256], what[64];

	tt_seed(0x7005);
	for (k = 0; k < 3; k++) {
		for (dt = 0; dt < GAUDISIM_DTYPE_COUNT; dt++) {
			if (!gaudisim_dtype_size(dt))
				continue;
			for (r = 0; r < 4; r++) {
				fill_operands(dt);
				snprintf(text, sizeof(text),
					 "ld.i32 V1, T0, I0\n%s.%s V3, V1\nst.i32 T3, I0, V3 ; halt\n",
					 gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_VPU, ops[k])->name,
					 tpc_dtype_name(dt));
				run_text(text, 1);
				snprintf(what, sizeof(what), "reduce %u.%s", ops[k], tpc_dtype_name(dt));
				for (i = 0; i < L; i++)
					check_lane(what, dt, i, vec(VOUT)[i],
						   gsim_ref_tpc_reduce(ops[k], dt, vec(VA)));
			}
		}
	}
	/* The pairwise order, spelled out: lane i pairs with lane i + 32 first. */
	for (i = 0; i < L; i++) {
		float v = i == 0 ? 1.0f : i == 32 ? 1e-8f : i == 1 ? -1.0f : 0.0f;

		memcpy(&vec(VA)[i], &v, 4);
	}
	run_text("ld.i32 V1, T0, I0\nrsum.f32 V3, V1\nst.i32 T3, I0, V3 ; halt\n", 1);
	/* Pairwise: (1 + 1e-8) rounds to 1, later + (-1) gives 0; a left-to-right
	 * sum would give 1e-8. */
	{
		float got;

		memcpy(&got, &vec(VOUT)[0], 4);
		ck_assert(got == 0.0f);
	}
}
END_TEST

START_TEST(test_iota_sel_mov)
{
	unsigned int dt, i;
	char text[512];

	tt_seed(0x7006);
	for (dt = 0; dt < GAUDISIM_DTYPE_COUNT; dt++) {
		if (!gaudisim_dtype_size(dt))
			continue;
		snprintf(text, sizeof(text), "iota.%s V3\nst.i32 T3, I0, V3 ; halt\n",
			 tpc_dtype_name(dt));
		run_text(text, 1);
		for (i = 0; i < L; i++) {
			float f = (float)i;
			uint32_t want;

			memcpy(&want, &f, 4);
			ck_assert_uint_eq(vec(VOUT)[i], is_float(dt) ? want : i);
		}
	}
	/* sel with a lane mask: lanes < 20 from a, others from b (and negated). */
	fill_operands(GAUDISIM_DTYPE_INT32);
	run_text("ld.i32 V1, T0, I0 ; iota.i32 V5\n"
		 "ld.i32 V2, T1, I0 ; cmp.lt.i32 VP3, V5, 20\n"
		 "sel.f32 V3, V1, V2, VP3\n"
		 "st.i32 T3, I0, V3 ; sel.u8 V4, V1, V2, !VP3\n"
		 "st.i32 T2, I0, V4 ; halt\n", 1);
	for (i = 0; i < L; i++) {
		ck_assert_uint_eq(vec(VOUT)[i], i < 20 ? vec(VA)[i] : vec(VB)[i]);
		ck_assert_uint_eq(vec(VC)[i], i < 20 ? vec(VB)[i] : vec(VA)[i]);
	}
	/* mov broadcasts a scalar register and an immediate. */
	run_text("mov.i32 S7, -5\n"
		 "mov.i32 V3, S7\n"
		 "st.i32 T3, I0, V3 ; mov.bf16 V4, 1.5\n"
		 "st.i32 T2, I0, V4 ; halt\n", 1);
	for (i = 0; i < L; i++) {
		ck_assert_int_eq((int32_t)vec(VOUT)[i], -5);
		ck_assert_uint_eq(vec(VC)[i], 0x3fc00000);
	}
	/* SPU sel. */
	run_text("iget S1, I0.0\n"
		 "cmp.ge.u32 SP2, S1, 40\n"
		 "sel.i32 S3, S1, 1000, SP2\n"
		 "sts.i32 T3, I0, S3 ; halt\n", L);
	for (i = 0; i < L; i++)
		ck_assert_uint_eq(vec(VOUT)[i], i >= 40 ? i : 1000);
}
END_TEST

/* Vector and scalar predicates on VPU operations. */
START_TEST(test_predicates)
{
	unsigned int i;

	tt_seed(0x7007);
	fill_operands(GAUDISIM_DTYPE_FP32);
	/* VP1: lane < 40; VP2: odd lane. */
	run_text("ld.i32 V1, T0, I0 ; iota.i32 V5\n"
		 "ld.i32 V2, T1, I0 ; cmp.lt.i32 VP1, V5, 40\n"
		 "ld.i32 V3, T2, I0 ; and.i32 V6, V5, 1\n"
		 "cmp.eq.i32 VP2, V6, 1\n"
		 "(VP1) add.f32 V3, V1, V2\n"
		 "st.i32 T3, I0, V3 ; halt\n", 1);
	for (i = 0; i < L; i++)
		check_lane("(VP1) add", GAUDISIM_DTYPE_FP32, i, vec(VOUT)[i],
			   i < 40 ? gsim_ref_tpc_lane(GAUDISIM_TPC_OP_ADD, GAUDISIM_DTYPE_FP32,
						      vec(VA)[i], vec(VB)[i], 0)
				  : vec(VC)[i]);

	/* Predicate logic, VPU: each result as 0/1 lanes in a row of VOUT. */
	{
		static const char *const ops[] = { "pand VP3, VP1, VP2", "por VP3, VP1, VP2",
						   "pxor VP3, VP1, VP2", "pnot VP3, VP1" };
		unsigned int k;

		for (k = 0; k < 4; k++) {
			char text[512];

			snprintf(text, sizeof(text),
				 "iota.i32 V5\n"
				 "cmp.lt.i32 VP1, V5, 40\n"
				 "and.i32 V6, V5, 1\n"
				 "cmp.eq.i32 VP2, V6, 1\n"
				 "%s\n"
				 "mov.i32 V4, 0\n"
				 "(!VP3) mov.i32 V4, 7\n"
				 "st.i32 T3, I0, V4 ; halt\n", ops[k]);
			run_text(text, 1);
			for (i = 0; i < L; i++) {
				bool a = i < 40, b = i & 1, want;

				want = k == 0 ? a && b : k == 1 ? a || b : k == 2 ? a != b : !a;
				ck_assert_uint_eq(vec(VOUT)[i], want ? 0 : 7);
			}
		}
	}
	/* A predicated CMP keeps the other lanes of its destination. */
	run_text("iota.i32 V5\n"
		 "cmp.lt.i32 VP1, V5, 16\n"
		 "cmp.ge.i32 VP2, V5, 8\n"
		 "(VP1) cmp.ge.i32 VP2, V5, 100\n"	/* lanes < 16 become false */
		 "mov.i32 V4, 0\n"
		 "(VP2) mov.i32 V4, 1\n"
		 "st.i32 T3, I0, V4 ; halt\n", 1);
	for (i = 0; i < L; i++)
		ck_assert_uint_eq(vec(VOUT)[i], i >= 16);

	/* Scalar predicates gate whole operations; SP0 is always true. */
	run_text("mov.i32 V3, 1 ; mov.i32 S1, 5\n"
		 "cmp.eq.i32 SP4, S1, 5\n"
		 "(SP4) add.i32 V3, V3, 10\n"
		 "(!SP4) add.i32 V3, V3, 100\n"
		 "(SP0) add.i32 V3, V3, 1000\n"
		 "(!SP0) add.i32 V3, V3, 10000\n"
		 "pnot SP5, SP4\n"
		 "(SP5) add.i32 V3, V3, 100000\n"
		 "por SP6, SP5, SP4\n"
		 "(SP6) add.i32 V3, V3, 1000000\n"
		 "pxor SP7, SP6, SP4\n"
		 "(SP7) add.i32 V3, V3, 10000000 ; pand SP1, SP6, SP4\n"
		 "(SP1) st.i32 T3, I0, V3 ; halt\n", 1);
	for (i = 0; i < L; i++)
		ck_assert_uint_eq(vec(VOUT)[i], 1001011);
}
END_TEST

/* Loads of every dtype: conversion, partial tiles, padding, strides. */
START_TEST(test_load_store_dtypes)
{
	static const int32_t coords[][2] = {
		{ 0, 0 }, { 36, 1 }, { 64, 2 }, { -10, 1 }, { -63, 0 }, { -64, 0 }, { 99, 2 },
		{ 100, 1 }, { 0, 3 }, { 5, -1 }, { 2000000000, 0 }, { -2000000000, 2 },
	};
	const uint32_t out_size[5] = { L, 1, 1, 1, 1 };
	unsigned int dt, c, i, strided;

	tt_seed(0x7008);
	for (dt = 0; dt < GAUDISIM_DTYPE_COUNT; dt++) {
		unsigned int es = gaudisim_dtype_size(dt);

		if (!es)
			continue;
		for (strided = 0; strided < 2; strided++) {
			/* T0: 100 x 3 elements; strided: every other element, rows 250 apart. */
			const uint32_t size[5] = { 100, 3, 1, 1, 1 };
			const uint32_t dense[5] = { 1, 100, 300, 300, 300 };
			const uint32_t sparse[5] = { 2, 250, 750, 750, 750 };
			const uint32_t *stride = strided ? sparse : dense;
			uint8_t *mem = tt_mem(TT_DATA + 0x10000);

			for (i = 0; i < 750 * es; i++)
				mem[i] = (uint8_t)tt_rand();
			for (c = 0; c < sizeof(coords) / sizeof(coords[0]); c++) {
				struct tt_launch l;
				uint32_t pad = tt_rand_value(dt);
				int32_t c0 = coords[c][0], c1 = coords[c][1];

				{
					char text[256];

					snprintf(text, sizeof(text),
						 "iset I1.0, S0\n"
						 "iset I1.1, S1\n"
						 "ld.%s V1, T0, I1\n"
						 "lds.%s S2, T0, I1\n"
						 "st.i32 T1, I0, V1\n"
						 "sts.i32 T2, I0, S2 ; halt\n",
						 tpc_dtype_name(dt), tpc_dtype_name(dt));
					tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, text));
				}
				l.args[0] = (uint32_t)c0;
				l.args[1] = (uint32_t)c1;
				tt_tensor(&l, 0, TT_DATA + 0x10000, dt, size, stride, pad);
				tt_tensor(&l, 1, VOUT, GAUDISIM_DTYPE_INT32, out_size, NULL, 0);
				tt_tensor(&l, 2, VC, GAUDISIM_DTYPE_INT32, out_size, NULL, 0);
				ck_assert_int_eq(tt_run(&l, 1), 0);
				for (i = 0; i < L; i++) {
					int64_t x = (int64_t)c0 + i;
					bool in = x >= 0 && x < 100 && c1 >= 0 && c1 < 3;
					uint32_t want = in ? gsim_ref_tpc_load(dt, mem +
						(x * stride[0] + c1 * stride[1]) * es) : pad;

					ck_assert_msg(vec(VOUT)[i] == want,
						      "ld.%s%s at (%d,%d) lane %u: 0x%08x want 0x%08x",
						      tpc_dtype_name(dt), strided ? " strided" : "",
						      c0, c1, i, vec(VOUT)[i], want);
					if (i == 0)
						ck_assert_uint_eq(vec(VC)[0], want);
				}
			}
		}
	}
}
END_TEST

START_TEST(test_store_dtypes)
{
	static const int32_t coords[][2] = { { 0, 0 }, { 50, 1 }, { -20, 2 }, { 99, 0 },
					     { 100, 0 }, { 3, 3 }, { -70, 1 } };
	const uint32_t in_size[5] = { L, 1, 1, 1, 1 };
	unsigned int dt, c, i, strided;

	tt_seed(0x7009);
	for (dt = 0; dt < GAUDISIM_DTYPE_COUNT; dt++) {
		unsigned int es = gaudisim_dtype_size(dt);

		if (!es)
			continue;
		for (strided = 0; strided < 2; strided++) {
			const uint32_t size[5] = { 100, 3, 1, 1, 1 };
			const uint32_t dense[5] = { 1, 100, 300, 300, 300 };
			const uint32_t sparse[5] = { 3, 310, 930, 930, 930 };
			const uint32_t *stride = strided ? sparse : dense;
			uint8_t *mem = tt_mem(TT_DATA + 0x10000);
			static uint8_t before[930 * 4 + 64];

			for (c = 0; c < sizeof(coords) / sizeof(coords[0]); c++) {
				int32_t c0 = coords[c][0], c1 = coords[c][1];
				struct tt_launch l;
				char text[256];
				unsigned int pred;

				for (pred = 0; pred < 2; pred++) {
					for (i = 0; i < 930 * es + 64; i++)
						mem[i] = before[i] = (uint8_t)tt_rand();
					for (i = 0; i < L; i++)
						vec(VA)[i] = tt_rand_value(dt);
					/* pred: only lanes >= 10; then the scalar store */
					snprintf(text, sizeof(text),
						 "iset I1.0, S0 ; iota.i32 V5\n"
						 "iset I1.1, S1 ; cmp.ge.i32 VP1, V5, 10\n"
						 "ld.i32 V1, T1, I0\n"
						 "lds.i32 S2, T1, I0\n"
						 "%sst.%s T0, I1, V1 ; iset I1.1, 2\n"
						 "sts.%s T0, I1, S2 ; halt\n",
						 pred ? "(VP1) " : "", tpc_dtype_name(dt),
						 tpc_dtype_name(dt));
					tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, text));
					l.args[0] = (uint32_t)c0;
					l.args[1] = (uint32_t)c1;
					tt_tensor(&l, 0, TT_DATA + 0x10000, dt, size, stride, 0);
					tt_tensor(&l, 1, VA, GAUDISIM_DTYPE_INT32, in_size, NULL, 0);
					ck_assert_int_eq(tt_run(&l, 1), 0);

					/* Apply the expected stores to 'before', then compare. */
					for (i = 0; i < L; i++) {
						int64_t x = (int64_t)c0 + i;

						if (x >= 0 && x < 100 && c1 >= 0 && c1 < 3 &&
						    (!pred || i >= 10))
							gsim_ref_tpc_store(dt, before +
								(x * stride[0] + c1 * stride[1]) * es,
								vec(VA)[i]);
					}
					if (c0 >= 0 && c0 < 100)
						gsim_ref_tpc_store(dt, before + (c0 * stride[0] +
								   2 * stride[1]) * es, vec(VA)[0]);
					ck_assert_msg(!memcmp(mem, before, 930 * es + 64),
						      "st.%s%s at (%d,%d) pred %u differs",
						      tpc_dtype_name(dt), strided ? " strided" : "",
						      c0, c1, pred);
				}
			}
		}
	}
}
END_TEST

/* 5-D tiles: every dimension is checked and strided. */
START_TEST(test_5d_tiles)
{
	const uint32_t size[5] = { 70, 2, 3, 2, 2 };
	const uint32_t out_size[5] = { 128, 2, 3, 2, 2 };
	struct tt_launch l;
	float *in = (float *)tt_mem(TT_DATA), *out = (float *)tt_mem(TT_DATA + 0x100000);
	unsigned int n = 70 * 2 * 3 * 2 * 2, i, d1, d2, d3, d4;

	for (i = 0; i < n; i++)
		in[i] = (float)i;
	for (i = 0; i < 128 * 24; i++)
		out[i] = -1.0f;
	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL,
		"imul I1.0, I0, 64\n"
		"ld.f32 V1, T0, I1 ; add.f32 V1, V1, 0.5 ; st.f32 T1, I1, V1 ; halt\n"));
	l.isize[0] = 2;
	l.isize[1] = 2;
	l.isize[2] = 3;
	l.isize[3] = 2;
	l.isize[4] = 2;
	tt_tensor(&l, 0, TT_DATA, GAUDISIM_DTYPE_FP32, size, NULL, 0xbf800000 /* -1 */);
	tt_tensor(&l, 1, TT_DATA + 0x100000, GAUDISIM_DTYPE_FP32, out_size, NULL, 0);
	ck_assert_int_eq(tt_run(&l, 5), 0);
	for (d4 = 0; d4 < 2; d4++)
		for (d3 = 0; d3 < 2; d3++)
			for (d2 = 0; d2 < 3; d2++)
				for (d1 = 0; d1 < 2; d1++)
					for (i = 0; i < 128; i++) {
						unsigned int row = ((d4 * 2 + d3) * 3 + d2) * 2 + d1;
						float want = i < 70 ? (float)(row * 70 + i) + 0.5f :
							     -0.5f;	/* pad -1 + 0.5 */

						ck_assert(out[row * 128 + i] == want);
					}
}
END_TEST

/* Index registers, loops and jumps. */
START_TEST(test_irf_and_control)
{
	const uint32_t size[5] = { L, 1, 1, 1, 1 };
	struct tt_launch l;
	int32_t *out = (int32_t *)tt_mem(VOUT);
	unsigned int i;

	tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL,
		"iset I2.01234, 7\n"		/* I2 = 7,7,7,7,7 */
		"iadd I3.13, I2, -10\n"		/* I3 = 7,-3,7,-3,7 */
		"imul I4.024, I3, S5\n"		/* S5 = ARG5 = 3: 21,-3,21,-3,21 */
		"iset I1.0, 0\n"
		"iget S10, I4.0\n"
		"sts.i32 T0, I1, S10 ; iget S10, I4.1\n"
		"iset I1.0, 1\n"
		"sts.i32 T0, I1, S10 ; iget S10, I3.4\n"
		"iset I1.0, 2\n"
		"sts.i32 T0, I1, S10 ; iget S10, I2.3\n"
		"iset I1.0, 3\n"
		"sts.i32 T0, I1, S10 ; mov.i32 S11, 0\n"
		/* iloop down by 5 from 100 while > 60: 100,95..65 -> 8 iterations */
		"iset I5.2, 100\n"
		"mov.i32 S12, 60\n"
		"down: add.i32 S11, S11, 1\n"
		"iloop I5.2, -5, S12, down\n"
		"iset I1.0, 4\n"
		"sts.i32 T0, I1, S11 ; mov.i32 S13, 0\n"
		/* loop with a register bound; jmp over a bundle */
		"up: add.i32 S13, S13, 2\n"
		"loop S14, S5, up\n"
		"iset I1.0, 5\n"
		"sts.i32 T0, I1, S13 ; jmp skip\n"
		"sts.i32 T0, I1, S0 ; halt\n"
		"skip: iset I1.0, 6\n"
		"cmp.gt.i32 SP1, S13, 5\n"
		"(SP1) jmp yes\n"
		"sts.i32 T0, I1, S0 ; halt\n"
		"yes: sts.i32 T0, I1, S13 ; halt\n"));
	l.args[0] = 0xbad;
	l.args[5] = 3;
	tt_tensor(&l, 0, VOUT, GAUDISIM_DTYPE_INT32, size, NULL, 0);
	memset(out, 0, L * 4);
	ck_assert_int_eq(tt_run(&l, 1), 0);
	ck_assert_int_eq(out[0], 21);
	ck_assert_int_eq(out[1], -3);
	ck_assert_int_eq(out[2], 7);
	ck_assert_int_eq(out[3], 7);
	ck_assert_int_eq(out[4], 8);
	ck_assert_int_eq(out[5], 6);
	ck_assert_int_eq(out[6], 6);
	for (i = 7; i < L; i++)
		ck_assert_int_eq(out[i], 0);
}
END_TEST

/* Slots run in the order LOAD, VPU, STORE, SPU within a bundle. */
START_TEST(test_slot_order)
{
	unsigned int i;

	for (i = 0; i < L; i++)
		vec(VA)[i] = i;
	run_text("ld.i32 V1, T0, I0 ; add.i32 V1, V1, 100 ; st.i32 T3, I0, V1 ; iset I0.0, 5\n"
		 "st.i32 T2, I0, V1 ; halt\n", 1);
	for (i = 0; i < L; i++)
		ck_assert_uint_eq(vec(VOUT)[i], i + 100);
	/* The second store ran at dim 0 = 5: lanes 0..58 land at 5..63. */
	for (i = 0; i < L - 5; i++)
		ck_assert_uint_eq(vec(VC)[i + 5], i + 100);
}
END_TEST

/*
 * The fused "ld ; op ; st" bundle handler gives what the three slots give
 * one after the other (the same program split over three bundles is
 * never fused), for every fast operation and 4-byte type, on whole,
 * partial and strided tiles, in place or not.
 */
START_TEST(test_fused_bundles)
{
	static const unsigned int ops[] = {
		GAUDISIM_TPC_OP_MOV, GAUDISIM_TPC_OP_ADD, GAUDISIM_TPC_OP_SUB, GAUDISIM_TPC_OP_MUL,
		GAUDISIM_TPC_OP_MAC, GAUDISIM_TPC_OP_MIN, GAUDISIM_TPC_OP_MAX, GAUDISIM_TPC_OP_AND,
		GAUDISIM_TPC_OP_OR, GAUDISIM_TPC_OP_XOR, GAUDISIM_TPC_OP_SHL, GAUDISIM_TPC_OP_SHR,
	};
	static const unsigned int dts[] = { GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_INT32,
					    GAUDISIM_DTYPE_UINT32 };
	const uint64_t in = TT_DATA + 0x10000, out1 = TT_DATA + 0x20000, out2 = TT_DATA + 0x30000;
	unsigned int k, t, layout, i;

	tt_seed(0x700a);
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		for (t = 0; t < 3; t++) {
			const struct gaudisim_tpc_opinfo *op =
				gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_VPU, ops[k]);
			const char *dn = tpc_dtype_name(dts[t]);

			if (!gaudisim_tpc_dtype_in(dts[t], op->types))
				continue;
			for (layout = 0; layout < 3; layout++) {
				/* 300 x 2 elements: dense, or rows of 300 in 320, or stride 2. */
				const uint32_t size[5] = { 300, 2, 1, 1, 1 };
				const uint32_t strides[3][5] = { { 1, 300, 600, 600, 600 },
								 { 1, 320, 640, 640, 640 },
								 { 2, 600, 1200, 1200, 1200 } };
				char fused[512], split[512], operands[32];
				uint64_t outs[2] = { out1, out2 };
				unsigned int run;

				snprintf(operands, sizeof(operands), op->a == GAUDISIM_TPC_R_NONE ?
					 "V1, V2" : "V1, V1, V2");
				/* I1 walks the row from -64 (a tile wholly outside) to 300
				 * (a partial tile); only whole dense tiles get fused. */
				snprintf(fused, sizeof(fused),
					 "ld.%s V2, T2, I0 ; mov.%s V1, V2 ; iadd I1.0, I0, -64\n"
					 "rd S20, T0.size.0\n"
					 "l: ld.%s V1, T0, I1 ; %s.%s %s ; st.%s T1, I1, V1 ; "
					 "iloop I1.0, 64, S20, l\n"
					 "st.%s T3, I0, V1 ; halt\n",
					 dn, dn, dn, op->name, dn, operands, dn, dn);
				snprintf(split, sizeof(split),
					 "ld.%s V2, T2, I0 ; mov.%s V1, V2 ; iadd I1.0, I0, -64\n"
					 "rd S20, T0.size.0\n"
					 "l: ld.%s V1, T0, I1\n"
					 "%s.%s %s\n"
					 "st.%s T1, I1, V1 ; iloop I1.0, 64, S20, l\n"
					 "st.%s T3, I0, V1 ; halt\n",
					 dn, dn, dn, op->name, dn, operands, dn, dn);
				for (i = 0; i < 1200; i++)
					((uint32_t *)tt_mem(in))[i] = tt_rand_value(dts[t]);
				for (i = 0; i < L; i++)
					vec(VB)[i] = tt_rand_value(dts[t]);
				for (run = 0; run < 2; run++) {
					const uint32_t one[5] = { L, 1, 1, 1, 1 };
					struct tt_launch l;

					memset(tt_mem(outs[run]), 0x5a, 1200 * 4);
					tt_init(&l, TT_KERNEL, tt_asm(TT_KERNEL, run ? split : fused));
					l.isize[1] = 2;
					tt_tensor(&l, 0, in, dts[t], size, strides[layout], 0);
					tt_tensor(&l, 1, outs[run], dts[t], size, strides[layout], 0);
					tt_tensor(&l, 2, VB, dts[t], one, NULL, 0);
					tt_tensor(&l, 3, run ? VC : VOUT, dts[t], one, NULL, 0);
					ck_assert_int_eq(tt_run(&l, 2), 0);
				}
				ck_assert_msg(!memcmp(tt_mem(out1), tt_mem(out2), 1200 * 4),
					      "%s.%s layout %u: fused and split results differ",
					      op->name, dn, layout);
				ck_assert_msg(!memcmp(vec(VOUT), vec(VC), L * 4),
					      "%s.%s layout %u: V1 differs afterwards", op->name, dn,
					      layout);
			}
		}
	}
}
END_TEST

void tpc_add_op_tests(Suite *s)
{
	TCase *tc = tcase_create("ops");

	tcase_add_checked_fixture(tc, tt_setup, tt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_vpu_alu);
	tcase_add_test(tc, test_spu_alu);
	tcase_add_test(tc, test_special_accuracy);
	tcase_add_test(tc, test_special_runs_of_equal_lanes);
	tcase_add_test(tc, test_cmp);
	tcase_add_test(tc, test_cvt);
	tcase_add_test(tc, test_reductions);
	tcase_add_test(tc, test_iota_sel_mov);
	tcase_add_test(tc, test_predicates);
	tcase_add_test(tc, test_load_store_dtypes);
	tcase_add_test(tc, test_store_dtypes);
	tcase_add_test(tc, test_5d_tiles);
	tcase_add_test(tc, test_irf_and_control);
	tcase_add_test(tc, test_slot_order);
	tcase_add_test(tc, test_fused_bundles);
	suite_add_tcase(s, tc);
}
