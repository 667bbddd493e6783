/* SPDX-License-Identifier: MIT */
/*
 * What every part of libhlrt shares: the public API, the limits, errors,
 * the environment (config.c) and the clock. Not installed.
 */
#ifndef HLRT_COMMON_H
#define HLRT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlrt.h"

#define HLRT_ALIGN		128u	/* memory plan and malloc alignment */
#define HLRT_MAX_IN		8
#define HLRT_MAX_OUT		5
#define HLRT_MAX_PARAMS		64	/* bytes of a node's parameter struct */
#define HLRT_MAX_STREAMS	4

/* ---- errors (status.c) --------------------------------------------------- */

/* Record a message for hlrt_last_error() and return status. */
hlrt_status hlrt_fail(hlrt_status status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Map a negative errno from the backend to a status, with a message. */
hlrt_status hlrt_fail_errno(int neg_errno, const char *what);

static inline uint64_t hlrt_align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* ---- the environment (config.c: every variable is read there) ----------- */

bool hlrt_config_bf16(void);			/* HLRT_BF16, default off */
bool hlrt_config_lazy(void);			/* HLRT_LAZY_MODE, default on */
bool hlrt_config_log_placement(void);		/* HLRT_LOG_DEVICE_PLACEMENT */
const char *hlrt_config_kernel_path(void);	/* HLRT_KERNEL_PATH, or NULL */
const char *hlrt_config_profile(void);		/* HLRT_PROFILE, or NULL */
const char *hlrt_config_visible_devices(void);	/* HABANA_VISIBLE_DEVICES, or NULL */
const char *hlrt_config_visible_modules(void);	/* HABANA_VISIBLE_MODULES, or NULL */
const char *hlrt_config_comm_dir(void);		/* HLRT_COMM_DIR, or NULL */
uint64_t hlrt_config_comm_timeout_ms(void);	/* HLRT_COMM_TIMEOUT_MS, default 60000 */
uint32_t hlrt_config_box_id(void);		/* HLRT_BOX_ID, default 0 */
bool hlrt_config_coll_ring_only(void);		/* HLRT_COLL_ALGO=ring: no direct all-reduce */

/* ---- placement log ------------------------------------------------------- */

bool hlrt_log_placement_enabled(void);

/* ---- kernels (kernels.c, generated) -------------------------------------- */

struct hlrt_kernel {
	const char *name;		/* file name without .tpcs */
	const uint8_t *code;
	uint32_t size;			/* bytes, multiple of 32 */
};

const struct hlrt_kernel *hlrt_kernel_find(const char *name);

uint64_t hlrt_now_ns(void);

/* Where work runs: the op registry places nodes, recipe works carry it. */
enum hlrt_engine {
	ENG_NONE = 0,		/* logical: a view, no work */
	ENG_MME,
	ENG_TPC,
	ENG_DMA,
	ENG_CPU,
};

/* "MME", "TPC", "DMA", "CPU" or "view" (status.c). */
const char *hlrt_engine_name(enum hlrt_engine e);

#endif /* HLRT_COMMON_H */
