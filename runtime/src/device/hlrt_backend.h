/* SPDX-License-Identifier: MIT */
/*
 * The runtime's view of a device: the few operations libhlrt needs from
 * the driver (through libhlthunk, backend_driver.c). The host tests plug
 * in a backend that runs the same command buffers on the device core in
 * process (tests/runtime/sim_backend.c), so the compiler, the schedule and
 * the kernels are tested without a VM.
 *
 * Every function returns 0 or a negative errno value.
 */
#ifndef HLRT_BACKEND_H
#define HLRT_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/gaudisim_hw_queues.h"

/* A job on an internal queue: a CB the runtime placed in HBM. */
struct hlrt_be_job {
	uint32_t queue;
	uint32_t size;
	uint64_t cb_addr;
};

/* A host <-> device copy carried by the external job. */
struct hlrt_be_copy {
	void *host;		/* pinned host memory */
	uint64_t va;		/* its device VA */
	uint64_t dev;		/* device address */
	uint64_t size;
};

/*
 * The external job of a submission, in order: (when ts_first_dev is set)
 * the device clock written to that HBM address, the "pre" host -> device
 * copies, the body packets, the "post" device -> host copies, the clock
 * written to ts_last_dev (when set), then (when ts_host is set) the clock
 * written to ts_va/ts_host.
 */
struct hlrt_be_ext {
	const struct hlrt_be_copy *pre;
	uint32_t n_pre;
	const uint32_t *body;
	uint32_t n_body;	/* dwords */
	const struct hlrt_be_copy *post;
	uint32_t n_post;
	uint64_t *ts_host;
	uint64_t ts_va;
	uint64_t ts_first_dev, ts_last_dev;	/* profiling: HBM addresses, 0 = none */
};

struct hlrt_be_info {
	char name[32];
	char bus_id[32];
	uint64_t hbm_base, hbm_size, sram_base, sram_size;
	uint32_t num_tpc, tpc_enabled_mask, num_hbm_dma, clock_mhz;
	uint32_t first_sob, first_mon, num_sobs, num_mons;
};

struct hlrt_backend;

struct hlrt_backend_ops {
	void (*close)(struct hlrt_backend *be);
	int (*info)(struct hlrt_backend *be, struct hlrt_be_info *info);
	int (*hbm_free_bytes)(struct hlrt_backend *be, uint64_t *free_bytes);
	int (*hbm_alloc)(struct hlrt_backend *be, uint64_t size, uint64_t *handle,
			 uint64_t *addr);
	int (*hbm_free)(struct hlrt_backend *be, uint64_t handle);
	int (*host_map)(struct hlrt_backend *be, void *ptr, uint64_t size, uint64_t *va);
	int (*host_unmap)(struct hlrt_backend *be, uint64_t va);
	/* The queue ID that runs the external jobs of runtime stream s (0..3). */
	uint32_t (*ext_queue)(struct hlrt_backend *be, uint32_t s);
	/* One command submission: the internal jobs and one external job. */
	int (*submit)(struct hlrt_backend *be, const struct hlrt_be_job *jobs, uint32_t n_jobs,
		      uint32_t ext_queue, const struct hlrt_be_ext *ext, uint64_t *seq);
	/* Wait for a submission: 0 done, -ETIMEDOUT, -EIO (aborted). */
	int (*wait)(struct hlrt_backend *be, uint64_t seq, uint64_t timeout_us);
	/*
	 * Let NIC peers write HBM [addr, + size) and signal SOBs [sob_first,
	 * + sob_count) of this device (docs/nic.md); a handle to deregister.
	 */
	int (*nic_register)(struct hlrt_backend *be, uint64_t addr, uint64_t size,
			    uint32_t sob_first, uint32_t sob_count, uint64_t *handle);
	int (*nic_deregister)(struct hlrt_backend *be, uint64_t handle);
	/* The device clock now, ns (the profiler maps it onto the host's); may be NULL. */
	int (*device_time)(struct hlrt_backend *be, uint64_t *ns);
};

struct hlrt_backend {
	const struct hlrt_backend_ops *ops;
	void *priv;
};

/*
 * How libhlrt finds devices. The default is the driver; a test installs
 * its own with hlrt_set_backend_provider() before the first call.
 */
struct hlrt_backend_provider {
	/* Devices present, and their module IDs (ids may be NULL). */
	int (*count)(uint32_t *module_ids, uint32_t max);
	/* Open device <index> (the provider's numbering). */
	int (*open)(uint32_t index, struct hlrt_backend **be);
};

void hlrt_set_backend_provider(const struct hlrt_backend_provider *p);
/*
 * The default provider: the driver in libhlrt (backend_driver.c); no
 * devices in the runtime core the host tests link (backend_none.c).
 */
const struct hlrt_backend_provider *hlrt_default_provider(void);

#endif /* HLRT_BACKEND_H */
