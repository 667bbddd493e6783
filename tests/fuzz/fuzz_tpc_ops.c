/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: TPC vector operations against the reference ops.
 *
 * fuzz_tpc explores what programs can do to the device; this harness
 * checks what the VPU computes. The input picks one VPU operation (an
 * arithmetic, logic or special-function op, a compare, a conversion or a
 * reduction), its dtype and the kind of its second operand, and gives the
 * 64 lanes of each operand. The harness encodes a five-bundle kernel that
 * loads the operands as raw 32-bit lanes (INT32 tensors, so any register
 * value can be fed in), runs the operation and stores the destination,
 * launches it on a fresh device core and compares every lane with
 * tests/ref/gsim_ref_tpc.c, which implements docs/tpc-isa.md apart from
 * the interpreter.
 *
 * Input (missing bytes read as 0):
 *   u8  op       index into ops[] (modulo its size)
 *   u8  dtype    first dtype the op takes at or after this value
 *   u8  bkind    SRC_B: 0 vector, 1 scalar register (broadcast), 2 immediate
 *   u8  mod      compare: condition; conversion: target dtype [3:0],
 *                rounding mode [5:4]
 *   u32 scalar   SRC_B when scalar or immediate
 *   u32 a[64], b[64], c[64]   the lanes (c: the destination's old value)
 *
 * Results must be bit-identical, except that NaNs of float results may
 * differ in payload and exp/log/tanh may differ by one unit in the last
 * place (the ISA's allowance).
 */
#include <string.h>

#include "fuzz_host.h"
#include "fuzz_input.h"
#include "gsim_ref_tpc.h"
#include "hw/gaudisim_hw_tpc.h"

#define L		GAUDISIM_TPC_LANES
#define NB		5u
#define KERNEL		(FZ_HBM_USER + 0x10000u)
#define VEC(i)		(FZ_HBM_USER + 0x20000u + (i) * 0x1000u)	/* a, b, c, out, s */
#define V_A		1u
#define V_B		2u
#define V_D		3u
#define S_B		1u
#define VP_CMP		1u

enum kind { K_LANE, K_CMP, K_CVT, K_REDUCE };

static const struct {
	unsigned int opc;
	enum kind kind;
} ops[] = {
	{ GAUDISIM_TPC_OP_MOV, K_LANE }, { GAUDISIM_TPC_OP_ADD, K_LANE },
	{ GAUDISIM_TPC_OP_SUB, K_LANE }, { GAUDISIM_TPC_OP_MUL, K_LANE },
	{ GAUDISIM_TPC_OP_MAC, K_LANE }, { GAUDISIM_TPC_OP_MIN, K_LANE },
	{ GAUDISIM_TPC_OP_MAX, K_LANE }, { GAUDISIM_TPC_OP_AND, K_LANE },
	{ GAUDISIM_TPC_OP_OR, K_LANE }, { GAUDISIM_TPC_OP_XOR, K_LANE },
	{ GAUDISIM_TPC_OP_SHL, K_LANE }, { GAUDISIM_TPC_OP_SHR, K_LANE },
	{ GAUDISIM_TPC_OP_NOT, K_LANE }, { GAUDISIM_TPC_OP_ABS, K_LANE },
	{ GAUDISIM_TPC_OP_NEG, K_LANE }, { GAUDISIM_TPC_OP_EXP, K_LANE },
	{ GAUDISIM_TPC_OP_LOG, K_LANE }, { GAUDISIM_TPC_OP_RCP, K_LANE },
	{ GAUDISIM_TPC_OP_RSQRT, K_LANE }, { GAUDISIM_TPC_OP_SQRT, K_LANE },
	{ GAUDISIM_TPC_OP_TANH, K_LANE }, { GAUDISIM_TPC_OP_CMP, K_CMP },
	{ GAUDISIM_TPC_OP_CVT, K_CVT }, { GAUDISIM_TPC_OP_RSUM, K_REDUCE },
	{ GAUDISIM_TPC_OP_RMAX, K_REDUCE }, { GAUDISIM_TPC_OP_RMIN, K_REDUCE },
};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))

struct opcase {
	unsigned int opc, dt, bk, mod;
	enum kind kind;
	const struct gaudisim_tpc_opinfo *info;
	uint32_t s, a[L], b[L], c[L];
};

static bool read_case(struct fz_in *in, struct opcase *k)
{
	unsigned int sel = fz_u8(in) % N_OPS, dt = fz_u8(in), i;

	k->opc = ops[sel].opc;
	k->kind = ops[sel].kind;
	k->info = gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_VPU, k->opc);
	for (i = 0; i < GAUDISIM_DTYPE_COUNT; i++)
		if (gaudisim_tpc_dtype_in((dt + i) % GAUDISIM_DTYPE_COUNT, k->info->types))
			break;
	if (i == GAUDISIM_DTYPE_COUNT)
		return false;
	k->dt = (dt + i) % GAUDISIM_DTYPE_COUNT;
	k->bk = k->info->b == GAUDISIM_TPC_R_VB ? fz_u8(in) % 3 : (fz_u8(in), GAUDISIM_TPC_BK_REG);
	k->mod = fz_u8(in);
	if (k->kind == K_CMP)
		k->mod %= GAUDISIM_TPC_NUM_CONDS;
	else if (k->kind == K_CVT)
		k->mod &= GAUDISIM_TPC_CVT_DT_MASK |
			  GAUDISIM_TPC_CVT_RM_MASK << GAUDISIM_TPC_CVT_RM_SHIFT;
	else
		k->mod = 0;
	k->s = fz_u32(in);
	for (i = 0; i < L; i++)
		k->a[i] = fz_u32(in);
	for (i = 0; i < L; i++)
		k->b[i] = fz_u32(in);
	for (i = 0; i < L; i++)
		k->c[i] = fz_u32(in);
	/* A conversion needs a target dtype that exists. */
	return k->kind != K_CVT ||
	       gaudisim_tpc_dtype_in(k->mod & GAUDISIM_TPC_CVT_DT_MASK, GAUDISIM_TPC_T_ANY);
}

static void slot(uint8_t *bundle, unsigned int which, const struct gaudisim_tpc_slot *s)
{
	gaudisim_tpc_slot_encode(bundle, which, s);
}

/* The kernel: load a, b, s, c; op; (compare: predicated mov 1); store; halt. */
static void encode(uint8_t *k, const struct opcase *c)
{
	const unsigned int i32 = GAUDISIM_DTYPE_INT32;
	struct gaudisim_tpc_slot s;
	uint8_t *b;

	memset(k, 0, NB * GAUDISIM_TPC_BUNDLE_SIZE);
	b = k;
	s = (struct gaudisim_tpc_slot){ .opc = GAUDISIM_TPC_LD_TNSR, .dt = i32, .dst = V_A, .sa = 0 };
	slot(b, GAUDISIM_TPC_SLOT_LOAD, &s);
	b += GAUDISIM_TPC_BUNDLE_SIZE;
	s = (struct gaudisim_tpc_slot){ .opc = GAUDISIM_TPC_LD_TNSR, .dt = i32, .dst = V_B, .sa = 1 };
	slot(b, GAUDISIM_TPC_SLOT_LOAD, &s);
	b += GAUDISIM_TPC_BUNDLE_SIZE;
	s = (struct gaudisim_tpc_slot){ .opc = GAUDISIM_TPC_LD_SCALAR, .dt = i32, .dst = S_B,
					.sa = 4 };
	slot(b, GAUDISIM_TPC_SLOT_LOAD, &s);
	b += GAUDISIM_TPC_BUNDLE_SIZE;
	/* Bundle 3: c into the destination, then the operation on it. */
	s = (struct gaudisim_tpc_slot){ .opc = GAUDISIM_TPC_LD_TNSR, .dt = i32, .dst = V_D, .sa = 2 };
	slot(b, GAUDISIM_TPC_SLOT_LOAD, &s);
	s = (struct gaudisim_tpc_slot){
		.opc = c->opc, .dt = c->dt, .mod = c->mod,
		.dst = c->kind == K_CMP ? VP_CMP : V_D,
		.sa = c->info->a == GAUDISIM_TPC_R_NONE ? 0 : V_A,
	};
	if (c->info->b == GAUDISIM_TPC_R_VB) {
		s.bk = c->bk;
		s.sb = c->bk == GAUDISIM_TPC_BK_REG ? V_B : c->bk == GAUDISIM_TPC_BK_SREG ? S_B : 0;
		s.imm = c->bk == GAUDISIM_TPC_BK_IMM ? c->s : 0;
	}
	slot(b, GAUDISIM_TPC_SLOT_VPU, &s);
	b += GAUDISIM_TPC_BUNDLE_SIZE;
	/* Bundle 4: a compare's lanes become 1 where true (else keep c). */
	if (c->kind == K_CMP) {
		s = (struct gaudisim_tpc_slot){ .opc = GAUDISIM_TPC_OP_MOV, .dt = i32, .pred = VP_CMP,
						.pvec = 1, .dst = V_D, .bk = GAUDISIM_TPC_BK_IMM,
						.imm = 1 };
		slot(b, GAUDISIM_TPC_SLOT_VPU, &s);
	}
	s = (struct gaudisim_tpc_slot){ .opc = GAUDISIM_TPC_ST_TNSR, .dt = i32, .dst = 3,
					.sb = V_D };
	slot(b, GAUDISIM_TPC_SLOT_STORE, &s);
	s = (struct gaudisim_tpc_slot){ .opc = GAUDISIM_TPC_OP_HALT };
	slot(b, GAUDISIM_TPC_SLOT_SPU, &s);
}

static uint32_t want_lane(const struct opcase *c, unsigned int i)
{
	uint32_t b = c->bk == GAUDISIM_TPC_BK_REG ? c->b[i] : c->s;

	switch (c->kind) {
	case K_LANE:
		return gsim_ref_tpc_lane(c->opc, c->dt, c->a[i], b, c->c[i]);
	case K_CMP:
		return gsim_ref_tpc_cmp(c->mod, c->dt, c->a[i], b) ? 1 : c->c[i];
	case K_CVT:
		return gsim_ref_tpc_cvt(c->dt, c->mod & GAUDISIM_TPC_CVT_DT_MASK,
					c->mod >> GAUDISIM_TPC_CVT_RM_SHIFT &
					GAUDISIM_TPC_CVT_RM_MASK, c->a[i]);
	case K_REDUCE:
		return gsim_ref_tpc_reduce(c->opc, c->dt, c->a);
	}
	return 0;
}

static bool is_nan32(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

/* got and want as the ISA lets them differ (see the top of the file). */
static bool lane_ok(const struct opcase *c, uint32_t got, uint32_t want)
{
	unsigned int out = c->kind == K_CVT ? c->mod & GAUDISIM_TPC_CVT_DT_MASK : c->dt;
	bool fl = c->kind != K_CMP &&
		  (out == GAUDISIM_DTYPE_FP32 || out == GAUDISIM_DTYPE_BF16);
	uint32_t ulp = out == GAUDISIM_DTYPE_BF16 ? 0x10000u : 1u;

	if (got == want || (fl && is_nan32(got) && is_nan32(want)))
		return true;
	/* One ulp for the special functions: same sign, adjacent magnitudes. */
	return fl && c->kind == K_LANE && !gsim_ref_tpc_exact(c->opc) &&
	       (got ^ want) < 0x80000000u &&
	       ((got > want ? got - want : want - got) <= ulp);
}

static void tensor(struct fz_host *h, unsigned int t, uint64_t addr, uint32_t size0)
{
	uint32_t b = GAUDISIM_TPC_BLOCK(0) + GAUDISIM_TPC_TENSOR(t);

	fz_wr(h, b + GAUDISIM_TPC_T_BASE_LO, (uint32_t)addr);
	fz_wr(h, b + GAUDISIM_TPC_T_BASE_HI, (uint32_t)(addr >> 32));
	fz_wr(h, b + GAUDISIM_TPC_T_DTYPE, GAUDISIM_DTYPE_INT32);
	fz_wr(h, b + GAUDISIM_TPC_T_SIZE(0), size0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	static struct opcase c;
	struct fz_host h;
	uint32_t blk = GAUDISIM_TPC_BLOCK(0), st;
	const uint8_t *out;
	unsigned int i;

	if (!read_case(&in, &c))
		return 0;
	fz_host_init(&h);
	fz_eq_setup(&h);
	encode(fz_hbm(&h, KERNEL, NB * GAUDISIM_TPC_BUNDLE_SIZE), &c);
	for (i = 0; i < L; i++) {
		fz_put32(fz_hbm(&h, VEC(0) + 4 * i, 4), c.a[i]);
		fz_put32(fz_hbm(&h, VEC(1) + 4 * i, 4), c.b[i]);
		fz_put32(fz_hbm(&h, VEC(2) + 4 * i, 4), c.c[i]);
		fz_put32(fz_hbm(&h, VEC(3) + 4 * i, 4), 0xdeadbeef);
	}
	fz_put32(fz_hbm(&h, VEC(4), 4), c.s);
	fz_wr(&h, blk + GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)KERNEL);
	fz_wr(&h, blk + GAUDISIM_TPC_KERNEL_ADDR_HI, (uint32_t)((uint64_t)KERNEL >> 32));
	fz_wr(&h, blk + GAUDISIM_TPC_KERNEL_SIZE, NB * GAUDISIM_TPC_BUNDLE_SIZE);
	for (i = 0; i < 4; i++)
		tensor(&h, i, VEC(i), L);
	tensor(&h, 4, VEC(4), 1);
	fz_wr(&h, blk + GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
	FZ_CHECK(fz_run(&h), "tpc0: the device did not go idle after one launch");
	st = fz_rd(&h, blk + GAUDISIM_ENG_STATUS);
	FZ_CHECK(!(st & (GAUDISIM_ENG_STATUS_ERR | GAUDISIM_ENG_STATUS_BUSY)),
		 "%s.%u (kind %d): a legal kernel ended with STATUS 0x%x", c.info->name, c.dt,
		 c.kind, st);
	out = fz_hbm(&h, VEC(3), 4 * L);
	for (i = 0; i < L; i++) {
		uint32_t got = fz_get32(out + 4 * i), want = want_lane(&c, i);

		FZ_CHECK(lane_ok(&c, got, want),
			 "%s.%u bk %u mod 0x%x lane %u: a 0x%08x b 0x%08x c 0x%08x s 0x%08x: "
			 "device 0x%08x, reference 0x%08x", c.info->name, c.dt, c.bk, c.mod, i,
			 c.a[i], c.b[i], c.c[i], c.s, got, want);
	}
	fz_hard_reset(&h);
	fz_host_fini(&h);
	return 0;
}
