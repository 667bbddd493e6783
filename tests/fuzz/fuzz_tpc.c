/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: TPC programs.
 *
 * The input is a TPC launch: a small header (TPC, launch path, watchdog,
 * index space, part, arguments, tensor descriptors) followed by the
 * kernel's bundles. The kernel runs on a fresh device core (fake host of
 * fuzz_host.c), started either by MMIO register writes or by a CB on the
 * TPC's queue, optionally split over several TPCs or run twice.
 *
 * Header (fields read in this order; missing bytes read as 0):
 *   u8  flags   [2:0] TPC (or TPC count - 1 with SPLIT), [3] CB path,
 *               [4] LEGALIZE bundles, [5] RERUN, [6] SPLIT, [7] explicit part
 *   u16 watchdog      budget = value % FZ_TPC_WATCHDOG + 1 bundles
 *   u8  isize[5]      size = b % 4 + 1; b >= 0xf0: a raw u32 follows
 *   (part: start u8, size u8 per dimension, when [7])
 *   u8  nargs         % 17, then nargs u32
 *   u8  ntensors      % 9, then per tensor: u8 base, u8 dtype, u8 layout,
 *                     u8 size0, u8 size[1..4], (u8 stride[5] when layout bit 0)
 *   bundles           the rest, 32 bytes each, at most MAX_BUNDLES
 *
 * LEGALIZE rewrites every slot into a legal one (the contract's operand
 * table says what is legal), so mutations reach the execution units
 * instead of the illegal-bundle check.
 *
 * Invariants: the launch ends (never busy after the run), with the
 * engine's STATUS either clean or one of the documented error codes, and
 * a matching ERR bit, launch and error counters; no more
 * bundles than the watchdog allows; a clean launch ran every member of
 * its part; a watchdog stop posts ENGINE_TIMEOUT and other failures
 * ENGINE_ERR on the event queue; with RERUN, a second launch of the same
 * kernel on the same memory gives the same memory, status and bundle
 * count (decode-cache hit versus miss, state left from the first launch).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_host.h"
#include "fuzz_input.h"
#include "hw/gaudisim_hw_tpc.h"

#define MAX_BUNDLES		128u
#define D			GAUDISIM_TPC_NUM_DIMS

/* Device memory of a launch, in user HBM: four data buffers and the kernel. */
#define DATA_ADDR		(FZ_HBM_USER + 0x40000u)
#define DATA_BUF_SIZE		0x10000u
#define KERNEL_ADDR		(FZ_HBM_USER + 0x80000u)
#define DATA_FILL		0x4000u		/* initialised bytes per buffer */
/*
 * What a launch may have written, for RERUN: the tensors read_tensor()
 * can describe end below DATA_ADDR + 0x70000 (at most 200 * 255 + 12 *
 * 255 elements of 4 bytes past the last buffer), below the CB arena.
 */
#define SNAP_ADDR		DATA_ADDR
#define SNAP_SIZE		(FZ_HBM_USER + FZ_HBM_CB_OFF - DATA_ADDR)

#define F_CB			0x08
#define F_LEGALIZE		0x10
#define F_RERUN			0x20
#define F_SPLIT			0x40
#define F_PART			0x80

struct launch {
	uint32_t regs[GAUDISIM_TPC_CFG_END / 4];	/* configuration image */
	bool set[GAUDISIM_TPC_CFG_END / 4];		/* written by the harness */
	uint32_t watchdog;
	bool uses_sram;
	bool cb_path;
};

static void cfg(struct launch *l, uint32_t off, uint32_t v)
{
	l->regs[off / 4] = v;
	l->set[off / 4] = true;
}

/* ---- legal bundles from arbitrary bytes ------------------------------------------- */

static unsigned int fix_role(unsigned int role, unsigned int v)
{
	switch (role) {
	case GAUDISIM_TPC_R_V:
	case GAUDISIM_TPC_R_S:
		return v % 32;
	case GAUDISIM_TPC_R_VP:
	case GAUDISIM_TPC_R_SP:
	case GAUDISIM_TPC_R_I:
	case GAUDISIM_TPC_R_T:
		return v % 8;
	case GAUDISIM_TPC_R_VPW:
	case GAUDISIM_TPC_R_SPW:
		return v % 7 + 1;
	case GAUDISIM_TPC_R_DIM:
		return v % D;
	default:
		return 0;
	}
}

static unsigned int fix_dtype(unsigned int dt, unsigned int tclass)
{
	unsigned int k;

	for (k = 0; k < 16; k++)
		if (gaudisim_tpc_dtype_in((dt + k) % 16, tclass))
			return (dt + k) % 16;
	return 0;
}

static unsigned int fix_mod(const struct gaudisim_tpc_opinfo *op, unsigned int mod,
			    unsigned int nbundles)
{
	static const unsigned int specials[] = {
		GAUDISIM_TPC_SPEC_ISIZE(0), GAUDISIM_TPC_SPEC_ISIZE(4), GAUDISIM_TPC_SPEC_PSTART(1),
		GAUDISIM_TPC_SPEC_PEND(0), GAUDISIM_TPC_SPEC_TPCID, GAUDISIM_TPC_SPEC_TSIZE(3, 0),
		GAUDISIM_TPC_SPEC_TSTRIDE(7, 4),
	};

	switch (op->mod) {
	case GAUDISIM_TPC_M_COND:
		return mod % GAUDISIM_TPC_NUM_CONDS;
	case GAUDISIM_TPC_M_SEL:
		return mod & (GAUDISIM_TPC_SEL_PRED_MASK | GAUDISIM_TPC_SEL_NEG);
	case GAUDISIM_TPC_M_CVT:
		return fix_dtype(mod & GAUDISIM_TPC_CVT_DT_MASK, GAUDISIM_TPC_T_ANY) |
		       (mod >> GAUDISIM_TPC_CVT_RM_SHIFT & GAUDISIM_TPC_CVT_RM_MASK)
		       << GAUDISIM_TPC_CVT_RM_SHIFT;
	case GAUDISIM_TPC_M_MASK:
		return mod % GAUDISIM_TPC_DIM_MASK_ALL + 1;
	case GAUDISIM_TPC_M_DIM:
		return mod % D;
	case GAUDISIM_TPC_M_TARGET:
		return mod % nbundles;
	case GAUDISIM_TPC_M_SPECIAL:
		return gaudisim_tpc_spec_valid(mod) ? mod :
		       specials[mod % (sizeof(specials) / sizeof(specials[0]))];
	default:
		return 0;
	}
}

static void legalize_slot(unsigned int slot, struct gaudisim_tpc_slot *s, unsigned int nbundles)
{
	const struct gaudisim_tpc_opinfo *op = NULL;
	unsigned int k;

	for (k = 0; k < GAUDISIM_TPC_NUM_OPCODES && !op; k++) {
		op = gaudisim_tpc_opinfo(slot, (s->opc + k) % GAUDISIM_TPC_NUM_OPCODES);
		if (op)
			s->opc = (s->opc + k) % GAUDISIM_TPC_NUM_OPCODES;
	}
	if (!op || !s->opc) {
		memset(s, 0, sizeof(*s));
		return;
	}
	s->dt = op->types == GAUDISIM_TPC_T_NONE ? 0 : fix_dtype(s->dt, op->types);
	if (!(op->flags & GAUDISIM_TPC_OPF_VPRED))
		s->pvec = 0;
	s->dst = fix_role(op->dst, s->dst);
	s->sa = fix_role(op->a, s->sa);
	switch (op->b) {
	case GAUDISIM_TPC_R_VB:
		s->bk %= 3;
		break;
	case GAUDISIM_TPC_R_SB:
		s->bk = s->bk & 1 ? GAUDISIM_TPC_BK_IMM : GAUDISIM_TPC_BK_REG;
		break;
	default:
		s->bk = GAUDISIM_TPC_BK_REG;
		s->sb = fix_role(op->b, s->sb);
		break;
	}
	if (s->bk == GAUDISIM_TPC_BK_IMM)
		s->sb = 0;
	else if (op->b == GAUDISIM_TPC_R_VB)
		s->sb %= 32;
	s->mod = fix_mod(op, s->mod, nbundles);
}

static void legalize(uint8_t *b, unsigned int nbundles)
{
	unsigned int slot;

	for (slot = 0; slot < GAUDISIM_TPC_NUM_SLOTS; slot++) {
		struct gaudisim_tpc_slot s;
		int uses_imm;

		gaudisim_tpc_slot_decode(b, slot, &s);
		legalize_slot(slot, &s, nbundles);
		if (gaudisim_tpc_check_slot(slot, &s, nbundles, &uses_imm) == GAUDISIM_TPC_OK &&
		    !uses_imm)
			s.imm = 0;
		gaudisim_tpc_slot_encode(b, slot, &s);
	}
	/* Should the contract grow a rule this does not know, stay legal. */
	if (gaudisim_tpc_check_bundle(b, nbundles, NULL) != GAUDISIM_TPC_OK)
		memset(b, 0, GAUDISIM_TPC_BUNDLE_SIZE);
}

/* ---- reading a launch ----------------------------------------------------------------- */

static void read_tensor(struct fz_in *in, struct launch *l, unsigned int t)
{
	uint32_t base = GAUDISIM_TPC_TENSOR(t);
	uint8_t b = fz_u8(in), dt = fz_u8(in), layout = fz_u8(in);
	uint32_t size[D], stride[D];
	uint64_t addr;
	unsigned int d;

	if (b % 16 == 15) {
		addr = GAUDISIM_SRAM_BASE + (uint64_t)(b >> 4) * 0x1000u;
		l->uses_sram = true;
	} else {
		addr = DATA_ADDR + (b % 4) * DATA_BUF_SIZE + (b >> 2 & 3) * 0x100u;
	}
	if (layout & 0x80)
		addr += layout >> 4 & 7;		/* misaligned for wide types */
	size[0] = fz_u8(in) % 200 + 1;
	for (d = 1; d < D; d++)
		size[d] = fz_u8(in) % 4 + 1;
	for (d = 0; d < D; d++) {
		if (layout & 1)
			stride[d] = fz_u8(in);
		else
			stride[d] = d ? stride[d - 1] * size[d - 1] : 1;
	}
	cfg(l, base + GAUDISIM_TPC_T_BASE_LO, (uint32_t)addr);
	cfg(l, base + GAUDISIM_TPC_T_BASE_HI, (uint32_t)(addr >> 32));
	cfg(l, base + GAUDISIM_TPC_T_DTYPE, dt % (GAUDISIM_DTYPE_COUNT + 1));
	cfg(l, base + GAUDISIM_TPC_T_PAD, layout & 2 ? fz_u32(in) : 0);
	for (d = 0; d < D; d++) {
		cfg(l, base + GAUDISIM_TPC_T_SIZE(d), size[d]);
		cfg(l, base + GAUDISIM_TPC_T_STRIDE(d), stride[d]);
	}
}

/* The header; returns the flags. */
static uint8_t read_launch(struct fz_in *in, struct launch *l, uint32_t isize[D])
{
	uint8_t flags = fz_u8(in);
	unsigned int d, i, n;

	memset(l, 0, sizeof(*l));
	l->watchdog = fz_u16(in) % FZ_TPC_WATCHDOG + 1;
	l->cb_path = flags & F_CB;
	cfg(l, GAUDISIM_TPC_WATCHDOG, l->watchdog);
	for (d = 0; d < D; d++) {
		uint8_t b = fz_u8(in);

		isize[d] = b >= 0xf0 ? fz_u32(in) : b % 4u + 1;
		cfg(l, GAUDISIM_TPC_ISPACE_SIZE(d), isize[d]);
	}
	if (flags & F_PART) {
		for (d = 0; d < D; d++) {
			cfg(l, GAUDISIM_TPC_PART_START(d), fz_u8(in) % 4);
			cfg(l, GAUDISIM_TPC_PART_SIZE(d), fz_u8(in) % 5);
		}
	}
	n = fz_u8(in) % (GAUDISIM_TPC_NUM_ARGS + 1);
	for (i = 0; i < n; i++)
		cfg(l, GAUDISIM_TPC_ARG(i), fz_u32(in));
	n = fz_u8(in) % (GAUDISIM_TPC_NUM_TENSORS + 1);
	for (i = 0; i < n; i++)
		read_tensor(in, l, i);
	return flags;
}

/* Copy the bundles to the kernel area; returns the kernel size in bytes. */
static uint32_t load_kernel(struct fz_host *h, struct fz_in *in, bool legal)
{
	unsigned int nb = (unsigned int)(in->n / GAUDISIM_TPC_BUNDLE_SIZE), i;
	uint8_t *k;
	size_t got;
	const uint8_t *code;

	if (nb > MAX_BUNDLES)
		nb = MAX_BUNDLES;
	if (!nb)
		nb = 1;
	k = fz_hbm(h, KERNEL_ADDR, nb * GAUDISIM_TPC_BUNDLE_SIZE);
	memset(k, 0, nb * GAUDISIM_TPC_BUNDLE_SIZE);
	code = fz_bytes(in, nb * GAUDISIM_TPC_BUNDLE_SIZE, &got);
	memcpy(k, code, got);
	if (!got) {
		/* No code: a lone HALT. */
		struct gaudisim_tpc_slot s = { .opc = GAUDISIM_TPC_OP_HALT };

		gaudisim_tpc_slot_encode(k, GAUDISIM_TPC_SLOT_SPU, &s);
	}
	if (legal)
		for (i = 0; i < nb; i++)
			legalize(k + i * GAUDISIM_TPC_BUNDLE_SIZE, nb);
	return nb * GAUDISIM_TPC_BUNDLE_SIZE;
}

/* Deterministic contents for the data buffers: small numbers of every type. */
static void fill_data(struct fz_host *h)
{
	uint8_t *p = fz_hbm(h, DATA_ADDR, 4 * DATA_BUF_SIZE);
	uint32_t i;

	for (i = 0; i < 4 * DATA_BUF_SIZE; i += 4) {
		uint32_t v;

		if (i % DATA_BUF_SIZE >= DATA_FILL)
			continue;
		switch (i / DATA_BUF_SIZE) {
		case 0: {	/* FP32 -8 .. 8 */
			float f = (float)((int)(i / 4 % 17) - 8) * 0.5f;

			memcpy(&v, &f, 4);
			break;
		}
		case 1:		/* pairs of BF16 */
			v = 0x3f80c000u + (i & 0x70);
			break;
		case 2:
			v = i * 2654435761u;
			break;
		default:
			v = i / 4 % 7 == 0 ? 0x7fc00000u : 0xff800000u + i;
			break;
		}
		fz_put32(p + i, v);
	}
}

/* ---- launching and checking ----------------------------------------------------------- */

struct tpc_obs {
	uint32_t launches, errs;
	uint64_t bundles, members;
};

static uint64_t rd64(struct fz_host *h, uint32_t lo)
{
	uint32_t l = fz_rd(h, lo);

	return (uint64_t)fz_rd(h, lo + 4) << 32 | l;
}

static void observe(struct fz_host *h, unsigned int n, struct tpc_obs *o)
{
	uint32_t b = GAUDISIM_TPC_BLOCK(n);

	o->launches = fz_rd(h, b + GAUDISIM_ENG_LAUNCH_CNT);
	o->errs = fz_rd(h, b + GAUDISIM_ENG_ERR_CNT);
	o->bundles = rd64(h, b + GAUDISIM_TPC_BUNDLES_LO);
	o->members = rd64(h, b + GAUDISIM_TPC_MEMBERS_LO);
}

static void program(struct fz_host *h, unsigned int n, const struct launch *l, uint32_t ksize)
{
	uint32_t b = GAUDISIM_TPC_BLOCK(n), off;

	fz_wr(h, b + GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)KERNEL_ADDR);
	fz_wr(h, b + GAUDISIM_TPC_KERNEL_ADDR_HI, (uint32_t)((uint64_t)KERNEL_ADDR >> 32));
	fz_wr(h, b + GAUDISIM_TPC_KERNEL_SIZE, ksize);
	for (off = 0; off < GAUDISIM_TPC_CFG_END; off += 4)
		if (l->set[off / 4])
			fz_wr(h, b + off, l->regs[off / 4]);
}

/* Launch the kernel on TPC n through a CB on its queue (stream 0). */
static void launch_cb(struct fz_host *h, unsigned int n, const struct launch *l, uint32_t ksize)
{
	uint32_t wreg = GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | GAUDISIM_PKT_CTL_RB;
	uint32_t cb[2 * (GAUDISIM_TPC_CFG_END / 4 + 4)], len = 0, off;

#define EMIT(reg, val) do { cb[len++] = (val); cb[len++] = wreg | (reg); } while (0)
	EMIT(GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)KERNEL_ADDR);
	EMIT(GAUDISIM_TPC_KERNEL_ADDR_HI, (uint32_t)((uint64_t)KERNEL_ADDR >> 32));
	EMIT(GAUDISIM_TPC_KERNEL_SIZE, ksize);
	for (off = 0; off < GAUDISIM_TPC_CFG_END; off += 4)
		if (l->set[off / 4])
			EMIT(off, l->regs[off / 4]);
	EMIT(GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
#undef EMIT
	{
		uint8_t bytes[sizeof(cb)];
		uint32_t i;

		for (i = 0; i < len; i++)
			fz_put32(bytes + 4 * i, cb[i]);
		fz_submit_cb(h, gaudisim_engine_queue_id(GAUDISIM_ENGINE_TPC_0 + n, 0), bytes,
			     4 * len, false);
	}
}

/* Members of TPC n's part, as the registers describe it (0 if invalid). */
static uint64_t part_members(const struct launch *l, const uint32_t isize[D])
{
	uint64_t members = 1;
	unsigned int d;

	for (d = 0; d < D; d++) {
		uint32_t start = l->regs[GAUDISIM_TPC_PART_START(d) / 4];
		uint32_t size = l->regs[GAUDISIM_TPC_PART_SIZE(d) / 4];

		if (start >= isize[d])
			return 0;
		members *= size ? size : isize[d] - start;
	}
	return members;
}

/* Is there an event of this type for engine e among the EQ entries [from, to)? */
static bool eq_has(struct fz_host *h, uint32_t from, uint32_t to, unsigned int type,
		   unsigned int e)
{
	const uint32_t entries = 1u << FZ_EQ_LOG2;

	for (; from != to; from = (from + 1) & (2 * entries - 1)) {
		const uint8_t *ent = h->mem + FZ_EQ_OFF + (from & (entries - 1)) *
				     GAUDISIM_EQ_ENTRY_SIZE;
		uint32_t ctl = fz_get32(ent);

		if (GAUDISIM_EQ_CTL_TYPE(ctl) == type && fz_get32(ent + 4) == e)
			return true;
	}
	return false;
}

struct outcome {
	uint32_t status;
	uint64_t bundles;
};

/* After a launch of TPC n: every invariant of the launch's end. */
static struct outcome check_launch(struct fz_host *h, unsigned int n, const struct launch *l,
				   const struct tpc_obs *before, uint32_t eq_pi, uint32_t eq_drops,
				   uint64_t want_members)
{
	uint32_t b = GAUDISIM_TPC_BLOCK(n);
	unsigned int e = GAUDISIM_ENGINE_TPC_0 + n;
	uint32_t st = fz_rd(h, b + GAUDISIM_ENG_STATUS);
	uint32_t err = (st & GAUDISIM_ENG_STATUS_ERR_MASK) >> GAUDISIM_ENG_STATUS_ERR_SHIFT;
	struct outcome out = { .status = st };
	struct tpc_obs now;

	observe(h, n, &now);
	out.bundles = now.bundles - before->bundles;
	FZ_CHECK(!(st & GAUDISIM_ENG_STATUS_BUSY), "tpc%u still busy after the run (STATUS 0x%x)",
		 n, st);
	FZ_CHECK(err <= GAUDISIM_TPC_ERR_NOMEM && !(st & GAUDISIM_ENG_STATUS_ERR) == !err &&
		 !(st & ~(GAUDISIM_ENG_STATUS_ERR_MASK | GAUDISIM_ENG_STATUS_ERR |
			  GAUDISIM_ENG_STATUS_BUSY)),
		 "tpc%u: STATUS 0x%x", n, st);
	FZ_CHECK(now.launches - before->launches == 1, "tpc%u: %u launches counted for one COMMIT",
		 n, now.launches - before->launches);
	FZ_CHECK(now.errs - before->errs == (err != 0), "tpc%u: ERR_CNT moved by %u, error %u",
		 n, now.errs - before->errs, err);
	FZ_CHECK(out.bundles <= l->watchdog, "tpc%u: %llu bundles ran with a watchdog of %u", n,
		 (unsigned long long)out.bundles, l->watchdog);
	if (!err && want_members)
		FZ_CHECK(now.members - before->members == want_members,
			 "tpc%u: clean launch ran %llu members of %llu", n,
			 (unsigned long long)(now.members - before->members),
			 (unsigned long long)want_members);
	if (err == GAUDISIM_TPC_ERR_WATCHDOG)
		FZ_CHECK(out.bundles == l->watchdog, "tpc%u: watchdog stop after %llu of %u bundles",
			 n, (unsigned long long)out.bundles, l->watchdog);
	/* The event, when the queue had room for everything of this launch. */
	if (err && fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_DROP_CNT) == eq_drops) {
		uint32_t pi = fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI);
		unsigned int type = err == GAUDISIM_TPC_ERR_WATCHDOG ?
				    GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT : GAUDISIM_EQ_EVENT_ENGINE_ERR;

		FZ_CHECK(eq_has(h, eq_pi, pi, type, e), "tpc%u: error %u without its event %u",
			 n, err, type);
	}
	return out;
}

static void launch_and_check(struct fz_host *h, unsigned int n, const struct launch *l,
			     uint32_t ksize, uint64_t members, struct outcome *out)
{
	struct tpc_obs before;
	uint32_t eq_pi, eq_drops;

	fz_eq_drain(h);
	eq_pi = fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI);
	eq_drops = fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_DROP_CNT);
	observe(h, n, &before);
	if (l->cb_path) {
		launch_cb(h, n, l, ksize);
	} else {
		program(h, n, l, ksize);
		FZ_CHECK(fz_wr(h, GAUDISIM_TPC_BLOCK(n) + GAUDISIM_TPC_COMMIT,
			       GAUDISIM_TPC_COMMIT_GO) & GSIM_KICK_RUN,
			 "tpc%u: COMMIT over MMIO did not ask for a run", n);
	}
	FZ_CHECK(fz_run(h), "tpc%u: the device did not go idle after one launch", n);
	if (l->cb_path) {
		uint32_t q = gaudisim_engine_queue_id(GAUDISIM_ENGINE_TPC_0 + n, 0);
		uint32_t sts = fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_CP_STS));

		FZ_CHECK(!(sts & GAUDISIM_CP_STS_BUSY), "tpc%u: its queue is still busy (CP_STS 0x%x)",
			 n, sts);
		/* A configuration write the CP refused ended the CB before COMMIT. */
		if (sts & GAUDISIM_CP_STS_ERR_MASK) {
			memset(out, 0, sizeof(*out));
			return;
		}
	}
	*out = check_launch(h, n, l, &before, eq_pi, eq_drops, members);
}

/* The index space over several TPCs at once, as the runtime splits it. */
static void run_split(struct fz_host *h, const struct launch *l0, const uint32_t isize[D],
		      unsigned int count, uint32_t ksize)
{
	struct gaudisim_tpc_part parts[GAUDISIM_NUM_TPC];
	struct tpc_obs before[GAUDISIM_NUM_TPC];
	struct launch l = *l0;
	unsigned int n, d, used;
	uint32_t eq_pi, eq_drops;

	used = gaudisim_tpc_split(isize, count, parts);
	if (!used)
		return;
	fz_eq_drain(h);
	eq_pi = fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI);
	eq_drops = fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_DROP_CNT);
	for (n = 0; n < used; n++) {
		for (d = 0; d < D; d++) {
			cfg(&l, GAUDISIM_TPC_PART_START(d), parts[n].start[d]);
			cfg(&l, GAUDISIM_TPC_PART_SIZE(d), parts[n].size[d]);
		}
		observe(h, n, &before[n]);
		program(h, n, &l, ksize);
	}
	for (n = 0; n < used; n++)
		fz_wr(h, GAUDISIM_TPC_BLOCK(n) + GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
	FZ_CHECK(fz_run(h), "split launch over %u TPCs did not go idle", used);
	for (n = 0; n < used; n++) {
		for (d = 0; d < D; d++) {
			cfg(&l, GAUDISIM_TPC_PART_START(d), parts[n].start[d]);
			cfg(&l, GAUDISIM_TPC_PART_SIZE(d), parts[n].size[d]);
		}
		check_launch(h, n, &l, &before[n], eq_pi, eq_drops, part_members(&l, isize));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct fz_host h;
	struct launch l;
	uint32_t isize[D], ksize;
	struct outcome first, second;
	uint8_t flags;
	unsigned int n;

	fz_host_init(&h);
	/* The TPC's queue is set up when the CB path first uses it. */
	fz_eq_setup(&h);
	fz_tpc_watchdogs(&h, FZ_TPC_WATCHDOG);
	flags = read_launch(&in, &l, isize);
	n = flags & 7;
	fill_data(&h);
	ksize = load_kernel(&h, &in, flags & F_LEGALIZE);

	if (flags & F_SPLIT) {
		run_split(&h, &l, isize, n + 1, ksize);
	} else {
		uint8_t *snap = NULL, *after = NULL;
		bool rerun = (flags & F_RERUN) && !l.uses_sram;

		if (rerun) {
			snap = malloc(SNAP_SIZE);
			after = malloc(SNAP_SIZE);
			FZ_CHECK(snap && after, "out of memory");
			memcpy(snap, fz_hbm(&h, SNAP_ADDR, SNAP_SIZE), SNAP_SIZE);
		}
		launch_and_check(&h, n, &l, ksize, part_members(&l, isize), &first);
		if (rerun) {
			memcpy(after, fz_hbm(&h, SNAP_ADDR, SNAP_SIZE), SNAP_SIZE);
			memcpy(fz_hbm(&h, SNAP_ADDR, SNAP_SIZE), snap, SNAP_SIZE);
			launch_and_check(&h, n, &l, ksize, part_members(&l, isize), &second);
			FZ_CHECK(first.status == second.status && first.bundles == second.bundles,
				 "tpc%u: rerun differs: STATUS 0x%x/0x%x, bundles %llu/%llu", n,
				 first.status, second.status, (unsigned long long)first.bundles,
				 (unsigned long long)second.bundles);
			FZ_CHECK(!memcmp(after, fz_hbm(&h, SNAP_ADDR, SNAP_SIZE), SNAP_SIZE),
				 "tpc%u: rerun of the same launch wrote different memory", n);
		}
		free(snap);
		free(after);
	}
	fz_report(&h);
	fz_hard_reset(&h);
	fz_host_fini(&h);
	return 0;
}
