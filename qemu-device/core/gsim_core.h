/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the engines, queues and registers of the device in
 * plain C, with no QEMU headers. The QEMU glue (qemu-device/gaudisim.c)
 * and the host unit tests and benchmarks link the same code.
 *
 * Threading contract: every function here is called from one thread at a
 * time, the owner (in QEMU: with the BQL held, from MMIO handlers and
 * bottom halves). gsim_core_reg_write() never does work itself; it latches
 * the value and returns GSIM_KICK_* bits telling the caller what to
 * schedule. With config.threads > 0 the core runs MME, TPC and HBM-DMA
 * work on worker threads, a pool of that size which every core of the
 * process asking for the same size shares (docs/device.md, "Threads and
 * locks");
 * those touch only device memory and the engine state handed to them, and
 * call no host operation except work_done().
 */
#ifndef GSIM_CORE_H
#define GSIM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/gaudisim_hw_regs.h"

struct gsim_core;

/*
 * The simulated firmware's version (GAUDISIM_REG_FW_VERSION, decoded by
 * GAUDISIM_FW_VERSION_*): 1.2 is the firmware interface the device model
 * offers; the build moves when its behaviour seen by the driver changes.
 */
#define GSIM_FW_VERSION_MAJOR	1u
#define GSIM_FW_VERSION_MINOR	2u
#define GSIM_FW_VERSION_BUILD	3u
#define GSIM_FW_VERSION \
	(GSIM_FW_VERSION_MAJOR << 24 | GSIM_FW_VERSION_MINOR << 16 | GSIM_FW_VERSION_BUILD)
/* The board's CPLD version (GAUDISIM_REG_CPLD_VERSION), a model constant. */
#define GSIM_CPLD_VERSION	0x00000010u

/* A board UUID: 16 bytes in RFC 4122 (string) order. */
#define GSIM_UUID_LEN		(4 * GAUDISIM_UUID_WORDS)
/* The default serial, "GS" and 10 hex digits of the UUID, fits here. */
#define GSIM_SERIAL_DEFAULT_LEN	12

/* Trace points of the core, for the host's tracing (QEMU: -trace gaudisim_*). */
enum gsim_trace {
	GSIM_TRACE_LAUNCH,	/* engine launch starts: requester */
	GSIM_TRACE_OFFLOAD,	/* launch handed to a worker: epoch */
	GSIM_TRACE_DONE,	/* launched work finished: epoch, error code */
	GSIM_TRACE_DROPPED,	/* work of an old epoch completed into the void: epoch */
	GSIM_TRACE_CANCEL,	/* reset cancelled work on a worker: epoch */
	GSIM_TRACE_LOG,		/* a guest-error log site: msg */
};

struct gsim_trace_event {
	enum gsim_trace what;
	unsigned int engine;	/* GAUDISIM_ENGINE_*, or ~0u when none */
	const char *engine_name;
	uint64_t a, b;		/* see enum gsim_trace */
	const char *msg;	/* GSIM_TRACE_LOG only */
};

/* What the core needs from its host (QEMU glue or a test harness). */
struct gsim_host_ops {
	/* Read/write host memory at a bus address. Return 0, or -1 on a fault. */
	int (*dma_read)(void *opaque, uint64_t bus_addr, void *buf, uint64_t len);
	int (*dma_write)(void *opaque, uint64_t bus_addr, const void *buf, uint64_t len);
	/* Raise MSI-X vector 'vector'. */
	void (*msix_notify)(void *opaque, unsigned int vector);
	/* Report a guest programming error (QEMU: LOG_GUEST_ERROR). */
	void (*guest_error)(void *opaque, const char *msg);
	/* Monotonic nanoseconds, for the timestamp register and MSG timestamps. */
	uint64_t (*clock_ns)(void *opaque);
	/*
	 * Optional. Engine work finished on a worker: call gsim_core_run()
	 * soon from the owner thread. Called on a worker thread.
	 */
	void (*work_done)(void *opaque);
	/* Optional. A trace point was passed (owner thread): see enum gsim_trace. */
	void (*trace)(void *opaque, const struct gsim_trace_event *ev);
	/*
	 * Optional. Another device made streams of this one runnable (a NIC
	 * write signalled a sync object, gsim_fabric.h): call gsim_core_run()
	 * soon. Called on the owner thread, from inside the other device's run.
	 */
	void (*kick)(void *opaque);
};

struct gsim_core_config {
	uint64_t hbm_size;	/* bytes; multiple of 2 MiB, >= reserved + 2 MiB */
	uint64_t hbm_bar_size;	/* HBM BAR window, power of two */
	/*
	 * Worker threads for engine work, at most GSIM_CORE_MAX_THREADS: the
	 * size of the process-wide pool this core shares with every core of
	 * the same size (eight devices on two CPUs run two workers); 0
	 * runs every engine synchronously on the owner thread (deterministic,
	 * for unit tests and fuzzing).
	 */
	unsigned int threads;
	/*
	 * Run TPC kernels on the portable interpreter (gsim_tpc.h), the
	 * reference the fast handlers are tested against.
	 */
	bool tpc_portable;
	/*
	 * The build of the TPC interpreter: "avx512", "avx2", the baseline's
	 * name or "auto"; NULL takes the environment's GSIM_TPC_ISA, else the
	 * widest build this CPU runs. All builds give the same results.
	 */
	const char *tpc_isa;
};

#define GSIM_CORE_MAX_THREADS	256u

/* Bits returned by gsim_core_reg_write(). */
enum gsim_kick {
	GSIM_KICK_RUN = 1u << 0,	/* call gsim_core_run() soon */
	GSIM_KICK_WINDOW = 1u << 1,	/* HBM window moved: re-read it */
	GSIM_KICK_RESET = 1u << 2,	/* hard reset requested: call gsim_core_reset() */
};

/* Create the core; HBM is reserved sparsely (only touched pages cost memory).
 * Returns NULL with *err set to a static message on bad configuration. */
struct gsim_core *gsim_core_new(const struct gsim_core_config *cfg,
				const struct gsim_host_ops *ops, void *opaque,
				const char **err);
void gsim_core_free(struct gsim_core *core);

/* HBM backing store: host pointer and size, for the RAM-backed BAR. */
uint8_t *gsim_core_hbm(struct gsim_core *core);
uint64_t gsim_core_hbm_size(const struct gsim_core *core);
/* The module ID in the box (0..7), GAUDISIM_REG_MODULE_ID; gsim_fabric_attach()
 * sets it too. Returns -1 for an ID above 7. */
int gsim_core_set_module_id(struct gsim_core *core, unsigned int module_id);
unsigned int gsim_core_module_id(const struct gsim_core *core);
/*
 * Board identity, what the card's EEPROM holds: the serial number
 * (1..GAUDISIM_SERIAL_MAX_LEN printable ASCII characters, no spaces) and
 * the UUID (GSIM_UUID_LEN bytes). serial NULL takes the default,
 * gsim_core_default_serial(uuid). Kept across resets; a new core has the
 * nil UUID and its default serial. Returns 0, or -1 with the reason in
 * *err (static text) for a serial that gsim_core_serial_invalid() refuses.
 */
int gsim_core_set_identity(struct gsim_core *core, const char *serial,
			   const uint8_t *uuid, const char **err);
/* NULL when serial is acceptable, else why not (static text). */
const char *gsim_core_serial_invalid(const char *serial);
/* "GS" and the first 10 hex digits of uuid, upper case; size > GSIM_SERIAL_DEFAULT_LEN. */
void gsim_core_default_serial(const uint8_t *uuid, char *buf, size_t size);

/* Current HBM BAR window offset into HBM. */
uint64_t gsim_core_hbm_window(const struct gsim_core *core);

/* 32-bit register access at a CFG BAR offset. Unknown offsets read 0 and
 * ignore writes (reported through guest_error). */
uint32_t gsim_core_reg_read(struct gsim_core *core, uint32_t offset);
unsigned int gsim_core_reg_write(struct gsim_core *core, uint32_t offset, uint32_t value);

/* Run runnable streams for a bounded amount of work. Returns true when
 * work remains (the caller reschedules), false when every stream is idle
 * or blocked on a fence. */
bool gsim_core_run(struct gsim_core *core);
/*
 * The same with a caller-chosen budget (about 'bytes' of data or 'packets'
 * packets, both at least 1, and 'sync_ns' of the host clock for the
 * synchronous MME and TPC jobs: the first such job that ends sync_ns or
 * more after the run began ends the run, so 0 means one job), for a host
 * that runs a little work right where it was kicked (QEMU: inside the
 * doorbell write) and leaves the rest to gsim_core_run(). Same return
 * value.
 */
bool gsim_core_run_budget(struct gsim_core *core, uint64_t bytes, uint32_t packets,
			  uint64_t sync_ns);

/* Workers of the pool the core shares (0: synchronous engines). */
unsigned int gsim_core_threads(const struct gsim_core *core);
/* The TPC interpreter build running ("avx512", "avx2", "sse2", ...). */
const char *gsim_core_tpc_isa(const struct gsim_core *core);
/* The MME's FP32 product kernels ("openblas-Haswell", "portable", ...). */
const char *gsim_core_mme_kernels(const struct gsim_core *core);
/* Engine work is queued or running on a worker. */
bool gsim_core_work_in_flight(struct gsim_core *core);
/*
 * Wait up to timeout_ns for engine work on a worker to finish. true: call
 * gsim_core_run() to complete it; false: timeout, or nothing in flight.
 * For hosts without a work_done() callback (tests, benches).
 */
bool gsim_core_wait_work(struct gsim_core *core, uint64_t timeout_ns);

/*
 * Cancel the engine work on the workers, wait for it and stop the workers
 * (device teardown: afterwards no work_done() call comes). Engines then
 * run synchronously.
 */
void gsim_core_stop_workers(struct gsim_core *core);

/* Hard reset: stop every stream, clear queue state, counters and fences;
 * HBM contents are kept. No completion or interrupt is raised for work that
 * was in flight; work on a worker is cancelled and waited for, so nothing
 * of it reaches device memory after this returns. */
void gsim_core_reset(struct gsim_core *core);

#endif /* GSIM_CORE_H */
