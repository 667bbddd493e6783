/* SPDX-License-Identifier: MIT */
/*
 * TPC disassembler: bundles -> the text syntax of docs/tpc-isa.md, in the
 * one canonical spelling that tpc_assemble() turns back into the same
 * bytes (every suffix spelled out, predicates only when set, immediates in
 * a form that parses back to the same bits, illegal bundles as .raw).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpc_asm.h"

/* A bounded output buffer; 'bad' sticks once something did not fit. */
struct out {
	char *p;
	size_t cap, len;
	bool bad;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->bad)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len) {
		o->bad = true;
		return;
	}
	o->len += (size_t)n;
}

static bool dt_float(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_FP32 || dt == GAUDISIM_DTYPE_BF16;
}

static bool dt_unsigned(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_UINT32 || dt == GAUDISIM_DTYPE_UINT16 ||
	       dt == GAUDISIM_DTYPE_UINT8;
}

/* An immediate as the assembler reads it back for this dtype. */
static void put_imm(struct out *o, unsigned int dt, unsigned int tclass, uint32_t imm)
{
	if (tclass != GAUDISIM_TPC_T_NONE && dt_float(dt)) {
		char text[32];
		float f;
		uint32_t back;

		memcpy(&f, &imm, sizeof(f));
		snprintf(text, sizeof(text), "%.9g", f);
		f = strtof(text, NULL);
		memcpy(&back, &f, sizeof(back));
		/* NaNs (and anything else that would not come back) as bits. */
		if (back == imm && (imm & 0x7fffffffu) <= 0x7f800000u)
			put(o, "%s", text);
		else
			put(o, "0x%08x", imm);
		return;
	}
	if (tclass != GAUDISIM_TPC_T_NONE && dt_unsigned(dt))
		put(o, "%u", imm);
	else
		put(o, "%d", (int32_t)imm);
}

static void put_target(struct out *o, unsigned int target, uint32_t nbundles)
{
	if (target < nbundles)
		put(o, "L%u", target);
	else
		put(o, "@%u", target);
}

static void put_mask(struct out *o, unsigned int mask)
{
	unsigned int d;

	put(o, ".");
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		if (mask & (1u << d))
			put(o, "%u", d);
}

static void put_role(struct out *o, unsigned int role, unsigned int v)
{
	switch (role) {
	case GAUDISIM_TPC_R_V:
		put(o, "V%u", v);
		break;
	case GAUDISIM_TPC_R_S:
		put(o, "S%u", v);
		break;
	case GAUDISIM_TPC_R_VP:
	case GAUDISIM_TPC_R_VPW:
		put(o, "VP%u", v);
		break;
	case GAUDISIM_TPC_R_SP:
	case GAUDISIM_TPC_R_SPW:
		put(o, "SP%u", v);
		break;
	case GAUDISIM_TPC_R_I:
		put(o, "I%u", v);
		break;
	case GAUDISIM_TPC_R_T:
		put(o, "T%u", v);
		break;
	default:
		put(o, "%u", v);
		break;
	}
}

/* SRC_B as its kind says: register, broadcast scalar or immediate. */
static void put_b(struct out *o, const struct gaudisim_tpc_opinfo *op,
		  const struct gaudisim_tpc_slot *s)
{
	if (s->bk == GAUDISIM_TPC_BK_IMM)
		put_imm(o, s->dt, op->types, s->imm);
	else if (op->b == GAUDISIM_TPC_R_VB)
		put_role(o, s->bk == GAUDISIM_TPC_BK_SREG ? GAUDISIM_TPC_R_S : GAUDISIM_TPC_R_V,
			 s->sb);
	else if (op->b == GAUDISIM_TPC_R_SB)
		put_role(o, GAUDISIM_TPC_R_S, s->sb);
	else
		put_role(o, op->b, s->sb);
}

static void put_slot(struct out *o, unsigned int slot, const struct gaudisim_tpc_slot *s,
		     uint32_t nbundles)
{
	const struct gaudisim_tpc_opinfo *op = gaudisim_tpc_opinfo(slot, s->opc);
	char spec[24];
	bool first = true;

	if (s->pred || s->pneg || s->pvec)
		put(o, "(%s%s%u) ", s->pneg ? "!" : "", s->pvec ? "VP" : "SP", s->pred);
	put(o, "%s", op->name);
	if (op->mod == GAUDISIM_TPC_M_COND)
		put(o, ".%s", tpc_cond_names[s->mod]);
	if (op->types != GAUDISIM_TPC_T_NONE)
		put(o, ".%s", tpc_dtype_name(s->dt));
	if (op->mod == GAUDISIM_TPC_M_CVT)
		put(o, ".%s.%s", tpc_dtype_name(s->mod & GAUDISIM_TPC_CVT_DT_MASK),
		    tpc_rm_names[(s->mod >> GAUDISIM_TPC_CVT_RM_SHIFT) & GAUDISIM_TPC_CVT_RM_MASK]);

	switch (slot == GAUDISIM_TPC_SLOT_SPU ? s->opc : 0) {
	case GAUDISIM_TPC_OP_HALT:
		return;
	case GAUDISIM_TPC_OP_JMP:
		put(o, " ");
		put_target(o, s->mod, nbundles);
		return;
	case GAUDISIM_TPC_OP_LOOP:
		put(o, " S%u, ", s->dst);
		put_b(o, op, s);
		put(o, ", ");
		put_target(o, s->mod, nbundles);
		return;
	case GAUDISIM_TPC_OP_ILOOP:
		put(o, " I%u.%u, %d, S%u, ", s->dst, s->sa, (int32_t)s->imm, s->sb);
		put_target(o, s->mod, nbundles);
		return;
	case GAUDISIM_TPC_OP_ISET:
	case GAUDISIM_TPC_OP_IADD:
	case GAUDISIM_TPC_OP_IMUL:
		put(o, " I%u", s->dst);
		put_mask(o, s->mod);
		if (op->a == GAUDISIM_TPC_R_I)
			put(o, ", I%u", s->sa);
		put(o, ", ");
		put_b(o, op, s);
		return;
	case GAUDISIM_TPC_OP_IGET:
		put(o, " S%u, I%u.%u", s->dst, s->sa, s->mod);
		return;
	case GAUDISIM_TPC_OP_RD:
		tpc_spec_format(s->mod, spec, sizeof(spec));
		put(o, " S%u, %s", s->dst, spec);
		return;
	}

	/* Generic form: the operands DST, SRC_A, SRC_B that the operation has. */
	if (op->dst != GAUDISIM_TPC_R_NONE) {
		put(o, " ");
		put_role(o, op->dst, s->dst);
		first = false;
	}
	if (op->a != GAUDISIM_TPC_R_NONE) {
		put(o, first ? " " : ", ");
		put_role(o, op->a, s->sa);
		first = false;
	}
	if (op->b != GAUDISIM_TPC_R_NONE) {
		put(o, first ? " " : ", ");
		put_b(o, op, s);
	}
	if (op->mod == GAUDISIM_TPC_M_SEL)
		put(o, ", %s%s%u", s->mod & GAUDISIM_TPC_SEL_NEG ? "!" : "",
		    slot == GAUDISIM_TPC_SLOT_VPU ? "VP" : "SP", s->mod & GAUDISIM_TPC_SEL_PRED_MASK);
}

static void put_bundle(struct out *o, const uint8_t *b, uint32_t nbundles)
{
	unsigned int slot, n = 0;

	if (gaudisim_tpc_check_bundle(b, 0, NULL) != GAUDISIM_TPC_OK) {
		unsigned int w;

		put(o, ".raw");
		for (w = 0; w < GAUDISIM_TPC_BUNDLE_SIZE / 4; w++)
			put(o, "%s0x%08x", w ? ", " : " ",
			    (unsigned int)b[4 * w] | (unsigned int)b[4 * w + 1] << 8 |
			    (unsigned int)b[4 * w + 2] << 16 | (unsigned int)b[4 * w + 3] << 24);
		return;
	}
	for (slot = 0; slot < GAUDISIM_TPC_NUM_SLOTS; slot++) {
		struct gaudisim_tpc_slot s;

		gaudisim_tpc_slot_decode(b, slot, &s);
		if (!s.opc)
			continue;
		if (n++)
			put(o, " ; ");
		put_slot(o, slot, &s, nbundles);
	}
	if (!n)
		put(o, "nop");
}

int tpc_disasm_bundle(const uint8_t *bundle, uint32_t nbundles, char *out, size_t outlen)
{
	struct out o = { .p = out, .cap = outlen };

	if (!outlen)
		return -1;
	out[0] = '\0';
	put_bundle(&o, bundle, nbundles);
	return o.bad ? -1 : (int)o.len;
}

/* The branch target of a legal bundle's SPU slot, or -1. */
static long target_of(const uint8_t *b)
{
	struct gaudisim_tpc_slot s;
	const struct gaudisim_tpc_opinfo *op;

	if (gaudisim_tpc_check_bundle(b, 0, NULL) != GAUDISIM_TPC_OK)
		return -1;
	gaudisim_tpc_slot_decode(b, GAUDISIM_TPC_SLOT_SPU, &s);
	op = gaudisim_tpc_opinfo(GAUDISIM_TPC_SLOT_SPU, s.opc);
	return op && op->mod == GAUDISIM_TPC_M_TARGET ? (long)s.mod : -1;
}

char *tpc_disassemble(const uint8_t *code, size_t size)
{
	/* A line is at most ~220 characters; leave room for the label lines. */
	const size_t per_bundle = 320;
	uint32_t n = (uint32_t)(size / GAUDISIM_TPC_BUNDLE_SIZE), pc;
	uint8_t *is_target;
	struct out o;

	if (size % GAUDISIM_TPC_BUNDLE_SIZE || n > GAUDISIM_TPC_MAX_BUNDLES)
		return NULL;
	is_target = calloc(n ? n : 1, 1);
	o.cap = (size_t)n * per_bundle + 1;
	o.p = malloc(o.cap);
	o.len = 0;
	o.bad = false;
	if (!is_target || !o.p) {
		free(is_target);
		free(o.p);
		return NULL;
	}
	o.p[0] = '\0';
	for (pc = 0; pc < n; pc++) {
		long t = target_of(code + (size_t)pc * GAUDISIM_TPC_BUNDLE_SIZE);

		if (t >= 0 && t < (long)n)
			is_target[t] = 1;
	}
	for (pc = 0; pc < n; pc++) {
		if (is_target[pc])
			put(&o, "L%u:\n", pc);
		put(&o, "\t");
		put_bundle(&o, code + (size_t)pc * GAUDISIM_TPC_BUNDLE_SIZE, n);
		put(&o, "\n");
	}
	free(is_target);
	if (o.bad) {
		free(o.p);
		return NULL;
	}
	return o.p;
}
