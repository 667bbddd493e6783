/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash dumps (devcoredump) of a hung device and the reset uevent.
 */
#ifndef __GAUDISIM_COREDUMP_H__
#define __GAUDISIM_COREDUMP_H__

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct gaudisim_cs;
struct gaudisim_device;

/* Bytes of the hung CS's first CB kept for the dump. */
#define GAUDISIM_COREDUMP_CB_BYTES	64
/* Jobs of the hung CS named in the dump. */
#define GAUDISIM_COREDUMP_JOBS		8

/**
 * struct gaudisim_hang_note - the CS that timed out, kept for the next dump
 * @valid: the fields below describe a CS not yet dumped
 * @seq: its sequence number (0: a driver CB)
 * @pid: the submitting process
 * @timeout_s: its timeout
 * @num_jobs: jobs it had
 * @queue_id: queue of each of the first jobs
 * @cb_addr: bus address of the kernel CB (external) or device address of
 *           the CB (internal) of each of the first jobs
 * @cb_size: its size in bytes
 * @cb_len: bytes copied into @cb
 * @cb: the first bytes of the first external job's kernel CB
 */
struct gaudisim_hang_note {
	bool valid;
	u64 seq;
	pid_t pid;
	u32 timeout_s;
	u32 num_jobs;
	u32 queue_id[GAUDISIM_COREDUMP_JOBS];
	u64 cb_addr[GAUDISIM_COREDUMP_JOBS];
	u32 cb_size[GAUDISIM_COREDUMP_JOBS];
	u32 cb_len;
	u8 cb[GAUDISIM_COREDUMP_CB_BYTES];
};

/**
 * struct gaudisim_coredump - crash-dump state of a device
 * @lock: protects @note (taken from the TDR and the reset worker)
 * @note: the last CS that timed out
 * @dumps: dumps handed to devcoredump since load
 */
struct gaudisim_coredump {
	/* Protects @note. */
	spinlock_t lock;
	struct gaudisim_hang_note note;
	atomic_t dumps;
};

void gaudisim_coredump_init(struct gaudisim_device *gdev);
void gaudisim_coredump_fini(struct gaudisim_device *gdev);
void gaudisim_coredump_note_cs(struct gaudisim_device *gdev, struct gaudisim_cs *cs);
void gaudisim_coredump_capture(struct gaudisim_device *gdev, const char *cause);
void gaudisim_reset_uevent(struct gaudisim_device *gdev, const char *cause, int rc);

#endif /* __GAUDISIM_COREDUMP_H__ */
