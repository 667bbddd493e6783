/* SPDX-License-Identifier: MIT */
/*
 * The device core as the host benchmarks drive it: a core with a small
 * fake host memory for the PQ rings, internal queues set up the way the
 * driver sets them up, command buffers copied into HBM and submitted
 * through a queue's PQ, and completion observed the way user space sees
 * it - a sync object the CB's last packet increments once the engine has
 * finished (engine barrier). So a timed job includes the packet
 * processor, the engine's decode and launch, the hand-off to a worker
 * thread and the completion back through the sync manager.
 */
#ifndef BENCH_DEV_H
#define BENCH_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "gsim_core.h"
#include "hw/gaudisim_hw_regs.h"

/* HBM layout of the benchmarks: CBs first, then data. */
#define BENCH_CB_BASE		GAUDISIM_HBM_USER_BASE
#define BENCH_CB_SIZE		(16ull << 20)
#define BENCH_DATA_BASE		(BENCH_CB_BASE + BENCH_CB_SIZE)

/* A command buffer under construction (host memory, copied at submit). */
#define BENCH_CB_MAX		4096u
struct bench_cb {
	uint8_t bytes[BENCH_CB_MAX];
	uint32_t len;
};

struct bench_dev;

/*
 * A core with hbm_size bytes of HBM and the given worker threads (0: every
 * engine runs synchronously inside gsim_core_run()). Exits with a message
 * on failure: a benchmark without its device has nothing to measure.
 */
struct bench_dev *bench_dev_new(uint64_t hbm_size, unsigned int threads);
/* The same with the TPCs on the portable interpreter when tpc_portable is set. */
struct bench_dev *bench_dev_new_tpc(uint64_t hbm_size, unsigned int threads, bool tpc_portable);
void bench_dev_free(struct bench_dev *d);
struct gsim_core *bench_core(struct bench_dev *d);
/* Host pointer to HBM [addr, addr + len); exits when outside. */
uint8_t *bench_hbm(struct bench_dev *d, uint64_t addr, uint64_t len);

/* Packets. */
void bench_cb_reset(struct bench_cb *cb);
void bench_cb_wreg(struct bench_cb *cb, uint32_t reg, uint32_t value);
void bench_cb_memset(struct bench_cb *cb, uint64_t dst, uint8_t value, uint32_t size);
/* Sync object sob += 1 once everything before it in the CB has finished. */
void bench_cb_signal(struct bench_cb *cb, unsigned int sob);

/* Copy cb to HBM and submit it to internal queue q (set up on first use). */
void bench_submit(struct bench_dev *d, unsigned int q, const struct bench_cb *cb);
void bench_sob_clear(struct bench_dev *d, unsigned int sob);
/*
 * Run the device until sync object sob reaches value: gsim_core_run() on
 * this thread, waiting for the workers in between. Exits with a message
 * when the device stops making progress or after timeout_s seconds.
 */
void bench_wait_sob(struct bench_dev *d, unsigned int sob, uint32_t value, double timeout_s);

#endif /* BENCH_DEV_H */
