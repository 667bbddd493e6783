// SPDX-License-Identifier: MIT
/*
 * A libhlrt backend that runs command buffers on the device core in this
 * process: the queues are programmed like the driver does (PQ rings in
 * host memory, CP_MSG_BASE0/1 at the sync manager), internal jobs run
 * their HBM CBs, and the external job of a stream runs on an internal
 * stand-in queue (DMA 7, stream s), with its host copies done around it
 * by memcpy. Engines run synchronously, so a submission completes before
 * submit() returns; a queue left waiting on a fence is reported as a
 * hang, which is how the tests catch a broken sync chain.
 *
 * With sim_install_fabric(n) there are n devices on one in-process NIC
 * fabric (modules 0..n-1), for the collectives' tests: ranks are threads,
 * and every call into a core holds one lock, as QEMU's BQL would. Then a
 * submission need not finish inside submit() (it may wait for a peer):
 * wait() runs every core until the submission's external job is done or
 * a bounded time (SIM_TIMEOUT_MS, default 20000) passed; a device that
 * timed out stays failed until it is closed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsim_core.h"
#include "gsim_fabric.h"
#include "device/device.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_packets.h"
#include "hw/gaudisim_hw_regs.h"
#include "hw/gaudisim_hw_sync.h"
#include "sim_backend.h"

#define SIM_HBM_SIZE	(2ull << 30)
#define RING_BUS	0x100000000ull
#define RING_ENTRIES_LOG2 8
#define RING_BYTES	(GAUDISIM_BD_SIZE << RING_ENTRIES_LOG2)
#define MAX_RINGS	GAUDISIM_QUEUE_ID_SIZE
#define EXT_SCRATCH	(64ull << 20)	/* HBM for the external jobs' CBs */
#define MAX_SEQ		4096

struct region {
	uint64_t addr, size;
	bool used;
};

struct host_map {
	void *ptr;
	uint64_t size, va;
};

/* A submission in flight (fabric mode): done when its queue got this far. */
struct pending {
	uint64_t seq;
	uint32_t queue;
	uint64_t target;
	uint32_t errors;
	struct hlrt_be_copy *post;
	uint32_t n_post;
};

#define MAX_PENDING	64

struct sim {
	struct gsim_core *core;
	uint8_t *rings;			/* PQ rings, bus RING_BUS.. */
	bool ring_ready[MAX_RINGS];
	struct region *regions;
	uint32_t n_regions;
	struct host_map maps[256];
	uint32_t n_maps;
	uint64_t next_va;
	uint64_t ext_cb;		/* HBM scratch for external CBs */
	uint64_t seq;
	int result[MAX_SEQ];
	uint32_t errors;
	char last_error[256];
	uint64_t clock;
	/* fabric mode */
	bool on_fabric, kicked, dead;
	uint64_t pushed[MAX_RINGS];
	struct pending pend[MAX_PENDING];
	uint32_t n_pend;
};

/* Fabric mode: the devices, and the lock every core call holds. */
static pthread_mutex_t bql = PTHREAD_MUTEX_INITIALIZER;
static struct gsim_fabric *fabric;
static uint32_t fabric_n;
static struct sim *fabric_sims[GAUDISIM_NIC_MAX_MODULES];

static struct sim_stats stats;

const struct sim_stats *sim_get_stats(void)
{
	return &stats;
}

static int sim_dma_read(void *opaque, uint64_t bus, void *buf, uint64_t len)
{
	struct sim *s = opaque;

	if (bus < RING_BUS || bus + len > RING_BUS + (uint64_t)MAX_RINGS * RING_BYTES)
		return -1;
	memcpy(buf, s->rings + (bus - RING_BUS), len);
	return 0;
}

static int sim_dma_write(void *opaque, uint64_t bus, const void *buf, uint64_t len)
{
	struct sim *s = opaque;

	if (bus < RING_BUS || bus + len > RING_BUS + (uint64_t)MAX_RINGS * RING_BYTES)
		return -1;
	memcpy(s->rings + (bus - RING_BUS), buf, len);
	return 0;
}

static void sim_msix(void *opaque, unsigned int vector)
{
	(void)opaque;
	(void)vector;
}

static void sim_guest_error(void *opaque, const char *msg)
{
	struct sim *s = opaque;

	s->errors++;
	snprintf(s->last_error, sizeof(s->last_error), "%s", msg);
	stats.device_errors++;
	if (getenv("SIM_VERBOSE"))
		fprintf(stderr, "sim: device error: %s\n", msg);
}

static uint64_t sim_clock(void *opaque)
{
	struct sim *s = opaque;

	return s->clock += 1000;
}

static void sim_kick(void *opaque)
{
	struct sim *s = opaque;

	s->kicked = true;
}

static const struct gsim_host_ops sim_ops = {
	.dma_read = sim_dma_read,
	.dma_write = sim_dma_write,
	.msix_notify = sim_msix,
	.guest_error = sim_guest_error,
	.clock_ns = sim_clock,
	.kick = sim_kick,
};

static void wr(struct sim *s, uint32_t off, uint32_t v)
{
	gsim_core_reg_write(s->core, off, v);
}

static uint32_t rd(struct sim *s, uint32_t off)
{
	return gsim_core_reg_read(s->core, off);
}

#define QREG(q, macro) \
	(GAUDISIM_QM_BLOCK(gaudisim_queue_engine(q)) + macro(gaudisim_queue_stream(q)))

static void ring_setup(struct sim *s, uint32_t q)
{
	uint32_t e = (uint32_t)gaudisim_queue_engine(q), st = gaudisim_queue_stream(q);
	uint64_t bus = RING_BUS + (uint64_t)q * RING_BYTES;
	uint64_t mon = GAUDISIM_SYNC_MON_BASE_ADDR, sob = GAUDISIM_SYNC_SOB_BASE_ADDR;

	wr(s, QREG(q, GAUDISIM_QM_PQ_BASE_LO), (uint32_t)bus);
	wr(s, QREG(q, GAUDISIM_QM_PQ_BASE_HI), (uint32_t)(bus >> 32));
	wr(s, QREG(q, GAUDISIM_QM_PQ_SIZE), RING_ENTRIES_LOG2);
	wr(s, GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_CP_MSG_BASE_LO(0, st), (uint32_t)mon);
	wr(s, GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_CP_MSG_BASE_HI(0, st), (uint32_t)(mon >> 32));
	wr(s, GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_CP_MSG_BASE_LO(1, st), (uint32_t)sob);
	wr(s, GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_CP_MSG_BASE_HI(1, st), (uint32_t)(sob >> 32));
	wr(s, GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_GLBL_CFG0,
	   rd(s, GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_GLBL_CFG0) | 1u << st);
	s->ring_ready[q] = true;
}

static void ring_push(struct sim *s, uint32_t q, uint64_t cb, uint32_t len)
{
	uint32_t entries = 1u << RING_ENTRIES_LOG2, pi;
	struct gaudisim_bd bd = { .ctl = 0, .len = len, .ptr = cb };

	if (!s->ring_ready[q])
		ring_setup(s, q);
	pi = rd(s, QREG(q, GAUDISIM_QM_PQ_PI));
	memcpy(s->rings + (uint64_t)q * RING_BYTES + (pi & (entries - 1)) * GAUDISIM_BD_SIZE,
	       &bd, sizeof(bd));
	wr(s, QREG(q, GAUDISIM_QM_PQ_PI), (pi + 1) & (2 * entries - 1));
	s->pushed[q]++;
}

static void run_idle(struct sim *s)
{
	unsigned int i;

	for (i = 0; i < 100000 && gsim_core_run(s->core); i++)
		;
}

/* A queue with jobs left, or stopped at a fence: the sync chain is broken. */
static bool hung(struct sim *s, uint32_t *queue)
{
	uint32_t q;

	for (q = 0; q < MAX_RINGS; q++) {
		if (!s->ring_ready[q])
			continue;
		if (rd(s, QREG(q, GAUDISIM_QM_PQ_PI)) != rd(s, QREG(q, GAUDISIM_QM_PQ_CI)) ||
		    rd(s, QREG(q, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_FENCE_WAIT) {
			*queue = q;
			return true;
		}
	}
	return false;
}

static void sim_close(struct hlrt_backend *be)
{
	struct sim *s = be->priv;
	uint32_t i;

	if (s->on_fabric) {
		pthread_mutex_lock(&bql);
		for (i = 0; i < GAUDISIM_NIC_MAX_MODULES; i++)
			if (fabric_sims[i] == s)
				fabric_sims[i] = NULL;
		/* freeing the core takes it off the fabric */
		gsim_core_free(s->core);
		for (i = 0; i < s->n_pend; i++)
			free(s->pend[i].post);
		pthread_mutex_unlock(&bql);
	} else {
		gsim_core_free(s->core);
	}
	free(s->rings);
	free(s->regions);
	free(s);
	free(be);
}

static int sim_info(struct hlrt_backend *be, struct hlrt_be_info *info)
{
	(void)be;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "gaudisim (in-process)");
	snprintf(info->bus_id, sizeof(info->bus_id), "0000:00:00.0");
	info->hbm_base = GAUDISIM_HBM_USER_BASE;
	info->hbm_size = SIM_HBM_SIZE - GAUDISIM_HBM_USER_BASE - EXT_SCRATCH;
	info->sram_base = GAUDISIM_SRAM_BASE;
	info->sram_size = GAUDISIM_SRAM_SIZE;
	info->num_tpc = GAUDISIM_NUM_TPC;
	info->tpc_enabled_mask = 0xff;
	info->num_hbm_dma = GAUDISIM_NUM_HBM_DMA;
	info->first_sob = GAUDISIM_SYNC_FIRST_USER_SOB;
	info->first_mon = GAUDISIM_SYNC_FIRST_USER_MON;
	info->num_sobs = GAUDISIM_SYNC_NUM_SOBS;
	info->num_mons = GAUDISIM_SYNC_NUM_MONITORS;
	return 0;
}

static int sim_hbm_free_bytes(struct hlrt_backend *be, uint64_t *free_bytes)
{
	struct sim *s = be->priv;
	uint64_t f = 0;
	uint32_t i;

	for (i = 0; i < s->n_regions; i++)
		if (!s->regions[i].used)
			f += s->regions[i].size;
	*free_bytes = f;
	return 0;
}

/* First fit over a region list, 2 MiB pages like the driver. */
static int sim_hbm_alloc(struct hlrt_backend *be, uint64_t size, uint64_t *handle,
			 uint64_t *addr)
{
	struct sim *s = be->priv;
	uint64_t bytes = hlrt_align_up(size, 2ull << 20);
	uint32_t i;

	for (i = 0; i < s->n_regions; i++) {
		struct region *r = &s->regions[i];

		if (r->used || r->size < bytes)
			continue;
		if (r->size > bytes) {
			struct region *p = realloc(s->regions, sizeof(*p) * (s->n_regions + 1));

			if (!p)
				return -ENOMEM;
			s->regions = p;
			r = &s->regions[i];
			memmove(r + 2, r + 1, sizeof(*r) * (s->n_regions - i - 1));
			r[1].addr = r->addr + bytes;
			r[1].size = r->size - bytes;
			r[1].used = false;
			r->size = bytes;
			s->n_regions++;
		}
		r->used = true;
		*addr = r->addr;
		*handle = r->addr;
		stats.hbm_allocs++;
		return 0;
	}
	return -ENOMEM;
}

static int sim_hbm_free(struct hlrt_backend *be, uint64_t handle)
{
	struct sim *s = be->priv;
	uint32_t i;

	for (i = 0; i < s->n_regions; i++) {
		if (s->regions[i].addr == handle && s->regions[i].used) {
			s->regions[i].used = false;
			/* merge with free neighbours */
			if (i + 1 < s->n_regions && !s->regions[i + 1].used) {
				s->regions[i].size += s->regions[i + 1].size;
				memmove(&s->regions[i + 1], &s->regions[i + 2],
					sizeof(s->regions[0]) * (s->n_regions - i - 2));
				s->n_regions--;
			}
			if (i > 0 && !s->regions[i - 1].used) {
				s->regions[i - 1].size += s->regions[i].size;
				memmove(&s->regions[i], &s->regions[i + 1],
					sizeof(s->regions[0]) * (s->n_regions - i - 1));
				s->n_regions--;
			}
			return 0;
		}
	}
	return -EINVAL;
}

static int sim_host_map(struct hlrt_backend *be, void *ptr, uint64_t size, uint64_t *va)
{
	struct sim *s = be->priv;

	if (s->n_maps == sizeof(s->maps) / sizeof(s->maps[0]))
		return -ENOMEM;
	s->maps[s->n_maps].ptr = ptr;
	s->maps[s->n_maps].size = size;
	s->maps[s->n_maps].va = s->next_va;
	*va = s->next_va;
	s->next_va += hlrt_align_up(size, 1ull << 21);
	s->n_maps++;
	return 0;
}

static int sim_host_unmap(struct hlrt_backend *be, uint64_t va)
{
	struct sim *s = be->priv;
	uint32_t i;

	for (i = 0; i < s->n_maps; i++) {
		if (s->maps[i].va == va) {
			s->maps[i] = s->maps[--s->n_maps];
			return 0;
		}
	}
	return -EINVAL;
}

static uint32_t sim_ext_queue(struct hlrt_backend *be, uint32_t st)
{
	(void)be;
	return gaudisim_engine_queue_id(GAUDISIM_ENGINE_DMA_7, st);
}

static bool hbm_range_ok(uint64_t addr, uint64_t size)
{
	return addr >= GAUDISIM_HBM_USER_BASE && size <= SIM_HBM_SIZE &&
	       addr <= SIM_HBM_SIZE - size;
}

static int copies(struct sim *s, const struct hlrt_be_copy *c, uint32_t n, bool to_dev)
{
	uint8_t *hbm = gsim_core_hbm(s->core);
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!hbm_range_ok(c[i].dev, c[i].size))
			return -EINVAL;
		if (to_dev)
			memcpy(hbm + c[i].dev, c[i].host, c[i].size);
		else
			memcpy(c[i].host, hbm + c[i].dev, c[i].size);
		stats.copy_bytes += c[i].size;
	}
	return 0;
}

/* ---- fabric mode ------------------------------------------------------------ */

/* Run every device until none has work left (a NIC write may wake a peer). */
static void run_fabric(void)
{
	unsigned int i, round;
	bool more = true;

	for (round = 0; round < 100000 && more; round++) {
		more = false;
		for (i = 0; i < GAUDISIM_NIC_MAX_MODULES; i++) {
			struct sim *d = fabric_sims[i];

			if (!d)
				continue;
			d->kicked = false;
			if (gsim_core_run(d->core))
				more = true;
		}
		for (i = 0; i < GAUDISIM_NIC_MAX_MODULES; i++)
			if (fabric_sims[i] && fabric_sims[i]->kicked)
				more = true;
	}
}

/* Jobs queue q has finished: the entries between CI and PI are not. */
static uint64_t completed(struct sim *s, uint32_t q)
{
	uint32_t span = 2u << RING_ENTRIES_LOG2;
	uint32_t out = (rd(s, QREG(q, GAUDISIM_QM_PQ_PI)) - rd(s, QREG(q, GAUDISIM_QM_PQ_CI))) &
		       (span - 1);

	return s->pushed[q] - out;
}

/* Retire the submissions that are done, in order. */
static void reap(struct sim *s)
{
	while (s->n_pend) {
		struct pending *p = &s->pend[0];

		if (completed(s, p->queue) < p->target)
			break;
		if (s->errors != p->errors)
			s->result[p->seq % MAX_SEQ] = -EIO;
		else
			s->result[p->seq % MAX_SEQ] = copies(s, p->post, p->n_post, false);
		free(p->post);
		memmove(p, p + 1, sizeof(*p) * --s->n_pend);
	}
}

/* SIM_VERBOSE: the queues a timed-out device still has work on. */
static void dump_stuck(struct sim *s)
{
	uint32_t q;

	for (q = 0; q < MAX_RINGS; q++) {
		uint32_t pi, ci, sts;

		if (!s->ring_ready[q])
			continue;
		pi = rd(s, QREG(q, GAUDISIM_QM_PQ_PI));
		ci = rd(s, QREG(q, GAUDISIM_QM_PQ_CI));
		sts = rd(s, QREG(q, GAUDISIM_QM_CP_STS));
		if (pi != ci || sts)
			fprintf(stderr, "sim: module %u queue %u: pi %u ci %u cp_sts 0x%x\n",
				gsim_core_module_id(s->core), q, pi, ci, sts);
	}
}

static uint64_t sim_timeout_ns(void)
{
	const char *v = getenv("SIM_TIMEOUT_MS");
	uint64_t ms = v && *v ? strtoull(v, NULL, 10) : 0;

	return (ms ? ms : 20000) * 1000000ull;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Run the fabric (with the lock) until seq is retired or the time is up. */
static int fabric_wait_locked(struct sim *s, uint64_t seq, uint64_t timeout_ns)
{
	uint64_t deadline = mono_ns() + timeout_ns;
	struct timespec nap = { 0, 50 * 1000 };

	for (;;) {
		run_fabric();
		reap(s);
		if (!s->n_pend || s->pend[0].seq > seq)
			return s->result[seq % MAX_SEQ];
		if (s->dead)
			return -EIO;
		if (mono_ns() > deadline) {
			if (getenv("SIM_VERBOSE"))
				dump_stuck(s);
			return -ETIMEDOUT;
		}
		/* let the other ranks submit their part */
		pthread_mutex_unlock(&bql);
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&bql);
	}
}

static int fabric_submit_locked(struct sim *s, const struct hlrt_be_job *jobs, uint32_t n_jobs,
				uint32_t ext_queue, const struct hlrt_be_ext *ext, uint64_t *seq)
{
	uint8_t *hbm = gsim_core_hbm(s->core);
	struct pending *p;
	uint32_t i, q;
	int rc;

	if (s->dead)
		return -EIO;
	/* host copies see the device's memory once the work before them is done */
	if ((ext->n_pre || ext->n_post) && s->n_pend) {
		rc = fabric_wait_locked(s, s->pend[s->n_pend - 1].seq, sim_timeout_ns());
		if (rc == -ETIMEDOUT) {
			s->dead = true;
			return -EIO;
		}
	}
	if (s->n_pend == MAX_PENDING) {
		rc = fabric_wait_locked(s, s->pend[0].seq, sim_timeout_ns());
		if (rc == -ETIMEDOUT) {
			s->dead = true;
			return -EIO;
		}
	}
	rc = copies(s, ext->pre, ext->n_pre, true);
	if (rc)
		return rc;
	for (i = 0; i < n_jobs; i++) {
		if (!hbm_range_ok(jobs[i].cb_addr, jobs[i].size) || !jobs[i].size ||
		    gaudisim_queue_engine(jobs[i].queue) < 0 ||
		    GAUDISIM_QUEUE_IS_EXTERNAL(jobs[i].queue))
			return -EINVAL;
	}
	for (i = 0; i < n_jobs; i++)
		ring_push(s, jobs[i].queue, jobs[i].cb_addr, jobs[i].size);
	q = ext_queue;
	if (ext->n_body) {
		/* a slot per pending entry: a later job must not overwrite a running CB */
		uint64_t per = EXT_SCRATCH / MAX_PENDING;
		uint64_t at = s->ext_cb + (s->seq % MAX_PENDING) * per;

		if ((uint64_t)ext->n_body * 4 > per)
			return -E2BIG;
		memcpy(hbm + at, ext->body, (size_t)ext->n_body * 4);
		ring_push(s, ext_queue, at, ext->n_body * 4);
	}
	stats.submissions++;
	stats.jobs += n_jobs + (ext->n_body ? 1 : 0);
	s->seq++;
	p = &s->pend[s->n_pend++];
	memset(p, 0, sizeof(*p));
	p->seq = s->seq;
	p->queue = q;
	p->target = s->ring_ready[q] ? s->pushed[q] : 0;
	p->errors = s->errors;
	if (ext->n_post) {
		p->post = malloc(sizeof(*p->post) * ext->n_post);
		if (!p->post) {
			s->n_pend--;
			return -ENOMEM;
		}
		memcpy(p->post, ext->post, sizeof(*p->post) * ext->n_post);
		p->n_post = ext->n_post;
	}
	s->result[s->seq % MAX_SEQ] = 0;
	run_fabric();
	reap(s);
	*seq = s->seq;
	return 0;
}

static void grant_rights(struct sim *s);

static int sim_submit(struct hlrt_backend *be, const struct hlrt_be_job *jobs, uint32_t n_jobs,
		      uint32_t ext_queue, const struct hlrt_be_ext *ext, uint64_t *seq)
{
	struct sim *s = be->priv;
	uint8_t *hbm = gsim_core_hbm(s->core);
	uint32_t errors = s->errors, i, q;
	int rc;

	if (s->on_fabric) {
		pthread_mutex_lock(&bql);
		rc = fabric_submit_locked(s, jobs, n_jobs, ext_queue, ext, seq);
		pthread_mutex_unlock(&bql);
		return rc;
	}
	if (ext->ts_first_dev && hbm_range_ok(ext->ts_first_dev, 8))
		memcpy(hbm + ext->ts_first_dev, &(uint64_t){ sim_clock(s) }, 8);
	rc = copies(s, ext->pre, ext->n_pre, true);
	if (rc)
		return rc;
	for (i = 0; i < n_jobs; i++) {
		if (!hbm_range_ok(jobs[i].cb_addr, jobs[i].size) || !jobs[i].size ||
		    gaudisim_queue_engine(jobs[i].queue) < 0 ||
		    GAUDISIM_QUEUE_IS_EXTERNAL(jobs[i].queue))
			return -EINVAL;
		ring_push(s, jobs[i].queue, jobs[i].cb_addr, jobs[i].size);
	}
	if (ext->n_body) {
		uint64_t at = s->ext_cb + (uint64_t)(ext_queue % 4) * (EXT_SCRATCH / 4);

		if ((uint64_t)ext->n_body * 4 > EXT_SCRATCH / 4)
			return -E2BIG;
		memcpy(hbm + at, ext->body, (size_t)ext->n_body * 4);
		ring_push(s, ext_queue, at, ext->n_body * 4);
	}
	stats.submissions++;
	stats.jobs += n_jobs + (ext->n_body ? 1 : 0);
	run_idle(s);
	s->seq++;
	if (hung(s, &q)) {
		fprintf(stderr, "sim: queue %u did not finish (broken sync chain?)\n", q);
		s->result[s->seq % MAX_SEQ] = -ETIMEDOUT;
		stats.hangs++;
		gsim_core_reset(s->core);
		/* A hard reset clears the rights table; the driver programs it again. */
		grant_rights(s);
		memset(s->ring_ready, 0, sizeof(s->ring_ready));
	} else if (s->errors != errors) {
		s->result[s->seq % MAX_SEQ] = -EIO;
	} else {
		s->result[s->seq % MAX_SEQ] = copies(s, ext->post, ext->n_post, false);
	}
	if (ext->ts_last_dev && hbm_range_ok(ext->ts_last_dev, 8))
		memcpy(hbm + ext->ts_last_dev, &(uint64_t){ sim_clock(s) }, 8);
	if (ext->ts_host)
		*ext->ts_host = s->clock;
	*seq = s->seq;
	return 0;
}

static int sim_wait(struct hlrt_backend *be, uint64_t seq, uint64_t timeout_us)
{
	struct sim *s = be->priv;

	stats.host_waits++;
	if (s->on_fabric) {
		uint64_t ns = sim_timeout_ns();
		int rc;

		if (timeout_us * 1000 < ns)
			ns = timeout_us * 1000;
		pthread_mutex_lock(&bql);
		rc = !seq || seq > s->seq ? -EINVAL : fabric_wait_locked(s, seq, ns);
		/* a peer that never came: the stuck queues stay stuck */
		if (rc == -ETIMEDOUT && timeout_us)
			s->dead = true;
		pthread_mutex_unlock(&bql);
		return rc;
	}
	(void)timeout_us;
	if (!seq || seq > s->seq)
		return -EINVAL;
	return s->result[seq % MAX_SEQ];
}

/*
 * What the driver does for NIC_REGISTER: program a free entry of the
 * device's registration table (the bql keeps peers out meanwhile).
 */
static int sim_nic_register(struct hlrt_backend *be, uint64_t addr, uint64_t size,
			    uint32_t sob_first, uint32_t sob_count, uint64_t *handle)
{
	struct sim *s = be->priv;
	uint32_t i, mr;
	int rc = -ENOSPC;

	if (!size && !sob_count)
		return -EINVAL;
	if (size && !hbm_range_ok(addr, size))
		return -EINVAL;
	if (s->on_fabric)
		pthread_mutex_lock(&bql);
	for (i = 0; i < GAUDISIM_NIC_RX_NUM_MR; i++) {
		mr = GAUDISIM_BLOCK_NIC_RX + GAUDISIM_NIC_RX_MR(i);
		if (rd(s, mr + GAUDISIM_NIC_RX_MR_CTRL) & GAUDISIM_NIC_RX_MR_VALID)
			continue;
		wr(s, mr + GAUDISIM_NIC_RX_MR_ADDR_LO, (uint32_t)addr);
		wr(s, mr + GAUDISIM_NIC_RX_MR_ADDR_HI, (uint32_t)(addr >> 32));
		wr(s, mr + GAUDISIM_NIC_RX_MR_SIZE_LO, (uint32_t)size);
		wr(s, mr + GAUDISIM_NIC_RX_MR_SIZE_HI, (uint32_t)(size >> 32));
		wr(s, mr + GAUDISIM_NIC_RX_MR_SOB_FIRST, sob_first);
		wr(s, mr + GAUDISIM_NIC_RX_MR_SOB_COUNT, sob_count);
		wr(s, mr + GAUDISIM_NIC_RX_MR_CTRL, GAUDISIM_NIC_RX_MR_VALID);
		*handle = i + 1;
		rc = 0;
		break;
	}
	if (s->on_fabric)
		pthread_mutex_unlock(&bql);
	return rc;
}

static int sim_nic_deregister(struct hlrt_backend *be, uint64_t handle)
{
	struct sim *s = be->priv;

	if (!handle || handle > GAUDISIM_NIC_RX_NUM_MR)
		return -EINVAL;
	if (s->on_fabric)
		pthread_mutex_lock(&bql);
	wr(s, GAUDISIM_BLOCK_NIC_RX + GAUDISIM_NIC_RX_MR((uint32_t)handle - 1) +
	   GAUDISIM_NIC_RX_MR_CTRL, 0);
	if (s->on_fabric)
		pthread_mutex_unlock(&bql);
	return 0;
}

static int sim_device_time(struct hlrt_backend *be, uint64_t *ns)
{
	struct sim *s = be->priv;

	pthread_mutex_lock(&bql);
	*ns = sim_clock(s);
	pthread_mutex_unlock(&bql);
	return 0;
}

static const struct hlrt_backend_ops sim_be_ops = {
	.close = sim_close,
	.info = sim_info,
	.hbm_free_bytes = sim_hbm_free_bytes,
	.hbm_alloc = sim_hbm_alloc,
	.hbm_free = sim_hbm_free,
	.host_map = sim_host_map,
	.host_unmap = sim_host_unmap,
	.ext_queue = sim_ext_queue,
	.submit = sim_submit,
	.wait = sim_wait,
	.nic_register = sim_nic_register,
	.nic_deregister = sim_nic_deregister,
	.device_time = sim_device_time,
};

static int sim_count(uint32_t *module_ids, uint32_t max)
{
	uint32_t i;

	if (fabric_n) {
		for (i = 0; module_ids && i < fabric_n && i < max; i++)
			module_ids[i] = i;
		return (int)fabric_n;
	}
	if (module_ids && max)
		module_ids[0] = 0;
	return 1;
}

/*
 * What the driver does when the one context of a device opens (ASID 1):
 * its monitor payloads may write the user SOBs, every queue's fences, user
 * HBM and SRAM (hw/gaudisim_hw_sync.h, payload rights table).
 */
static void grant_rights(struct sim *s)
{
	const uint32_t asid = 1, blk = GAUDISIM_BLOCK_SYNC_MNGR;
	const uint64_t size = SIM_HBM_SIZE - GAUDISIM_HBM_USER_BASE;
	uint32_t i;

	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_SOB_FIRST),
	   GAUDISIM_SYNC_FIRST_USER_SOB);
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_SOB_END), GAUDISIM_SYNC_NUM_SOBS);
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_MON_FIRST),
	   GAUDISIM_SYNC_FIRST_USER_MON);
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_MON_END),
	   GAUDISIM_SYNC_NUM_MONITORS);
	for (i = 0; i < GAUDISIM_RIGHTS_QUEUE_WORDS; i++)
		wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_QUEUES(i)), ~0u);
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_HBM_BASE_LO),
	   (uint32_t)GAUDISIM_HBM_USER_BASE);
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_HBM_BASE_HI),
	   (uint32_t)(GAUDISIM_HBM_USER_BASE >> 32));
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_HBM_SIZE_LO), (uint32_t)size);
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_HBM_SIZE_HI),
	   (uint32_t)(size >> 32));
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_USER_INTR),
	   (1u << GAUDISIM_MSIX_NUM_USER) - 1);
	wr(s, blk + GAUDISIM_SYNC_RIGHTS(asid, GAUDISIM_RIGHTS_CTRL),
	   GAUDISIM_RIGHTS_CTRL_VALID | GAUDISIM_RIGHTS_CTRL_SRAM);
}

/*
 * What the driver does at probe: peers may at most write user HBM and user
 * SOBs; what they actually may write, its users register.
 */
static void open_rx_windows(struct sim *s)
{
	uint32_t p;

	for (p = 0; p < GAUDISIM_NIC_NUM_PORTS; p++) {
		uint32_t blk = GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0 + p);
		uint64_t size = SIM_HBM_SIZE - GAUDISIM_HBM_USER_BASE;

		wr(s, blk + GAUDISIM_NIC_RX_WIN_BASE_LO, (uint32_t)GAUDISIM_HBM_USER_BASE);
		wr(s, blk + GAUDISIM_NIC_RX_WIN_BASE_HI, (uint32_t)(GAUDISIM_HBM_USER_BASE >> 32));
		wr(s, blk + GAUDISIM_NIC_RX_WIN_SIZE_LO, (uint32_t)size);
		wr(s, blk + GAUDISIM_NIC_RX_WIN_SIZE_HI, (uint32_t)(size >> 32));
		wr(s, blk + GAUDISIM_NIC_RX_SOB_FIRST, GAUDISIM_SYNC_FIRST_USER_SOB);
		wr(s, blk + GAUDISIM_NIC_RX_SOB_COUNT,
		   GAUDISIM_SYNC_NUM_SOBS - GAUDISIM_SYNC_FIRST_USER_SOB);
		wr(s, blk + GAUDISIM_NIC_RX_ENABLE, 1);
	}
}

static int sim_open(uint32_t index, struct hlrt_backend **out)
{
	struct gsim_core_config cfg = { .hbm_size = SIM_HBM_SIZE,
					.hbm_bar_size = 256ull << 20 };
	struct hlrt_backend *be;
	const char *err = NULL;
	struct sim *s;

	if (index >= (fabric_n ? fabric_n : 1))
		return -ENODEV;
	be = calloc(1, sizeof(*be));
	s = calloc(1, sizeof(*s));
	if (!be || !s)
		goto fail;
	s->rings = calloc(MAX_RINGS, RING_BYTES);
	s->regions = calloc(1, sizeof(*s->regions));
	if (!s->rings || !s->regions)
		goto fail;
	s->core = gsim_core_new(&cfg, &sim_ops, s, &err);
	if (!s->core) {
		fprintf(stderr, "sim: gsim_core_new: %s\n", err ? err : "?");
		goto fail;
	}
	grant_rights(s);
	s->ext_cb = SIM_HBM_SIZE - EXT_SCRATCH;
	s->regions[0].addr = GAUDISIM_HBM_USER_BASE;
	s->regions[0].size = s->ext_cb - GAUDISIM_HBM_USER_BASE;
	s->n_regions = 1;
	s->next_va = GAUDISIM_MMU_VA_BASE_FOR_SIM;
	if (fabric_n) {
		int rc;

		pthread_mutex_lock(&bql);
		rc = index < GAUDISIM_NIC_MAX_MODULES && !fabric_sims[index] ?
		     gsim_fabric_attach(fabric, s->core, index) : -EBUSY;
		if (!rc) {
			fabric_sims[index] = s;
			s->on_fabric = true;
			open_rx_windows(s);
		}
		pthread_mutex_unlock(&bql);
		if (rc) {
			gsim_core_free(s->core);
			free(s->rings);
			free(s->regions);
			free(s);
			free(be);
			return rc;
		}
	}
	be->ops = &sim_be_ops;
	be->priv = s;
	*out = be;
	return 0;
fail:
	if (s) {
		free(s->rings);
		free(s->regions);
	}
	free(s);
	free(be);
	return -ENOMEM;
}

static const struct hlrt_backend_provider sim_provider = {
	.count = sim_count,
	.open = sim_open,
};

void sim_install(void)
{
	hlrt_set_backend_provider(&sim_provider);
}

int sim_install_fabric(uint32_t n)
{
	if (!n || n > GAUDISIM_NIC_MAX_MODULES || fabric)
		return -EINVAL;
	fabric = gsim_fabric_new();
	if (!fabric)
		return -ENOMEM;
	fabric_n = n;
	hlrt_set_backend_provider(&sim_provider);
	return 0;
}

void sim_uninstall_fabric(void)
{
	pthread_mutex_lock(&bql);
	if (fabric)
		gsim_fabric_free(fabric);
	fabric = NULL;
	fabric_n = 0;
	pthread_mutex_unlock(&bql);
}

int sim_fabric_set_link(uint32_t module, uint32_t port, bool up)
{
	int rc;

	pthread_mutex_lock(&bql);
	rc = fabric ? gsim_fabric_set_link(fabric, module, port, up) : -ENODEV;
	pthread_mutex_unlock(&bql);
	return rc;
}

uint8_t *sim_hbm(hlrt_device *dev)
{
	struct sim *s = dev->be->priv;

	return gsim_core_hbm(s->core);
}

uint32_t sim_nic_registrations(hlrt_device *dev)
{
	struct sim *s = dev->be->priv;
	uint32_t i, n = 0;

	if (s->on_fabric)
		pthread_mutex_lock(&bql);
	for (i = 0; i < GAUDISIM_NIC_RX_NUM_MR; i++)
		n += !!(rd(s, GAUDISIM_BLOCK_NIC_RX + GAUDISIM_NIC_RX_MR(i) +
			   GAUDISIM_NIC_RX_MR_CTRL) & GAUDISIM_NIC_RX_MR_VALID);
	if (s->on_fabric)
		pthread_mutex_unlock(&bql);
	return n;
}
