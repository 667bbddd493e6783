/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the TPC engines - register block, launch checks,
 * the decode cache, error details and counters (see gsim_tpc.h for the
 * split into start / run / finish, and hw/gaudisim_hw_tpc.h for the
 * contract). The core's engine framework (gsim_engine.c) owns the common
 * registers: STATUS, the launch and error counts, the completion message
 * and the ENGINE_ERR event; the TPC posts ENGINE_TIMEOUT itself.
 *
 * The decode cache is keyed by kernel content (size, hash, then a full
 * compare with the cached copy), not by address: a kernel rewritten in
 * place is simply a different kernel, so no write to device memory has
 * to invalidate anything, and the same code loaded at two addresses is
 * decoded once.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_telemetry.h"
#include "gsim_tpc.h"

#define CFG(off)	((off) / 4)

static struct gsim_tpc_unit *unit_of(const struct gsim_core *core, unsigned int e)
{
	struct gsim_tpc_unit *u;

	if (!core->tpc || e < GAUDISIM_ENGINE_TPC_0 || e > GAUDISIM_ENGINE_TPC_7)
		return NULL;
	u = &core->tpc->unit[e - GAUDISIM_ENGINE_TPC_0];
	return u->present ? u : NULL;
}

const char *gsim_tpc_err_name(int err)
{
	static const char *const names[] = {
		[GAUDISIM_TPC_ERR_NONE] = "none",
		[GAUDISIM_TPC_ERR_KERNEL] = "bad kernel address or size",
		[GAUDISIM_TPC_ERR_ISPACE] = "bad index space or part",
		[GAUDISIM_TPC_ERR_TENSOR] = "bad tensor descriptor",
		[GAUDISIM_TPC_ERR_ILLEGAL] = "illegal bundle",
		[GAUDISIM_TPC_ERR_END] = "ran past the last bundle",
		[GAUDISIM_TPC_ERR_WATCHDOG] = "watchdog: bundle budget exhausted",
		[GAUDISIM_TPC_ERR_BUSY] = "commit while busy",
		[GAUDISIM_TPC_ERR_NOMEM] = "out of host memory",
	};

	if (err < 0 || (size_t)err >= sizeof(names) / sizeof(names[0]) || !names[err])
		return "unknown";
	return names[err];
}

/* ---- registers ------------------------------------------------------------ */

static void cfg_reset(struct gsim_tpc_unit *u)
{
	unsigned int t, d;

	memset(u->cfg, 0, sizeof(u->cfg));
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		u->cfg[CFG(GAUDISIM_TPC_ISPACE_SIZE(d))] = 1;
	for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
		for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
			u->cfg[CFG(GAUDISIM_TPC_TENSOR(t) + GAUDISIM_TPC_T_SIZE(d))] = 1;
		u->cfg[CFG(GAUDISIM_TPC_TENSOR(t) + GAUDISIM_TPC_T_STRIDE(0))] = 1;
	}
}

static bool in_array(uint32_t off, uint32_t first, unsigned int n)
{
	return off >= first && off < first + 4 * n;
}

/* A configuration register that reads back what was written. */
static bool cfg_writable(uint32_t off)
{
	if (off & 3 || off >= GAUDISIM_TPC_CFG_END)
		return false;
	if (off <= GAUDISIM_TPC_WATCHDOG)
		return true;
	if (in_array(off, GAUDISIM_TPC_ISPACE_SIZE(0), GAUDISIM_TPC_NUM_DIMS) ||
	    in_array(off, GAUDISIM_TPC_PART_START(0), GAUDISIM_TPC_NUM_DIMS) ||
	    in_array(off, GAUDISIM_TPC_PART_SIZE(0), GAUDISIM_TPC_NUM_DIMS) ||
	    in_array(off, GAUDISIM_TPC_ARG(0), GAUDISIM_TPC_NUM_ARGS))
		return true;
	return off >= GAUDISIM_TPC_TENSOR_BASE &&
	       (off - GAUDISIM_TPC_TENSOR_BASE) % GAUDISIM_TPC_TENSOR_STRIDE < GAUDISIM_TPC_T_END;
}

/* Reserved words inside a descriptor: read 0, writes refused. */
static bool cfg_reserved(uint32_t off)
{
	return !(off & 3) && off >= GAUDISIM_TPC_TENSOR_BASE && off < GAUDISIM_TPC_CFG_END &&
	       !cfg_writable(off);
}

bool gsim_tpc_reg_read(struct gsim_core *core, unsigned int e, uint32_t off, uint32_t *value)
{
	const struct gsim_tpc_unit *u = unit_of(core, e);
	uint32_t v;

	if (!u)
		return false;
	if (cfg_writable(off) || cfg_reserved(off)) {
		*value = u->cfg[CFG(off)];
		return true;
	}
	if (in_array(off, GAUDISIM_TPC_ERR_COORD(0), GAUDISIM_TPC_NUM_DIMS)) {
		*value = u->err_coord[(off - GAUDISIM_TPC_ERR_COORD(0)) / 4];
		return true;
	}
	switch (off) {
	case GAUDISIM_TPC_COMMIT:
		v = 0;
		break;
	case GAUDISIM_TPC_ERR_PC:
		v = u->err_pc;
		break;
	case GAUDISIM_TPC_ERR_INFO:
		v = u->err_info;
		break;
	case GAUDISIM_TPC_BUNDLES_LO:
		v = (uint32_t)u->bundles;
		break;
	case GAUDISIM_TPC_BUNDLES_HI:
		v = (uint32_t)(u->bundles >> 32);
		break;
	case GAUDISIM_TPC_MEMBERS_LO:
		v = (uint32_t)u->members;
		break;
	case GAUDISIM_TPC_MEMBERS_HI:
		v = (uint32_t)(u->members >> 32);
		break;
	default:
		return false;
	}
	*value = v;
	return true;
}

enum gsim_reg_status gsim_tpc_reg_write(struct gsim_core *core, unsigned int e, uint32_t off,
					uint32_t value, enum gsim_reg_origin origin,
					bool *launch)
{
	struct gsim_tpc_unit *u = unit_of(core, e);
	uint32_t dummy;

	/* Users own the TPC's queues: CBs may write every register. */
	if (!u)
		return GSIM_REG_UNKNOWN;
	if (cfg_writable(off)) {
		u->cfg[CFG(off)] = value;
		return GSIM_REG_OK;
	}
	if (off == GAUDISIM_TPC_COMMIT) {
		if (value != GAUDISIM_TPC_COMMIT_GO) {
			if (origin == GSIM_ORIGIN_MMIO)
				gsim_log(core, "tpc%u: COMMIT 0x%x: write 0x%x to launch a kernel",
					 e - GAUDISIM_ENGINE_TPC_0, value, GAUDISIM_TPC_COMMIT_GO);
			return GSIM_REG_BAD_VALUE;
		}
		*launch = true;
		return GSIM_REG_OK;
	}
	if (cfg_reserved(off))
		return GSIM_REG_BAD_VALUE;
	return gsim_tpc_reg_read(core, e, off, &dummy) ? GSIM_REG_READ_ONLY : GSIM_REG_UNKNOWN;
}

/* ---- decode cache ------------------------------------------------------------ */

static struct gsim_tpc_kernel *cache_get(struct gsim_core *core, const uint8_t *code,
					 uint32_t size)
{
	struct gsim_tpc_set *set = core->tpc;
	uint64_t h = gsim_tpc_code_hash(code, size);
	struct gsim_tpc_kernel *k;
	unsigned int i, victim = 0;

	for (i = 0; i < GSIM_TPC_CACHE_ENTRIES; i++) {
		k = set->cache[i];
		if (k && k->size == size && k->hash == h && k->portable == core->tpc_portable &&
		    k->isa == core->tpc_isa &&
		    !memcmp(k->bytes, code, size)) {
			k->lru = ++set->lru_clock;
			k->refs++;
			set->cache_hits++;
			return k;
		}
	}
	k = gsim_tpc_kernel_decode(code, size, core->tpc_portable, core->tpc_isa);
	if (!k)
		return NULL;
	set->cache_misses++;
	for (i = 0; i < GSIM_TPC_CACHE_ENTRIES; i++) {
		if (!set->cache[i]) {
			victim = i;
			break;
		}
		if (set->cache[i]->lru < set->cache[victim]->lru)
			victim = i;
	}
	gsim_tpc_kernel_put(set->cache[victim]);	/* launches keep their own reference */
	set->cache[victim] = k;
	k->lru = ++set->lru_clock;
	k->refs++;
	return k;
}

/* ---- launch checks ---------------------------------------------------------- */

/* [addr, addr + len) inside HBM or inside SRAM: a host pointer, else NULL. */
static uint8_t *device_mem(struct gsim_core *core, uint64_t addr, uint64_t len)
{
	struct gsim_span span;

	if (!gsim_dma_decode(core, addr, len, &span) ||
	    (span.rgn != GSIM_RGN_HBM && span.rgn != GSIM_RGN_SRAM))
		return NULL;
	return span.mem;
}

static uint64_t cfg64(const struct gsim_tpc_unit *u, uint32_t lo)
{
	return (uint64_t)u->cfg[CFG(lo)] | (uint64_t)u->cfg[CFG(lo + 4)] << 32;
}

static int check_kernel(struct gsim_core *core, struct gsim_tpc_unit *u, unsigned int n)
{
	uint64_t addr = cfg64(u, GAUDISIM_TPC_KERNEL_ADDR_LO);
	uint32_t size = u->cfg[CFG(GAUDISIM_TPC_KERNEL_SIZE)];
	const uint8_t *code;

	if (!size || size % GAUDISIM_TPC_BUNDLE_SIZE ||
	    size / GAUDISIM_TPC_BUNDLE_SIZE > GAUDISIM_TPC_MAX_BUNDLES) {
		gsim_log(core, "tpc%u: kernel size %" PRIu32 " is not 1..%u bundles of %u bytes",
			 n, size, GAUDISIM_TPC_MAX_BUNDLES, GAUDISIM_TPC_BUNDLE_SIZE);
		return GAUDISIM_TPC_ERR_KERNEL;
	}
	if (addr % GAUDISIM_TPC_BUNDLE_SIZE) {
		gsim_log(core, "tpc%u: kernel address 0x%" PRIx64 " not %u-byte aligned",
			 n, addr, GAUDISIM_TPC_BUNDLE_SIZE);
		return GAUDISIM_TPC_ERR_KERNEL;
	}
	code = device_mem(core, addr, size);
	if (!code) {
		gsim_log(core, "tpc%u: kernel 0x%" PRIx64 " + %" PRIu32 " not inside HBM or SRAM",
			 n, addr, size);
		return GAUDISIM_TPC_ERR_KERNEL;
	}
	u->job.k = cache_get(core, code, size);
	if (!u->job.k) {
		gsim_log(core, "tpc%u: out of memory decoding the kernel", n);
		return GAUDISIM_TPC_ERR_NOMEM;
	}
	return GAUDISIM_TPC_ERR_NONE;
}

static int check_ispace(struct gsim_core *core, struct gsim_tpc_unit *u, unsigned int n)
{
	struct gsim_tpc_job *j = &u->job;
	unsigned int d;

	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		uint32_t size = u->cfg[CFG(GAUDISIM_TPC_ISPACE_SIZE(d))];
		uint32_t start = u->cfg[CFG(GAUDISIM_TPC_PART_START(d))];
		uint32_t psize = u->cfg[CFG(GAUDISIM_TPC_PART_SIZE(d))];

		if (!size || start >= size || psize > size - start) {
			gsim_log(core, "tpc%u: dim %u: part %" PRIu32 " + %" PRIu32
				 " not inside index-space size %" PRIu32, n, d, start, psize, size);
			return GAUDISIM_TPC_ERR_ISPACE;
		}
		j->isize[d] = size;
		j->pstart[d] = start;
		j->pend[d] = psize ? start + psize : size;
		j->coord[d] = start;
	}
	return GAUDISIM_TPC_ERR_NONE;
}

static int check_tensor(struct gsim_core *core, struct gsim_tpc_unit *u, unsigned int n,
			unsigned int t)
{
	uint32_t base_off = GAUDISIM_TPC_TENSOR(t);
	struct gsim_tpc_tensor *rt = &u->job.t[t];
	unsigned int want = u->job.k->tensor_dt[t], dtype, esize, d;
	uint64_t addr = cfg64(u, base_off + GAUDISIM_TPC_T_BASE_LO), last = 0, bytes;

	dtype = u->cfg[CFG(base_off + GAUDISIM_TPC_T_DTYPE)];
	esize = gaudisim_dtype_size(dtype);
	if (want == GSIM_TPC_TENSOR_MIXED) {
		gsim_log(core, "tpc%u: the kernel accesses T%u with different dtypes", n, t);
		return GAUDISIM_TPC_ERR_TENSOR;
	}
	if (!esize || dtype != want) {
		gsim_log(core, "tpc%u: T%u dtype %u, the kernel accesses it as dtype %u",
			 n, t, dtype, want);
		return GAUDISIM_TPC_ERR_TENSOR;
	}
	if (addr % esize) {
		gsim_log(core, "tpc%u: T%u base 0x%" PRIx64 " not aligned to its %u-byte elements",
			 n, t, addr, esize);
		return GAUDISIM_TPC_ERR_TENSOR;
	}
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		uint32_t size = u->cfg[CFG(base_off + GAUDISIM_TPC_T_SIZE(d))];
		uint32_t stride = u->cfg[CFG(base_off + GAUDISIM_TPC_T_STRIDE(d))];
		uint64_t span;

		if (!size) {
			gsim_log(core, "tpc%u: T%u size of dim %u is 0", n, t, d);
			return GAUDISIM_TPC_ERR_TENSOR;
		}
		/* (size - 1) * stride < 2^64; only the sum can overflow. */
		span = (uint64_t)(size - 1) * stride;
		if (last > UINT64_MAX - span) {
			gsim_log(core, "tpc%u: T%u extent overflows", n, t);
			return GAUDISIM_TPC_ERR_TENSOR;
		}
		last += span;
		rt->size[d] = size;
		rt->stride[d] = stride;
	}
	/* Bytes from element 0 to the end of the farthest element. */
	if (last >= UINT64_MAX / esize - 1) {
		gsim_log(core, "tpc%u: T%u extent overflows", n, t);
		return GAUDISIM_TPC_ERR_TENSOR;
	}
	bytes = (last + 1) * esize;
	rt->base = device_mem(core, addr, bytes);
	if (!rt->base) {
		gsim_log(core, "tpc%u: T%u 0x%" PRIx64 " + 0x%" PRIx64 " not inside HBM or SRAM",
			 n, t, addr, bytes);
		return GAUDISIM_TPC_ERR_TENSOR;
	}
	rt->dtype = (uint8_t)dtype;
	rt->esize = (uint8_t)esize;
	rt->stream = bytes >= GSIM_TPC_STREAM_BYTES;
	rt->pad = u->cfg[CFG(base_off + GAUDISIM_TPC_T_PAD)];
	return GAUDISIM_TPC_ERR_NONE;
}

/* Snapshot and check the registers into u->job. 0 or the error (logged). */
static int prepare(struct gsim_core *core, struct gsim_tpc_unit *u, unsigned int n)
{
	struct gsim_tpc_job *j = &u->job;
	unsigned int t, d, i;
	int err;

	memset(j, 0, sizeof(*j));
	j->tpc = n;
	err = check_kernel(core, u, n);
	if (!err)
		err = check_ispace(core, u, n);
	for (t = 0; !err && t < GAUDISIM_TPC_NUM_TENSORS; t++) {
		if (j->k->tensor_dt[t] != GSIM_TPC_TENSOR_UNUSED)
			err = check_tensor(core, u, n, t);
		if (err)
			j->err_info = t;
	}
	if (err)
		return err;

	for (t = 0; t < GAUDISIM_TPC_NUM_TENSORS; t++) {
		for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
			j->tsize[t][d] =
				u->cfg[CFG(GAUDISIM_TPC_TENSOR(t) + GAUDISIM_TPC_T_SIZE(d))];
			j->tstride[t][d] =
				u->cfg[CFG(GAUDISIM_TPC_TENSOR(t) + GAUDISIM_TPC_T_STRIDE(d))];
		}
	}
	for (i = 0; i < GAUDISIM_TPC_NUM_ARGS; i++)
		j->args[i] = u->cfg[CFG(GAUDISIM_TPC_ARG(i))];
	j->budget = u->cfg[CFG(GAUDISIM_TPC_WATCHDOG)];
	if (!j->budget)
		j->budget = GAUDISIM_TPC_WATCHDOG_DEFAULT;
	u->x->job = j;
	j->k->isa->begin(u->x);
	return GAUDISIM_TPC_ERR_NONE;
}

/* ---- launch ----------------------------------------------------------------- */

int gsim_tpc_start(struct gsim_core *core, unsigned int e)
{
	struct gsim_tpc_unit *u = unit_of(core, e);
	unsigned int n = e - GAUDISIM_ENGINE_TPC_0;
	int err;

	if (!u)
		return GAUDISIM_TPC_ERR_NOMEM;
	if (u->busy) {
		/* The running launch is not disturbed. */
		gsim_log(core, "tpc%u: COMMIT while a launch is running", n);
		return GAUDISIM_TPC_ERR_BUSY;
	}
	err = prepare(core, u, n);
	u->busy = true;
	if (err) {
		u->job.err = (uint8_t)err;
		u->job.done = true;
		return gsim_tpc_finish(core, e) & 0xff;
	}
	return GAUDISIM_TPC_ERR_NONE;
}

bool gsim_tpc_run(struct gsim_core *core, unsigned int e, uint64_t max_bundles)
{
	struct gsim_tpc_unit *u = unit_of(core, e);

	if (!u || !u->busy || u->job.done)
		return false;
	return u->job.k->isa->run(u->x, max_bundles);
}

int gsim_tpc_finish(struct gsim_core *core, unsigned int e)
{
	struct gsim_tpc_unit *u = unit_of(core, e);
	unsigned int n = e - GAUDISIM_ENGINE_TPC_0, d;
	struct gsim_tpc_job *j;
	int ret;

	if (!u || !u->busy)
		return GAUDISIM_TPC_ERR_NONE;
	j = &u->job;
	u->busy = false;
	u->bundles += j->bundles;
	u->members += j->members;
	u->last_err = j->err;
	ret = j->err;
	if (core->tel && j->bundles)
		gsim_telemetry_tpc_instr(core, n, j->bundles);
	if (j->err) {
		u->err_pc = j->err_pc;
		u->err_info = j->err_info;
		for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
			u->err_coord[d] = j->coord[d];
	}
	switch (j->err) {
	case GAUDISIM_TPC_ERR_ILLEGAL:
	case GAUDISIM_TPC_ERR_END:
	case GAUDISIM_TPC_ERR_WATCHDOG:
		gsim_log(core, "tpc%u: %s at bundle %" PRIu32 " (info 0x%" PRIx32
			 "), member (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")",
			 n, gsim_tpc_err_name(j->err), j->err_pc, j->err_info, j->coord[0],
			 j->coord[1], j->coord[2], j->coord[3], j->coord[4]);
		break;
	}
	if (j->err == GAUDISIM_TPC_ERR_WATCHDOG) {
		unsigned int q = core->engine[e].launch_req;

		gsim_eq_post(core, GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT, e,
			     q < GAUDISIM_QUEUE_ID_SIZE ? q : GAUDISIM_EQ_NONE, j->err,
			     cfg64(u, GAUDISIM_TPC_KERNEL_ADDR_LO));
		ret |= GSIM_ENGINE_ERR_POSTED;
	}
	gsim_tpc_kernel_put(j->k);
	j->k = NULL;
	return ret;
}

/*
 * Bundles a worker runs between looks at its cancel flag: a few
 * milliseconds, the longest a reset waits for a running TPC.
 */
#define GSIM_TPC_WORK_STEP	(1ull << 18)

/*
 * Bundles a launch runs on the owner thread before it goes to a worker:
 * handing a short launch to a worker and back costs more than running it
 * (training steps are made of such launches). A longer one continues on
 * the worker where this stopped; one that looks long from the start
 * (members times kernel bundles above this) goes to the worker at once.
 */
#define GSIM_TPC_INLINE_BUNDLES	4096

static bool looks_short(const struct gsim_tpc_job *j)
{
	uint64_t n = j->k->nbundles;
	unsigned int d;

	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS && n <= GSIM_TPC_INLINE_BUNDLES; d++)
		n *= j->pend[d] - j->pstart[d];
	return n <= GSIM_TPC_INLINE_BUNDLES;
}

int gsim_tpc_launch(struct gsim_core *core, unsigned int e)
{
	int err = gsim_tpc_start(core, e);

	if (err)
		return err;
	if (gsim_engine_threaded(core)) {
		if (!looks_short(&unit_of(core, e)->job) ||
		    gsim_tpc_run(core, e, GSIM_TPC_INLINE_BUNDLES))
			return GSIM_ENGINE_ASYNC;
		return gsim_tpc_finish(core, e);
	}
	while (gsim_tpc_run(core, e, UINT64_MAX))
		;
	return gsim_tpc_finish(core, e);
}

/* Worker side: the bundles, in steps; finish() follows on the owner thread. */
static int tpc_work(struct gsim_core *core, unsigned int e, const struct gsim_work *w)
{
	while (!gsim_work_cancelled(w) && gsim_tpc_run(core, e, GSIM_TPC_WORK_STEP))
		;
	return 0;
}

static int tpc_complete(struct gsim_core *core, unsigned int e, int result)
{
	(void)result;
	return gsim_tpc_finish(core, e);
}

bool gsim_tpc_busy(const struct gsim_core *core, unsigned int e)
{
	const struct gsim_tpc_unit *u = unit_of(core, e);

	return u && u->busy;
}

/* ---- life cycle --------------------------------------------------------------- */

static void drop_job(struct gsim_tpc_unit *u)
{
	if (u->busy)
		gsim_tpc_kernel_put(u->job.k);
	u->job.k = NULL;
	u->busy = false;
}

int gsim_tpc_init(struct gsim_core *core, unsigned int e)
{
	struct gsim_tpc_unit *u;

	if (e < GAUDISIM_ENGINE_TPC_0 || e > GAUDISIM_ENGINE_TPC_7)
		return -1;
	if (!core->tpc) {
		core->tpc = calloc(1, sizeof(*core->tpc));
		if (!core->tpc)
			return -1;
	}
	u = &core->tpc->unit[e - GAUDISIM_ENGINE_TPC_0];
	if (u->present)
		return 0;
	u->x = aligned_alloc(_Alignof(struct gsim_tpc_exec), sizeof(*u->x));
	if (!u->x) {
		if (!core->tpc->units) {
			free(core->tpc);
			core->tpc = NULL;
		}
		return -1;
	}
	memset(u->x, 0, sizeof(*u->x));
	u->x->job = &u->job;
	u->present = true;
	core->tpc->units++;
	gsim_tpc_reset(core, e);
	return 0;
}

void gsim_tpc_fini(struct gsim_core *core, unsigned int e)
{
	struct gsim_tpc_unit *u = unit_of(core, e);
	unsigned int i;

	if (!u)
		return;
	drop_job(u);
	free(u->x);
	memset(u, 0, sizeof(*u));
	if (--core->tpc->units)
		return;
	for (i = 0; i < GSIM_TPC_CACHE_ENTRIES; i++)
		gsim_tpc_kernel_put(core->tpc->cache[i]);
	free(core->tpc);
	core->tpc = NULL;
}

void gsim_tpc_reset(struct gsim_core *core, unsigned int e)
{
	struct gsim_tpc_unit *u = unit_of(core, e);

	if (!u)
		return;
	/* Work in flight is dropped: no status, counter or event follows. */
	drop_job(u);
	cfg_reset(u);
	u->last_err = 0;
	u->err_pc = 0;
	u->err_info = 0;
	memset(u->err_coord, 0, sizeof(u->err_coord));
	u->bundles = 0;
	u->members = 0;
}

const struct gsim_engine_ops gsim_tpc_engine_ops = {
	.name = "tpc",
	.init = gsim_tpc_init,
	.fini = gsim_tpc_fini,
	.reset = gsim_tpc_reset,
	.reg_read = gsim_tpc_reg_read,
	.reg_write = gsim_tpc_reg_write,
	.launch = gsim_tpc_launch,
	.busy = gsim_tpc_busy,
	.work = tpc_work,
	.complete = tpc_complete,
};
