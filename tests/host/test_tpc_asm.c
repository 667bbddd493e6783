// SPDX-License-Identifier: MIT
/*
 * TPC assembler and disassembler (runtime/tpc): encodings of known
 * instructions, the syntax (labels, comments, .equ, predicates, number
 * forms), error messages with line numbers, and the round trip
 * text -> bytes -> text -> the same bytes on every kernel of
 * runtime/kernels and on random legal and illegal bundles.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "tpc_asm.h"

#define B GAUDISIM_TPC_BUNDLE_SIZE

static uint8_t *assemble_ok(const char *src, size_t *size)
{
	char err[512];
	uint8_t *code;

	ck_assert_msg(tpc_assemble(src, strlen(src), "t", &code, size, err, sizeof(err)) == 0,
		      "assembly failed: %s\n--- source:\n%s", err, src);
	return code;
}

/* Assemble, expecting an error that contains want. */
static void assemble_err(const char *src, const char *want)
{
	char err[512];
	uint8_t *code = (uint8_t *)1;
	size_t size = 1;

	ck_assert_msg(tpc_assemble(src, strlen(src), "t", &code, &size, err, sizeof(err)) == -1,
		      "accepted: %s", src);
	ck_assert_ptr_null(code);
	ck_assert_uint_eq(size, 0);
	ck_assert_msg(strstr(err, want) != NULL, "error \"%s\" lacks \"%s\"", err, want);
}

/* code -> text -> code must give the same bytes, and the same text again. */
static void round_trip(const uint8_t *code, size_t size)
{
	char *text = tpc_disassemble(code, size), *text2;
	uint8_t *again;
	size_t size2;

	ck_assert_ptr_nonnull(text);
	again = assemble_ok(text, &size2);
	ck_assert_uint_eq(size2, size);
	if (memcmp(again, code, size)) {
		size_t i;

		for (i = 0; i < size && again[i] == code[i]; i++)
			;
		ck_abort_msg("round trip differs in bundle %zu:\n%s", i / B, text);
	}
	text2 = tpc_disassemble(again, size2);
	ck_assert_str_eq(text, text2);
	free(text);
	free(text2);
	free(again);
}

static void slot_of(const uint8_t *code, unsigned int pc, unsigned int slot,
		    struct gaudisim_tpc_slot *s)
{
	gaudisim_tpc_slot_decode(code + (size_t)pc * B, slot, s);
}

START_TEST(test_encodings)
{
	size_t size;
	uint8_t *code = assemble_ok(
		"ld.bf16 V7, T3, I2 ; add.f32 V1, V2, V3 ; st.u8 T4, I5, V6 ; iadd I1.03, I4, -2\n"
		"(!VP3) max.i16 V30, V31, S9 ; (SP2) mov.f32 S1, 1.5\n"
		"cmp.le.u32 VP7, V0, 4000000000\n"
		"cvt.f32.i8.ru V4, V5 ; rd S3, T6.stride.2\n"
		"top: sel.bf16 V1, V2, V3, !VP4 ; iloop I3.4, -64, S8, top\n", &size);
	struct gaudisim_tpc_slot s;

	ck_assert_uint_eq(size, 5 * B);
	slot_of(code, 0, GAUDISIM_TPC_SLOT_LOAD, &s);
	ck_assert_uint_eq(s.opc, GAUDISIM_TPC_LD_TNSR);
	ck_assert_uint_eq(s.dt, GAUDISIM_DTYPE_BF16);
	ck_assert_uint_eq(s.dst, 7);
	ck_assert_uint_eq(s.sa, 3);
	ck_assert_uint_eq(s.sb, 2);
	slot_of(code, 0, GAUDISIM_TPC_SLOT_VPU, &s);
	ck_assert_uint_eq(s.opc, GAUDISIM_TPC_OP_ADD);
	ck_assert_uint_eq(s.bk, GAUDISIM_TPC_BK_REG);
	ck_assert_uint_eq(s.dst * 100 + s.sa * 10 + s.sb, 123);
	slot_of(code, 0, GAUDISIM_TPC_SLOT_STORE, &s);
	ck_assert_uint_eq(s.opc, GAUDISIM_TPC_ST_TNSR);
	ck_assert_uint_eq(s.dt, GAUDISIM_DTYPE_UINT8);
	ck_assert_uint_eq(s.dst * 100 + s.sa * 10 + s.sb, 456);
	slot_of(code, 0, GAUDISIM_TPC_SLOT_SPU, &s);
	ck_assert_uint_eq(s.opc, GAUDISIM_TPC_OP_IADD);
	ck_assert_uint_eq(s.mod, 0x9);
	ck_assert_uint_eq(s.bk, GAUDISIM_TPC_BK_IMM);
	ck_assert_uint_eq(s.imm, (uint32_t)-2);

	slot_of(code, 1, GAUDISIM_TPC_SLOT_VPU, &s);
	ck_assert_uint_eq(s.opc, GAUDISIM_TPC_OP_MAX);
	ck_assert_uint_eq(s.pred * 10 + s.pneg * 100 + s.pvec * 1000, 1130);
	ck_assert_uint_eq(s.bk, GAUDISIM_TPC_BK_SREG);
	ck_assert_uint_eq(s.sb, 9);
	slot_of(code, 1, GAUDISIM_TPC_SLOT_SPU, &s);
	ck_assert_uint_eq(s.opc, GAUDISIM_TPC_OP_MOV);
	ck_assert_uint_eq(s.pred, 2);
	ck_assert_uint_eq(s.pvec, 0);
	ck_assert_uint_eq(s.imm, 0x3fc00000);

	slot_of(code, 2, GAUDISIM_TPC_SLOT_VPU, &s);
	ck_assert_uint_eq(s.opc, GAUDISIM_TPC_OP_CMP);
	ck_assert_uint_eq(s.mod, GAUDISIM_TPC_CMP_LE);
	ck_assert_uint_eq(s.imm, 4000000000u);

	slot_of(code, 3, GAUDISIM_TPC_SLOT_VPU, &s);
	ck_assert_uint_eq(s.mod, GAUDISIM_DTYPE_INT8 | GAUDISIM_TPC_RM_RU << GAUDISIM_TPC_CVT_RM_SHIFT);
	slot_of(code, 3, GAUDISIM_TPC_SLOT_SPU, &s);
	ck_assert_uint_eq(s.mod, GAUDISIM_TPC_SPEC_TSTRIDE(6, 2));

	slot_of(code, 4, GAUDISIM_TPC_SLOT_VPU, &s);
	ck_assert_uint_eq(s.mod, 4 | GAUDISIM_TPC_SEL_NEG);
	slot_of(code, 4, GAUDISIM_TPC_SLOT_SPU, &s);
	ck_assert_uint_eq(s.opc, GAUDISIM_TPC_OP_ILOOP);
	ck_assert_uint_eq(s.dst, 3);
	ck_assert_uint_eq(s.sa, 4);
	ck_assert_uint_eq(s.sb, 8);
	ck_assert_uint_eq(s.imm, (uint32_t)-64);
	ck_assert_uint_eq(s.mod, 4);	/* "top" is bundle 4 */
	round_trip(code, size);
	free(code);
}
END_TEST

START_TEST(test_syntax)
{
	size_t size, size2;
	uint8_t *a = assemble_ok(
		"# a comment line\n"
		"\n"
		"   // another one\n"
		".equ STEP, 64\n"
		".equ ALIAS, STEP\n"
		"first:\n"
		"second:   MOV.I32 v1, 0x10   // hex immediate, upper case\n"
		"third: iadd i1.0, I1, ALIAS ; ADD.F32 V2, V2, -1e3\n"
		"\tmov.f32 V3, -inf ; jmp second\n"
		"cvt.f32.bf16 V4, V4\n"
		"mov.f32 V5, nan ; halt # trailing\n", &size);
	uint8_t *b = assemble_ok(
		"mov.i32 V1, 16\n"
		"add.f32 V2, V2, -1000 ; iadd I1.0, I1, 64\n"
		"mov.f32 V3, 0xff800000 ; jmp @0\n"
		"cvt.f32.bf16.rne V4, V4\n"
		"mov.f32 V5, 0x7fc00000 ; halt\n", &size2);

	ck_assert_uint_eq(size, 5 * B);
	ck_assert_uint_eq(size2, size);
	ck_assert(!memcmp(a, b, size));
	free(a);
	free(b);

	/* "nop" is an empty bundle; a label may be the only thing on a line. */
	a = assemble_ok("nop\nend:\n\thalt\n", &size);
	ck_assert_uint_eq(size, 2 * B);
	for (size2 = 0; size2 < B; size2++)
		ck_assert_uint_eq(a[size2], 0);
	free(a);

	/* Numbers at the edges of 32 bits. */
	a = assemble_ok("mov.i32 S1, -2147483648\nmov.u32 S2, 4294967295\nhalt\n", &size);
	{
		struct gaudisim_tpc_slot s;

		slot_of(a, 0, GAUDISIM_TPC_SLOT_SPU, &s);
		ck_assert_uint_eq(s.imm, 0x80000000u);
		slot_of(a, 1, GAUDISIM_TPC_SLOT_SPU, &s);
		ck_assert_uint_eq(s.imm, 0xffffffffu);
	}
	free(a);
}
END_TEST

START_TEST(test_errors)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
		{ "halt\nfrob V1, V2\n", "t:2: unknown operation 'frob'" },
		{ "add.f32 V1, V2, V32\n", "t:1: register 'V32' out of range" },
		{ "cmp.eq.i32 VP0, V1, V2\n", "VP0 is always true" },
		{ "add.f32 V1, V2, V3 ; mul.f32 V4, V5, V6\n", "two operations for the VPU slot" },
		{ "ld.f32 V1, T0, I0 ; lds.f32 S1, T0, I0\n", "two operations for the load slot" },
		{ "jmp nowhere\n", "t:1: undefined label 'nowhere'" },
		{ "a: halt\na: halt\n", "t:2: label 'a' already defined on line 1" },
		{ "add V1, V2, V3\n", "needs a data type suffix" },
		{ "exp.i32 V1, V2\n", "exp does not take .i32" },
		{ "shl.f32 V1, V2, V3\n", "shl does not take .f32" },
		{ "mov.i32 S1, 4294967296\n", "does not fit 32 bits" },
		{ "mov.i32 S1, 12abc\n", "bad number" },
		{ "add.f32 V1, V2, V3, V4\n", "add takes 3 operands, found 4" },
		{ "(SP9) halt\n", "bad predicate" },
		{ "(VP1) add.i32 S1, S2, S3\n", "takes a scalar predicate" },
		{ "", "no bundles" },
		{ "# only a comment\n", "no bundles" },
		{ ".raw 1, 2, 3\n", ".raw takes 8 32-bit words" },
		{ "V1: halt\n", "is a register name" },
		{ "jmp @70000\n", "past the largest kernel" },
		{ "cmp.xx.f32 VP1, V1, V2\n", "unknown condition" },
		{ "cvt.f32.i32.rq V1, V2\n", "unknown rounding mode" },
		{ "cvt.f32 V1, V2\n", "cvt needs a destination type" },
		{ "add.f32 V1, V2, I3\n", "cannot be this operand" },
		{ "iadd I1.50, I1, 1\n", "bad dimensions" },
		{ "iadd I1.10, I1, 1\n", "ascending" },
		{ "iget S1, I2.01\n", "expected one dimension" },
		{ "rd S1, T9.size.0\n", "unknown special register" },
		{ "sel.f32 V1, V2, V3, SP1\n", "expected a VP register" },
		{ "mov.f32 V1, -0x3f800000\n", "raw bit pattern has no sign" },
		{ ".equ X, 1\n.equ X, 2\nhalt\n", "t:2: 'X' already defined" },
		{ ".bogus 1\n", "unknown directive" },
		{ "halt ; nop\n", "'nop' is a whole bundle" },
		{ "add.f32 V1, , V2\n", "empty operand" },
		{ "halt ;; halt\n", "empty operation" },
		{ "iloop I1.0, 64, 100, top\ntop: halt\n", "expected a S register" },
		{ "mov.f32 V1, V01\n", "expected a number" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assemble_err(cases[i].src, cases[i].want);
}
END_TEST

START_TEST(test_disasm_forms)
{
	uint8_t bundle[B] = { 0 };
	char text[512];

	ck_assert_int_gt(tpc_disasm_bundle(bundle, 1, text, sizeof(text)), 0);
	ck_assert_str_eq(text, "nop");
	bundle[0] = 0x3f;	/* no such load opcode */
	tpc_disasm_bundle(bundle, 1, text, sizeof(text));
	ck_assert_str_eq(text, ".raw 0x0000003f, 0x00000000, 0x00000000, 0x00000000, "
			       "0x00000000, 0x00000000, 0x00000000, 0x00000000");
	ck_assert_int_eq(tpc_disasm_bundle(bundle, 1, text, 10), -1);
	ck_assert_ptr_null(tpc_disassemble(bundle, B - 1));
	{
		size_t size;
		uint8_t *code = assemble_ok("top: mov.f32 V1, 0.1 ; jmp top\n"
					    "mov.f32 V2, 16777216 ; jmp @7\n", &size);
		char *t = tpc_disassemble(code, size);

		ck_assert_str_eq(t, "L0:\n"
				    "\tmov.f32 V1, 0.100000001 ; jmp L0\n"
				    "\tmov.f32 V2, 16777216 ; jmp @7\n");
		free(t);
		free(code);
	}
}
END_TEST

/* Every kernel of runtime/kernels: assemble, disassemble, assemble again. */
START_TEST(test_kernels_round_trip)
{
	char dir[1024], path[2048], *slash;
	unsigned int count = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", __FILE__);
	slash = strrchr(dir, '/');
	ck_assert_ptr_nonnull(slash);
	snprintf(slash, sizeof(dir) - (size_t)(slash - dir), "/../../runtime/kernels");
	d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name), len, size;
		uint8_t *code;
		char *src;
		FILE *f;

		if (n < 6 || strcmp(e->d_name + n - 5, ".tpcs"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "rb");
		ck_assert_ptr_nonnull(f);
		src = calloc(1, 1 << 20);
		len = fread(src, 1, (1 << 20) - 1, f);
		fclose(f);
		{
			char err[512];

			ck_assert_msg(tpc_assemble(src, len, e->d_name, &code, &size, err,
						   sizeof(err)) == 0, "%s", err);
		}
		round_trip(code, size);
		free(code);
		free(src);
		count++;
	}
	closedir(d);
	ck_assert_uint_ge(count, 4);
}
END_TEST

/* Random legal programs: every operation, field and immediate form. */
START_TEST(test_random_round_trip)
{
	uint64_t st = 0x1234;
	uint8_t code[64 * B];
	unsigned int iter;

	for (iter = 0; iter < 2000; iter++) {
		uint32_t nb = 1 + (uint32_t)(tpc_rand64(&st) % 64), pc;

		for (pc = 0; pc < nb; pc++) {
			/* Some bundles get targets beyond the program (printed as @n). */
			tpc_random_bundle(&st, iter % 4 ? nb : 0, code + pc * B);
			ck_assert_int_eq(gaudisim_tpc_check_bundle(code + pc * B, 0, NULL),
					 GAUDISIM_TPC_OK);
		}
		round_trip(code, (size_t)nb * B);
	}
}
END_TEST

/* Illegal bundles come back as .raw, byte for byte. */
START_TEST(test_random_bytes_round_trip)
{
	uint64_t st = 0x5678;
	uint8_t code[32 * B];
	unsigned int iter, i;

	for (iter = 0; iter < 500; iter++) {
		uint32_t nb = 1 + (uint32_t)(tpc_rand64(&st) % 32);

		for (i = 0; i < nb * B; i++)
			code[i] = (uint8_t)tpc_rand64(&st);
		round_trip(code, (size_t)nb * B);
	}
}
END_TEST

/*
 * Mutated sources: the assembler either accepts the text (and then the
 * bytes round-trip) or names a line; it never crashes. Run under the
 * sanitizers, this is a small fuzzer.
 */
START_TEST(test_mutated_sources)
{
	static const char *const base =
		".equ N, 64\n"
		"start: imul I1.0, I0, N ; mov.f32 V2, -inf\n"
		"(SP1) add.bf16 V1, V2, 1.5 ; rd S20, T0.size.0\n"
		"row: ld.f32 V1, T0, I1 ; (!VP3) max.f32 V2, V2, V1 ; iloop I1.0, 64, S20, row\n"
		"cvt.f32.i8.rz V4, V2 ; st.i8 T1, I0, V4 ; cmp.lt.u32 SP2, S3, 0x10\n"
		"sel.i32 V5, V4, S7, !VP2 ; sts.u16 T2, I3, S1 ; jmp start\n"
		".raw 0, 0, 0, 0, 0, 0, 0, 0\n"
		"halt // done\n";
	static const char alphabet[] = "VSIPT0123456789.,;:()!@#/-x ltfiu\n\t";
	char text[1024], err[512];
	uint64_t st = 0xabcd;
	unsigned int iter, k;

	for (iter = 0; iter < 20000; iter++) {
		size_t n = strlen(base), size;
		uint8_t *code;

		memcpy(text, base, n + 1);
		for (k = 0; k < 1 + tpc_rand64(&st) % 4; k++) {
			size_t at = (size_t)(tpc_rand64(&st) % n);

			switch (tpc_rand64(&st) % 4) {
			case 0:		/* replace */
				text[at] = alphabet[tpc_rand64(&st) % (sizeof(alphabet) - 1)];
				break;
			case 1:		/* delete */
				memmove(text + at, text + at + 1, n - at);
				n--;
				break;
			case 2:		/* any byte */
				text[at] = (char)(tpc_rand64(&st) % 256);
				break;
			default:	/* duplicate a piece */
				if (n + 16 < sizeof(text)) {
					memmove(text + at + 16, text + at, n - at + 1);
					n += 16;
				}
				break;
			}
		}
		if (tpc_assemble(text, n, "m", &code, &size, err, sizeof(err)) == 0) {
			round_trip(code, size);
			free(code);
		} else {
			ck_assert_msg(!strncmp(err, "m:", 2) && strlen(err) > 4, "bad message '%s'",
				      err);
		}
	}
}
END_TEST

Suite *tpc_asm_suite(void)
{
	Suite *s = suite_create("tpc_asm");
	TCase *tc = tcase_create("tpc_asm");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_encodings);
	tcase_add_test(tc, test_syntax);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_disasm_forms);
	tcase_add_test(tc, test_kernels_round_trip);
	tcase_add_test(tc, test_random_round_trip);
	tcase_add_test(tc, test_random_bytes_round_trip);
	tcase_add_test(tc, test_mutated_sources);
	suite_add_tcase(s, tc);
	return s;
}
