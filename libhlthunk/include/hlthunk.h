/* SPDX-License-Identifier: MIT */
/*
 * libhlthunk: a thin user-space wrapper of the gaudisim accel driver.
 *
 * One function per ioctl operation plus device enumeration, in the spirit
 * of Habana's hl-thunk. No policy: every function returns 0 (or a
 * non-negative value such as a file descriptor) on success and a negative
 * errno value on failure; output parameters are written only on success.
 * The kernel ABI structs (gaudisim_accel.h) are exposed directly.
 */
#ifndef HLTHUNK_H
#define HLTHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gaudisim_accel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HLTHUNK_DEV_NAME_PRIMARY	"/dev/accel/accel%d"
#define HLTHUNK_DEV_NAME_CONTROL	"/dev/accel/accel_controlD%d"
#define HLTHUNK_SYSFS_ACCEL_CLASS	"/sys/class/accel"
#define HLTHUNK_MAX_MINOR		256

/* "DDDD:BB:DD.F" plus NUL, with room for a long domain. */
#define HLTHUNK_BUS_ID_MAX_LEN		32

/* ---- Library --------------------------------------------------------------- */

/* Version string of this library, e.g. "1.0.0". */
const char *hlthunk_get_version(void);

/*
 * Raw ioctl: drmIoctl (retries EINTR and EAGAIN), 0 or -errno. For callers
 * that need the exact ABI structs, e.g. to test the driver's checks.
 */
int hlthunk_ioctl(int fd, unsigned long request, void *arg);

/* ---- Open, close, enumeration --------------------------------------------- */

/*
 * Open the compute node of device <index> (/dev/accel/accel<index>) and
 * check that its driver is gaudisim. One process at a time: -EBUSY while
 * another file holds it. Returns the fd.
 */
int hlthunk_open(int index);

/* Open the compute node of the device at PCI address "BB:DD.F" or "DDDD:BB:DD.F". */
int hlthunk_open_by_busid(const char *busid);

/* Open the control node (INFO only, any number of openers). Returns the fd. */
int hlthunk_open_control(int index);

/*
 * Close a node. A compute node is released (its CBs, mappings and HBM
 * freed, the device free for the next user) once the last reference to
 * the file goes: CB mappings count, so munmap them first.
 */
int hlthunk_close(int fd);

/* Number of gaudisim devices present. */
int hlthunk_get_device_count(void);

/*
 * Fill indices[0..max) with the accel minor numbers of the gaudisim devices,
 * ascending. Returns how many devices exist (may exceed max).
 */
int hlthunk_list_devices(int *indices, int max);

/*
 * Check a bus ID's syntax ("BB:DD.F" or "DDDD:BB:DD.F") and write its full
 * form "DDDD:BB:DD.F" to normalized (may be NULL). 0 or -EINVAL.
 */
int hlthunk_parse_pci_bus_id(const char *busid, char *normalized, size_t len);

/* Device index of a bus ID ("BB:DD.F" or "DDDD:BB:DD.F"), or -ENODEV. */
int hlthunk_get_device_index_by_busid(const char *busid);

/* PCI address ("DDDD:BB:DD.F") of the device behind an open compute or control fd. */
int hlthunk_get_pci_bus_id_from_fd(int fd, char *busid, size_t len);

/* ---- INFO (compute and control nodes) ------------------------------------- */

/* Generic INFO: the driver copies min(size, its struct size) bytes into buf. */
int hlthunk_get_info(int fd, uint32_t op, void *buf, uint32_t size);

/* Same, with an op's argument (period_ms, pll_index, dcore_id, eventfd). */
int hlthunk_get_info_arg(int fd, uint32_t op, uint32_t arg, void *buf, uint32_t size);

int hlthunk_get_hw_ip_info(int fd, struct gaudisim_info_hw_ip_info *info);
/* Project-only facts (engine counts, queue mask, HBM total, version). */
int hlthunk_get_hw_ip_ext(int fd, struct gaudisim_info_hw_ip_ext *info);
int hlthunk_get_dram_usage(int fd, struct gaudisim_info_dram_usage *usage);
int hlthunk_get_hw_idle(int fd, struct gaudisim_info_hw_idle *idle);
/* Project-only: busy queues rather than busy engines. */
int hlthunk_get_queue_idle(int fd, struct gaudisim_info_queue_idle *idle);
/* Project-only: link state, peer and byte/error counters of every NIC port. */
int hlthunk_get_nic_links(int fd, struct gaudisim_info_nic_links *links);
/* 1 when idle, 0 when some engine has work in flight, or -errno. */
int hlthunk_is_device_idle(int fd);
/* Stores an enum gaudisim_device_status value. */
int hlthunk_get_device_status(int fd, uint32_t *status);
/* Refused submissions, device-wide and for the caller's context. */
int hlthunk_get_cs_counters_info(int fd, struct gaudisim_info_cs_counters *info);
/* Project-only: submitted, completed, errors, timed out. */
int hlthunk_get_cs_stats(int fd, struct gaudisim_info_cs_stats *stats);
int hlthunk_get_open_stats(int fd, struct gaudisim_info_open_stats *stats);

/* ---- INFO: telemetry and events, with hl-thunk's names and signatures ---- */

#define HLTHUNK_BUSY_ENGINES_MASK_SIZE	4

struct hlthunk_engines_idle_info {
	uint32_t is_idle;
	uint32_t pad;
	uint64_t mask[HLTHUNK_BUSY_ENGINES_MASK_SIZE];	/* GAUDISIM_HL_ENGINE_ID_* bits */
};

struct hlthunk_reset_count_info {
	uint32_t hard_reset_count;
	uint32_t soft_reset_count;
};

struct hlthunk_time_sync_info {
	uint64_t device_time;	/* ns */
	uint64_t host_time;	/* CLOCK_MONOTONIC_RAW ns */
};

struct hlthunk_sync_manager_info {
	uint32_t first_available_sync_object;
	uint32_t first_available_monitor;
	uint32_t first_available_cq;
	uint32_t reserved;
};

struct hlthunk_clk_throttle_info {
	uint32_t clk_throttle_reason_bitmask;	/* GAUDISIM_CLK_THROTTLE_* */
	uint64_t clk_throttle_start_timestamp_us[GAUDISIM_CLK_THROTTLE_TYPE_MAX];
	uint64_t clk_throttle_duration_ns[GAUDISIM_CLK_THROTTLE_TYPE_MAX];
};

struct hlthunk_energy_info {
	uint64_t total_energy_consumption;	/* mJ */
};

struct hlthunk_power_info {
	uint64_t power;		/* mW */
};

/* PCIe throughput over the firmware's 10 ms window (KB = 1000 bytes). */
struct hlthunk_pci_counters_info {
	uint64_t rx_throughput;	/* KB/s received from the host */
	uint64_t tx_throughput;	/* KB/s sent to the host */
	uint64_t replay_cnt;
};

struct hlthunk_pll_frequency_info {
	uint16_t output[GAUDISIM_PLL_NUM_OUTPUTS];	/* MHz */
};

/* Records of hlthunk_get_event_record(). */
enum hlthunk_event_record_id {
	HLTHUNK_CS_TIMEOUT = 1,		/* struct gaudisim_info_cs_timeout_event */
	HLTHUNK_RAZWI_EVENT = 2,	/* struct gaudisim_info_razwi_event */
	HLTHUNK_UNDEFINED_OPCODE = 3,	/* struct gaudisim_info_undefined_opcode_event */
};

int hlthunk_get_busy_engines_mask(int fd, struct hlthunk_engines_idle_info *info);
/* Percent of period_ms (100..1000, steps of 100) the busiest engine worked; sleeps. */
int hlthunk_get_device_utilization(int fd, uint32_t period_ms, uint32_t *rate);
/* hw_events_arr_size in bytes; aggregate: since load, else since the last reset. */
int hlthunk_get_hw_events_arr(int fd, bool aggregate, uint32_t hw_events_arr_size,
			      uint32_t *hw_events_arr);
int hlthunk_get_clk_rate(int fd, uint32_t *cur_clk_mhz, uint32_t *max_clk_mhz);
int hlthunk_get_reset_count_info(int fd, struct hlthunk_reset_count_info *info);
int hlthunk_get_time_sync_info(int fd, struct hlthunk_time_sync_info *info);
int hlthunk_get_sync_manager_info(int fd, int dcore_id, struct hlthunk_sync_manager_info *info);
int hlthunk_get_clk_throttle_info(int fd, struct hlthunk_clk_throttle_info *info);
int hlthunk_get_total_energy_consumption_info(int fd, struct hlthunk_energy_info *info);
int hlthunk_get_power_info(int fd, struct hlthunk_power_info *info);
/* Sleeps for the 10 ms window; -EBUSY while the device is not operational. */
int hlthunk_get_pci_counters_info(int fd, struct hlthunk_pci_counters_info *info);
/* index: enum gaudisim_pll_index; -EOPNOTSUPP for PLLs the device does not model. */
int hlthunk_get_pll_frequency(int fd, uint32_t index,
			      struct hlthunk_pll_frequency_info *frequency);
int hlthunk_get_dev_memalloc_page_orders(int fd, uint64_t *page_order_bitmask);
/* The engine table as text; stores the bytes written (NUL included). */
int hlthunk_get_engine_status(int fd, char *status_buf, uint32_t status_buf_size,
			      int *actual_size);
/* The last captured error of a kind; buf holds the record's struct. */
int hlthunk_get_event_record(int fd, enum hlthunk_event_record_id event_id, void *buf);
int hlthunk_get_page_fault_info(int fd, struct gaudisim_page_fault_info *info);

/*
 * Event notification (compute node only): create registers a new eventfd
 * and returns it; recv waits up to timeout ms for it and stores the
 * GAUDISIM_NOTIFIER_EVENT_* bits seen since the last recv and the eventfd
 * count (0 when it timed out); release unregisters and closes it.
 */
int hlthunk_notifier_create(int fd);
int hlthunk_notifier_recv(int fd, int handle, uint64_t *notifier_events,
			  uint64_t *notifier_cnt, uint32_t flags, uint32_t timeout);
int hlthunk_notifier_release(int fd, int handle);
/* Copies the NUL-terminated version string into buf (truncating to len). */
int hlthunk_get_driver_version(int fd, char *buf, size_t len);

/* ---- Memory ---------------------------------------------------------------- */

/* Allocate HBM (rounded up to GAUDISIM_DRAM_PAGE_SIZE); stores the handle. */
int hlthunk_device_memory_alloc(int fd, uint64_t size, uint64_t *handle);
int hlthunk_device_memory_free(int fd, uint64_t handle);
/* Device address of an HBM allocation, for use in packets. */
int hlthunk_device_memory_map(int fd, uint64_t handle, uint64_t *device_addr);
/*
 * Map user memory for DMA (userptr): ptr page-aligned, size a page multiple.
 * Stores the device virtual address that packets use for it.
 */
int hlthunk_host_memory_map(int fd, void *ptr, uint64_t size, uint64_t *device_va);
int hlthunk_memory_unmap(int fd, uint64_t device_va);

/* ---- Command buffers ------------------------------------------------------- */

int hlthunk_request_command_buffer(int fd, uint32_t size, uint64_t *handle);
int hlthunk_destroy_command_buffer(int fd, uint64_t handle);
/* Either output pointer may be NULL. */
int hlthunk_get_cb_info(int fd, uint64_t handle, uint32_t *usage_cnt, uint32_t *size);
/* mmap the CB for writing packets; NULL with errno set on failure. */
void *hlthunk_cb_mmap(int fd, uint64_t handle, uint32_t size);
int hlthunk_cb_munmap(void *cb, uint32_t size);

/* ---- Command submission ---------------------------------------------------- */

struct hlthunk_cs_in {
	const struct gaudisim_cs_chunk *chunks_restore;
	const struct gaudisim_cs_chunk *chunks_execute;
	uint32_t num_chunks_restore;
	uint32_t num_chunks_execute;
	uint32_t flags;		/* GAUDISIM_CS_FLAGS_* */
	uint32_t timeout_s;	/* with GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT */
};

struct hlthunk_cs_out {
	uint64_t seq;
	uint32_t status;	/* GAUDISIM_CS_STATUS_* */
};

int hlthunk_command_submission(int fd, const struct hlthunk_cs_in *in,
			       struct hlthunk_cs_out *out);

/*
 * Wait for a CS: returns the ioctl's rc (0, -ETIMEDOUT, -EIO, ...) and
 * stores the GAUDISIM_WAIT_CS_STATUS_* value whenever the driver gave one.
 * timeout_us 0 polls.
 */
int hlthunk_wait_for_cs(int fd, uint64_t seq, uint64_t timeout_us, uint32_t *status);
/* Same, also storing the status flags and the completion timestamp. */
int hlthunk_wait_for_cs_with_timestamp(int fd, uint64_t seq, uint64_t timeout_us,
				       uint32_t *status, uint32_t *flags,
				       int64_t *timestamp_nsec);

/* hl-thunk's multi-CS wait: up to GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN CSs. */
struct hlthunk_wait_multi_cs_in {
	uint64_t *seq;		/* array of seq_len sequence numbers */
	uint64_t timeout_us;	/* 0 polls */
	uint32_t seq_len;
};

struct hlthunk_wait_multi_cs_out {
	uint32_t status;	/* GAUDISIM_WAIT_CS_STATUS_* */
	uint32_t seq_set;	/* bit i: in->seq[i] has completed */
	uint8_t completed;	/* number of bits in seq_set */
};

/*
 * Wait until at least one of the CSs has completed (or the timeout ends:
 * status BUSY, rc 0). Returns the ioctl's rc: -EINVAL for a bad length or
 * a sequence never submitted, -EFAULT for a bad array, -EIO or -ETIMEDOUT
 * when one of the CSs ended badly.
 */
int hlthunk_wait_for_multi_cs(int fd, struct hlthunk_wait_multi_cs_in *in,
			      struct hlthunk_wait_multi_cs_out *out);
/* Same, storing the first completion time (0 when none is known). */
int hlthunk_wait_for_multi_cs_with_timestamp(int fd, struct hlthunk_wait_multi_cs_in *in,
					     struct hlthunk_wait_multi_cs_out *out,
					     uint64_t *timestamp);

/*
 * hl-thunk's wait on a user interrupt: returns once *(uint64_t *)addr >=
 * target_value, checked at once and after every interrupt_id (UINT32_MAX:
 * any user interrupt), or after timeout_us (0: check once). status:
 * COMPLETED, BUSY on timeout (rc 0), ABORTED with rc -EIO after a device
 * reset. Returns the ioctl's rc (-EINVAL bad ID/flags, -EFAULT bad addr).
 */
int hlthunk_wait_for_interrupt(int fd, void *addr, uint64_t target_value,
			       uint32_t interrupt_id, uint64_t timeout_us,
			       uint32_t *status);
/* Same, storing the CLOCK_MONOTONIC time of the completion (0 if none). */
int hlthunk_wait_for_interrupt_with_timestamp(int fd, void *addr, uint64_t target_value,
					      uint32_t interrupt_id, uint64_t timeout_us,
					      uint32_t *status, uint64_t *timestamp);

/* ---- SIGNAL / WAIT command submissions (hl-thunk's structs) -------------- */

struct hlthunk_signal_in {
	void *chunks_restore;		/* struct gaudisim_cs_chunk array or NULL */
	uint32_t num_chunks_restore;
	uint32_t queue_index;		/* an external queue */
	uint32_t flags;			/* extra GAUDISIM_CS_FLAGS_* (TIMESTAMP, ...) */
};

struct hlthunk_signal_out {
	uint64_t seq;
	uint32_t status;
	uint32_t sob_base_addr_offset;	/* the SOB's offset in the sync-manager block */
	uint16_t sob_count_before_submission;
};

struct hlthunk_wait_for_signal_data {
	union {
		uint64_t *signal_seq_arr;
		uint64_t encaps_signal_seq;	/* encapsulated signals: not supported */
	};
	uint32_t signal_seq_nr;		/* 1..GAUDISIM_CS_WAIT_MAX_SIGNALS (hl-thunk: 1) */
	uint32_t queue_index;		/* the external queue that waits */
	uint32_t flags;			/* unused */
	uint32_t collective_engine_id;	/* unused */
	uint32_t encaps_signal_offset;	/* unused */
};

struct hlthunk_wait_in {
	void *chunks_restore;
	uint32_t num_chunks_restore;
	uint64_t *hlthunk_wait_for_signal;	/* a struct hlthunk_wait_for_signal_data */
	uint32_t num_wait_for_signal;		/* must be 1 */
	uint32_t flags;
};

struct hlthunk_wait_out {
	uint64_t seq;		/* ULLONG_MAX: the signals had all completed */
	uint32_t status;
};

/*
 * Submit a SIGNAL CS: queue in->queue_index adds 1 to its sync object once
 * its earlier work is done. Returns 0 or a negative errno.
 */
int hlthunk_signal_submission(int fd, struct hlthunk_signal_in *in,
			      struct hlthunk_signal_out *out);
/* Same with a CS timeout of timeout seconds (0: the driver's default). */
int hlthunk_signal_submission_timeout(int fd, struct hlthunk_signal_in *in,
				      struct hlthunk_signal_out *out, uint32_t timeout);
/*
 * Submit a WAIT CS: the queue waits, in the sync manager, until the SIGNAL
 * CSs named happened. out->seq is ULLONG_MAX when they all had completed.
 */
int hlthunk_wait_for_signal(int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out);
int hlthunk_wait_for_signal_timeout(int fd, struct hlthunk_wait_in *in,
				    struct hlthunk_wait_out *out, uint32_t timeout);

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_H */
