// SPDX-License-Identifier: MIT
/*
 * The negative matrix: every refusal the CS path owes a user, from chunk
 * checks to the packet parser, each answered with the right errno and no
 * lasting damage. The last test proves the device still works.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define BARRIERS (GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB)

static struct test_cb cb;		/* a 4 KiB CB with one NOP, ready to submit */
static struct host_buf host;		/* 64 KiB userptr-mapped host buffer */
static struct hbm_buf hbm;		/* 2 MiB of user HBM */
static struct hlthunk_hw_ip_info hw;

static void matrix_setup(void)
{
	compute_setup();
	hw_ip_ok(dev_fd, &hw);
	cb_create_ok(dev_fd, &cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	host_buf_map_ok(dev_fd, &host, 64 * KiB);
	hbm_alloc_ok(dev_fd, &hbm, GAUDISIM_DRAM_PAGE_SIZE);
}

static TCase *matrix_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, matrix_setup, compute_teardown);
	tcase_set_timeout(tc, TCASE_TIMEOUT_SHORT);
	return tc;
}

static int cs_raw(union gaudisim_cs_args *args)
{
	return hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, args);
}

/* A valid one-chunk CS around the fixture's CB; tests then break one field. */
static void valid_cs(union gaudisim_cs_args *args, struct gaudisim_cs_chunk *chunk)
{
	*chunk = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);
	memset(args, 0, sizeof(*args));
	args->in.chunks_execute = (uint64_t)(uintptr_t)chunk;
	args->in.num_chunks_execute = 1;
}

static void get_counters(struct cs_counts *c)
{
	cs_counts_ok(dev_fd, c);
}

/* ---- CS arguments ------------------------------------------------------------ */

enum cs_case {
	NO_CHUNKS, TOO_MANY_CHUNKS, TOO_MANY_RESTORE, UNKNOWN_FLAG_8, UNKNOWN_FLAG_800,
	STAGED_PART_WITHOUT_SEQ, UNKNOWN_FLAG_HIGH, CTX_ID, PAD, SEQ, CUSTOM_TIMEOUT_0,
	CUSTOM_TIMEOUT_BIG,
	CHUNK_FLAGS, CHUNK_COLLECTIVE, CHUNK_PAD_FIRST, CHUNK_PAD_LAST, QUEUE_CPU, QUEUE_HBM_DMA, QUEUE_MME,
	QUEUE_TPC, QUEUE_LAST_INTERNAL, QUEUE_PAST_END, QUEUE_HUGE, CB_SIZE_0, CB_SIZE_ODD,
	CB_SIZE_BEYOND, CB_SIZE_HUGE, CB_HANDLE_BOGUS, CB_HANDLE_DESTROYED,
	RESTORE_CHUNK_BAD_QUEUE, NUM_CS_CASES
};

static const char *const cs_case_names[NUM_CS_CASES] = {
	"no chunks", "513 chunks", "513 restore chunks", "flag 0x8", "flag 0x800", "flag 0x40",
	"flag 0x80000000", "ctx_id", "pad", "seq (staged submission)", "custom timeout 0",
	"custom timeout 3601", "chunk flags", "chunk collective engine", "chunk pad[0]",
	"chunk pad[9]", "queue 8 (CPU hole)",
	"queue 9 (HBM DMA)", "queue 33 (MME)", "queue 41 (TPC)", "queue 72", "queue 73",
	"queue 0xffffffff", "cb_size 0", "cb_size 12", "cb_size past the CB",
	"cb_size 0xfffffff8", "bogus CB handle", "destroyed CB", "restore chunk on queue 9",
};

START_TEST(cs_args_refused)
{
	static struct gaudisim_cs_chunk many[GAUDISIM_MAX_JOBS_PER_CS + 1];
	struct cs_counts before, after;
	struct gaudisim_cs_chunk chunk, restore;
	union gaudisim_cs_args a;
	uint64_t other;
	int i, rc;

	valid_cs(&a, &chunk);
	get_counters(&before);
	switch (_i) {
	case NO_CHUNKS:
		a.in.num_chunks_execute = 0;
		break;
	case TOO_MANY_CHUNKS:
	case TOO_MANY_RESTORE:
		for (i = 0; i <= GAUDISIM_MAX_JOBS_PER_CS; i++)
			many[i] = chunk;
		if (_i == TOO_MANY_CHUNKS) {
			a.in.chunks_execute = (uint64_t)(uintptr_t)many;
			a.in.num_chunks_execute = GAUDISIM_MAX_JOBS_PER_CS + 1;
		} else {
			a.in.chunks_restore = (uint64_t)(uintptr_t)many;
			a.in.num_chunks_restore = GAUDISIM_MAX_JOBS_PER_CS + 1;
		}
		break;
	case UNKNOWN_FLAG_8:
		a.in.cs_flags = 0x8;	/* habanalabs' COLLECTIVE_WAIT */
		break;
	case UNKNOWN_FLAG_800:
		a.in.cs_flags = 0x800;	/* habanalabs' ENCAP_SIGNALS */
		break;
	case STAGED_PART_WITHOUT_SEQ:
		a.in.cs_flags = GAUDISIM_CS_FLAGS_STAGED_SUBMISSION;	/* a later part: needs seq */
		break;
	case UNKNOWN_FLAG_HIGH:
		a.in.cs_flags = 0x80000000u;
		break;
	case CTX_ID:
		a.in.ctx_id = 1;
		break;
	case PAD:
		a.in.pad[3] = 1;
		break;
	case SEQ:
		a.in.seq = 1;
		break;
	case CUSTOM_TIMEOUT_0:
		a.in.cs_flags = GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT;
		a.in.timeout = 0;
		break;
	case CUSTOM_TIMEOUT_BIG:
		a.in.cs_flags = GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT;
		a.in.timeout = 3601;
		break;
	case CHUNK_FLAGS:
		chunk.cs_chunk_flags = 1;
		break;
	case CHUNK_COLLECTIVE:
		chunk.collective_engine_id = 1;
		break;
	case CHUNK_PAD_FIRST:
		chunk.pad[0] = 1;
		break;
	case CHUNK_PAD_LAST:
		chunk.pad[9] = 0x80000000u;
		break;
	case QUEUE_CPU:
		chunk.queue_index = GAUDISIM_QUEUE_ID_CPU_PQ;
		break;
	case QUEUE_HBM_DMA:
		chunk.queue_index = GAUDISIM_QUEUE_ID_DMA_2_0;
		break;
	case QUEUE_MME:
		chunk.queue_index = GAUDISIM_QUEUE_ID_MME_0;
		break;
	case QUEUE_TPC:
		chunk.queue_index = GAUDISIM_QUEUE_ID_TPC_0_0;
		break;
	case QUEUE_LAST_INTERNAL:
		chunk.queue_index = GAUDISIM_QUEUE_ID_SIZE - 1;
		break;
	case QUEUE_PAST_END:
		chunk.queue_index = GAUDISIM_QUEUE_ID_SIZE;
		break;
	case QUEUE_HUGE:
		chunk.queue_index = 0xffffffffu;
		break;
	case CB_SIZE_0:
		chunk.cb_size = 0;
		break;
	case CB_SIZE_ODD:
		chunk.cb_size = 12;
		break;
	case CB_SIZE_BEYOND:
		chunk.cb_size = cb.size + 8;
		break;
	case CB_SIZE_HUGE:
		chunk.cb_size = 0xfffffff8u;
		break;
	case CB_HANDLE_BOGUS:
		chunk.cb_handle = cb.handle + 0x10000000ULL;
		break;
	case CB_HANDLE_DESTROYED:
		ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &other), 0);
		ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, other), 0);
		chunk.cb_handle = other;
		break;
	case RESTORE_CHUNK_BAD_QUEUE:
		restore = chunk;
		restore.queue_index = GAUDISIM_QUEUE_ID_DMA_2_0;
		a.in.chunks_restore = (uint64_t)(uintptr_t)&restore;
		a.in.num_chunks_restore = 1;
		break;
	}
	rc = cs_raw(&a);
	ck_assert_msg(rc == -EINVAL, "%s: rc %d (%s), expected EINVAL", cs_case_names[_i], rc,
		      strerror(-rc));
	get_counters(&after);
	ck_assert_uint_eq(after.submitted, before.submitted);
}
END_TEST

START_TEST(cs_bad_chunk_pointers)
{
	union gaudisim_cs_args a;
	struct gaudisim_cs_chunk chunk;
	int rc;

	valid_cs(&a, &chunk);
	a.in.chunks_execute = 0;
	rc = cs_raw(&a);
	ck_assert_msg(rc == -EFAULT || rc == -EINVAL, "NULL chunks: %s", strerror(-rc));
	a.in.chunks_execute = 0xffff800000000000ULL;
	ck_assert_int_eq(cs_raw(&a), -EFAULT);
	valid_cs(&a, &chunk);
	a.in.chunks_restore = 0x10;
	a.in.num_chunks_restore = 1;
	rc = cs_raw(&a);
	ck_assert_msg(rc == -EFAULT || rc == -EINVAL, "bad restore pointer: %s", strerror(-rc));
}
END_TEST

START_TEST(validation_drops_are_counted)
{
	struct cs_counts before, after;
	union gaudisim_cs_args a;
	struct gaudisim_cs_chunk chunk;

	get_counters(&before);
	valid_cs(&a, &chunk);
	chunk.queue_index = GAUDISIM_QUEUE_ID_CPU_PQ;
	ck_assert_int_eq(cs_raw(&a), -EINVAL);
	get_counters(&after);
	ck_assert_uint_eq(after.validation_drop, before.validation_drop + 1);
	ck_assert_uint_eq(after.ctx_validation_drop, before.ctx_validation_drop + 1);
}
END_TEST

/* ---- Packet parser ------------------------------------------------------------- */

/* Submit the CB as written; returns the CS rc (waiting on success). */
static int submit_written(void)
{
	return submit_cb(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
}

static void expect_refused(int want, const char *what)
{
	struct cs_counts before, after;
	int rc;

	get_counters(&before);
	rc = submit_written();
	ck_assert_msg(rc == want, "%s: rc %d (%s), expected %s", what, rc, strerror(-rc),
		      strerror(-want));
	get_counters(&after);
	ck_assert_uint_eq(after.submitted, before.submitted);
	ck_assert_uint_eq(after.parsing_drop, before.parsing_drop + 1);
	ck_assert_uint_eq(after.ctx_parsing_drop, before.ctx_parsing_drop + 1);
}

/* Either of two errnos is acceptable where the contract names none. */
static void expect_refused_either(int want1, int want2, const char *what)
{
	int rc = submit_written();

	ck_assert_msg(rc == want1 || rc == want2, "%s: rc %d (%s), expected %s or %s", what,
		      rc, strerror(-rc), strerror(-want1), strerror(-want2));
}

START_TEST(msg_prot_is_eperm)
{
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg(&cb.w, GAUDISIM_PKT_MSG_PROT, host.va, 1,
					 GAUDISIM_MSG_OP_WRITE_VALUE, 0), 0);
	expect_refused(-EPERM, "MSG_PROT in a user CB");
}
END_TEST

START_TEST(msg_prot_after_good_packets_is_eperm)
{
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, host.va, 5, 0), 0);
	/* A forged completion: MSG_PROT to the MSI-X request register. */
	ck_assert_int_eq(hlthunk_cbw_msg(&cb.w, GAUDISIM_PKT_MSG_PROT,
					 GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, 0,
					 GAUDISIM_MSG_OP_WRITE_VALUE, 0), 0);
	memset(host.ptr, 0, 64);
	expect_refused(-EPERM, "MSG_PROT after good packets");
	/* Nothing of the refused CB ran. */
	ck_assert_uint_eq(host.ptr[0], 0);
}
END_TEST

START_TEST(packet_overrunning_cb_is_einval)
{
	struct gaudisim_cs_chunk chunk;
	uint64_t seq;

	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, host.va, hbm.addr, 64, 0, 0), 0);
	/* Submit only the NOP and the LIN_DMA's first 8 bytes. */
	chunk = make_chunk(cb.handle, QUEUE_H2D, GAUDISIM_PKT_SIZE_NOP + 8);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), -EINVAL);
	/* MSG_LONG cut after 8 bytes, too. */
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, host.va, 5, 0), 0);
	chunk = make_chunk(cb.handle, QUEUE_H2D, 8);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), -EINVAL);
}
END_TEST

static const uint32_t undefined_opcodes[] = { 0x0, 0xE, 0x10, 0x15, 0x1F };

START_TEST(undefined_opcode_is_einval)
{
	const uint32_t pkt[2] = { 0, GAUDISIM_PKT_CTL(undefined_opcodes[_i]) };

	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_dwords(&cb.w, pkt, 2), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	expect_refused(-EINVAL, "undefined opcode");
}
END_TEST

/* Defined opcodes that user CBs on external queues may not use here. */
static const uint32_t unsupported_opcodes[] = {
	GAUDISIM_PKT_WREG_BULK, GAUDISIM_PKT_CP_DMA, GAUDISIM_PKT_STOP,
};

START_TEST(unsupported_opcode_is_refused)
{
	const uint32_t pkt[4] = { 0, GAUDISIM_PKT_CTL(unsupported_opcodes[_i]), 0, 0 };

	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_dwords(&cb.w, pkt, 4), 0);
	expect_refused_either(-EINVAL, -EPERM, "unsupported opcode");
}
END_TEST

START_TEST(lin_dma_without_lin_bit_is_einval)
{
	const uint32_t pkt[6] = {
		64, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA),
		(uint32_t)host.va, (uint32_t)(host.va >> 32),
		(uint32_t)hbm.addr, (uint32_t)(hbm.addr >> 32),
	};

	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_dwords(&cb.w, pkt, 6), 0);
	expect_refused(-EINVAL, "LIN_DMA without LIN");
}
END_TEST

static const uint32_t unsupported_dma_bits[] = {
	GAUDISIM_LIN_DMA_CTL_TRANSPOSE, GAUDISIM_LIN_DMA_CTL_DTYPE,
	GAUDISIM_LIN_DMA_CTL_COMPRESS, GAUDISIM_LIN_DMA_CTL_DECOMPRESS,
};

START_TEST(lin_dma_unsupported_bits_are_einval)
{
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, host.va, hbm.addr, 64,
					     unsupported_dma_bits[_i], 0), 0);
	expect_refused(-EINVAL, "LIN_DMA with an unsupported ctl bit");
}
END_TEST

enum dma_target {
	DST_RESERVED_START, DST_RESERVED_END, DST_STRADDLES_RESERVED, SRC_RESERVED,
	DST_PAST_HBM, DST_WRAPS, MEMSET_RESERVED, SRAM_PAST_END, NUM_DMA_TARGETS
};

START_TEST(lin_dma_into_reserved_hbm_is_einval)
{
	uint64_t src = host.va, dst = hbm.addr;
	uint32_t size = 64, extra = 0;

	switch (_i) {
	case DST_RESERVED_START:
		dst = GAUDISIM_HBM_BASE;
		break;
	case DST_RESERVED_END:
		dst = GAUDISIM_HBM_USER_BASE - 64;
		break;
	case DST_STRADDLES_RESERVED:
		dst = GAUDISIM_HBM_USER_BASE - 8;
		break;
	case SRC_RESERVED:
		src = GAUDISIM_HBM_BASE + 4096;
		dst = host.va;
		break;
	case DST_PAST_HBM:
		dst = hw.dram_base_address + hw.dram_size - 8;
		break;
	case DST_WRAPS:
		dst = GAUDISIM_LIN_DMA_DST_ADDR_MASK - 8;
		break;
	case MEMSET_RESERVED:
		src = 0;
		dst = GAUDISIM_HBM_BASE;
		extra = GAUDISIM_LIN_DMA_CTL_MEMSET;
		break;
	case SRAM_PAST_END:
		dst = hw.sram_base_address + hw.sram_size - 8;
		break;
	}
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, src, dst, size, extra, 0), 0);
	/* Past every memory: the contract names no errno, only a refusal. */
	if (_i == DST_WRAPS)
		expect_refused_either(-EINVAL, -EPERM, "LIN_DMA past the address space");
	else
		expect_refused(-EINVAL, "LIN_DMA outside user HBM and SRAM");
}
END_TEST

START_TEST(lin_dma_raw_host_address_is_eperm)
{
	uint64_t raw = GAUDISIM_HOST_BASE + 0x100000;

	cb_reset(&cb);
	if (_i == 0)
		ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, hbm.addr, raw, 64, 0, 0), 0);
	else
		ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, raw, hbm.addr, 64, 0, 0), 0);
	expect_refused(-EPERM, _i ? "LIN_DMA from a raw host address"
				  : "LIN_DMA to a raw host address");
}
END_TEST

START_TEST(msg_long_raw_host_address_is_eperm)
{
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, GAUDISIM_HOST_BASE + 0x2000, 1, 0), 0);
	expect_refused(-EPERM, "MSG_LONG to a raw host address");
}
END_TEST

START_TEST(registers_are_off_limits)
{
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, GAUDISIM_CFG_BASE + GAUDISIM_REG_RESET,
					      GAUDISIM_RESET_HARD, 0), 0);
	expect_refused_either(-EPERM, -EINVAL, "MSG_LONG to the reset register");
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, host.va, GAUDISIM_CFG_BASE, 64, 0, 0), 0);
	expect_refused_either(-EPERM, -EINVAL, "LIN_DMA into the register space");
}
END_TEST

enum userptr_case {
	PAST_END, BEFORE_START, UNMAPPED_VA, AFTER_UNMAP, HUGE_SIZE, NUM_USERPTR_CASES
};

START_TEST(dma_outside_userptr_mapping_is_refused)
{
	uint64_t src = host.va, dst = hbm.addr, size = 64;
	int rc;

	switch (_i) {
	case PAST_END:
		src = host.va + host.size - 32;
		break;
	case BEFORE_START:
		src = host.va - 16;
		break;
	case UNMAPPED_VA:
		src = host.va + 64 * GiB;
		break;
	case AFTER_UNMAP:
		ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, host.va), 0);
		break;
	case HUGE_SIZE:
		size = GAUDISIM_LIN_DMA_MAX_TSIZE;
		break;
	}
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, src, dst, (uint32_t)size, 0, 0), 0);
	rc = submit_written();
	ck_assert_msg(rc == -EINVAL || rc == -EPERM || rc == -EFAULT,
		      "DMA outside the userptr mapping (case %d): rc %d (%s)", _i, rc,
		      strerror(-rc));
	if (_i == AFTER_UNMAP)
		host.va = 0;
}
END_TEST

START_TEST(msg_long_outside_userptr_is_refused)
{
	int rc;

	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, host.va + host.size, 1, 0), 0);
	rc = submit_written();
	ck_assert_msg(rc == -EINVAL || rc == -EPERM || rc == -EFAULT,
		      "MSG_LONG past the userptr mapping: rc %d (%s)", rc, strerror(-rc));
}
END_TEST

START_TEST(msg_reserved_op_is_einval)
{
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg(&cb.w, GAUDISIM_PKT_MSG_LONG, host.va, 1, 3, 0), 0);
	expect_refused(-EINVAL, "MSG_LONG with op 3");
}
END_TEST

START_TEST(refused_cs_leaves_nothing_behind)
{
	uint32_t usage = ~0u;

	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg(&cb.w, GAUDISIM_PKT_MSG_PROT, host.va, 1,
					 GAUDISIM_MSG_OP_WRITE_VALUE, 0), 0);
	ck_assert_int_eq(submit_written(), -EPERM);
	ck_assert_int_eq(hlthunk_get_cb_info(dev_fd, cb.handle, &usage, NULL), 0);
	ck_assert_uint_eq(usage, 0);
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
	/* The same CB, fixed, runs. */
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	ck_assert_int_eq(submit_written(), 0);
}
END_TEST

START_TEST(refusal_storm)
{
	int i;

	/* Many refusals in a row, mixed with good CSs. */
	for (i = 0; i < 200; i++) {
		cb_reset(&cb);
		if (i % 4 == 3) {
			ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
			ck_assert_int_eq(submit_written(), 0);
			continue;
		}
		ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, host.va, GAUDISIM_HBM_BASE, 8, 0,
						     0), 0);
		ck_assert_int_eq(submit_written(), -EINVAL);
	}
}
END_TEST

/* ---- Device errors and hangs ------------------------------------------------------ */

/* After a reset the device needs a moment; poll its status, bounded. */
/* Packets the parser passes through but the device refuses to execute. */
static const uint32_t device_refused[][2] = {
	{ 1u << 8, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) },	/* reserved FENCE cfg bit */
	{ 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) | 1u << 5 },	/* reserved FENCE ctl bit */
	{ 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT) | 1u << 16 },	/* reserved ARB_POINT bit */
};

START_TEST(device_error_ends_in_error_completion)
{
	struct cs_counts before, after;
	uint32_t status = ~0u;
	uint64_t seq;
	int rc;

	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_dwords(&cb.w, device_refused[_i], 2), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	get_counters(&before);
	{
		struct gaudisim_cs_chunk chunk = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);

		rc = submit_chunk(dev_fd, &chunk, &seq);
	}
	if (rc == 0) {
		/* Not caught by the parser: the device's error completion must report it. */
		rc = hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_SHORT, &status);
		ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
			      "bad packet on the device: rc %d (%s) status %u, expected EIO/ABORTED",
			      rc, strerror(-rc), status);
		get_counters(&after);
		ck_assert_uint_eq(after.errors, before.errors + 1);
	} else {
		ck_assert_msg(rc == -EINVAL, "refused with %s, expected EINVAL", strerror(-rc));
	}
	/* The queue goes on with the next job. */
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	ck_assert_int_eq(submit_written(), 0);
	get_counters(&after);
	ck_assert_uint_eq(after.timed_out, before.timed_out);
}
END_TEST

START_TEST(hung_cs_times_out_and_device_recovers)
{
	struct cs_counts before, after;
	struct gaudisim_cs_chunk hang, behind;
	struct hlthunk_cs_in in = { .chunks_execute = &hang, .num_chunks_execute = 1,
				    .flags = GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT, .timeout_s = 1 };
	struct hlthunk_cs_out out;
	struct test_cb nop;
	uint32_t status = ~0u;
	uint64_t seq_behind;
	int rc;

	/* A FENCE nobody will ever satisfy blocks its stream: only the timeout ends it. */
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb.w, 0, 1, 1, 0), 0);
	hang = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);
	cb_create_ok(dev_fd, &nop, 64);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	behind = make_chunk(nop.handle, QUEUE_H2D, nop.w.used);

	get_counters(&before);
	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	ck_assert_int_eq(submit_chunk(dev_fd, &behind, &seq_behind), 0);

	rc = hlthunk_wait_for_cs(dev_fd, out.seq, WAIT_US_SHORT, &status);
	ck_assert_msg(rc == -ETIMEDOUT && status == GAUDISIM_WAIT_CS_STATUS_TIMEDOUT,
		      "hung CS: rc %d (%s) status %u, expected ETIMEDOUT/TIMEDOUT", rc,
		      strerror(-rc), status);
	/* The reset that follows aborts the job queued behind it. */
	rc = hlthunk_wait_for_cs(dev_fd, seq_behind, WAIT_US_SHORT, &status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "CS behind the hung one: rc %d (%s) status %u, expected EIO/ABORTED", rc,
		      strerror(-rc), status);
	wait_operational_ok(dev_fd);
	get_counters(&after);
	ck_assert_uint_eq(after.timed_out, before.timed_out + 1);
	ck_assert_uint_eq(after.errors, before.errors + 1);

	/* The same queue and the same file work again. */
	run_cb_ok(dev_fd, &nop, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &nop);
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
}
END_TEST

/* ---- Afterwards ----------------------------------------------------------------- */

START_TEST(device_still_works)
{
	const uint32_t size = 1 * MiB + 7;
	struct host_buf src, dst;
	struct hbm_buf buf;
	uint32_t status;

	ck_assert_int_eq(hlthunk_get_device_status(dev_fd, &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	host_buf_map_ok(dev_fd, &src, size);
	host_buf_map_ok(dev_fd, &dst, size);
	hbm_alloc_ok(dev_fd, &buf, size);
	fill_pattern(src.ptr, size, 2024);
	memset(dst.ptr, 0, dst.size);
	dma_ok(dev_fd, src.va + 0, buf.addr + 3, size, QUEUE_H2D);
	dma_ok(dev_fd, buf.addr + 3, dst.va, size, QUEUE_D2H);
	ck_assert_int_eq(first_difference(src.ptr, dst.ptr, size), -1);
	hbm_free_ok(dev_fd, &buf);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
}
END_TEST

static Suite *negative_suite(void)
{
	Suite *s = suite_create("negative");
	TCase *args = matrix_tcase("cs-arguments");
	TCase *parser = matrix_tcase("parser");
	TCase *recovery = matrix_tcase("recovery");
	TCase *after = compute_tcase("afterwards", TCASE_TIMEOUT_DMA);

	tcase_add_loop_test(args, cs_args_refused, 0, NUM_CS_CASES);
	tcase_add_test(args, cs_bad_chunk_pointers);
	tcase_add_test(args, validation_drops_are_counted);
	suite_add_tcase(s, args);

	tcase_add_test(parser, msg_prot_is_eperm);
	tcase_add_test(parser, msg_prot_after_good_packets_is_eperm);
	tcase_add_test(parser, packet_overrunning_cb_is_einval);
	tcase_add_loop_test(parser, undefined_opcode_is_einval, 0,
			    (int)(sizeof(undefined_opcodes) / sizeof(undefined_opcodes[0])));
	tcase_add_loop_test(parser, unsupported_opcode_is_refused, 0,
			    (int)(sizeof(unsupported_opcodes) / sizeof(unsupported_opcodes[0])));
	tcase_add_test(parser, lin_dma_without_lin_bit_is_einval);
	tcase_add_loop_test(parser, lin_dma_unsupported_bits_are_einval, 0,
			    (int)(sizeof(unsupported_dma_bits) / sizeof(unsupported_dma_bits[0])));
	tcase_add_loop_test(parser, lin_dma_into_reserved_hbm_is_einval, 0, NUM_DMA_TARGETS);
	tcase_add_loop_test(parser, lin_dma_raw_host_address_is_eperm, 0, 2);
	tcase_add_test(parser, msg_long_raw_host_address_is_eperm);
	tcase_add_test(parser, registers_are_off_limits);
	tcase_add_loop_test(parser, dma_outside_userptr_mapping_is_refused, 0,
			    NUM_USERPTR_CASES);
	tcase_add_test(parser, msg_long_outside_userptr_is_refused);
	tcase_add_test(parser, msg_reserved_op_is_einval);
	tcase_add_test(parser, refused_cs_leaves_nothing_behind);
	tcase_add_test(parser, refusal_storm);
	suite_add_tcase(s, parser);

	tcase_add_loop_test(recovery, device_error_ends_in_error_completion, 0,
			    (int)(sizeof(device_refused) / sizeof(device_refused[0])));
	tcase_add_test(recovery, hung_cs_times_out_and_device_recovers);
	tcase_set_timeout(recovery, TCASE_TIMEOUT_DMA);
	suite_add_tcase(s, recovery);

	tcase_add_test(after, device_still_works);
	suite_add_tcase(s, after);
	return s;
}

int main(void)
{
	return run_suite(negative_suite());
}
