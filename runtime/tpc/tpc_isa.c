/* SPDX-License-Identifier: MIT */
/*
 * Names shared by the TPC assembler and disassembler, and a generator of
 * random legal bundles (for round-trip tests and program fuzzing).
 */
#include <stdio.h>
#include <string.h>

#include "tpc_asm.h"

static const char *const dtype_names[GAUDISIM_DTYPE_COUNT] = {
	[GAUDISIM_DTYPE_FP32] = "f32",
	[GAUDISIM_DTYPE_BF16] = "bf16",
	[GAUDISIM_DTYPE_INT32] = "i32",
	[GAUDISIM_DTYPE_UINT32] = "u32",
	[GAUDISIM_DTYPE_INT8] = "i8",
	[GAUDISIM_DTYPE_UINT8] = "u8",
	[GAUDISIM_DTYPE_INT16] = "i16",
	[GAUDISIM_DTYPE_UINT16] = "u16",
};

const char *const tpc_cond_names[GAUDISIM_TPC_NUM_CONDS] = {
	[GAUDISIM_TPC_CMP_EQ] = "eq", [GAUDISIM_TPC_CMP_NE] = "ne",
	[GAUDISIM_TPC_CMP_LT] = "lt", [GAUDISIM_TPC_CMP_LE] = "le",
	[GAUDISIM_TPC_CMP_GT] = "gt", [GAUDISIM_TPC_CMP_GE] = "ge",
};

const char *const tpc_rm_names[4] = {
	[GAUDISIM_TPC_RM_RNE] = "rne", [GAUDISIM_TPC_RM_RZ] = "rz",
	[GAUDISIM_TPC_RM_RD] = "rd", [GAUDISIM_TPC_RM_RU] = "ru",
};

const char *tpc_dtype_name(unsigned int dt)
{
	return dt < GAUDISIM_DTYPE_COUNT ? dtype_names[dt] : NULL;
}

int tpc_dtype_parse(const char *s, size_t n)
{
	unsigned int dt;

	for (dt = 0; dt < GAUDISIM_DTYPE_COUNT; dt++)
		if (dtype_names[dt] && strlen(dtype_names[dt]) == n &&
		    !strncmp(dtype_names[dt], s, n))
			return (int)dt;
	return -1;
}

/* ---- special registers ------------------------------------------------------- */

int tpc_spec_format(unsigned int spec, char *out, size_t outlen)
{
	unsigned int d = spec & 7;
	int len;

	if (!gaudisim_tpc_spec_valid(spec))
		return -1;
	if (spec >= 0x100)
		len = snprintf(out, outlen, "T%u.%s.%u", (spec >> 4) & 7,
			       spec & 8 ? "stride" : "size", d);
	else if (spec == GAUDISIM_TPC_SPEC_TPCID)
		len = snprintf(out, outlen, "tpcid");
	else if (spec >= GAUDISIM_TPC_SPEC_PEND(0))
		len = snprintf(out, outlen, "pend.%u", d);
	else if (spec >= GAUDISIM_TPC_SPEC_PSTART(0))
		len = snprintf(out, outlen, "pstart.%u", d);
	else
		len = snprintf(out, outlen, "isize.%u", d);
	return len < 0 || (size_t)len >= outlen ? -1 : len;
}

/* "word.D" with D a dimension digit. */
static int dim_after(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	if (n != w + 2 || strncmp(s, word, w) || s[w] != '.' || s[w + 1] < '0' ||
	    s[w + 1] > '4')
		return -1;
	return s[w + 1] - '0';
}

int tpc_spec_parse(const char *s, size_t n)
{
	int d, t;

	if (n == 5 && !strncmp(s, "tpcid", 5))
		return GAUDISIM_TPC_SPEC_TPCID;
	if ((d = dim_after(s, n, "isize")) >= 0)
		return GAUDISIM_TPC_SPEC_ISIZE(d);
	if ((d = dim_after(s, n, "pstart")) >= 0)
		return GAUDISIM_TPC_SPEC_PSTART(d);
	if ((d = dim_after(s, n, "pend")) >= 0)
		return GAUDISIM_TPC_SPEC_PEND(d);
	if (n < 3 || (s[0] != 'T' && s[0] != 't') || s[1] < '0' || s[1] > '7' || s[2] != '.')
		return -1;
	t = s[1] - '0';
	if ((d = dim_after(s + 3, n - 3, "size")) >= 0)
		return GAUDISIM_TPC_SPEC_TSIZE(t, d);
	if ((d = dim_after(s + 3, n - 3, "stride")) >= 0)
		return GAUDISIM_TPC_SPEC_TSTRIDE(t, d);
	return -1;
}

/* ---- random legal bundles ------------------------------------------------------ */

uint64_t tpc_rand64(uint64_t *state)
{
	/* splitmix64: any seed, including 0, gives a full-period stream. */
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned int rnd(uint64_t *st, unsigned int n)
{
	return (unsigned int)(tpc_rand64(st) % n);
}

static unsigned int rand_role(uint64_t *st, unsigned int role)
{
	switch (role) {
	case GAUDISIM_TPC_R_V:
	case GAUDISIM_TPC_R_S:
		return rnd(st, 32);
	case GAUDISIM_TPC_R_VP:
	case GAUDISIM_TPC_R_SP:
	case GAUDISIM_TPC_R_I:
	case GAUDISIM_TPC_R_T:
		return rnd(st, 8);
	case GAUDISIM_TPC_R_VPW:
	case GAUDISIM_TPC_R_SPW:
		return 1 + rnd(st, 7);
	case GAUDISIM_TPC_R_DIM:
		return rnd(st, GAUDISIM_TPC_NUM_DIMS);
	default:
		return 0;
	}
}

static unsigned int rand_dtype(uint64_t *st, unsigned int tclass)
{
	for (;;) {
		unsigned int dt = rnd(st, GAUDISIM_DTYPE_COUNT);

		if (tclass == GAUDISIM_TPC_T_NONE)
			return 0;
		if (gaudisim_tpc_dtype_in(dt, tclass))
			return dt;
	}
}

static unsigned int rand_mod(uint64_t *st, unsigned int kind, uint32_t nbundles)
{
	unsigned int v;

	switch (kind) {
	case GAUDISIM_TPC_M_COND:
		return rnd(st, GAUDISIM_TPC_NUM_CONDS);
	case GAUDISIM_TPC_M_SEL:
		return rnd(st, 16);
	case GAUDISIM_TPC_M_CVT:
		do
			v = rnd(st, GAUDISIM_DTYPE_COUNT);
		while (!gaudisim_dtype_size(v));
		return v | rnd(st, 4) << GAUDISIM_TPC_CVT_RM_SHIFT;
	case GAUDISIM_TPC_M_MASK:
		return 1 + rnd(st, GAUDISIM_TPC_DIM_MASK_ALL);
	case GAUDISIM_TPC_M_DIM:
		return rnd(st, GAUDISIM_TPC_NUM_DIMS);
	case GAUDISIM_TPC_M_TARGET:
		return nbundles ? rnd(st, nbundles) : rnd(st, GAUDISIM_TPC_MAX_BUNDLES);
	case GAUDISIM_TPC_M_SPECIAL:
		do
			v = rnd(st, 0x180);
		while (!gaudisim_tpc_spec_valid(v));
		return v;
	default:
		return 0;
	}
}

/* Immediates: small integers, float-looking values and raw bit patterns. */
static uint32_t rand_imm(uint64_t *st)
{
	switch (rnd(st, 4)) {
	case 0:
		return (uint32_t)((int32_t)rnd(st, 257) - 128);
	case 1:
		return 0x3f800000u + (rnd(st, 1u << 24) << 4);	/* floats near 1..2^16 */
	default:
		return (uint32_t)tpc_rand64(st);
	}
}

static void rand_slot(uint64_t *st, unsigned int slot, uint32_t nbundles,
		      struct gaudisim_tpc_slot *s)
{
	const struct gaudisim_tpc_opinfo *op;

	memset(s, 0, sizeof(*s));
	if (rnd(st, 3) == 0)
		return;	/* NOP */
	do
		s->opc = rnd(st, GAUDISIM_TPC_NUM_OPCODES);
	while (!(op = gaudisim_tpc_opinfo(slot, s->opc)));
	if (!s->opc)
		return;
	s->dt = rand_dtype(st, op->types);
	if (rnd(st, 3) == 0) {
		s->pred = rnd(st, 8);
		s->pneg = rnd(st, 2);
		s->pvec = (op->flags & GAUDISIM_TPC_OPF_VPRED) ? rnd(st, 2) : 0;
	}
	s->dst = rand_role(st, op->dst);
	s->sa = rand_role(st, op->a);
	switch (op->b) {
	case GAUDISIM_TPC_R_VB:
		s->bk = rnd(st, 3);
		s->sb = s->bk == GAUDISIM_TPC_BK_IMM ? 0 : rnd(st, 32);
		break;
	case GAUDISIM_TPC_R_SB:
		s->bk = rnd(st, 2) ? GAUDISIM_TPC_BK_IMM : GAUDISIM_TPC_BK_REG;
		s->sb = s->bk == GAUDISIM_TPC_BK_IMM ? 0 : rnd(st, 32);
		break;
	default:
		s->sb = rand_role(st, op->b);
		break;
	}
	s->mod = rand_mod(st, op->mod, nbundles);
	if (s->bk == GAUDISIM_TPC_BK_IMM || (op->flags & GAUDISIM_TPC_OPF_IMM))
		s->imm = rand_imm(st);
}

void tpc_random_bundle(uint64_t *state, uint32_t nbundles, uint8_t out[GAUDISIM_TPC_BUNDLE_SIZE])
{
	unsigned int slot;

	memset(out, 0, GAUDISIM_TPC_BUNDLE_SIZE);
	for (slot = 0; slot < GAUDISIM_TPC_NUM_SLOTS; slot++) {
		struct gaudisim_tpc_slot s;

		rand_slot(state, slot, nbundles, &s);
		gaudisim_tpc_slot_encode(out, slot, &s);
	}
}
