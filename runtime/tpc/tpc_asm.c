/* SPDX-License-Identifier: MIT */
/*
 * TPC assembler: the text syntax of docs/tpc-isa.md -> bundles.
 *
 * One line is one bundle: up to four operations separated by ';', each
 * placed in the slot its mnemonic (and, for operations both the VPU and the
 * SPU have, its first operand's register file) selects. Labels end with
 * ':' and name the next bundle. Parsing is a single pass that records
 * label uses; labels are resolved at the end. The first error stops the
 * assembly and is reported as "name:line: message".
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpc_asm.h"

#define MAX_LINE	4096
#define MAX_NAME	64
#define MAX_OPERANDS	6

struct label {
	char name[MAX_NAME];
	uint32_t pc;
	unsigned int line;
};

struct equ {
	char name[MAX_NAME];
	char value[MAX_NAME];
};

/* A label used as a branch target, resolved when every label is known. */
struct fixup {
	char name[MAX_NAME];
	uint32_t pc;
	unsigned int slot;
	unsigned int line;
};

struct bundle {
	struct gaudisim_tpc_slot s[GAUDISIM_TPC_NUM_SLOTS];
	bool raw;
	uint8_t bytes[GAUDISIM_TPC_BUNDLE_SIZE];
	unsigned int line;
};

struct asm_state {
	const char *name;
	unsigned int line;
	char *err;
	size_t errlen;
	bool failed;

	struct bundle *b;
	uint32_t nb, cap_b;
	struct label *labels;
	unsigned int nlabels, cap_labels;
	struct equ *equs;
	unsigned int nequs, cap_equs;
	struct fixup *fix;
	unsigned int nfix, cap_fix;
};

static int fail(struct asm_state *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct asm_state *a, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (a->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (a->errlen)
		snprintf(a->err, a->errlen, "%s:%u: %s", a->name, a->line, msg);
	a->failed = true;
	return -1;
}

/* Grow *arr (of *cap elements of size sz) to hold n + 1 elements. */
static int grow(struct asm_state *a, void **arr, unsigned int n, unsigned int *cap, size_t sz)
{
	void *p;
	unsigned int c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 64;
	p = realloc(*arr, (size_t)c * sz);
	if (!p)
		return fail(a, "out of memory");
	*arr = p;
	*cap = c;
	return 0;
}

/* ---- small text helpers ------------------------------------------------------ */

struct tok {
	const char *p;
	size_t n;
};

static struct tok trim(const char *p, size_t n)
{
	while (n && isspace((unsigned char)*p))
		p++, n--;
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return (struct tok){ p, n };
}

static bool tok_is(struct tok t, const char *s)
{
	return strlen(s) == t.n && !strncmp(t.p, s, t.n);
}

static bool tok_ieq(struct tok t, const char *s)
{
	size_t i;

	if (strlen(s) != t.n)
		return false;
	for (i = 0; i < t.n; i++)
		if (tolower((unsigned char)t.p[i]) != tolower((unsigned char)s[i]))
			return false;
	return true;
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident(struct tok t)
{
	size_t i;

	if (!t.n || !is_ident_start(t.p[0]))
		return false;
	for (i = 1; i < t.n; i++)
		if (!isalnum((unsigned char)t.p[i]) && t.p[i] != '_')
			return false;
	return true;
}

/* Split t at the first 'c' (outside nothing: operands have no nesting). */
static int split(struct tok t, char c, struct tok *parts, int max)
{
	int n = 0;
	size_t start = 0, i;

	for (i = 0; i <= t.n; i++) {
		if (i == t.n || t.p[i] == c) {
			if (n == max)
				return -1;
			parts[n++] = trim(t.p + start, i - start);
			start = i + 1;
		}
	}
	return n;
}

/*
 * A register of file "prefix" (case-insensitive) with a number < limit.
 * Returns the number, -1 when t is not of that file, -2 when the number
 * is out of range.
 */
static int reg_num(struct tok t, const char *prefix, unsigned int limit)
{
	size_t pl = strlen(prefix), i;
	unsigned int v = 0;

	if (t.n <= pl || !tok_ieq((struct tok){ t.p, pl }, prefix))
		return -1;
	for (i = pl; i < t.n; i++) {
		if (!isdigit((unsigned char)t.p[i]))
			return -1;
		v = v * 10 + (unsigned int)(t.p[i] - '0');
		if (v > 1000)
			return -2;
	}
	if (t.n - pl > 1 && t.p[pl] == '0')
		return -1;	/* no leading zeros: one spelling per register */
	return v < limit ? (int)v : -2;
}

/* The register file a token names, for slot selection ("" if none). */
static const char *reg_file(struct tok t)
{
	static const char *const files[] = { "VP", "SP", "V", "S", "I", "T" };
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (reg_num(t, files[i], 1000) != -1)
			return files[i];
	return "";
}

static bool is_register(struct tok t)
{
	return reg_file(t)[0] != '\0';
}

/* ---- numbers ------------------------------------------------------------------ */

static struct tok resolve_equ(const struct asm_state *a, struct tok t)
{
	unsigned int i;

	if (!is_ident(t))
		return t;
	for (i = 0; i < a->nequs; i++)
		if (tok_is(t, a->equs[i].name))
			return (struct tok){ a->equs[i].value, strlen(a->equs[i].value) };
	return t;
}

/* A 32-bit integer: decimal (signed) or 0x hex; -2^31 .. 2^32-1. */
static int parse_int(struct asm_state *a, struct tok t, uint32_t *out)
{
	char buf[MAX_NAME], *end;
	bool neg = false, hex;
	unsigned long long v;
	const char *p;

	t = resolve_equ(a, t);
	if (!t.n || t.n >= sizeof(buf))
		return fail(a, "expected a number, found '%.*s'", (int)t.n, t.p);
	memcpy(buf, t.p, t.n);
	buf[t.n] = '\0';
	p = buf;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	if (!(hex ? isxdigit((unsigned char)p[2]) : isdigit((unsigned char)p[0])))
		return fail(a, "expected a number, found '%s'", buf);
	errno = 0;
	v = strtoull(hex ? p + 2 : p, &end, hex ? 16 : 10);
	if (*end || errno)
		return fail(a, "bad number '%s'", buf);
	if (neg ? v > 0x80000000ull : v > 0xffffffffull)
		return fail(a, "number '%s' does not fit 32 bits", buf);
	*out = neg ? (uint32_t)(0u - (uint32_t)v) : (uint32_t)v;
	return 0;
}

/* A float immediate: a decimal/inf/nan literal rounded to FP32, or 0x bits. */
static int parse_float(struct asm_state *a, struct tok t, uint32_t *out)
{
	char buf[MAX_NAME], *end;
	const char *digits;
	float f;

	t = resolve_equ(a, t);
	if (!t.n || t.n >= sizeof(buf))
		return fail(a, "expected a number, found '%.*s'", (int)t.n, t.p);
	memcpy(buf, t.p, t.n);
	buf[t.n] = '\0';
	digits = buf + (buf[0] == '-' || buf[0] == '+');
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
		if (digits != buf)
			return fail(a, "a raw bit pattern has no sign: '%s'", buf);
		return parse_int(a, t, out);
	}
	if (!isdigit((unsigned char)digits[0]) && digits[0] != '.' &&
	    !tok_ieq((struct tok){ digits, strlen(digits) < 3 ? strlen(digits) : 3 }, "inf") &&
	    !tok_ieq((struct tok){ digits, strlen(digits) < 3 ? strlen(digits) : 3 }, "nan"))
		return fail(a, "expected a number, found '%s'", buf);
	f = strtof(buf, &end);
	if (*end || end == buf)
		return fail(a, "bad number '%s'", buf);
	memcpy(out, &f, sizeof(*out));
	return 0;
}

static bool dt_float(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_FP32 || dt == GAUDISIM_DTYPE_BF16;
}

static int parse_imm(struct asm_state *a, struct tok t, const struct gaudisim_tpc_opinfo *op,
		     unsigned int dt, uint32_t *out)
{
	if (op->types != GAUDISIM_TPC_T_NONE && dt_float(dt))
		return parse_float(a, t, out);
	return parse_int(a, t, out);
}

/* ---- operands --------------------------------------------------------------------- */

static const char *role_prefix(unsigned int role, unsigned int *limit)
{
	switch (role) {
	case GAUDISIM_TPC_R_V:
		*limit = GAUDISIM_TPC_NUM_VREGS;
		return "V";
	case GAUDISIM_TPC_R_S:
		*limit = GAUDISIM_TPC_NUM_SREGS;
		return "S";
	case GAUDISIM_TPC_R_VP:
	case GAUDISIM_TPC_R_VPW:
		*limit = GAUDISIM_TPC_NUM_VPREDS;
		return "VP";
	case GAUDISIM_TPC_R_SP:
	case GAUDISIM_TPC_R_SPW:
		*limit = GAUDISIM_TPC_NUM_SPREDS;
		return "SP";
	case GAUDISIM_TPC_R_I:
		*limit = GAUDISIM_TPC_NUM_IREGS;
		return "I";
	case GAUDISIM_TPC_R_T:
		*limit = GAUDISIM_TPC_NUM_TENSORS;
		return "T";
	default:
		*limit = 0;
		return "";
	}
}

static int parse_role(struct asm_state *a, struct tok t, unsigned int role, unsigned int *out)
{
	unsigned int limit;
	const char *prefix = role_prefix(role, &limit);
	int v = reg_num(t, prefix, limit);

	if (v == -1)
		return fail(a, "expected a %s register, found '%.*s'", prefix, (int)t.n, t.p);
	if (v == -2)
		return fail(a, "register '%.*s' out of range (%s0..%s%u)", (int)t.n, t.p, prefix,
			    prefix, limit - 1);
	if ((role == GAUDISIM_TPC_R_VPW || role == GAUDISIM_TPC_R_SPW) && v == 0)
		return fail(a, "%s0 is always true and cannot be written", prefix);
	*out = (unsigned int)v;
	return 0;
}

/* SRC_B: a register of the role's file, a broadcast S register, or an immediate. */
static int parse_b(struct asm_state *a, struct tok t, const struct gaudisim_tpc_opinfo *op,
		   struct gaudisim_tpc_slot *s)
{
	int v;

	if (op->b == GAUDISIM_TPC_R_VB || op->b == GAUDISIM_TPC_R_SB) {
		if (op->b == GAUDISIM_TPC_R_VB && (v = reg_num(t, "V", 32)) != -1) {
			s->bk = GAUDISIM_TPC_BK_REG;
		} else if ((v = reg_num(t, "S", 32)) != -1) {
			s->bk = op->b == GAUDISIM_TPC_R_VB ? GAUDISIM_TPC_BK_SREG
							   : GAUDISIM_TPC_BK_REG;
		} else if (is_register(t)) {
			return fail(a, "'%.*s' cannot be this operand", (int)t.n, t.p);
		} else {
			s->bk = GAUDISIM_TPC_BK_IMM;
			s->sb = 0;
			return parse_imm(a, t, op, s->dt, &s->imm);
		}
		if (v == -2)
			return fail(a, "register '%.*s' out of range", (int)t.n, t.p);
		s->sb = (unsigned int)v;
		return 0;
	}
	return parse_role(a, t, op->b, &s->sb);
}

/* "I<n>.<digits>": a register and its dimension digits. */
static int parse_idims(struct asm_state *a, struct tok t, unsigned int *reg,
		       unsigned int *mask, bool single)
{
	size_t dot;
	unsigned int m = 0, i, last = 0;

	for (dot = 0; dot < t.n && t.p[dot] != '.'; dot++)
		;
	if (dot == t.n || dot + 1 == t.n)
		return fail(a, "expected I<n>.<dims>, found '%.*s'", (int)t.n, t.p);
	if (parse_role(a, (struct tok){ t.p, dot }, GAUDISIM_TPC_R_I, reg))
		return -1;
	for (i = (unsigned int)dot + 1; i < t.n; i++) {
		unsigned int d = (unsigned int)(t.p[i] - '0');

		if (t.p[i] < '0' || d >= GAUDISIM_TPC_NUM_DIMS || (m && d <= last))
			return fail(a, "bad dimensions '%.*s' (digits 0..4, ascending)",
				    (int)(t.n - dot - 1), t.p + dot + 1);
		m |= 1u << d;
		last = d;
	}
	if (single && t.n - dot != 2)
		return fail(a, "expected one dimension in '%.*s'", (int)t.n, t.p);
	*mask = single ? last : m;
	return 0;
}

/* A branch target: "@<index>" or a label (resolved later). */
static int parse_target(struct asm_state *a, struct tok t, unsigned int slot,
			struct gaudisim_tpc_slot *s)
{
	struct fixup *f;
	uint32_t v;

	if (t.n && t.p[0] == '@') {
		if (parse_int(a, (struct tok){ t.p + 1, t.n - 1 }, &v))
			return -1;
		if (v >= GAUDISIM_TPC_MAX_BUNDLES)
			return fail(a, "target %s is past the largest kernel", t.p);
		s->mod = v;
		return 0;
	}
	if (!is_ident(t) || is_register(t) || t.n >= MAX_NAME)
		return fail(a, "expected a label or @<index>, found '%.*s'", (int)t.n, t.p);
	if (grow(a, (void **)&a->fix, a->nfix, &a->cap_fix, sizeof(*a->fix)))
		return -1;
	f = &a->fix[a->nfix++];
	memcpy(f->name, t.p, t.n);
	f->name[t.n] = '\0';
	f->pc = a->nb;
	f->slot = slot;
	f->line = a->line;
	return 0;
}

/* "[!]VPn" / "[!]SPn": SEL's selector. */
static int parse_selector(struct asm_state *a, struct tok t, unsigned int slot,
			  struct gaudisim_tpc_slot *s)
{
	unsigned int p;
	bool neg = t.n && t.p[0] == '!';

	if (neg)
		t = trim(t.p + 1, t.n - 1);
	if (parse_role(a, t, slot == GAUDISIM_TPC_SLOT_VPU ? GAUDISIM_TPC_R_VP : GAUDISIM_TPC_R_SP,
		       &p))
		return -1;
	s->mod = p | (neg ? GAUDISIM_TPC_SEL_NEG : 0);
	return 0;
}

/* ---- one operation ---------------------------------------------------------------- */

/* Which slot a mnemonic goes to; first names the first operand (for ops
 * both the VPU and the SPU have). -1 when the mnemonic is unknown. */
static int find_op(struct tok mnem, struct tok first, unsigned int *slot_out,
		   unsigned int *opc_out)
{
	const char *file = reg_file(first);
	bool vector_first = !strcmp(file, "V") || !strcmp(file, "VP");
	int opc_in[GAUDISIM_TPC_NUM_SLOTS];
	unsigned int slot, opc;
	int n = 0;

	for (slot = 0; slot < GAUDISIM_TPC_NUM_SLOTS; slot++) {
		opc_in[slot] = -1;
		for (opc = 1; opc < GAUDISIM_TPC_NUM_OPCODES; opc++) {
			const struct gaudisim_tpc_opinfo *op = gaudisim_tpc_opinfo(slot, opc);

			if (op && tok_is(mnem, op->name)) {
				opc_in[slot] = (int)opc;
				*slot_out = slot;
				n++;
			}
		}
	}
	if (!n)
		return -1;
	/* Both units have it: the VPU for V/VP operands, else the SPU. */
	if (opc_in[GAUDISIM_TPC_SLOT_VPU] >= 0 && opc_in[GAUDISIM_TPC_SLOT_SPU] >= 0)
		*slot_out = vector_first ? GAUDISIM_TPC_SLOT_VPU : GAUDISIM_TPC_SLOT_SPU;
	*opc_out = (unsigned int)opc_in[*slot_out];
	return 0;
}

static const char *slot_name(unsigned int slot)
{
	static const char *const names[] = { "load", "VPU", "store", "SPU" };

	return names[slot];
}

/* Suffixes after the mnemonic: [.cond] [.dtype] [.dtype .rm] as the op needs. */
static int parse_suffixes(struct asm_state *a, struct tok *sfx, int nsfx,
			  const struct gaudisim_tpc_opinfo *op, struct gaudisim_tpc_slot *s)
{
	int i = 0, v;
	unsigned int c;

	if (op->mod == GAUDISIM_TPC_M_COND) {
		if (i >= nsfx)
			return fail(a, "%s needs a condition (.eq .ne .lt .le .gt .ge)", op->name);
		for (c = 0; c < GAUDISIM_TPC_NUM_CONDS; c++)
			if (tok_ieq(sfx[i], tpc_cond_names[c]))
				break;
		if (c == GAUDISIM_TPC_NUM_CONDS)
			return fail(a, "unknown condition '.%.*s'", (int)sfx[i].n, sfx[i].p);
		s->mod = c;
		i++;
	}
	if (op->types != GAUDISIM_TPC_T_NONE) {
		if (i >= nsfx)
			return fail(a, "%s needs a data type suffix (.f32 .bf16 .i32 ...)", op->name);
		v = tpc_dtype_parse(sfx[i].p, sfx[i].n);
		if (v < 0)
			return fail(a, "unknown data type '.%.*s'", (int)sfx[i].n, sfx[i].p);
		if (!gaudisim_tpc_dtype_in((unsigned int)v, op->types))
			return fail(a, "%s does not take .%.*s", op->name, (int)sfx[i].n, sfx[i].p);
		s->dt = (unsigned int)v;
		i++;
	}
	if (op->mod == GAUDISIM_TPC_M_CVT) {
		if (i >= nsfx)
			return fail(a, "cvt needs a destination type: cvt.<from>.<to>[.<rounding>]");
		v = tpc_dtype_parse(sfx[i].p, sfx[i].n);
		if (v < 0)
			return fail(a, "unknown data type '.%.*s'", (int)sfx[i].n, sfx[i].p);
		s->mod = (unsigned int)v;
		i++;
		if (i < nsfx) {
			for (c = 0; c < 4; c++)
				if (tok_ieq(sfx[i], tpc_rm_names[c]))
					break;
			if (c == 4)
				return fail(a, "unknown rounding mode '.%.*s' (.rne .rz .rd .ru)",
					    (int)sfx[i].n, sfx[i].p);
			s->mod |= c << GAUDISIM_TPC_CVT_RM_SHIFT;
			i++;
		}
	}
	if (i < nsfx)
		return fail(a, "unexpected suffix '.%.*s' on %s", (int)sfx[i].n, sfx[i].p, op->name);
	return 0;
}

static int want_operands(struct asm_state *a, const char *name, int got, int want)
{
	if (got != want)
		return fail(a, "%s takes %d operand%s, found %d", name, want, want == 1 ? "" : "s",
			    got);
	return 0;
}

/* Operands in the order of the op's form (docs/tpc-isa.md). */
static int parse_operands(struct asm_state *a, unsigned int slot,
			  const struct gaudisim_tpc_opinfo *op, struct tok *o, int n,
			  struct gaudisim_tpc_slot *s)
{
	int i = 0, want;

	switch (slot == GAUDISIM_TPC_SLOT_SPU ? s->opc : 0) {
	case GAUDISIM_TPC_OP_HALT:
		return want_operands(a, op->name, n, 0);
	case GAUDISIM_TPC_OP_JMP:
		if (want_operands(a, op->name, n, 1))
			return -1;
		return parse_target(a, o[0], slot, s);
	case GAUDISIM_TPC_OP_LOOP:
		if (want_operands(a, op->name, n, 3) || parse_role(a, o[0], op->dst, &s->dst) ||
		    parse_b(a, o[1], op, s))
			return -1;
		return parse_target(a, o[2], slot, s);
	case GAUDISIM_TPC_OP_ILOOP:
		if (want_operands(a, op->name, n, 4) ||
		    parse_idims(a, o[0], &s->dst, &s->sa, true) || parse_int(a, o[1], &s->imm) ||
		    parse_role(a, o[2], GAUDISIM_TPC_R_S, &s->sb))
			return -1;
		return parse_target(a, o[3], slot, s);
	case GAUDISIM_TPC_OP_ISET:
	case GAUDISIM_TPC_OP_IADD:
	case GAUDISIM_TPC_OP_IMUL:
		want = op->a == GAUDISIM_TPC_R_I ? 3 : 2;
		if (want_operands(a, op->name, n, want) ||
		    parse_idims(a, o[0], &s->dst, &s->mod, false))
			return -1;
		if (want == 3 && parse_role(a, o[1], GAUDISIM_TPC_R_I, &s->sa))
			return -1;
		return parse_b(a, o[want - 1], op, s);
	case GAUDISIM_TPC_OP_IGET:
		if (want_operands(a, op->name, n, 2) || parse_role(a, o[0], op->dst, &s->dst))
			return -1;
		return parse_idims(a, o[1], &s->sa, &s->mod, true);
	case GAUDISIM_TPC_OP_RD:
		if (want_operands(a, op->name, n, 2) || parse_role(a, o[0], op->dst, &s->dst))
			return -1;
		{
			int spec = tpc_spec_parse(o[1].p, o[1].n);

			if (spec < 0)
				return fail(a, "unknown special register '%.*s'", (int)o[1].n,
					    o[1].p);
			s->mod = (unsigned int)spec;
		}
		return 0;
	}

	want = (op->dst != GAUDISIM_TPC_R_NONE) + (op->a != GAUDISIM_TPC_R_NONE) +
	       (op->b != GAUDISIM_TPC_R_NONE) + (op->mod == GAUDISIM_TPC_M_SEL);
	if (want_operands(a, op->name, n, want))
		return -1;
	if (op->dst != GAUDISIM_TPC_R_NONE && parse_role(a, o[i++], op->dst, &s->dst))
		return -1;
	if (op->a != GAUDISIM_TPC_R_NONE && parse_role(a, o[i++], op->a, &s->sa))
		return -1;
	if (op->b != GAUDISIM_TPC_R_NONE && parse_b(a, o[i++], op, s))
		return -1;
	if (op->mod == GAUDISIM_TPC_M_SEL && parse_selector(a, o[i++], slot, s))
		return -1;
	return 0;
}

/* "[(pred)] mnemonic[.suffix...] operands" into its slot of bundle b. */
static int parse_op(struct asm_state *a, struct tok t, struct bundle *b, bool *used)
{
	struct tok mnem, rest, parts[8], ops[MAX_OPERANDS];
	char lower[MAX_NAME];
	struct gaudisim_tpc_slot s;
	const struct gaudisim_tpc_opinfo *op;
	unsigned int slot = 0, opc = 0;
	size_t i;
	int nparts, nops = 0;

	memset(&s, 0, sizeof(s));
	if (t.n && t.p[0] == '(') {
		struct tok p;
		size_t close;
		int v;

		for (close = 1; close < t.n && t.p[close] != ')'; close++)
			;
		if (close == t.n)
			return fail(a, "missing ')' after the predicate");
		p = trim(t.p + 1, close - 1);
		if (p.n && p.p[0] == '!') {
			s.pneg = 1;
			p = trim(p.p + 1, p.n - 1);
		}
		if ((v = reg_num(p, "VP", 8)) >= 0) {
			s.pvec = 1;
		} else if ((v = reg_num(p, "SP", 8)) < 0) {
			return fail(a, "bad predicate '(%.*s)': SP0..SP7 or VP0..VP7, optionally "
				    "negated with '!'", (int)(close - 1), t.p + 1);
		}
		s.pred = (unsigned int)v;
		t = trim(t.p + close + 1, t.n - close - 1);
	}
	for (i = 0; i < t.n && !isspace((unsigned char)t.p[i]); i++)
		;
	mnem = (struct tok){ t.p, i };
	rest = trim(t.p + i, t.n - i);
	if (rest.n && (nops = split(rest, ',', ops, MAX_OPERANDS)) < 0)
		return fail(a, "too many operands");
	for (i = 0; i < (size_t)nops; i++)
		if (!ops[i].n)
			return fail(a, "empty operand");

	/* Mnemonics and suffixes are case-insensitive. */
	if (mnem.n >= sizeof(lower))
		return fail(a, "unknown operation '%.*s'", (int)mnem.n, mnem.p);
	for (i = 0; i < mnem.n; i++)
		lower[i] = (char)tolower((unsigned char)mnem.p[i]);
	nparts = split((struct tok){ lower, mnem.n }, '.', parts, 8);
	if (nparts < 1 || !parts[0].n)
		return fail(a, "expected an operation");
	if (find_op(parts[0], nops ? ops[0] : (struct tok){ "", 0 }, &slot, &opc))
		return fail(a, "unknown operation '%.*s'", (int)parts[0].n, parts[0].p);
	op = gaudisim_tpc_opinfo(slot, opc);
	s.opc = opc;
	if (used[slot])
		return fail(a, "two operations for the %s slot in one bundle", slot_name(slot));
	used[slot] = true;
	if (s.pvec && !(op->flags & GAUDISIM_TPC_OPF_VPRED))
		return fail(a, "%s takes a scalar predicate (SPn), not a vector one", op->name);
	if (parse_suffixes(a, parts + 1, nparts - 1, op, &s) ||
	    parse_operands(a, slot, op, ops, nops, &s))
		return -1;
	b->s[slot] = s;
	return 0;
}

/* ---- lines ------------------------------------------------------------------------- */

static struct bundle *new_bundle(struct asm_state *a)
{
	struct bundle *b;

	if (a->nb >= GAUDISIM_TPC_MAX_BUNDLES) {
		fail(a, "more than %u bundles", GAUDISIM_TPC_MAX_BUNDLES);
		return NULL;
	}
	if (grow(a, (void **)&a->b, a->nb, &a->cap_b, sizeof(*a->b)))
		return NULL;
	b = &a->b[a->nb];
	memset(b, 0, sizeof(*b));
	b->line = a->line;
	return b;
}

static int parse_directive(struct asm_state *a, struct tok t)
{
	struct tok parts[GAUDISIM_TPC_BUNDLE_SIZE / 4 + 1];
	size_t i;
	int n;

	for (i = 0; i < t.n && !isspace((unsigned char)t.p[i]); i++)
		;
	if (tok_is((struct tok){ t.p, i }, ".raw")) {
		struct bundle *b = new_bundle(a);
		uint32_t w;
		int k;

		if (!b)
			return -1;
		n = split(trim(t.p + i, t.n - i), ',', parts, GAUDISIM_TPC_BUNDLE_SIZE / 4);
		if (n != GAUDISIM_TPC_BUNDLE_SIZE / 4)
			return fail(a, ".raw takes %d 32-bit words", GAUDISIM_TPC_BUNDLE_SIZE / 4);
		for (k = 0; k < n; k++) {
			if (parse_int(a, parts[k], &w))
				return -1;
			b->bytes[4 * k] = (uint8_t)w;
			b->bytes[4 * k + 1] = (uint8_t)(w >> 8);
			b->bytes[4 * k + 2] = (uint8_t)(w >> 16);
			b->bytes[4 * k + 3] = (uint8_t)(w >> 24);
		}
		b->raw = true;
		a->nb++;
		return 0;
	}
	if (tok_is((struct tok){ t.p, i }, ".equ")) {
		struct equ *e;
		unsigned int k;

		n = split(trim(t.p + i, t.n - i), ',', parts, 2);
		if (n != 2 || !is_ident(parts[0]) || !parts[1].n)
			return fail(a, ".equ takes a name and a value: .equ NAME, VALUE");
		if (parts[0].n >= MAX_NAME || parts[1].n >= MAX_NAME)
			return fail(a, ".equ name or value too long");
		if (is_register(parts[0]))
			return fail(a, "'%.*s' is a register name", (int)parts[0].n, parts[0].p);
		for (k = 0; k < a->nequs; k++)
			if (tok_is(parts[0], a->equs[k].name))
				return fail(a, "'%.*s' already defined", (int)parts[0].n,
					    parts[0].p);
		if (grow(a, (void **)&a->equs, a->nequs, &a->cap_equs, sizeof(*a->equs)))
			return -1;
		e = &a->equs[a->nequs++];
		memcpy(e->name, parts[0].p, parts[0].n);
		e->name[parts[0].n] = '\0';
		/* The value, itself resolved, so chains of names work. */
		parts[1] = resolve_equ(a, parts[1]);
		memcpy(e->value, parts[1].p, parts[1].n);
		e->value[parts[1].n] = '\0';
		return 0;
	}
	return fail(a, "unknown directive '%.*s'", (int)i, t.p);
}

static int add_label(struct asm_state *a, struct tok name)
{
	struct label *l;
	unsigned int i;

	if (!is_ident(name) || name.n >= MAX_NAME)
		return fail(a, "bad label '%.*s'", (int)name.n, name.p);
	if (is_register(name))
		return fail(a, "label '%.*s' is a register name", (int)name.n, name.p);
	for (i = 0; i < a->nlabels; i++)
		if (tok_is(name, a->labels[i].name))
			return fail(a, "label '%.*s' already defined on line %u", (int)name.n,
				    name.p, a->labels[i].line);
	if (grow(a, (void **)&a->labels, a->nlabels, &a->cap_labels, sizeof(*a->labels)))
		return -1;
	l = &a->labels[a->nlabels++];
	memcpy(l->name, name.p, name.n);
	l->name[name.n] = '\0';
	l->pc = a->nb;
	l->line = a->line;
	return 0;
}

static int parse_line(struct asm_state *a, const char *p, size_t n)
{
	struct tok t, ops[GAUDISIM_TPC_NUM_SLOTS + 1];
	bool used[GAUDISIM_TPC_NUM_SLOTS] = { false };
	struct bundle *b;
	size_t i;
	int nops, k;

	/* Comments: '//' or '#' to the end of the line. */
	for (i = 0; i < n; i++)
		if (p[i] == '#' || (p[i] == '/' && i + 1 < n && p[i + 1] == '/'))
			break;
	t = trim(p, i);

	/* Labels: "name:" (several may precede one bundle). */
	for (;;) {
		for (i = 0; i < t.n && (isalnum((unsigned char)t.p[i]) || t.p[i] == '_'); i++)
			;
		if (i == 0 || i >= t.n || t.p[i] != ':')
			break;
		if (add_label(a, (struct tok){ t.p, i }))
			return -1;
		t = trim(t.p + i + 1, t.n - i - 1);
	}
	if (!t.n)
		return 0;
	if (t.p[0] == '.')
		return parse_directive(a, t);

	b = new_bundle(a);
	if (!b)
		return -1;
	if (tok_ieq(t, "nop")) {
		a->nb++;
		return 0;
	}
	nops = split(t, ';', ops, GAUDISIM_TPC_NUM_SLOTS);
	if (nops < 0)
		return fail(a, "more than %d operations in one bundle", GAUDISIM_TPC_NUM_SLOTS);
	for (k = 0; k < nops; k++) {
		if (!ops[k].n)
			return fail(a, "empty operation between ';'");
		if (tok_ieq(ops[k], "nop"))
			return fail(a, "'nop' is a whole bundle; leave a slot out instead");
		if (parse_op(a, ops[k], b, used))
			return -1;
	}
	a->nb++;
	return 0;
}

/* ---- the program ------------------------------------------------------------------- */

static int resolve(struct asm_state *a)
{
	unsigned int f, i;

	for (f = 0; f < a->nfix; f++) {
		struct fixup *x = &a->fix[f];

		for (i = 0; i < a->nlabels; i++)
			if (!strcmp(a->labels[i].name, x->name))
				break;
		a->line = x->line;
		if (i == a->nlabels)
			return fail(a, "undefined label '%s'", x->name);
		if (a->labels[i].pc >= a->nb)
			return fail(a, "label '%s' is after the last bundle", x->name);
		a->b[x->pc].s[x->slot].mod = a->labels[i].pc;
	}
	return 0;
}

static int emit(struct asm_state *a, uint8_t *code)
{
	uint32_t pc;
	unsigned int slot, bad_slot;

	for (pc = 0; pc < a->nb; pc++) {
		struct bundle *b = &a->b[pc];
		uint8_t *p = code + (size_t)pc * GAUDISIM_TPC_BUNDLE_SIZE;
		int bad;

		if (b->raw) {
			memcpy(p, b->bytes, GAUDISIM_TPC_BUNDLE_SIZE);
			continue;
		}
		memset(p, 0, GAUDISIM_TPC_BUNDLE_SIZE);
		for (slot = 0; slot < GAUDISIM_TPC_NUM_SLOTS; slot++)
			gaudisim_tpc_slot_encode(p, slot, &b->s[slot]);
		/* The parser enforces the rules; this catches what it missed. */
		bad = gaudisim_tpc_check_bundle(p, 0, &bad_slot);
		if (bad != GAUDISIM_TPC_OK) {
			a->line = b->line;
			return fail(a, "the %s operation cannot be encoded (reason %d)",
				    slot_name(bad_slot), bad);
		}
	}
	return 0;
}

int tpc_assemble(const char *src, size_t len, const char *name, uint8_t **code, size_t *size,
		 char *err, size_t errlen)
{
	struct asm_state a = { .name = name ? name : "<input>", .err = err, .errlen = errlen };
	size_t pos = 0;
	uint8_t *out = NULL;
	int ret = -1;

	if (errlen)
		err[0] = '\0';
	*code = NULL;
	*size = 0;
	while (pos < len && !a.failed) {
		size_t end = pos;

		while (end < len && src[end] != '\n')
			end++;
		a.line++;
		if (end - pos > MAX_LINE)
			fail(&a, "line longer than %d characters", MAX_LINE);
		else if (memchr(src + pos, '\0', end - pos))
			fail(&a, "NUL character in the source");
		else
			parse_line(&a, src + pos, end - pos);
		pos = end + 1;
	}
	if (!a.failed && !a.nb) {
		a.line = a.line ? a.line : 1;
		fail(&a, "no bundles");
	}
	if (!a.failed && !resolve(&a)) {
		out = malloc((size_t)a.nb * GAUDISIM_TPC_BUNDLE_SIZE);
		if (!out)
			fail(&a, "out of memory");
		else if (!emit(&a, out))
			ret = 0;
	}
	if (ret == 0) {
		*code = out;
		*size = (size_t)a.nb * GAUDISIM_TPC_BUNDLE_SIZE;
	} else {
		free(out);
	}
	free(a.b);
	free(a.labels);
	free(a.equs);
	free(a.fix);
	return ret;
}
