/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: what every engine shares.
 *
 * An engine model (MME, TPC) plugs in with one struct gsim_engine_ops in
 * the table below. The core owns the rest: the common registers at
 * GAUDISIM_ENG_COMMON_BASE of every engine block (completion message,
 * status, counters, soft reset), the launch sequence and the reset epochs.
 *
 * Launch: a packet that writes the engine's COMMIT register (a WREG_32,
 * or one run by LOAD_AND_EXE from the scalars) launches the engine at
 * once, inside the packet; a synchronous engine has its results in place
 * for the CB's next packet. A COMMIT written
 * by the host over MMIO is only latched (MMIO never computes); the run
 * loop starts it. An engine may also finish asynchronously: launch()
 * returns GSIM_ENGINE_ASYNC and the model calls gsim_engine_done() later
 * from the main thread; meanwhile the engine is busy and packets with the
 * engine barrier (EB) on its queues wait. When the core has worker threads
 * (gsim_pool.h), the MME, TPC and HBM-DMA engines work that way: launch()
 * decodes and returns GSIM_ENGINE_ASYNC, the core submits the engine's
 * work() to the pool, and gsim_engines_complete() - at the start of every
 * gsim_core_run() - takes finished work back, runs complete() and
 * finishes the launch through gsim_engine_done().
 *
 * When launched work finishes, the core records STATUS and the counters,
 * posts ENGINE_ERR if it failed, and writes the completion message if
 * WR_COMP_EN is set - also after a failure, so a chain of engines waiting
 * on it does not hang; the event tells the driver what went wrong.
 *
 * Epochs: every reset of an engine moves its epoch on. Asynchronous work
 * that finishes with an older epoch completes into the void: no status,
 * no completion message, no event. A reset first cancels the engine's
 * work on a worker and waits for it, so not even a memory write of it
 * follows the reset.
 */
#include <inttypes.h>

#include "gsim_core_internal.h"
#include "gsim_faults.h"
#include "gsim_mme.h"
#include "gsim_nic.h"
#include "gsim_telemetry.h"
#include "gsim_tpc.h"

/* One line per engine model. */
static const struct gsim_engine_ops *const engine_table[GAUDISIM_ENGINE_COUNT] = {
	[GAUDISIM_ENGINE_DMA_0 ... GAUDISIM_ENGINE_DMA_7] = &gsim_dma_engine_ops,
	[GAUDISIM_ENGINE_MME ... GAUDISIM_ENGINE_MME_1] = &gsim_mme_engine_ops,
	[GAUDISIM_ENGINE_TPC_0 ... GAUDISIM_ENGINE_TPC_7] = &gsim_tpc_engine_ops,
	[GAUDISIM_ENGINE_NIC_0 ... GAUDISIM_ENGINE_NIC_9] = &gsim_nic_engine_ops,
};

static const char *const engine_names[GAUDISIM_ENGINE_COUNT] = {
	"DMA 0", "DMA 1", "DMA 2", "DMA 3", "DMA 4", "DMA 5", "DMA 6", "DMA 7", "MME 0", "MME 1",
	"TPC 0", "TPC 1", "TPC 2", "TPC 3", "TPC 4", "TPC 5", "TPC 6", "TPC 7",
	"NIC 0", "NIC 1", "NIC 2", "NIC 3", "NIC 4", "NIC 5", "NIC 6", "NIC 7", "NIC 8", "NIC 9",
};

const char *gsim_engine_name(unsigned int e)
{
	return e < GAUDISIM_ENGINE_COUNT ? engine_names[e] : "?";
}

int gsim_engines_init(struct gsim_core *core)
{
	unsigned int e;

	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		const struct gsim_engine_ops *ops = engine_table[e];

		core->engine[e].ops = ops;
		if (ops && ops->init && ops->init(core, e))
			return -1;
	}
	return 0;
}

void gsim_engines_fini(struct gsim_core *core)
{
	unsigned int e;

	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		const struct gsim_engine_ops *ops = core->engine[e].ops;

		if (ops && ops->fini)
			ops->fini(core, e);
	}
}

/*
 * Take an engine's work back from the workers before a reset: afterwards
 * no worker touches the engine's job state or device memory for it, and
 * its result is gone.
 */
static void cancel_job(struct gsim_core *core, unsigned int e)
{
	struct gsim_engine_job *job = &core->engine[e].job;

	if (!job->submitted)
		return;
	gsim_pool_cancel(core->pool, &job->work);
	job->submitted = false;
	gsim_trace(core, GSIM_TRACE_CANCEL, e, job->epoch, 0);
}

void gsim_engines_cancel(struct gsim_core *core)
{
	unsigned int e;

	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		cancel_job(core, e);
}

/* The core's part of an engine to reset values; the epoch moves on. */
static void engine_state_reset(struct gsim_core *core, unsigned int e)
{
	struct gsim_engine *eng = &core->engine[e];
	const struct gsim_engine_ops *ops = eng->ops;
	uint32_t epoch = eng->epoch + 1;

	cancel_job(core, e);
	*eng = (struct gsim_engine){ .ops = ops, .epoch = epoch };
	if (ops && ops->reset)
		ops->reset(core, e);
}

void gsim_engines_reset(struct gsim_core *core)
{
	unsigned int e;

	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		engine_state_reset(core, e);
}

void gsim_engine_soft_reset(struct gsim_core *core, unsigned int e)
{
	gsim_qman_reset(&core->qman[e]);
	engine_state_reset(core, e);
	gsim_fault_engine_reset(core, e);
	gsim_eq_post(core, GAUDISIM_EQ_EVENT_RESET_DONE, e, GAUDISIM_EQ_NONE, 0, 0);
}

uint32_t gsim_engine_epoch(const struct gsim_core *core, unsigned int e)
{
	return e < GAUDISIM_ENGINE_COUNT ? core->engine[e].epoch : 0;
}

bool gsim_engine_busy(const struct gsim_core *core, unsigned int e)
{
	const struct gsim_engine *eng = &core->engine[e];

	return eng->launch_pending || eng->running ||
	       (eng->ops && eng->ops->busy && eng->ops->busy(core, e));
}

/*
 * Work in flight on engine e: a launch not finished, or a CB in one of its
 * queues that is not parked on a fence (waiting for another engine is not
 * work of this one).
 */
static bool engine_inflight(const struct gsim_core *core, unsigned int e)
{
	const struct gsim_qman *qm = &core->qman[e];
	unsigned int i;

	if (gsim_engine_busy(core, e))
		return true;
	for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++)
		if (gsim_stream_busy(&qm->stream[i]) && qm->stream[i].park != GSIM_PARK_FENCE)
			return true;
	return false;
}

void gsim_engines_note_activity(struct gsim_core *core)
{
	uint32_t mask = 0;
	unsigned int e;

	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		if (engine_inflight(core, e))
			mask |= 1u << e;
	gsim_telemetry_set_inflight(core, mask);
}

int gsim_engine_completion_msg(struct gsim_core *core, unsigned int e, unsigned int *kick,
			       const char **why)
{
	const struct gsim_engine *eng = &core->engine[e];
	uint64_t addr = (uint64_t)eng->wr_comp_addr_hi << 32 | eng->wr_comp_addr_lo;

	if (!addr) {
		*why = "WR_COMP_ADDR is not programmed";
		return GAUDISIM_CP_ERR_PKT_FIELD;
	}
	return gsim_dev_write32(core, addr, eng->wr_comp_wdata, kick, why);
}

static uint32_t queue_or_none(unsigned int req)
{
	return req < GAUDISIM_QUEUE_ID_SIZE ? req : GAUDISIM_EQ_NONE;
}

/* Launched work finished with err (launch()'s convention): record, report, signal. */
static void finish_launch(struct gsim_core *core, unsigned int e, int err, unsigned int *kick)
{
	struct gsim_engine *eng = &core->engine[e];
	uint8_t code = (uint8_t)GSIM_ENGINE_ERR_CODE(err);
	const char *why = "";
	int rc;

	eng->running = false;
	eng->last_err = code;
	if (code) {
		eng->err_cnt++;
		if (!(err & GSIM_ENGINE_ERR_POSTED))
			gsim_eq_post(core, GAUDISIM_EQ_EVENT_ENGINE_ERR, e,
				     queue_or_none(eng->launch_req), code, 0);
	}
	if (!(eng->wr_comp_en & 1))
		return;
	rc = gsim_engine_completion_msg(core, e, kick, &why);
	if (rc) {
		uint64_t addr = (uint64_t)eng->wr_comp_addr_hi << 32 | eng->wr_comp_addr_lo;

		gsim_log(core, "%s: completion message 0x%x to 0x%" PRIx64 " failed: %s "
			 "(error %d)", gsim_engine_name(e), eng->wr_comp_wdata, addr, why, rc);
		gsim_eq_post(core, GAUDISIM_EQ_EVENT_DMA_ERR, e, queue_or_none(eng->launch_req),
			     (uint32_t)rc, addr);
	}
}

/* Worker entry: run the engine model's work() for the job. */
static void job_run(struct gsim_work *w)
{
	struct gsim_engine_job *job = (struct gsim_engine_job *)w;

	job->result = job->core->engine[job->e].ops->work(job->core, job->e, w);
}

static void submit_job(struct gsim_core *core, unsigned int e)
{
	struct gsim_engine *eng = &core->engine[e];
	struct gsim_engine_job *job = &eng->job;

	job->work.fn = job_run;
	job->core = core;
	job->e = e;
	job->epoch = eng->epoch;
	job->result = 0;
	job->submitted = true;
	job->transfer = false;
	gsim_trace(core, GSIM_TRACE_OFFLOAD, e, job->epoch, 0);
	gsim_pool_submit(core->pool, &job->work);
}

void gsim_engine_offload_transfer(struct gsim_core *core, unsigned int e)
{
	struct gsim_engine *eng = &core->engine[e];

	eng->running = true;
	eng->launch_req = core->requester;
	submit_job(core, e);
	eng->job.transfer = true;
}

unsigned int gsim_engines_complete(struct gsim_core *core)
{
	unsigned int kick = 0;
	struct gsim_work *w;

	if (!core->pool)
		return 0;
	while ((w = gsim_pool_take_done(core->pool))) {
		struct gsim_engine_job *job = (struct gsim_engine_job *)w;
		struct gsim_engine *eng = &core->engine[job->e];
		int err = job->result;

		job->submitted = false;
		/* Resets cancel their work, so this is a second line of defence. */
		if (job->epoch != eng->epoch || !eng->running) {
			gsim_trace(core, GSIM_TRACE_DROPPED, job->e, job->epoch, 0);
			continue;
		}
		if (eng->ops->complete)
			err = eng->ops->complete(core, job->e, err);
		if (job->transfer) {
			/* The waiting packet finishes the transfer itself. */
			eng->running = false;
			gsim_trace(core, GSIM_TRACE_DONE, job->e, job->epoch, (uint32_t)err);
			kick |= GSIM_KICK_RUN;
			continue;
		}
		kick |= gsim_engine_done(core, job->e, job->epoch, err);
	}
	return kick;
}

static void start_launch(struct gsim_core *core, unsigned int e, unsigned int *kick)
{
	struct gsim_engine *eng = &core->engine[e];
	unsigned int saved = core->requester;
	int rc;

	eng->launch_pending = false;
	eng->launch_cnt++;
	core->requester = eng->launch_req;
	gsim_trace(core, GSIM_TRACE_LAUNCH, e, eng->launch_req, eng->epoch);
	/* MME, TPC and NIC jobs read HBM: an armed uncorrectable ECC error fails them. */
	if (e >= GAUDISIM_ENGINE_MME && gsim_fault_take_hbm_ecc(core)) {
		gsim_log(core, "%s: launch failed: uncorrectable HBM ECC error",
			 gsim_engine_name(e));
		finish_launch(core, e, GAUDISIM_CP_ERR_ECC, kick);
		core->requester = saved;
		return;
	}
	rc = eng->ops->launch(core, e);
	if (rc == GSIM_ENGINE_ASYNC) {
		eng->running = true;
		if (eng->ops->work && core->pool)
			submit_job(core, e);
	} else {
		/*
		 * Synchronous MME and TPC jobs run until they have taken the
		 * run's time (GSIM_RUN_SYNC_NS in the main loop, less inside a
		 * doorbell write): the job that ends past it ends the run. A
		 * training step is a chain of small jobs, and every return to
		 * the main loop costs the next one a trip through it, so the
		 * run is cut by the time its jobs took, not by their number.
		 */
		if (e >= GAUDISIM_ENGINE_MME && e <= GAUDISIM_ENGINE_TPC_7 && core->budget &&
		    core->ops.clock_ns(core->opaque) >= core->budget->sync_deadline)
			core->budget->bytes = 0;
		gsim_trace(core, GSIM_TRACE_DONE, e, eng->epoch, (uint32_t)rc);
		finish_launch(core, e, rc, kick);
	}
	core->requester = saved;
}

/* Could a pending launch start now? */
static bool can_start(const struct gsim_core *core, unsigned int e)
{
	const struct gsim_engine *eng = &core->engine[e];

	return eng->launch_pending && !eng->running &&
	       !gsim_fault_engine_hung(core, e) &&
	       !(eng->ops->busy && eng->ops->busy(core, e));
}

bool gsim_engine_request_launch(struct gsim_core *core, unsigned int e, unsigned int *kick)
{
	struct gsim_engine *eng = &core->engine[e];

	if (!eng->ops || !eng->ops->launch)
		return false;
	/* A second request while one is pending is the same launch. */
	eng->launch_pending = true;
	eng->launch_req = core->requester;
	if (core->in_run && can_start(core, e))
		start_launch(core, e, kick);
	else
		*kick |= GSIM_KICK_RUN;
	return true;
}

/* Finish asynchronous work that ended while its engine was hung. */
static bool finish_deferred(struct gsim_core *core, unsigned int e, unsigned int *kick)
{
	struct gsim_engine *eng = &core->engine[e];
	unsigned int saved;

	if (!eng->done_deferred || gsim_fault_engine_hung(core, e))
		return false;
	eng->done_deferred = false;
	saved = core->requester;
	core->requester = eng->launch_req;
	finish_launch(core, e, eng->deferred_err, kick);
	core->requester = saved;
	return true;
}

bool gsim_engines_start_pending(struct gsim_core *core)
{
	unsigned int e, kick = 0;
	bool started = false;

	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		if (finish_deferred(core, e, &kick))
			started = true;
		if (!can_start(core, e))
			continue;
		start_launch(core, e, &kick);
		started = true;
	}
	return started;
}

unsigned int gsim_engine_done(struct gsim_core *core, unsigned int e, uint32_t epoch, int err)
{
	unsigned int kick = 0, saved;
	struct gsim_engine *eng;

	if (e >= GAUDISIM_ENGINE_COUNT)
		return 0;
	eng = &core->engine[e];
	/* Work from before a reset completes into the void. */
	if (epoch != eng->epoch || !eng->running)
		return 0;
	/* A hung engine does not finish: the result waits for the release. */
	if (gsim_fault_engine_hung(core, e)) {
		eng->done_deferred = true;
		eng->deferred_err = err;
		return 0;
	}
	saved = core->requester;
	core->requester = eng->launch_req;
	gsim_trace(core, GSIM_TRACE_DONE, e, epoch, (uint32_t)err);
	finish_launch(core, e, err, &kick);
	core->requester = saved;
	gsim_eq_flush(core);
	if (!core->in_run)
		gsim_engines_note_activity(core);
	/* Streams parked on EB, or a launch that was waiting, may go on. */
	return kick | GSIM_KICK_RUN;
}

/* ---- the common registers ------------------------------------------------- */

static uint32_t status_value(const struct gsim_core *core, unsigned int e)
{
	const struct gsim_engine *eng = &core->engine[e];
	uint32_t v = (uint32_t)eng->last_err << GAUDISIM_ENG_STATUS_ERR_SHIFT;

	if (gsim_engine_busy(core, e))
		v |= GAUDISIM_ENG_STATUS_BUSY;
	if (eng->last_err)
		v |= GAUDISIM_ENG_STATUS_ERR;
	return v;
}

static bool common_read(struct gsim_core *core, unsigned int e, uint32_t off, uint32_t *value)
{
	const struct gsim_engine *eng = &core->engine[e];

	switch (off) {
	case GAUDISIM_ENG_WR_COMP_ADDR_LO:
		*value = eng->wr_comp_addr_lo;
		return true;
	case GAUDISIM_ENG_WR_COMP_ADDR_HI:
		*value = eng->wr_comp_addr_hi;
		return true;
	case GAUDISIM_ENG_WR_COMP_WDATA:
		*value = eng->wr_comp_wdata;
		return true;
	case GAUDISIM_ENG_WR_COMP_EN:
		*value = eng->wr_comp_en;
		return true;
	case GAUDISIM_ENG_STATUS:
		*value = status_value(core, e);
		return true;
	case GAUDISIM_ENG_LAUNCH_CNT:
		*value = eng->launch_cnt;
		return true;
	case GAUDISIM_ENG_ERR_CNT:
		*value = eng->err_cnt;
		return true;
	case GAUDISIM_ENG_SOFT_RESET:	/* write-only */
		*value = 0;
		return true;
	default:
		return false;
	}
}

static enum gsim_reg_status common_write(struct gsim_core *core, unsigned int e, uint32_t off,
					 uint32_t value, enum gsim_reg_origin origin)
{
	struct gsim_engine *eng = &core->engine[e];

	switch (off) {
	case GAUDISIM_ENG_WR_COMP_ADDR_LO:
		eng->wr_comp_addr_lo = value;
		return GSIM_REG_OK;
	case GAUDISIM_ENG_WR_COMP_ADDR_HI:
		eng->wr_comp_addr_hi = value;
		return GSIM_REG_OK;
	case GAUDISIM_ENG_WR_COMP_WDATA:
		eng->wr_comp_wdata = value;
		return GSIM_REG_OK;
	case GAUDISIM_ENG_WR_COMP_EN:
		if (value & ~1u) {
			if (origin == GSIM_ORIGIN_MMIO)
				gsim_log(core, "%s: WR_COMP_EN 0x%x: only bit 0 exists",
					 gsim_engine_name(e), value);
			return GSIM_REG_BAD_VALUE;
		}
		eng->wr_comp_en = value;
		return GSIM_REG_OK;
	case GAUDISIM_ENG_STATUS:
	case GAUDISIM_ENG_LAUNCH_CNT:
	case GAUDISIM_ENG_ERR_CNT:
		return GSIM_REG_READ_ONLY;
	case GAUDISIM_ENG_SOFT_RESET:
		/* A job must not reset engines under the driver's feet. */
		if (origin == GSIM_ORIGIN_CB)
			return GSIM_REG_PROTECTED;
		if (value != GAUDISIM_ENG_SOFT_RESET_GO) {
			gsim_log(core, "%s: SOFT_RESET 0x%x: write 0x%x to reset the engine",
				 gsim_engine_name(e), value, GAUDISIM_ENG_SOFT_RESET_GO);
			return GSIM_REG_BAD_VALUE;
		}
		gsim_engine_soft_reset(core, e);
		return GSIM_REG_OK;
	default:
		return GSIM_REG_UNKNOWN;
	}
}

static bool is_common(uint32_t off)
{
	return off >= GAUDISIM_ENG_COMMON_BASE && off < GAUDISIM_ENG_COMMON_END;
}

bool gsim_engine_reg_read(struct gsim_core *core, unsigned int e, uint32_t off,
			  uint32_t *value)
{
	const struct gsim_engine_ops *ops = core->engine[e].ops;

	*value = 0;
	if (is_common(off))
		return common_read(core, e, off, value);
	if (ops && ops->reg_read)
		return ops->reg_read(core, e, off, value);
	return false;
}

enum gsim_reg_status gsim_engine_reg_write(struct gsim_core *core, unsigned int e,
					   uint32_t off, uint32_t value,
					   enum gsim_reg_origin origin, unsigned int *kick)
{
	const struct gsim_engine_ops *ops = core->engine[e].ops;
	enum gsim_reg_status st;
	bool launch = false;

	/*
	 * A monitor payload is not a CB: it never programs or launches an
	 * engine (MME COMMIT, TPC and NIC launch, completion messages).
	 */
	if (core->requester == GSIM_REQ_SYNC)
		return GSIM_REG_PROTECTED;
	if (is_common(off))
		return common_write(core, e, off, value, origin);
	if (!ops || !ops->reg_write)
		return GSIM_REG_UNKNOWN;
	st = ops->reg_write(core, e, off, value, origin, &launch);
	if (st == GSIM_REG_OK && launch) {
		const struct gsim_engine *eng = &core->engine[e];

		gsim_engine_request_launch(core, e, kick);
		/* Ran at once and failed: the CB that asked answers for it. */
		if (origin == GSIM_ORIGIN_CB && ops->fail_cb_on_error && !eng->launch_pending &&
		    !eng->running && eng->last_err)
			return GSIM_REG_LAUNCH_FAILED;
	}
	return st;
}
