/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the MME as an engine of the core (struct
 * gsim_engine_ops). The framework in gsim_engine.c owns STATUS, the
 * counters, the completion message, ENGINE_ERR events and the reset
 * epochs; this file only hands it the MME's registers and launches.
 *
 * With worker threads (the device's normal mode) launch() decodes the
 * registers into mme->job and returns GSIM_ENGINE_ASYNC; mme_work() runs
 * the GEMM on a worker, mme_complete() logs and counts on the owner
 * thread. Small GEMMs (GSIM_MME_INLINE_FLOPS) run inside launch() instead. The engine is busy meanwhile: a CB orders work after the GEMM
 * with the engine barrier (EB) or the completion message. Without workers
 * the GEMM runs inside the launch, so the CB's next packet sees D.
 */
#include <stdlib.h>

#include "gsim_mme.h"
#include "gsim_telemetry.h"

static int mme_init(struct gsim_core *core, unsigned int e)
{
	(void)e;
	if (core->mme)
		return 0;
	core->mme = malloc(sizeof(*core->mme));
	if (!core->mme)
		return -1;
	gsim_mme_init(core->mme);
	return 0;
}

static void mme_fini(struct gsim_core *core, unsigned int e)
{
	(void)e;
	if (!core->mme)
		return;
	gsim_mme_fini(core->mme);
	free(core->mme);
	core->mme = NULL;
}

static void mme_reset(struct gsim_core *core, unsigned int e)
{
	(void)e;
	if (core->mme)
		gsim_mme_reset(core->mme);
}

static bool mme_reg_read(struct gsim_core *core, unsigned int e, uint32_t off,
			 uint32_t *value)
{
	(void)e;
	*value = 0;
	return core->mme && gsim_mme_reg_read(core->mme, off, value);
}

static enum gsim_reg_status mme_reg_write(struct gsim_core *core, unsigned int e,
					  uint32_t off, uint32_t value,
					  enum gsim_reg_origin origin, bool *launch)
{
	enum gsim_reg_status st;

	*launch = false;
	if (!core->mme)
		return GSIM_REG_UNKNOWN;
	st = gsim_mme_reg_write(core->mme, off, value, launch);
	if (st == GSIM_REG_BAD_VALUE && origin == GSIM_ORIGIN_MMIO)
		gsim_log(core, "%s: COMMIT 0x%x: write 0x%x to launch a GEMM",
			 gsim_engine_name(e), value, GAUDISIM_MME_COMMIT_GO);
	return st;
}

/* Owner side of a finished GEMM (the job in core->mme->job). */
static int mme_complete(struct gsim_core *core, unsigned int e, int err)
{
	const struct gsim_mme_gemm *g = &core->mme->job;

	if (err) {
		gsim_log(core, "%s: %s (%ux%ux%u, %u batches)", gsim_engine_name(e),
			 gsim_mme_err_name(err), g->m, g->n, g->k, g->batch);
		return err;
	}
	gsim_telemetry_mme_flops(core, gsim_mme_gemm_flops(g));
	return 0;
}

static int mme_work(struct gsim_core *core, unsigned int e, const struct gsim_work *w)
{
	(void)e;
	return gsim_mme_run_work(core->mme, &core->mme->job, w);
}

static int mme_launch(struct gsim_core *core, unsigned int e)
{
	int err;

	if (!core->mme)
		return GAUDISIM_MME_ERR_NOMEM;
	err = gsim_mme_decode(core, &core->mme->regs, &core->mme->job);
	if (err)
		return err;
	if (gsim_engine_threaded(core) &&
	    gsim_mme_gemm_flops(&core->mme->job) > GSIM_MME_INLINE_FLOPS)
		return GSIM_ENGINE_ASYNC;
	return mme_complete(core, e, gsim_mme_run(core->mme, &core->mme->job));
}

const struct gsim_engine_ops gsim_mme_engine_ops = {
	.name = "MME",
	.init = mme_init,
	.fini = mme_fini,
	.reset = mme_reset,
	.reg_read = mme_reg_read,
	.reg_write = mme_reg_write,
	.launch = mme_launch,
	.work = mme_work,
	.complete = mme_complete,
};
