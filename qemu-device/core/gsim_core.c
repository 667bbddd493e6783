/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: creation, configuration checks, hard reset and the
 * run loop that shares a bounded amount of work between the streams.
 *
 * HBM and SRAM are anonymous private mappings with MAP_NORESERVE, so a
 * 32 GiB device costs only the pages the guest touches.
 *
 * The run loop also takes back the engine work that worker threads
 * finished (gsim_engines_complete()); the workers themselves are a
 * gsim_pool created here when the configuration asks for threads.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gsim_core_internal.h"
#include "gsim_fabric.h"
#include "gsim_faults.h"
#include "gsim_mme.h"
#include "gsim_mmu.h"
#include "gsim_telemetry.h"
#include "gsim_tpc.h"

#define GSIM_HBM_GRANULE	(2ull << 20)	/* hbm_size must be a multiple */
#define GSIM_HBM_BAR_MIN	4096ull

void gsim_log(struct gsim_core *core, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (core->ops.trace) {
		struct gsim_trace_event ev = {
			.what = GSIM_TRACE_LOG, .engine = ~0u, .engine_name = "", .msg = msg,
		};

		core->ops.trace(core->opaque, &ev);
	}
	core->ops.guest_error(core->opaque, msg);
}

void gsim_trace(struct gsim_core *core, enum gsim_trace what, unsigned int engine,
		uint64_t a, uint64_t b)
{
	struct gsim_trace_event ev = {
		.what = what,
		.engine = engine,
		.engine_name = gsim_engine_name(engine),
		.a = a,
		.b = b,
		.msg = "",
	};

	if (core->ops.trace)
		core->ops.trace(core->opaque, &ev);
}

struct gsim_stream *gsim_stream_by_queue(struct gsim_core *core, unsigned int queue_id)
{
	int e = queue_id < GAUDISIM_QUEUE_ID_SIZE ? gaudisim_queue_engine(queue_id) : -1;

	if (e < 0)
		return NULL;
	return &core->qman[e].stream[gaudisim_queue_stream(queue_id)];
}

struct gsim_stream *gsim_stream_by_slot(struct gsim_core *core, unsigned int slot)
{
	return &core->qman[slot / GAUDISIM_STREAMS_PER_QMAN]
			.stream[slot % GAUDISIM_STREAMS_PER_QMAN];
}

static const char *check_config(const struct gsim_core_config *cfg,
				const struct gsim_host_ops *ops)
{
	if (!cfg || !ops)
		return "gaudisim: missing configuration or host callbacks";
	if (!ops->dma_read || !ops->dma_write || !ops->msix_notify ||
	    !ops->guest_error || !ops->clock_ns)
		return "gaudisim: every host callback must be set";
	if (cfg->hbm_size % GSIM_HBM_GRANULE)
		return "gaudisim: hbm size must be a multiple of 2 MiB";
	if (cfg->hbm_size < GAUDISIM_HBM_RESERVED_SIZE + GSIM_HBM_GRANULE)
		return "gaudisim: hbm size must exceed the reserved area by at least 2 MiB";
	/* HBM must not run into the SRAM/CFG part of the device address map. */
	if (cfg->hbm_size > GAUDISIM_SRAM_BASE - GAUDISIM_HBM_BASE)
		return "gaudisim: hbm size too large for the device address map";
	if (cfg->hbm_bar_size < GSIM_HBM_BAR_MIN ||
	    (cfg->hbm_bar_size & (cfg->hbm_bar_size - 1)))
		return "gaudisim: hbm bar size must be a power of two of at least 4 KiB";
	if (cfg->hbm_bar_size > cfg->hbm_size)
		return "gaudisim: hbm bar size must not exceed the hbm size";
	return NULL;
}

static void *map_sparse(uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	/*
	 * Transparent huge pages: the first touch of a 2 MiB stretch costs one
	 * fault instead of 512, which makes the first pass over fresh HBM run
	 * at close to memset speed. Only a hint: without THP the mapping
	 * simply stays on small pages, still sparse.
	 */
	madvise(p, size, MADV_HUGEPAGE);
#endif
	return p;
}

struct gsim_core *gsim_core_new(const struct gsim_core_config *cfg,
				const struct gsim_host_ops *ops, void *opaque,
				const char **err)
{
	static const uint8_t nil_uuid[GSIM_UUID_LEN];
	const char *msg = check_config(cfg, ops);
	const struct gsim_tpc_isa *isa = NULL;
	struct gsim_core *core;
	unsigned int q;

	if (!msg)
		isa = gsim_tpc_isa_choose(cfg->tpc_isa, &msg);
	if (msg) {
		if (err)
			*err = msg;
		return NULL;
	}

	core = calloc(1, sizeof(*core));
	if (!core) {
		if (err)
			*err = "gaudisim: out of memory";
		return NULL;
	}
	core->ops = *ops;
	core->opaque = opaque;
	core->hbm_size = cfg->hbm_size;
	core->hbm_bar_size = cfg->hbm_bar_size;
	core->tpc_portable = cfg->tpc_portable;
	core->tpc_isa = isa;
	core->hbm = map_sparse(cfg->hbm_size);
	core->sram = map_sparse(GAUDISIM_SRAM_SIZE);
	core->bounce = malloc(GSIM_BOUNCE_SIZE);
	core->mmu = gsim_mmu_new();
	core->tel = gsim_telemetry_new(core);
	core->faults = gsim_faults_new();
	if (!core->hbm || !core->sram || !core->bounce || !core->mmu || !core->tel ||
	    !core->faults) {
		if (err)
			*err = "gaudisim: cannot reserve HBM/SRAM backing memory";
		gsim_core_free(core);
		return NULL;
	}

	for (q = 0; q < GSIM_NUM_STREAMS; q++) {
		struct gsim_stream *s = gsim_stream_by_slot(core, q);

		gsim_stream_init(s, q / GAUDISIM_STREAMS_PER_QMAN,
				 q % GAUDISIM_STREAMS_PER_QMAN);
		if (gsim_stream_alloc(s)) {
			if (err)
				*err = "gaudisim: out of memory";
			gsim_core_free(core);
			return NULL;
		}
	}
	if (gsim_engines_init(core)) {
		if (err)
			*err = "gaudisim: cannot create the engine models";
		gsim_core_free(core);
		return NULL;
	}
	if (cfg->threads > GSIM_CORE_MAX_THREADS) {
		if (err)
			*err = "gaudisim: too many worker threads";
		gsim_core_free(core);
		return NULL;
	}
	if (cfg->threads) {
		struct gsim_pool *shared = gsim_pool_get_shared(cfg->threads);

		core->pool = gsim_client_new(shared, ops->work_done, opaque);
		if (!core->pool) {
			gsim_pool_put_shared(shared);
			if (err)
				*err = "gaudisim: cannot start the worker threads";
			gsim_core_free(core);
			return NULL;
		}
	}
	gsim_core_reset(core);
	/* No EEPROM programmed yet: the nil UUID and its serial. */
	gsim_core_set_identity(core, NULL, nil_uuid, NULL);
	return core;
}

void gsim_core_free(struct gsim_core *core)
{
	unsigned int q;

	if (!core)
		return;
	/* Workers first: they may still be computing on engine state and HBM. */
	gsim_core_stop_workers(core);
	/* Then off the fabric: no peer may write into us any more. */
	gsim_fabric_detach(core->fabric, core);
	gsim_engines_fini(core);
	for (q = 0; q < GSIM_NUM_STREAMS; q++)
		gsim_stream_free(gsim_stream_by_slot(core, q));
	if (core->hbm)
		munmap(core->hbm, core->hbm_size);
	if (core->sram)
		munmap(core->sram, GAUDISIM_SRAM_SIZE);
	free(core->bounce);
	gsim_mmu_free(core->mmu);
	gsim_telemetry_free(core->tel);
	gsim_faults_free(core->faults);
	free(core);
}

uint8_t *gsim_core_hbm(struct gsim_core *core)
{
	return core->hbm;
}

uint64_t gsim_core_hbm_size(const struct gsim_core *core)
{
	return core->hbm_size;
}

int gsim_core_set_module_id(struct gsim_core *core, unsigned int module_id)
{
	if (module_id >= GAUDISIM_NIC_MAX_MODULES)
		return -1;
	core->module_id = module_id;
	return 0;
}

unsigned int gsim_core_module_id(const struct gsim_core *core)
{
	return core->module_id;
}

/* The refusal below names the limit. */
_Static_assert(GAUDISIM_SERIAL_MAX_LEN == 31, "gsim_core_serial_invalid() says 31");

const char *gsim_core_serial_invalid(const char *serial)
{
	size_t i, len = strlen(serial);

	if (!len)
		return "the serial number is empty";
	if (len > GAUDISIM_SERIAL_MAX_LEN)
		return "the serial number is longer than 31 characters";
	for (i = 0; i < len; i++)
		if (serial[i] <= ' ' || serial[i] > '~')
			return "the serial number may hold only printable ASCII characters "
			       "without spaces";
	return NULL;
}

void gsim_core_default_serial(const uint8_t *uuid, char *buf, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned int digits = GSIM_SERIAL_DEFAULT_LEN - 2;
	unsigned int i;

	if (size <= GSIM_SERIAL_DEFAULT_LEN) {
		if (size)
			buf[0] = '\0';
		return;
	}
	buf[0] = 'G';
	buf[1] = 'S';
	for (i = 0; i < digits; i++)
		buf[2 + i] = hex[uuid[i / 2] >> (i % 2 ? 0 : 4) & 0xf];
	buf[2 + digits] = '\0';
}

int gsim_core_set_identity(struct gsim_core *core, const char *serial,
			   const uint8_t *uuid, const char **err)
{
	const char *why = serial ? gsim_core_serial_invalid(serial) : NULL;

	if (why) {
		if (err)
			*err = why;
		return -1;
	}
	memcpy(core->uuid, uuid, GSIM_UUID_LEN);
	memset(core->serial, 0, sizeof(core->serial));
	if (serial)
		memcpy(core->serial, serial, strlen(serial));
	else
		gsim_core_default_serial(uuid, core->serial, sizeof(core->serial));
	return 0;
}

uint64_t gsim_core_hbm_window(const struct gsim_core *core)
{
	return core->hbm_window;
}

unsigned int gsim_core_threads(const struct gsim_core *core)
{
	return gsim_pool_threads(gsim_client_pool(core->pool));
}

const char *gsim_core_tpc_isa(const struct gsim_core *core)
{
	return core->tpc_isa->name;
}

const char *gsim_core_mme_kernels(const struct gsim_core *core)
{
	(void)core;
	return gsim_mme_kernels();
}

bool gsim_core_work_in_flight(struct gsim_core *core)
{
	unsigned int e;

	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		if (core->engine[e].job.submitted)
			return true;
	return false;
}

void gsim_core_stop_workers(struct gsim_core *core)
{
	struct gsim_pool *shared;

	if (!core->pool)
		return;
	shared = gsim_client_pool(core->pool);
	gsim_engines_cancel(core);
	gsim_client_free(core->pool);
	core->pool = NULL;
	gsim_pool_put_shared(shared);
}

bool gsim_core_wait_work(struct gsim_core *core, uint64_t timeout_ns)
{
	return core->pool && gsim_pool_wait_done(core->pool, timeout_ns);
}

void gsim_core_reset(struct gsim_core *core)
{
	unsigned int e;

	/*
	 * Everything the CP was doing is dropped here, synchronously: a CB
	 * that was parked on a fence or half-way through simply ceases to
	 * exist, so no completion or interrupt can follow the reset. Engines
	 * move to a new epoch: asynchronous work still finishing elsewhere
	 * completes into the void.
	 */
	for (e = 0; e < GSIM_NUM_QMANS; e++)
		gsim_qman_reset(&core->qman[e]);
	gsim_engines_reset(core);
	gsim_sync_reset(core);
	gsim_eq_reset(core);
	core->in_run = false;
	core->budget = NULL;
	core->requester = GSIM_REQ_MMIO;

	core->hbm_window = 0;
	core->hbm_window_lo_latch = 0;
	core->dbg_mem_addr = 0;
	core->dbg_mem_sts = 0;
	core->hw_state = GAUDISIM_HW_STATE_CLEAN;
	core->reset_pending = false;
	core->timestamp_hi_latch = 0;
	core->err_pkt_cnt = 0;
	core->err_dma_cnt = 0;
	core->err_pq_cnt = 0;
	core->dma_bytes = 0;
	core->cb_done_cnt = 0;
	gsim_pcie_reset(core);
	core->rr_next = 0;
	gsim_mmu_reset(core);
	gsim_telemetry_reset(core);
	gsim_faults_reset(core);
	gsim_nic_rx_reset(core);
}

static bool any_runnable(const struct gsim_core *core)
{
	unsigned int q, e;

	if (core->reset_pending)
		return false;
	for (q = 0; q < GSIM_NUM_STREAMS; q++) {
		const struct gsim_stream *s =
			&core->qman[q / GAUDISIM_STREAMS_PER_QMAN]
				 .stream[q % GAUDISIM_STREAMS_PER_QMAN];

		if (gsim_stream_runnable(core, s))
			return true;
	}
	/* A launch the host asked for that can start now. */
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		const struct gsim_engine *eng = &core->engine[e];

		if (gsim_fault_engine_hung(core, e))
			continue;
		if (eng->done_deferred)
			return true;
		if (eng->launch_pending && !eng->running &&
		    !(eng->ops->busy && eng->ops->busy(core, e)))
			return true;
	}
	return false;
}

bool gsim_core_run(struct gsim_core *core)
{
	return gsim_core_run_budget(core, GSIM_RUN_BUDGET_BYTES, GSIM_RUN_BUDGET_PACKETS,
				    GSIM_RUN_SYNC_NS);
}

bool gsim_core_run_budget(struct gsim_core *core, uint64_t bytes, uint32_t packets,
			  uint64_t sync_ns)
{
	struct gsim_budget budget = {
		/* An empty budget would run nothing and report nothing. */
		.bytes = bytes ? bytes : 1,
		.packets = packets ? packets : 1,
		.sync_deadline = core->ops.clock_ns(core->opaque) + sync_ns,
	};
	bool progressed;

	if (core->reset_pending)
		return false;
	/*
	 * Engines with work queued count as in flight for the whole run: the
	 * work they do inside it takes host time that the end of the run sees.
	 */
	gsim_engines_note_activity(core);
	/* Packets may launch engines from here on; MMIO-written COMMITs start now. */
	core->in_run = true;
	core->budget = &budget;
	/* Work the workers finished: status, completion messages, events. */
	gsim_engines_complete(core);
	gsim_engines_start_pending(core);

	/*
	 * Round-robin over the streams, one slice each; the next call starts
	 * after the last stream that ran, so a stream that used up the budget
	 * does not get the first turn again. Every slice takes at least one
	 * packet unit from the budget, so the loop always ends.
	 */
	do {
		unsigned int start = core->rr_next, i;

		progressed = false;
		for (i = 0; i < GSIM_NUM_STREAMS && gsim_budget_left(&budget); i++) {
			unsigned int q = (start + i) % GSIM_NUM_STREAMS;
			struct gsim_stream *s = gsim_stream_by_slot(core, q);

			if (!gsim_stream_runnable(core, s))
				continue;
			gsim_stream_step(core, s, &budget);
			core->rr_next = (q + 1) % GSIM_NUM_STREAMS;
			progressed = true;
		}
	} while (progressed && gsim_budget_left(&budget));

	core->in_run = false;
	core->budget = NULL;
	gsim_engines_note_activity(core);
	/* One interrupt for the events of this run. */
	gsim_eq_flush(core);
	return any_runnable(core);
}
