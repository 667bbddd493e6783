/* SPDX-License-Identifier: MIT */
/*
 * The packet contract of include/hw against the device: for every opcode,
 * the table's size is the one the device measures (a packet one qword
 * short overruns, the whole packet does not), an opcode without an entry
 * is undefined, reserved bits and queue classes fail as the legality
 * table says. And libhlthunk's builder: what it writes decodes back, with
 * the table and the layouts, to the fields it was given, and runs.
 */
#include <endian.h>
#include <stddef.h>
#include <string.h>

#include "gsim_test.h"
#include "hw/gaudisim_hw_pkt_legal.h"
#include "../../libhlthunk/include/hlthunk_packets.h"

#define QI		GAUDISIM_QUEUE_ID_DMA_2_0	/* internal: DMA 2, stream 0 */
#define QE		2				/* external: DMA 0, stream 2 */
#define HOST_DATA	T_DATA_OFF

static void pt_setup(void)
{
	th_setup();
	iq_setup(QI, 3);
	q_setup(QE, 3);
	q_msg_bases(QE);
}

/* Run a CB on the internal queue; its error code, 0 when it ran clean. */
static uint32_t int_err(const struct cb *cb)
{
	uint32_t errs = rd(QQ_REG(QI, GAUDISIM_QM_CP_ERR_CNT));
	uint32_t sts;

	iq_submit(QI, cb);
	run_all();
	if (rd(QQ_REG(QI, GAUDISIM_QM_CP_ERR_CNT)) == errs)
		return 0;
	sts = rd(QQ_REG(QI, GAUDISIM_QM_CP_STS));
	return (sts & GAUDISIM_CP_STS_ERR_MASK) >> GAUDISIM_CP_STS_ERR_SHIFT;
}

/* Run a CB as a job of the external queue; its error code from the CQ entry. */
static uint32_t ext_err(struct cb *cb)
{
	uint32_t slot = job_submit(QE, cb);
	uint32_t e;

	run_all();
	e = cq_entry(QE, slot);
	if (!(e & GAUDISIM_CQ_ENTRY_ERROR))
		return 0;
	return (e & GAUDISIM_CQ_ENTRY_ERR_CODE_MASK) >> GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT;
}

/* dw0 of the test packet: WREG_BULK carries one qword, so its size rule counts. */
static uint32_t test_dw0(unsigned int op)
{
	return op == GAUDISIM_PKT_WREG_BULK ? 1 : 0;
}

/* The packet's first size bytes: its header, then zeros. */
static struct cb pkt_cb(uint32_t dw0, uint32_t ctl, uint32_t size)
{
	struct cb cb = cb_new(128);
	uint32_t i;

	cb_raw(&cb, dw0, ctl);
	for (i = 8; i < size; i += 8)
		cb_raw(&cb, 0, 0);
	return cb;
}

/* The lowest bit of mask that is clear, or 0 when every bit is set. */
static uint32_t first_clear(uint32_t mask)
{
	return ~mask & (mask + 1);
}

/* Every opcode: one table entry exactly where the legality table defines it. */
START_TEST(table_matches_legality)
{
	unsigned int op;

	for (op = 0; op <= GAUDISIM_PKT_MAX_OPCODE; op++) {
		const struct gaudisim_pkt_info *info = gaudisim_pkt_info(op);
		bool defined = gaudisim_pkt_ctl_defined(op) != 0;

		ck_assert_msg(!info == !defined, "opcode 0x%x: table and legality disagree", op);
		ck_assert_int_eq(gaudisim_pkt_allowed(op, GAUDISIM_QCLASS_SECURED) ||
				 gaudisim_pkt_allowed(op, GAUDISIM_QCLASS_INTERNAL), defined);
		if (!info) {
			ck_assert_str_eq(gaudisim_pkt_name(op), "undefined");
			ck_assert_uint_eq(gaudisim_pkt_size(0, GAUDISIM_PKT_CTL(op)), 0);
			continue;
		}
		ck_assert_str_eq(gaudisim_pkt_name(op), info->name);
		ck_assert_uint_ge(info->size, GAUDISIM_PKT_ALIGN);
		ck_assert_uint_eq(info->size % GAUDISIM_PKT_ALIGN, 0);
		ck_assert_uint_eq(gaudisim_pkt_size(0, GAUDISIM_PKT_CTL(op)), info->size);
	}
	ck_assert_uint_eq(gaudisim_pkt_size(3, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_BULK)),
			  GAUDISIM_PKT_SIZE_WREG_BULK_HDR + 3 * 8);
	ck_assert_uint_eq(offsetof(struct gaudisim_packet_lin_dma, dst), 16);
	ck_assert_uint_eq(offsetof(struct gaudisim_packet_msg_prot, addr), 8);
	ck_assert_uint_eq(offsetof(struct gaudisim_packet_load_and_exe, src), 8);
}
END_TEST

/* Opcode _i on the device: measured as the table says, or undefined. */
START_TEST(device_sizes_as_table)
{
	unsigned int op = (unsigned int)_i;
	uint32_t dw0 = test_dw0(op), ctl = GAUDISIM_PKT_CTL(op);
	uint32_t size = gaudisim_pkt_size(dw0, ctl);
	struct cb cb;
	uint32_t err;

	if (!size) {
		cb = pkt_cb(dw0, ctl, GAUDISIM_PKT_ALIGN);
		ck_assert_uint_eq(int_err(&cb), GAUDISIM_CP_ERR_UNDEF_OPCODE);
		return;
	}
	if (size > GAUDISIM_PKT_ALIGN) {
		cb = pkt_cb(dw0, ctl, size - GAUDISIM_PKT_ALIGN);
		ck_assert_msg(int_err(&cb) == GAUDISIM_CP_ERR_PKT_OVERRUN,
			      "%s: %u bytes are not short", gaudisim_pkt_name(op),
			      size - GAUDISIM_PKT_ALIGN);
	}
	cb = pkt_cb(dw0, ctl, size);
	err = int_err(&cb);
	ck_assert_msg(err != GAUDISIM_CP_ERR_PKT_OVERRUN && err != GAUDISIM_CP_ERR_UNDEF_OPCODE,
		      "%s of %u bytes: error %u", gaudisim_pkt_name(op), size, err);
}
END_TEST

/* Opcode _i on the device: reserved bits and queue classes as the legality table says. */
START_TEST(device_legality_as_table)
{
	unsigned int op = (unsigned int)_i;
	uint32_t dw0 = test_dw0(op), ctl = GAUDISIM_PKT_CTL(op);
	uint32_t size = gaudisim_pkt_size(dw0, ctl);
	uint32_t bad_ctl = first_clear(gaudisim_pkt_ctl_defined(op));
	uint32_t bad_dw0 = first_clear(gaudisim_pkt_dw0_defined(op));
	struct cb cb;

	if (!size)
		return;
	if (bad_ctl) {
		cb = pkt_cb(dw0, ctl | bad_ctl, size);
		ck_assert_uint_eq(int_err(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	}
	if (bad_dw0) {
		cb = pkt_cb(dw0 | bad_dw0, ctl, size);
		ck_assert_uint_eq(int_err(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	}
	if (!gaudisim_pkt_allowed(op, GAUDISIM_QCLASS_INTERNAL)) {
		cb = pkt_cb(dw0, ctl, size);
		ck_assert_uint_eq(int_err(&cb), GAUDISIM_CP_ERR_PRIV);
	}
	if (!gaudisim_pkt_allowed(op, GAUDISIM_QCLASS_SECURED)) {
		cb = pkt_cb(dw0, ctl, size);
		ck_assert_uint_eq(ext_err(&cb), GAUDISIM_CP_ERR_PRIV);
	}
}
END_TEST

static uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

#define FIELD32(p, type, field)	ld32((p) + offsetof(struct type, field))
#define FIELD64(p, type, field)	ld64((p) + offsetof(struct type, field))
#define BAR_ALL	(GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_RB | GAUDISIM_PKT_CTL_MB)

/* Check the packet at *off: opcode, size from the table, barriers; move past it. */
static const uint8_t *next_pkt(const uint8_t *buf, uint32_t *off, unsigned int opcode,
			       uint32_t size, uint32_t barriers)
{
	const uint8_t *p = buf + *off;
	uint32_t dw0 = FIELD32(p, gaudisim_packet_hdr, dw0);
	uint32_t ctl = FIELD32(p, gaudisim_packet_hdr, ctl);

	ck_assert_uint_eq(GAUDISIM_PKT_OPCODE(ctl), opcode);
	ck_assert_uint_eq(gaudisim_pkt_size(dw0, ctl), size);
	ck_assert_uint_eq(ctl & BAR_ALL, barriers);
	*off += size;
	return p;
}

/* What libhlthunk writes decodes back to what it was given. */
START_TEST(builder_decodes_back)
{
	uint8_t buf[256];
	struct hlthunk_cb_writer w;
	const uint8_t *p;
	uint32_t off = 0, ctl, cfg;

	hlthunk_cbw_init(&w, buf, sizeof(buf));
	ck_assert_int_eq(hlthunk_cbw_nop(&w, GAUDISIM_PKT_CTL_RB), 0);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&w, 0x123456789aull, 0x00fedcba98765ull, 0x1234,
					     0, GAUDISIM_PKT_CTL_EB), 0);
	ck_assert_int_eq(hlthunk_cbw_memset(&w, 0x20000000ull, 0xa5, 64, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&w, 0x1000000040ull, 0xdeadbeef,
					      GAUDISIM_PKT_CTL_MB), 0);
	ck_assert_int_eq(hlthunk_cbw_msg_long_timestamp(&w, 0x2000, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_fence(&w, 2, 0x7f, 3, BAR_ALL), 0);
	ck_assert_int_eq(hlthunk_cbw_wreg32(&w, 0x1234, 0xcafef00d, 0), 0);

	p = next_pkt(buf, &off, GAUDISIM_PKT_NOP, GAUDISIM_PKT_SIZE_NOP, GAUDISIM_PKT_CTL_RB);
	ck_assert_uint_eq(FIELD32(p, gaudisim_packet_nop, reserved), 0);

	p = next_pkt(buf, &off, GAUDISIM_PKT_LIN_DMA, GAUDISIM_PKT_SIZE_LIN_DMA,
		     GAUDISIM_PKT_CTL_EB);
	ctl = FIELD32(p, gaudisim_packet_lin_dma, ctl);
	ck_assert_uint_eq(ctl & ~GAUDISIM_PKT_CTL_HEADER, GAUDISIM_LIN_DMA_CTL_LIN);
	ck_assert_uint_eq(FIELD32(p, gaudisim_packet_lin_dma, tsize), 0x1234);
	ck_assert_uint_eq(FIELD64(p, gaudisim_packet_lin_dma, src), 0x123456789aull);
	ck_assert_uint_eq(FIELD64(p, gaudisim_packet_lin_dma, dst) &
			  GAUDISIM_LIN_DMA_DST_ADDR_MASK, 0x00fedcba98765ull);

	p = next_pkt(buf, &off, GAUDISIM_PKT_LIN_DMA, GAUDISIM_PKT_SIZE_LIN_DMA, 0);
	ctl = FIELD32(p, gaudisim_packet_lin_dma, ctl);
	ck_assert_uint_eq(ctl & ~GAUDISIM_PKT_CTL_HEADER,
			  GAUDISIM_LIN_DMA_CTL_LIN | GAUDISIM_LIN_DMA_CTL_MEMSET);
	ck_assert_uint_eq(FIELD32(p, gaudisim_packet_lin_dma, tsize), 64);
	ck_assert_uint_eq(FIELD64(p, gaudisim_packet_lin_dma, src), 0xa5);
	ck_assert_uint_eq(FIELD64(p, gaudisim_packet_lin_dma, dst), 0x20000000ull);

	p = next_pkt(buf, &off, GAUDISIM_PKT_MSG_LONG, GAUDISIM_PKT_SIZE_MSG_LONG,
		     GAUDISIM_PKT_CTL_MB);
	ctl = FIELD32(p, gaudisim_packet_msg_long, ctl);
	ck_assert_uint_eq((ctl & GAUDISIM_MSG_CTL_OP_MASK) >> GAUDISIM_MSG_CTL_OP_SHIFT,
			  GAUDISIM_MSG_OP_WRITE_VALUE);
	ck_assert_uint_eq(FIELD32(p, gaudisim_packet_msg_long, value), 0xdeadbeef);
	ck_assert_uint_eq(FIELD64(p, gaudisim_packet_msg_long, addr), 0x1000000040ull);

	p = next_pkt(buf, &off, GAUDISIM_PKT_MSG_LONG, GAUDISIM_PKT_SIZE_MSG_LONG, 0);
	ctl = FIELD32(p, gaudisim_packet_msg_long, ctl);
	ck_assert_uint_eq((ctl & GAUDISIM_MSG_CTL_OP_MASK) >> GAUDISIM_MSG_CTL_OP_SHIFT,
			  GAUDISIM_MSG_OP_WRITE_TIMESTAMP);
	ck_assert_uint_eq(FIELD64(p, gaudisim_packet_msg_long, addr), 0x2000);

	p = next_pkt(buf, &off, GAUDISIM_PKT_FENCE, GAUDISIM_PKT_SIZE_FENCE, BAR_ALL);
	cfg = FIELD32(p, gaudisim_packet_fence, cfg);
	ck_assert_uint_eq((cfg & GAUDISIM_FENCE_ID_MASK) >> GAUDISIM_FENCE_ID_SHIFT, 2);
	ck_assert_uint_eq((cfg & GAUDISIM_FENCE_TARGET_MASK) >> GAUDISIM_FENCE_TARGET_SHIFT, 0x7f);
	ck_assert_uint_eq((cfg & GAUDISIM_FENCE_DEC_VAL_MASK) >> GAUDISIM_FENCE_DEC_VAL_SHIFT, 3);

	p = next_pkt(buf, &off, GAUDISIM_PKT_WREG_32, GAUDISIM_PKT_SIZE_WREG_32, 0);
	ctl = FIELD32(p, gaudisim_packet_wreg32, ctl);
	ck_assert_uint_eq(ctl & GAUDISIM_WREG32_CTL_REG_OFFSET_MASK, 0x1234);
	ck_assert_uint_eq(FIELD32(p, gaudisim_packet_wreg32, value), 0xcafef00d);

	ck_assert_uint_eq(off, w.used);
	/* Every packet is legal where the device's legality table says it is. */
	for (off = 0; off < w.used;) {
		uint32_t dw0 = FIELD32(buf + off, gaudisim_packet_hdr, dw0);
		uint32_t c = FIELD32(buf + off, gaudisim_packet_hdr, ctl);
		unsigned int op = GAUDISIM_PKT_OPCODE(c);

		ck_assert_uint_eq(c & ~gaudisim_pkt_ctl_defined(op), 0);
		ck_assert_uint_eq(dw0 & ~gaudisim_pkt_dw0_defined(op), 0);
		off += gaudisim_pkt_size(dw0, c);
	}
}
END_TEST

/* A CB libhlthunk builds runs on the device as built. */
START_TEST(builder_runs)
{
	struct cb cb = cb_new(256);
	struct hlthunk_cb_writer w;
	uint32_t i;

	hlthunk_cbw_init(&w, cb.p, cb.cap);
	ck_assert_int_eq(hlthunk_cbw_memset(&w, host_dev(HOST_DATA), 0x5a, 64, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&w, host_dev(HOST_DATA + 64), 0x600d600d,
					      GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&w, 0), 0);
	cb.len = w.used;
	ck_assert_uint_eq(ext_err(&cb), 0);
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(host_ptr(HOST_DATA)[i], 0x5a);
	ck_assert_uint_eq(host_rd32(HOST_DATA + 64), 0x600d600d);
}
END_TEST

Suite *pkt_table_suite(void)
{
	Suite *s = suite_create("packet-table");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, pt_setup, th_teardown);
	tcase_add_test(tc, table_matches_legality);
	tcase_add_loop_test(tc, device_sizes_as_table, 0, GAUDISIM_PKT_MAX_OPCODE + 1);
	tcase_add_loop_test(tc, device_legality_as_table, 0, GAUDISIM_PKT_MAX_OPCODE + 1);
	tcase_add_test(tc, builder_decodes_back);
	tcase_add_test(tc, builder_runs);
	suite_add_tcase(s, tc);
	return s;
}
