/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the MMEs as engines of the core (struct
 * gsim_engine_ops); engine MME_0 + i has the state core->mme[i]. The framework in gsim_engine.c owns STATUS, the
 * counters, the completion message, ENGINE_ERR events and the reset
 * epochs; this file only hands it the MME's registers and launches.
 *
 * With worker threads (the device's normal mode) launch() decodes the
 * registers into its mme->job and returns GSIM_ENGINE_ASYNC; mme_work() runs
 * the GEMM on a worker, mme_complete() logs and counts on the owner
 * thread. Small GEMMs (GSIM_MME_INLINE_FLOPS) run inside launch() instead. The engine is busy meanwhile: a CB orders work after the GEMM
 * with the engine barrier (EB) or the completion message. Without workers
 * the GEMM runs inside the launch, so the CB's next packet sees D.
 */
#include <stdlib.h>

#include "gsim_mme.h"
#include "gsim_telemetry.h"

/* The MME state of engine e (NULL before init or after a failed one). */
static struct gsim_mme **mme_of(struct gsim_core *core, unsigned int e)
{
	return &core->mme[e - GAUDISIM_ENGINE_MME];
}

static int mme_init(struct gsim_core *core, unsigned int e)
{
	struct gsim_mme **mme = mme_of(core, e);

	if (*mme)
		return 0;
	*mme = malloc(sizeof(**mme));
	if (!*mme)
		return -1;
	gsim_mme_init(*mme);
	return 0;
}

static void mme_fini(struct gsim_core *core, unsigned int e)
{
	struct gsim_mme **mme = mme_of(core, e);

	if (!*mme)
		return;
	gsim_mme_fini(*mme);
	free(*mme);
	*mme = NULL;
}

static void mme_reset(struct gsim_core *core, unsigned int e)
{
	struct gsim_mme *mme = *mme_of(core, e);

	if (mme)
		gsim_mme_reset(mme);
}

static bool mme_reg_read(struct gsim_core *core, unsigned int e, uint32_t off,
			 uint32_t *value)
{
	const struct gsim_mme *mme = *mme_of(core, e);

	*value = 0;
	return mme && gsim_mme_reg_read(mme, off, value);
}

static enum gsim_reg_status mme_reg_write(struct gsim_core *core, unsigned int e,
					  uint32_t off, uint32_t value,
					  enum gsim_reg_origin origin, bool *launch)
{
	struct gsim_mme *mme = *mme_of(core, e);
	enum gsim_reg_status st;

	*launch = false;
	if (!mme)
		return GSIM_REG_UNKNOWN;
	st = gsim_mme_reg_write(mme, off, value, launch);
	if (st == GSIM_REG_BAD_VALUE && origin == GSIM_ORIGIN_MMIO)
		gsim_log(core, "%s: COMMIT 0x%x: write 0x%x to launch a GEMM",
			 gsim_engine_name(e), value, GAUDISIM_MME_COMMIT_GO);
	return st;
}

/* Owner side of a finished GEMM (the job in the engine's mme->job). */
static int mme_complete(struct gsim_core *core, unsigned int e, int err)
{
	const struct gsim_mme_gemm *g = &(*mme_of(core, e))->job;

	if (err) {
		gsim_log(core, "%s: %s (%ux%ux%u, %u batches)", gsim_engine_name(e),
			 gsim_mme_err_name(err), g->m, g->n, g->k, g->batch);
		return err;
	}
	gsim_telemetry_mme_flops(core, e, gsim_mme_gemm_flops(g));
	return 0;
}

static int mme_work(struct gsim_core *core, unsigned int e, const struct gsim_work *w)
{
	struct gsim_mme *mme = *mme_of(core, e);

	return gsim_mme_run_work(mme, &mme->job, w);
}

static int mme_launch(struct gsim_core *core, unsigned int e)
{
	struct gsim_mme *mme = *mme_of(core, e);
	int err;

	if (!mme)
		return GAUDISIM_MME_ERR_NOMEM;
	err = gsim_mme_decode(core, &mme->regs, &mme->job);
	if (err)
		return err;
	if (gsim_engine_threaded(core) &&
	    gsim_mme_gemm_flops(&mme->job) > GSIM_MME_INLINE_FLOPS)
		return GSIM_ENGINE_ASYNC;
	return mme_complete(core, e, gsim_mme_run(mme, &mme->job));
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
