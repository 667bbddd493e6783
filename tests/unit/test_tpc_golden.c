/* SPDX-License-Identifier: MIT */
/*
 * TPC bundle encoding against bytes written by hand from docs/tpc-isa.md
 * (section 5: 48-bit slots at bytes 0, 6, 12, 18; opcode [5:0], dtype
 * [9:6], predicate [12:10], negate [13], vector predicate [14], DST
 * [19:15], SRC_A [24:20], SRC_B [29:25], SRC_B kind [31:30], modifier
 * [47:32]; VPU and SPU immediates at bytes 24 and 28, little-endian).
 *
 * The other TPC tests build their expectations with the same header
 * macros the device and the assembler use, so a wrong shift or field
 * width there would go unseen; here each byte was worked out on paper.
 * Each golden bundle is checked three ways: the assembler produces it,
 * the contract's slot encoder produces it from the fields, and the
 * contract's decoder and legality check (the device's) read it back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_test.h"
#include "hw/gaudisim_hw_tpc.h"
#include "../../runtime/tpc/tpc_asm.h"

struct golden {
	const char *text;
	unsigned int nbundles;
	uint8_t bytes[2 * GAUDISIM_TPC_BUNDLE_SIZE];
};

static const struct golden goldens[] = {
	{
		/* SPU opcode 1 in byte 18, nothing else. */
		"halt", 1,
		{ [18] = 0x01 },
	},
	{
		/*
		 * LOAD  ld  opc 1, DST V1 (1 << 15), SRC_A T0, SRC_B I1 (1 << 25)
		 *       = 0x02008001
		 * VPU   max opc 8, DST V1, SRC_A V1 (1 << 20), kind imm (2 << 30)
		 *       = 0x80108008, immediate 1.5f = 0x3fc00000
		 * STORE st  opc 1, DST T1 (1 << 15), SRC_A I1 (1 << 20),
		 *       SRC_B V1 (1 << 25) = 0x02108001
		 * SPU   halt = 0x01
		 */
		"ld.f32 V1, T0, I1 ; max.f32 V1, V1, 1.5 ; st.f32 T1, I1, V1 ; halt", 1,
		{ 0x01, 0x80, 0x00, 0x02, 0x00, 0x00,
		  0x08, 0x80, 0x10, 0x80, 0x00, 0x00,
		  0x01, 0x80, 0x10, 0x02, 0x00, 0x00,
		  0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x00, 0x00, 0xc0, 0x3f,
		  0x00, 0x00, 0x00, 0x00 },
	},
	{
		/*
		 * SPU add opc 3, dtype INT32 (2 << 6), DST S20 (20 << 15),
		 * SRC_A S20 (20 << 20), kind imm (2 << 30) = 0x814a0083;
		 * SPU immediate 4096.
		 */
		"add.i32 S20, S20, 4096", 1,
		{ [18] = 0x83, [19] = 0x00, [20] = 0x4a, [21] = 0x81,
		  [28] = 0x00, [29] = 0x10 },
	},
	{
		/*
		 * Bundle 0:
		 * VPU cvt opc 19, from FP32 (0), DST V6 (6 << 15), SRC_A V7
		 *     (7 << 20) = 0x00730013; modifier INT8 (4) | RZ (1 << 4) = 0x14
		 * SPU loop opc 41, predicate SP4 (4 << 10) negated (1 << 13),
		 *     DST S3 (3 << 15), kind imm (2 << 30) = 0x8001b029;
		 *     modifier = target bundle 1; SPU immediate 10
		 * Bundle 1: halt.
		 */
		"cvt.f32.i8.rz V6, V7 ; (!SP4) loop S3, 10, @1\nhalt", 2,
		{ [6] = 0x13, [7] = 0x00, [8] = 0x73, [9] = 0x00, [10] = 0x14,
		  [18] = 0x29, [19] = 0xb0, [20] = 0x01, [21] = 0x80, [22] = 0x01,
		  [28] = 0x0a,
		  [32 + 18] = 0x01 },
	},
	{
		/*
		 * LOAD  lds opc 2, INT16 (7 << 6), DST S9 (9 << 15), SRC_A T7
		 *       (7 << 20), SRC_B I6 (6 << 25) = 0x0c7481c2
		 * VPU   cmp opc 17, BF16 (1 << 6), VP2 (2 << 10) negated
		 *       (1 << 13), vector predicate (1 << 14), DST VP3 (3 << 15),
		 *       SRC_A V4 (4 << 20), SRC_B S5 (5 << 25) broadcast
		 *       (1 << 30) = 0x4a41e851; modifier LT = 2
		 * STORE st  opc 1, UINT8 (5 << 6), VP5 (5 << 10), vector
		 *       predicate (1 << 14), DST T2 (2 << 15), SRC_A I3 (3 << 20),
		 *       SRC_B V31 (31 << 25) = 0x3e315541
		 */
		"lds.i16 S9, T7, I6 ; (!VP2) cmp.lt.bf16 VP3, V4, S5 ; (VP5) st.u8 T2, I3, V31", 1,
		{ 0xc2, 0x81, 0x74, 0x0c, 0x00, 0x00,
		  0x51, 0xe8, 0x41, 0x4a, 0x02, 0x00,
		  0x41, 0x55, 0x31, 0x3e, 0x00, 0x00 },
	},
};
#define N_GOLDEN (sizeof(goldens) / sizeof(goldens[0]))

static void dump(char *out, size_t len, const uint8_t *b, size_t n)
{
	size_t i, used = 0;

	for (i = 0; i < n && used + 4 < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%02x%s", b[i],
					 i % 6 == 5 ? " " : "");
}

START_TEST(test_tpc_golden_assembler)
{
	const struct golden *g = &goldens[_i];
	size_t size = 0, n = g->nbundles * GAUDISIM_TPC_BUNDLE_SIZE;
	char err[256] = "", got[256] = "", want[256] = "";
	uint8_t *code = NULL;

	ck_assert_msg(tpc_assemble(g->text, strlen(g->text), "golden", &code, &size, err,
				   sizeof(err)) == 0, "%s: %s", g->text, err);
	ck_assert_uint_eq(size, n);
	dump(got, sizeof(got), code, n);
	dump(want, sizeof(want), g->bytes, n);
	ck_assert_msg(!memcmp(code, g->bytes, n), "%s:\n got  %s\n want %s", g->text, got, want);
	free(code);
}
END_TEST

/* Fields of the second golden bundle, as the encoder takes them. */
START_TEST(test_tpc_golden_slot_encoder)
{
	const struct gaudisim_tpc_slot ld = {
		.opc = GAUDISIM_TPC_LD_TNSR, .dst = 1, .sa = 0, .sb = 1,
	};
	const struct gaudisim_tpc_slot max = {
		.opc = GAUDISIM_TPC_OP_MAX, .dst = 1, .sa = 1, .bk = GAUDISIM_TPC_BK_IMM,
		.imm = 0x3fc00000,
	};
	const struct gaudisim_tpc_slot st = {
		.opc = GAUDISIM_TPC_ST_TNSR, .dst = 1, .sa = 1, .sb = 1,
	};
	const struct gaudisim_tpc_slot halt = { .opc = GAUDISIM_TPC_OP_HALT };
	uint8_t b[GAUDISIM_TPC_BUNDLE_SIZE] = { 0 };

	gaudisim_tpc_slot_encode(b, GAUDISIM_TPC_SLOT_LOAD, &ld);
	gaudisim_tpc_slot_encode(b, GAUDISIM_TPC_SLOT_VPU, &max);
	gaudisim_tpc_slot_encode(b, GAUDISIM_TPC_SLOT_STORE, &st);
	gaudisim_tpc_slot_encode(b, GAUDISIM_TPC_SLOT_SPU, &halt);
	ck_assert(!memcmp(b, goldens[1].bytes, sizeof(b)));
}
END_TEST

/* The device's decoder reads the hand-written fields back. */
START_TEST(test_tpc_golden_decoder)
{
	const uint8_t *b = goldens[4].bytes;
	struct gaudisim_tpc_slot s;

	gaudisim_tpc_slot_decode(b, GAUDISIM_TPC_SLOT_LOAD, &s);
	ck_assert_uint_eq(s.opc, 2);
	ck_assert_uint_eq(s.dt, 7);
	ck_assert_uint_eq(s.dst, 9);
	ck_assert_uint_eq(s.sa, 7);
	ck_assert_uint_eq(s.sb, 6);
	ck_assert_uint_eq(s.imm, 0);

	gaudisim_tpc_slot_decode(b, GAUDISIM_TPC_SLOT_VPU, &s);
	ck_assert_uint_eq(s.opc, 17);
	ck_assert_uint_eq(s.dt, 1);
	ck_assert_uint_eq(s.pred, 2);
	ck_assert_uint_eq(s.pneg, 1);
	ck_assert_uint_eq(s.pvec, 1);
	ck_assert_uint_eq(s.dst, 3);
	ck_assert_uint_eq(s.sa, 4);
	ck_assert_uint_eq(s.sb, 5);
	ck_assert_uint_eq(s.bk, 1);
	ck_assert_uint_eq(s.mod, 2);

	gaudisim_tpc_slot_decode(b, GAUDISIM_TPC_SLOT_STORE, &s);
	ck_assert_uint_eq(s.opc, 1);
	ck_assert_uint_eq(s.dt, 5);
	ck_assert_uint_eq(s.pred, 5);
	ck_assert_uint_eq(s.pneg, 0);
	ck_assert_uint_eq(s.pvec, 1);
	ck_assert_uint_eq(s.dst, 2);
	ck_assert_uint_eq(s.sa, 3);
	ck_assert_uint_eq(s.sb, 31);

	gaudisim_tpc_slot_decode(goldens[3].bytes, GAUDISIM_TPC_SLOT_SPU, &s);
	ck_assert_uint_eq(s.opc, 41);
	ck_assert_uint_eq(s.pred, 4);
	ck_assert_uint_eq(s.pneg, 1);
	ck_assert_uint_eq(s.dst, 3);
	ck_assert_uint_eq(s.bk, 2);
	ck_assert_uint_eq(s.mod, 1);
	ck_assert_uint_eq(s.imm, 10);
}
END_TEST

/* Every golden bundle is legal, and one flipped reserved bit is not. */
START_TEST(test_tpc_golden_legality)
{
	unsigned int i, b;

	for (i = 0; i < N_GOLDEN; i++)
		for (b = 0; b < goldens[i].nbundles; b++)
			ck_assert_msg(gaudisim_tpc_check_bundle(goldens[i].bytes +
						b * GAUDISIM_TPC_BUNDLE_SIZE,
						goldens[i].nbundles, NULL) == GAUDISIM_TPC_OK,
				      "%s: bundle %u refused", goldens[i].text, b);
	{
		uint8_t bad[GAUDISIM_TPC_BUNDLE_SIZE];

		/* halt takes no dtype: bit 6 of the SPU slot (byte 18) set. */
		memcpy(bad, goldens[0].bytes, sizeof(bad));
		bad[18] |= 0x40;
		ck_assert(gaudisim_tpc_check_bundle(bad, 1, NULL) != GAUDISIM_TPC_OK);
		/* An immediate no slot uses (VPU immediate of a lone halt). */
		memcpy(bad, goldens[0].bytes, sizeof(bad));
		bad[24] = 1;
		ck_assert(gaudisim_tpc_check_bundle(bad, 1, NULL) != GAUDISIM_TPC_OK);
		/* The loop's target past the end of a one-bundle kernel. */
		memcpy(bad, goldens[3].bytes, sizeof(bad));
		ck_assert(gaudisim_tpc_check_bundle(bad, 1, NULL) != GAUDISIM_TPC_OK);
	}
}
END_TEST

Suite *tpc_golden_suite(void)
{
	Suite *s = suite_create("tpc_golden");
	TCase *tc = tcase_create("tpc_golden");

	tcase_add_loop_test(tc, test_tpc_golden_assembler, 0, (int)N_GOLDEN);
	tcase_add_test(tc, test_tpc_golden_slot_encoder);
	tcase_add_test(tc, test_tpc_golden_decoder);
	tcase_add_test(tc, test_tpc_golden_legality);
	suite_add_tcase(s, tc);
	return s;
}
