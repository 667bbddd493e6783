// SPDX-License-Identifier: MIT
/*
 * A bounded random ioctl fuzzer: COUNT calls (default 100000) from a fixed
 * seed (printed; -s SEED -n COUNT), on the compute node and now and then
 * on the control node. Every ioctl of the driver is called with random
 * ops, sizes, flags and fields, with live handles mixed in - CB handles,
 * HBM handles and addresses, userptr VAs, sequence numbers of CSs it
 * submitted, mmaps of its CBs - so that calls get past the first checks
 * and reach the parser, the queues, the MMU and the waits. The CBs hold
 * packets built from those handles with random fields, some garbage, and
 * never a FENCE that could block a stream. Random ioctl numbers and
 * mangled sizes and directions of the real ones are mixed in.
 *
 * Afterwards the fuzzer releases what it holds and the suite checks that
 * the device still works (a NOP CS, a DMA round trip), that nothing
 * leaked (HBM in use, CBs, CB memory and userptrs of the context, pinned
 * pages of the process back to their baseline), and run-all.sh checks the
 * kernel log.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "sysfs_util.h"

#define DEFAULT_SEED	0x9a0d15eedULL
#define DEFAULT_COUNT	100000u
#define POOL		16		/* live objects of each kind */
#define HOST_BYTES	(256 * 1024)	/* the host buffer userptrs come from */
#define ARG_BYTES	4096
#define MAX_DMA		(16 * 1024)	/* bytes per LIN_DMA, keeps TCG fast */
#define MAX_WAIT_US	200		/* longest blocking wait the fuzzer asks for */

static uint64_t seed = DEFAULT_SEED;
static unsigned int count = DEFAULT_COUNT;

/* ---- Random numbers ---------------------------------------------------------- */

static uint64_t rng;

static uint64_t rnd(void)
{
	/* splitmix64: every seed gives a good stream. */
	uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static int chance(unsigned int percent)
{
	return below(100) < percent;
}

/* ---- Live objects ------------------------------------------------------------ */

struct fuzz_cb {
	uint64_t handle;
	uint32_t size;
	uint32_t used;		/* bytes of packets written */
	uint8_t *map;		/* NULL when not mapped */
};

struct fuzz_state {
	int fd, ctl_fd;
	struct fuzz_cb cbs[POOL];
	unsigned int num_cbs;
	uint64_t hbm_handles[POOL], hbm_addrs[POOL], hbm_sizes[POOL];
	unsigned int num_hbm;
	uint64_t vas[POOL], va_sizes[POOL];
	unsigned int num_vas;
	uint64_t seqs[POOL];
	unsigned int num_seqs, next_seq_slot;
	uint8_t *host;
	uint8_t *arg;		/* ioctl argument */
	uint8_t *aux;		/* what the argument points at */
	unsigned long calls_by_rc[4];	/* 0, EINVAL, other errno, unknown ioctl */
	unsigned long ok_by_nr[6];	/* successes: INFO, CB, CS, WAIT_CS, MEMORY, other */
};

static struct fuzz_state st;

/* An address to hand the kernel: mostly ours, sometimes not. */
static uint64_t any_pointer(void *good)
{
	switch (below(10)) {
	case 0: return 0;
	case 1: return 0xffff888000000000ULL;		/* kernel space */
	case 2: return (uint64_t)(uintptr_t)good + 1;	/* misaligned */
	case 3: return rnd();
	default: return (uint64_t)(uintptr_t)good;
	}
}

static uint64_t any_cb_handle(void)
{
	if (st.num_cbs && chance(85))
		return st.cbs[below(st.num_cbs)].handle;
	return chance(50) ? (uint64_t)below(64) << 12 : rnd();
}

static uint64_t any_hbm_addr(uint32_t len)
{
	if (st.num_hbm && chance(85)) {
		unsigned int i = below(st.num_hbm);
		uint64_t room = st.hbm_sizes[i] > len ? st.hbm_sizes[i] - len : 0;

		return st.hbm_addrs[i] + (below((uint32_t)(room / 8) + 1) * 8);
	}
	return chance(50) ? below(0x40000000) : rnd();
}

static uint64_t any_host_va(uint32_t len)
{
	if (st.num_vas && chance(85)) {
		unsigned int i = below(st.num_vas);
		uint64_t room = st.va_sizes[i] > len ? st.va_sizes[i] - len : 0;

		return st.vas[i] + below((uint32_t)room + 1);
	}
	return chance(50) ? GAUDISIM_HOST_VA_BASE + below(1u << 30) : rnd();
}

static uint64_t any_addr(uint32_t len)
{
	return chance(50) ? any_hbm_addr(len) : any_host_va(len);
}

static uint64_t any_seq(void)
{
	if (st.num_seqs && chance(80))
		return st.seqs[below(st.num_seqs)] + (chance(10) ? 1 : 0);
	return chance(50) ? below(4) : rnd();
}

static uint32_t any_queue(void)
{
	if (chance(75))
		return below(GAUDISIM_NUM_EXT_QUEUES);
	return chance(80) ? below(GAUDISIM_QUEUE_ID_SIZE + 2) : (uint32_t)rnd();
}

static void keep_seq(uint64_t seq)
{
	st.seqs[st.next_seq_slot] = seq;
	st.next_seq_slot = (st.next_seq_slot + 1) % POOL;
	if (st.num_seqs < POOL)
		st.num_seqs++;
}

/* ---- Command buffer contents -------------------------------------------------- */

static uint32_t packet_size(uint32_t opcode)
{
	switch (opcode) {
	case GAUDISIM_PKT_MSG_LONG: case GAUDISIM_PKT_CP_DMA:
	case GAUDISIM_PKT_MSG_PROT: case GAUDISIM_PKT_LOAD_AND_EXE:
		return 16;
	case GAUDISIM_PKT_LIN_DMA:
		return 24;
	default:
		return 8;
	}
}

/*
 * Walk packets the way the parser does and defuse what could stall a
 * stream for long: a FENCE becomes a NOP, a LIN_DMA is clamped.
 */
static void defuse(uint8_t *p, uint32_t len)
{
	uint32_t off = 0;

	while (off + 8 <= len) {
		uint32_t ctl, op, sz;

		memcpy(&ctl, p + off + 4, 4);
		op = GAUDISIM_PKT_OPCODE(le32toh(ctl));
		if (op == GAUDISIM_PKT_FENCE || op == GAUDISIM_PKT_WAIT) {
			ctl = (ctl & ~GAUDISIM_PKT_CTL_OPCODE_MASK) | GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP);
			memcpy(p + off + 4, &ctl, 4);
			op = GAUDISIM_PKT_NOP;
		}
		sz = packet_size(op);
		if (op == GAUDISIM_PKT_LIN_DMA) {
			uint32_t size;

			memcpy(&size, p + off, 4);
			size %= MAX_DMA + 1;
			memcpy(p + off, &size, 4);
		}
		off += sz;
	}
}

/* Addresses inside live objects only, for a CB the parser should accept. */
static uint64_t live_addr(uint32_t len)
{
	if (st.num_hbm && (!st.num_vas || chance(50)))
		return any_hbm_addr(len);
	if (st.num_vas) {
		unsigned int i = below(st.num_vas);
		uint64_t room = st.va_sizes[i] > len ? st.va_sizes[i] - len : 0;

		return st.vas[i] + below((uint32_t)room + 1);
	}
	return any_addr(len);
}

/*
 * Packets for a CB: two in three CBs hold only packets the parser should
 * pass (NOP, DMA and messages within live objects, FENCEs that pass), the
 * rest anything, garbage included.
 */
static void fill_cb(struct fuzz_cb *cb)
{
	struct hlthunk_cb_writer w;
	uint32_t i, n = 1 + below(8), len;
	int clean = chance(67);

	hlthunk_cbw_init(&w, cb->map, cb->size);
	for (i = 0; i < n; i++) {
		uint32_t barriers = chance(30) ? GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB : 0;

		len = 8 + below(MAX_DMA / 8) * 8;
		if (clean) {
			switch (below(5)) {
			case 0:
				hlthunk_cbw_nop(&w, barriers);
				break;
			case 1:
				hlthunk_cbw_lin_dma(&w, live_addr(len), live_addr(len), len, 0,
						    barriers);
				break;
			case 2:
				hlthunk_cbw_memset(&w, live_addr(len), (uint8_t)rnd(), len,
						   barriers);
				break;
			case 3:
				hlthunk_cbw_msg_long(&w, live_addr(8) & ~3ULL, (uint32_t)rnd(),
						     barriers);
				break;
			default:
				hlthunk_cbw_fence(&w, below(4), 0, 0, barriers);
				break;
			}
			continue;
		}
		switch (below(8)) {
		case 0:
			hlthunk_cbw_nop(&w, barriers);
			break;
		case 1:
			hlthunk_cbw_lin_dma(&w, any_addr(len), any_addr(len), len,
					    chance(20) ? GAUDISIM_LIN_DMA_CTL_MEMSET : 0, barriers);
			break;
		case 2:
			hlthunk_cbw_memset(&w, any_addr(len), (uint8_t)rnd(), len, barriers);
			break;
		case 3:
			hlthunk_cbw_msg_long(&w, any_addr(8), (uint32_t)rnd(), barriers);
			break;
		case 4:
			hlthunk_cbw_msg_long_timestamp(&w, any_addr(8), barriers);
			break;
		case 5:
			hlthunk_cbw_fence(&w, below(4), 0, 0, barriers);	/* passes at once */
			break;
		case 6:
			hlthunk_cbw_wreg32(&w, (uint32_t)rnd() & 0xfffffc, (uint32_t)rnd(), barriers);
			break;
		default: {
			/* Garbage, made harmless by defuse(). */
			uint32_t words[4] = { (uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd(),
					      (uint32_t)rnd() };

			hlthunk_cbw_dwords(&w, words, 2 + 2 * below(2));
			break;
		}
		}
	}
	defuse(cb->map, w.used);
	cb->used = w.used;
}

/* ---- One call of each ioctl ---------------------------------------------------- */

static const uint32_t info_ops[] = {
	GAUDISIM_INFO_HW_IP_INFO, GAUDISIM_INFO_HW_EVENTS, GAUDISIM_INFO_DRAM_USAGE,
	GAUDISIM_INFO_HW_IDLE, GAUDISIM_INFO_DEVICE_STATUS, GAUDISIM_INFO_DEVICE_UTILIZATION,
	GAUDISIM_INFO_HW_EVENTS_AGGREGATE, GAUDISIM_INFO_CLK_RATE, GAUDISIM_INFO_RESET_COUNT,
	GAUDISIM_INFO_TIME_SYNC, GAUDISIM_INFO_CS_COUNTERS, GAUDISIM_INFO_PCI_COUNTERS,
	GAUDISIM_INFO_CLK_THROTTLE_REASON, GAUDISIM_INFO_SYNC_MANAGER,
	GAUDISIM_INFO_TOTAL_ENERGY, GAUDISIM_INFO_PLL_FREQUENCY, GAUDISIM_INFO_POWER,
	GAUDISIM_INFO_OPEN_STATS, GAUDISIM_INFO_CS_TIMEOUT_EVENT, GAUDISIM_INFO_RAZWI_EVENT,
	GAUDISIM_INFO_DEV_MEM_ALLOC_PAGE_SIZES, GAUDISIM_INFO_REGISTER_EVENTFD,
	GAUDISIM_INFO_UNREGISTER_EVENTFD, GAUDISIM_INFO_GET_EVENTS,
	GAUDISIM_INFO_UNDEFINED_OPCODE_EVENT, GAUDISIM_INFO_ENGINE_STATUS,
	GAUDISIM_INFO_PAGE_FAULT_EVENT, GAUDISIM_INFO_DRIVER_VERSION, GAUDISIM_INFO_HW_IP_EXT,
	GAUDISIM_INFO_QUEUE_IDLE, GAUDISIM_INFO_CS_STATS,
};

static uint32_t any_size(uint32_t typical)
{
	switch (below(6)) {
	case 0: return 0;
	case 1: return 1 + below(typical + 1);
	case 2: return (uint32_t)rnd();
	default: return typical;
	}
}

/* Returns an eventfd to close after the call, or -1. */
static int fuzz_info(struct gaudisim_info_args *a)
{
	int efd = -1;

	a->op = chance(90) ? info_ops[below(sizeof(info_ops) / sizeof(info_ops[0]))]
			   : (chance(50) ? below(128) : (uint32_t)rnd());
	a->return_pointer = any_pointer(st.aux);
	a->return_size = any_size(chance(20) ? ARG_BYTES : 64);
	if (a->return_pointer == (uint64_t)(uintptr_t)st.aux && a->return_size > ARG_BYTES)
		a->return_size = ARG_BYTES;
	if (chance(60)) {
		a->eventfd = 0;
		a->pad = 0;
	}
	if (a->op == GAUDISIM_INFO_DEVICE_UTILIZATION && chance(30))
		a->period_ms = 100 * (1 + below(10));
	if (a->op == GAUDISIM_INFO_REGISTER_EVENTFD) {
		/* A real eventfd now and then; closed after the call, registered or not. */
		if (chance(50))
			efd = eventfd(0, EFD_CLOEXEC);
		a->eventfd = efd >= 0 ? (uint32_t)efd : below(64);
	}
	return efd;
}

static void fuzz_cb_args(union gaudisim_cb_args *a)
{
	a->in.op = chance(95) ? below(3) : (uint32_t)rnd();
	a->in.cb_handle = any_cb_handle();
	a->in.cb_size = chance(80) ? 8 + below(3 * 4096) : (uint32_t)rnd();
	if (chance(80)) {
		a->in.ctx_id = 0;
		a->in.flags = 0;
	}
}

static void fuzz_cs_args(union gaudisim_cs_args *a)
{
	struct gaudisim_cs_chunk *chunks = (struct gaudisim_cs_chunk *)st.aux;
	uint32_t i, n = chance(90) ? 1 + below(4) : below(GAUDISIM_MAX_JOBS_PER_CS + 2);
	uint32_t max = ARG_BYTES / sizeof(*chunks);

	for (i = 0; i < max; i++) {
		struct gaudisim_cs_chunk *c = &chunks[i];

		memset(c, 0, sizeof(*c));
		if (chance(85) && st.num_cbs) {
			struct fuzz_cb *cb = &st.cbs[below(st.num_cbs)];

			c->cb_handle = cb->handle;
			c->cb_size = chance(80) ? cb->used :
				     chance(50) ? 8 * (1 + below(cb->size / 8)) : (uint32_t)rnd();
		} else {
			c->cb_handle = chance(50) ? any_hbm_addr(64) : any_cb_handle();
			c->cb_size = chance(50) ? 64 : (uint32_t)rnd();
		}
		c->queue_index = any_queue();
		if (chance(5))
			c->cs_chunk_flags = (uint32_t)rnd();
		if (chance(3))
			c->pad[below(10)] = (uint32_t)rnd();
	}
	if (n > max && chance(50))
		n = max;
	a->in.chunks_execute = chance(95) ? (uint64_t)(uintptr_t)chunks : any_pointer(chunks);
	a->in.num_chunks_execute = n;
	a->in.chunks_restore = chance(90) ? 0 : (uint64_t)(uintptr_t)chunks;
	a->in.num_chunks_restore = a->in.chunks_restore ? below(3) : (chance(95) ? 0 : below(4));
	a->in.seq = chance(90) ? 0 : rnd();
	/* A CS gets a short custom timeout: a stuck one is over in a second or two. */
	a->in.cs_flags = GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT |
			 (chance(20) ? GAUDISIM_CS_FLAGS_TIMESTAMP : 0) |
			 (chance(3) ? GAUDISIM_CS_FLAGS_FORCE_RESTORE : 0) |
			 (chance(3) ? (uint32_t)rnd() & ~GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT : 0);
	a->in.timeout = chance(95) ? 1 + below(2) : (chance(50) ? 0 : (uint32_t)rnd());
	a->in.ctx_id = chance(97) ? 0 : (uint32_t)rnd();
	if (chance(97))
		memset(a->in.pad, 0, sizeof(a->in.pad));
}

static void fuzz_wait_args(union gaudisim_wait_cs_args *a)
{
	uint64_t *seqs = (uint64_t *)st.aux;
	uint32_t i;

	a->in.seq = any_seq();
	a->in.timeout_us = chance(70) ? 0 : below(MAX_WAIT_US);
	a->in.ctx_id = chance(95) ? 0 : (uint32_t)rnd();
	a->in.flags = chance(75) ? 0 : (chance(50) ? GAUDISIM_WAIT_CS_FLAGS_MULTI_CS :
					  (chance(50) ? GAUDISIM_WAIT_CS_FLAGS_INTERRUPT :
							(uint32_t)rnd()));
	if (a->in.flags & GAUDISIM_WAIT_CS_FLAGS_MULTI_CS) {
		for (i = 0; i < 40; i++)
			seqs[i] = any_seq();
		a->in.seq = any_pointer(seqs);
		a->in.seq_arr_len = (uint8_t)(chance(90) ? 1 + below(32) : rnd());
		if (chance(80))
			memset(a->in.pad, 0, sizeof(a->in.pad));
	} else if (a->in.flags & GAUDISIM_WAIT_CS_FLAGS_INTERRUPT) {
		a->in.addr = chance(50) ? any_addr(8) : any_pointer(st.aux);
		a->in.target = below(4);
		a->in.interrupt_timeout_us = below(MAX_WAIT_US);
	} else if (chance(80)) {
		a->in.interrupt_timeout_us = 0;
	}
	if (chance(85)) {
		a->in.cq_counters_offset = 0;
		a->in.timestamp_handle = 0;
		a->in.timestamp_offset = 0;
	}
}

static void fuzz_mem_args(union gaudisim_mem_args *a)
{
	uint64_t len;

	a->in.op = chance(95) ? below(4) : (uint32_t)rnd();
	a->in.flags = chance(85) ? 0 : (chance(50) ? GAUDISIM_MEM_USERPTR :
					 (chance(50) ? GAUDISIM_MEM_CONTIGUOUS : (uint32_t)rnd()));
	a->in.ctx_id = chance(95) ? 0 : (uint32_t)rnd();
	a->in.num_of_elements = chance(95) ? 0 : (uint32_t)rnd();
	switch (a->in.op) {
	case GAUDISIM_MEM_OP_ALLOC:
		a->in.alloc.mem_size = chance(85) ? (uint64_t)(1 + below(4)) * GAUDISIM_DRAM_PAGE_SIZE
						  : rnd() >> below(64);
		a->in.alloc.page_size = chance(90) ? 0 : rnd();
		a->in.raw[2] = 0;
		break;
	case GAUDISIM_MEM_OP_FREE:
		a->in.free.handle = st.num_hbm && chance(80) ? st.hbm_handles[below(st.num_hbm)]
							    : below(64);
		break;
	case GAUDISIM_MEM_OP_MAP:
		if (chance(60)) {
			a->in.flags |= GAUDISIM_MEM_USERPTR;
			/* Whole pages mostly (the driver wants them), anything now and then. */
			len = chance(90) ? 4096 * (1 + below(HOST_BYTES / 8192)) : rnd();
			a->in.map_host.host_virt_addr = (uint64_t)(uintptr_t)st.host +
				4096 * below(HOST_BYTES / 8192);
			if (chance(10))
				a->in.map_host.host_virt_addr = chance(50) ?
					a->in.map_host.host_virt_addr + 1 + below(4095) :
					any_pointer(st.host);
			if (chance(5))
				len = 1 + below(8192);
			a->in.map_host.mem_size = len;
			a->in.map_host.hint_addr = chance(90) ? 0 : rnd();
		} else {
			a->in.map_device.handle = st.num_hbm && chance(80) ?
				st.hbm_handles[below(st.num_hbm)] : below(64);
			a->in.map_device.hint_addr = chance(90) ? 0 : rnd();
		}
		break;
	default:
		a->in.unmap.device_virt_addr = st.num_vas && chance(70) ? st.vas[below(st.num_vas)]
									: any_host_va(8);
		break;
	}
}

/* ---- Bookkeeping of what succeeded ------------------------------------------- */

static void drop_cb_at(unsigned int i)
{
	if (st.cbs[i].map)
		munmap(st.cbs[i].map, st.cbs[i].size);
	st.cbs[i] = st.cbs[--st.num_cbs];
}

static void note_cb(const union gaudisim_cb_args *in, const union gaudisim_cb_args *out)
{
	unsigned int i;

	if (in->in.op == GAUDISIM_CB_OP_CREATE) {
		struct fuzz_cb cb = { .handle = out->out.cb_handle, .size = in->in.cb_size };

		if (st.num_cbs == POOL) {
			hlthunk_destroy_command_buffer(st.fd, cb.handle);
			return;
		}
		cb.size = (cb.size + 4095) & ~4095u;
		cb.map = mmap(NULL, cb.size, PROT_READ | PROT_WRITE, MAP_SHARED, st.fd,
			      (off_t)cb.handle);
		if (cb.map == MAP_FAILED)
			cb.map = NULL;
		else
			fill_cb(&cb);
		st.cbs[st.num_cbs++] = cb;
	} else if (in->in.op == GAUDISIM_CB_OP_DESTROY) {
		for (i = 0; i < st.num_cbs; i++)
			if (st.cbs[i].handle == in->in.cb_handle) {
				drop_cb_at(i);
				break;
			}
	}
}

static void note_mem(const union gaudisim_mem_args *in, const union gaudisim_mem_args *out)
{
	unsigned int i;

	switch (in->in.op) {
	case GAUDISIM_MEM_OP_ALLOC:
		if (st.num_hbm == POOL) {
			hlthunk_device_memory_free(st.fd, out->out.handle);
			return;
		}
		st.hbm_handles[st.num_hbm] = out->out.handle;
		st.hbm_sizes[st.num_hbm] = in->in.alloc.mem_size;
		st.hbm_addrs[st.num_hbm] = 0;
		if (mem_map_rc(st.fd, out->out.handle, &st.hbm_addrs[st.num_hbm]))
			st.hbm_addrs[st.num_hbm] = 0;
		st.num_hbm++;
		break;
	case GAUDISIM_MEM_OP_FREE:
		for (i = 0; i < st.num_hbm; i++)
			if (st.hbm_handles[i] == in->in.free.handle) {
				st.num_hbm--;
				st.hbm_handles[i] = st.hbm_handles[st.num_hbm];
				st.hbm_addrs[i] = st.hbm_addrs[st.num_hbm];
				st.hbm_sizes[i] = st.hbm_sizes[st.num_hbm];
				break;
			}
		break;
	case GAUDISIM_MEM_OP_MAP:
		if (!(in->in.flags & GAUDISIM_MEM_USERPTR))
			break;
		if (st.num_vas == POOL) {
			hlthunk_memory_unmap(st.fd, out->out.device_virt_addr);
			return;
		}
		st.vas[st.num_vas] = out->out.device_virt_addr;
		st.va_sizes[st.num_vas++] = in->in.map_host.mem_size;
		break;
	default:
		for (i = 0; i < st.num_vas; i++)
			if (st.vas[i] == in->in.unmap.device_virt_addr) {
				st.num_vas--;
				st.vas[i] = st.vas[st.num_vas];
				st.va_sizes[i] = st.va_sizes[st.num_vas];
				break;
			}
		break;
	}
}

/* ---- The loop ------------------------------------------------------------------ */

/*
 * The ioctl number with its size or direction changed, or a random one of
 * 'd'. The changes keep the driver's output where the fuzzer reads it
 * (DRM copies back with _IOC_READ), so what such a call creates is still
 * tracked: a larger size, or a smaller one for the ops that create nothing,
 * and READ or READ|WRITE (a call that reads no input creates nothing).
 */
static unsigned long mangle(unsigned long cmd)
{
	unsigned long nr = _IOC_NR(cmd), size = _IOC_SIZE(cmd);
	int creates = cmd != DRM_IOCTL_GAUDISIM_INFO && cmd != DRM_IOCTL_GAUDISIM_WAIT_CS;

	switch (below(3)) {
	case 0:
		return _IOC(_IOC_DIR(cmd), DRM_IOCTL_BASE, nr,
			    creates ? size + 1 + below(64) : below(size * 2 + 1));
	case 1:
		return _IOC(chance(50) ? _IOC_READ : _IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr,
			    size);
	default:
		/* A driver number nobody implements. */
		return _IOC(below(4), DRM_IOCTL_BASE,
			    DRM_COMMAND_BASE + 5 + below(DRM_COMMAND_END - DRM_COMMAND_BASE - 5),
			    below(256));
	}
}

static void one_call(void)
{
	unsigned int which = below(100);
	int mangled = 1;
	unsigned long cmd, base = 0;
	int fd = st.fd, efd = -1, rc;
	uint8_t before[128];

	/* Random bytes first, so fields the generator leaves alone are random too. */
	for (unsigned int i = 0; i < 128; i += 8) {
		uint64_t r = rnd();

		memcpy(st.arg + i, &r, 8);
	}
	/* One call in twenty gets a mangled ioctl number. */
	if (which >= 95)
		which = below(95);
	else
		mangled = 0;
	if (which < 25) {
		cmd = DRM_IOCTL_GAUDISIM_INFO;
		efd = fuzz_info((struct gaudisim_info_args *)st.arg);
		if (chance(10))
			fd = st.ctl_fd;
	} else if (which < 40) {
		cmd = DRM_IOCTL_GAUDISIM_CB;
		fuzz_cb_args((union gaudisim_cb_args *)st.arg);
	} else if (which < 65) {
		cmd = DRM_IOCTL_GAUDISIM_CS;
		fuzz_cs_args((union gaudisim_cs_args *)st.arg);
	} else if (which < 80) {
		cmd = DRM_IOCTL_GAUDISIM_WAIT_CS;
		fuzz_wait_args((union gaudisim_wait_cs_args *)st.arg);
	} else {
		cmd = DRM_IOCTL_GAUDISIM_MEMORY;
		fuzz_mem_args((union gaudisim_mem_args *)st.arg);
	}
	if (mangled) {
		if (chance(10)) {
			/* An mmap of a CB handle with a random size and offset. */
			size_t len = 4096 * (1 + below(4));
			void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, st.fd,
				       (off_t)(any_cb_handle() + (chance(80) ? 0 : below(8) * 4096)));

			if (p != MAP_FAILED)
				munmap(p, len);
			if (efd >= 0)
				close(efd);
			return;
		}
		base = cmd;
		cmd = mangle(cmd);
		if (chance(20))
			fd = st.ctl_fd;
	}

	if (st.num_cbs && chance(2))
		fill_cb(&st.cbs[below(st.num_cbs)]);
	memcpy(before, st.arg, 128);
	rc = ioctl(fd, cmd, st.arg);
	if (efd >= 0)
		close(efd);
	if (rc == 0)
		st.calls_by_rc[0]++;
	else if (errno == EINVAL)
		st.calls_by_rc[1]++;
	else if (errno == ENOTTY)
		st.calls_by_rc[3]++;
	else
		st.calls_by_rc[2]++;
	if (rc || fd != st.fd)
		return;
	st.ok_by_nr[_IOC_NR(cmd) - DRM_COMMAND_BASE < 5 ? _IOC_NR(cmd) - DRM_COMMAND_BASE : 5]++;
	if (!mangled)
		base = cmd;
	else if (!(_IOC_DIR(cmd) & _IOC_WRITE))
		return;		/* the driver saw zeros, not the generated input */
	if (_IOC_NR(base) != _IOC_NR(cmd))
		return;
	if (base == DRM_IOCTL_GAUDISIM_CB)
		note_cb((union gaudisim_cb_args *)before, (union gaudisim_cb_args *)st.arg);
	else if (base == DRM_IOCTL_GAUDISIM_MEMORY)
		note_mem((union gaudisim_mem_args *)before, (union gaudisim_mem_args *)st.arg);
	else if (base == DRM_IOCTL_GAUDISIM_CS)
		keep_seq(((union gaudisim_cs_args *)st.arg)->out.seq);
}

/* Unregister, wait for the CSs, free and unmap everything the loop holds. */
static void release_all(void)
{
	uint32_t status;
	unsigned int i;

	ioctl(st.fd, DRM_IOCTL_GAUDISIM_INFO, &(struct gaudisim_info_args){
		.op = GAUDISIM_INFO_UNREGISTER_EVENTFD });
	for (i = 0; i < st.num_seqs; i++)
		hlthunk_wait_for_cs(st.fd, st.seqs[i], WAIT_US_SHORT, &status);
	while (st.num_cbs) {
		ck_assert_int_eq(hlthunk_destroy_command_buffer(st.fd, st.cbs[0].handle), 0);
		drop_cb_at(0);
	}
	for (i = 0; i < st.num_vas; i++)
		ck_assert_int_eq(hlthunk_memory_unmap(st.fd, st.vas[i]), 0);
	for (i = 0; i < st.num_hbm; i++)
		ck_assert_int_eq(hlthunk_device_memory_free(st.fd, st.hbm_handles[i]), 0);
	st.num_vas = 0;
	st.num_hbm = 0;
}

/* ---- Leak accounting ------------------------------------------------------------ */

struct usage {
	long long cbs, cb_bytes, jobs, userptrs, hbm_used, vm_pin_kb;
};

static long long field_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	ck_assert_msg(p, "\"%s\" not in:\n%s", key, text);
	return strtoll(p + strlen(key), NULL, 10);
}

static void usage_ok(struct usage *u)
{
	static char text[TEXT_LEN * 4];
	char dir[PATH_LEN], path[PATH_LEN];
	FILE *f;
	char line[256];

	debugfs_dir_ok(dir, sizeof(dir));
	join_path(path, sizeof(path), dir, "state_dump");
	ck_assert_int_eq(read_text(path, text, sizeof(text)), 0);
	u->hbm_used = field_after(text, "hbm: ");
	u->jobs = field_after(text, "jobs-in-flight ");
	u->cbs = field_after(text, " cbs ");
	u->cb_bytes = field_after(text, "cb-bytes ");

	/* The userptr file: a header line, then one line per mapping. */
	join_path(path, sizeof(path), dir, "userptr");
	ck_assert_int_eq(read_text(path, text, sizeof(text)), 0);
	u->userptrs = -1;
	for (const char *p = text; p; p = strchr(p + 1, '\n'))
		u->userptrs++;

	u->vm_pin_kb = -1;
	f = fopen("/proc/self/status", "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmPin:", 6))
			u->vm_pin_kb = strtoll(line + 6, NULL, 10);
	fclose(f);
	ck_assert_int_ge(u->vm_pin_kb, 0);
}

static int usage_equal(const struct usage *a, const struct usage *b)
{
	return a->cbs == b->cbs && a->cb_bytes == b->cb_bytes && a->jobs == b->jobs &&
	       a->userptrs == b->userptrs && a->hbm_used == b->hbm_used &&
	       a->vm_pin_kb == b->vm_pin_kb;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- Tests ------------------------------------------------------------------------ */

START_TEST(random_ioctls_leave_no_leak)
{
	struct usage base, after;
	double t0;
	unsigned int i;

	memset(&st, 0, sizeof(st));
	rng = seed;
	st.fd = dev_fd;
	st.ctl_fd = open_control_ok();
	st.host = mmap(NULL, HOST_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	st.arg = aligned_alloc(4096, ARG_BYTES);
	st.aux = aligned_alloc(4096, ARG_BYTES);
	ck_assert(st.host != MAP_FAILED && st.arg && st.aux);
	memset(st.arg, 0, ARG_BYTES);
	memset(st.aux, 0, ARG_BYTES);
	usage_ok(&base);

	printf("fuzz: seed 0x%" PRIx64 ", %u calls\n", seed, count);
	fflush(stdout);
	t0 = now_s();
	for (i = 0; i < count; i++)
		one_call();
	printf("fuzz: %u calls in %.1f s: %lu succeeded, %lu EINVAL, %lu other errors, %lu ENOTTY\n",
	       count, now_s() - t0, st.calls_by_rc[0], st.calls_by_rc[1], st.calls_by_rc[2],
	       st.calls_by_rc[3]);
	printf("fuzz: succeeded INFO %lu CB %lu CS %lu WAIT_CS %lu MEMORY %lu; live: %u CBs, %u HBM, %u userptrs\n",
	       st.ok_by_nr[0], st.ok_by_nr[1], st.ok_by_nr[2], st.ok_by_nr[3], st.ok_by_nr[4],
	       st.num_cbs, st.num_hbm, st.num_vas);
	fflush(stdout);
	/* Most calls must get past the first checks, or the fuzzer tests little. */
	ck_assert_uint_gt(st.calls_by_rc[0], count / 10);

	release_all();
	/* CSs of the loop may still run out their (short) timeouts. */
	for (i = 0; i < 200; i++) {
		usage_ok(&after);
		if (usage_equal(&base, &after))
			break;
		sleep_ms(50);
	}
	ck_assert_msg(usage_equal(&base, &after),
		      "before/after: cbs %lld/%lld cb-bytes %lld/%lld jobs %lld/%lld userptrs %lld/%lld hbm %lld/%lld VmPin %lld/%lld kB",
		      base.cbs, after.cbs, base.cb_bytes, after.cb_bytes, base.jobs, after.jobs,
		      base.userptrs, after.userptrs, base.hbm_used, after.hbm_used,
		      base.vm_pin_kb, after.vm_pin_kb);
	hlthunk_close(st.ctl_fd);
	munmap(st.host, HOST_BYTES);
	free(st.arg);
	free(st.aux);
}
END_TEST

START_TEST(device_works_after_the_fuzzer)
{
	const uint32_t size = 64 * 1024;
	struct host_buf src, dst;
	struct hbm_buf hbm;
	struct test_cb nop;
	struct test_dram_usage usage;
	uint32_t status = ~0u;
	int i;

	/* Resets the fuzzer caused are over. */
	for (i = 0; i < 300; i++) {
		ck_assert_int_eq(hlthunk_get_device_status(dev_fd, &status), 0);
		if (status == GAUDISIM_DEVICE_STATUS_OPERATIONAL)
			break;
		sleep_ms(100);
	}
	ck_assert_uint_eq(status, GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	/* The fuzzer's context is gone, and with it all its HBM. */
	dram_usage_ok(dev_fd, &usage);
	ck_assert_uint_eq(usage.dram_used_mem, 0);

	cb_create_ok(dev_fd, &nop, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	run_cb_ok(dev_fd, &nop, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &nop);

	host_buf_map_ok(dev_fd, &src, size);
	host_buf_map_ok(dev_fd, &dst, size);
	hbm_alloc_ok(dev_fd, &hbm, GAUDISIM_DRAM_PAGE_SIZE);
	fill_pattern(src.ptr, size, 77);
	memset(dst.ptr, 0, size);
	dma_ok(dev_fd, src.va, hbm.addr, size, QUEUE_H2D);
	dma_ok(dev_fd, hbm.addr, dst.va, size, QUEUE_D2H);
	ck_assert_int_eq(first_difference(src.ptr, dst.ptr, size), -1);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &src);
	host_buf_release(dev_fd, &dst);
}
END_TEST

static Suite *fuzz_suite(void)
{
	Suite *s = suite_create("ioctl_fuzz");
	TCase *tc = compute_tcase("fuzz", 600);

	tcase_add_test(tc, random_ioctls_leave_no_leak);
	tcase_add_test(tc, device_works_after_the_fuzzer);
	suite_add_tcase(s, tc);
	return s;
}

static void usage_exit(const char *prog)
{
	fprintf(stderr, "usage: %s [-s SEED] [-n COUNT]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:h")) != -1) {
		switch (opt) {
		case 's':
			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg)
				usage_exit(argv[0]);
			break;
		case 'n':
			errno = 0;
			count = (unsigned int)strtoul(optarg, &end, 0);
			if (errno || *end || !*optarg || !count)
				usage_exit(argv[0]);
			break;
		default:
			usage_exit(argv[0]);
		}
	}
	if (optind != argc)
		usage_exit(argv[0]);
	return run_suite(fuzz_suite());
}
