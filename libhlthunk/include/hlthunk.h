/* SPDX-License-Identifier: MIT */
/*
 * libhlthunk: a thin user-space wrapper of the gaudisim accel driver.
 *
 * Habana's hl-thunk names, arguments and return conventions for what
 * gaudisim implements, plus a few project-only calls. Functions returning
 * int give 0 (or a non-negative value such as a file descriptor) on
 * success and a negative errno value on failure, output parameters written
 * only on success; those returning a handle or address give 0 on failure
 * with errno set. The kernel ABI structs (gaudisim_accel.h) are exposed
 * directly where hl-thunk exposes habanalabs' own.
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

/*
 * The habanalabs uAPI names hl-thunk's prototypes use, for the structs
 * gaudisim's uAPI has byte for byte under its own names.
 */
#define hl_info_args		gaudisim_info_args
#define hl_info_cs_counters	gaudisim_info_cs_counters
#define hl_device_status	gaudisim_device_status
#define hl_debug_args		gaudisim_debug_args

/* ---- Library --------------------------------------------------------------- */

/* hl-thunk's ASIC names; gaudisim devices are HLTHUNK_DEVICE_GAUDI. */
enum hlthunk_device_name {
	HLTHUNK_DEVICE_GOYA,
	HLTHUNK_DEVICE_PLACEHOLDER1,
	HLTHUNK_DEVICE_GAUDI,
	HLTHUNK_DEVICE_INVALID,
	HLTHUNK_DEVICE_DONT_CARE,
	HLTHUNK_DEVICE_GAUDI2,
	HLTHUNK_DEVICE_PLACEHOLDER2,
	HLTHUNK_DEVICE_PLACEHOLDER3,
	HLTHUNK_DEVICE_PLACEHOLDER4,
	HLTHUNK_DEVICE_MAX
};

/* Allocation for what the library hands out (hlthunk_get_version). */
void *hlthunk_malloc(size_t size);
void hlthunk_free(void *pt);

/* Version string of this library, e.g. "2.0.0"; release with hlthunk_free. NULL on ENOMEM. */
char *hlthunk_get_version(void);

/*
 * Raw ioctl: drmIoctl (retries EINTR and EAGAIN), 0 or -errno. For callers
 * that need the exact ABI structs, e.g. to test the driver's checks.
 */
int hlthunk_ioctl(int fd, unsigned long request, void *arg);

/* ---- Open, close, enumeration --------------------------------------------- */

/*
 * Open a compute node (/dev/accel/accelN) and check that its driver is
 * gaudisim. With busid ("BB:DD.F" or "DDDD:BB:DD.F") that device or
 * nothing; with busid NULL the first device of device_name (GAUDI or
 * DONT_CARE) that is free. One process at a time per device: -EBUSY when
 * every match is held. Returns the fd, or a negative errno.
 */
int hlthunk_open(enum hlthunk_device_name device_name, const char *busid);

/* Project-only: the compute node of accel minor <index>. */
int hlthunk_open_by_index(int index);

/* Project-only: hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, busid). */
int hlthunk_open_by_busid(const char *busid);

/*
 * Open a control node (INFO only, any number of openers): the device at
 * busid, or with busid NULL /dev/accel/accel_controlD<dev_id>. Returns the fd.
 */
int hlthunk_open_control(int dev_id, const char *busid);
int hlthunk_open_control_by_bus_id(const char *busid);
/* The control node of the first device of device_name. */
int hlthunk_open_control_by_name(enum hlthunk_device_name device_name);

/*
 * Close a node. A compute node is released (its CBs, mappings and HBM
 * freed, the device free for the next user) once the last reference to
 * the file goes: CB mappings count, so munmap them first.
 */
int hlthunk_close(int fd);

/* Number of devices of device_name (DONT_CARE: all gaudisim devices), or -errno. */
int hlthunk_get_device_count(enum hlthunk_device_name device_name);

/*
 * Project-only: fill indices[0..max) with the accel minor numbers of the
 * gaudisim devices, ascending. Returns how many devices exist (may exceed max).
 */
int hlthunk_list_devices(int *indices, int max);

/*
 * Project-only: check a bus ID's syntax ("BB:DD.F" or "DDDD:BB:DD.F") and
 * write its full form "DDDD:BB:DD.F" to normalized (may be NULL). 0 or -EINVAL.
 */
int hlthunk_parse_pci_bus_id(const char *busid, char *normalized, size_t len);

/* Device index (accel minor) of a bus ID, -EINVAL for a malformed one, -ENODEV. */
int hlthunk_get_device_index_from_pci_bus_id(const char *busid);

/* PCI address ("DDDD:BB:DD.F") of the device behind an open compute or control fd. */
int hlthunk_get_pci_bus_id_from_fd(int fd, char *pci_bus_id, int len);

/* PCI device ID as INFO reports it (GAUDISIM_HL_DEVICE_ID_GAUDI); 0 on failure. */
uint32_t hlthunk_get_device_id_from_fd(int fd);

/* HLTHUNK_DEVICE_GAUDI for a gaudisim fd, HLTHUNK_DEVICE_INVALID on failure. */
enum hlthunk_device_name hlthunk_get_device_name_from_fd(int fd);

/* ---- INFO (compute and control nodes) ------------------------------------- */

/* The INFO ioctl with the caller's args struct (hl-thunk passes hl_info_args). */
int hlthunk_get_info(int fd, struct gaudisim_info_args *info);

/* The DEBUG ioctl (debug mode; the device has no CoreSight blocks). */
int hlthunk_debug(int fd, struct gaudisim_debug_args *debug);

/* Project-only generic INFO: the driver copies min(size, its struct size) bytes into buf. */
int hlthunk_get_info_op(int fd, uint32_t op, void *buf, uint32_t size);

/* Project-only: the same with an op's argument (period_ms, pll_index, dcore_id, eventfd). */
int hlthunk_get_info_arg(int fd, uint32_t op, uint32_t arg, void *buf, uint32_t size);

/* hl-thunk's view of HW_IP_INFO: the driver's fields, by name. */
struct hlthunk_hw_ip_info {
	uint64_t sram_base_address;
	uint64_t dram_base_address;
	uint64_t dram_size;
	uint32_t sram_size;
	uint32_t num_of_events;
	uint32_t device_id;
	uint32_t cpld_version;
	uint32_t psoc_pci_pll_nr;
	uint32_t psoc_pci_pll_nf;
	uint32_t psoc_pci_pll_od;
	uint32_t psoc_pci_pll_div_factor;
	uint16_t tpc_enabled_mask;
	uint8_t dram_enabled;
	uint8_t cpucp_version[GAUDISIM_INFO_VERSION_MAX_LEN];
	uint32_t module_id;
	uint8_t card_name[GAUDISIM_CARD_NAME_MAX_LEN];
	uint32_t decoder_enabled_mask;
	uint8_t mme_master_slave_mode;
	uint64_t tpc_enabled_mask_ext;
	uint64_t dram_page_size;
	uint16_t first_available_interrupt_id;
	uint32_t edma_enabled_mask;
	uint16_t server_type;
	uint64_t reserved1;
	uint16_t number_of_user_interrupts;
	uint64_t device_mem_alloc_default_page_size;
	uint64_t reserved2;
	uint8_t reserved3;
	uint8_t reserved4;
	uint64_t reserved5;
	uint32_t reserved6;
	uint8_t reserved7;
	uint8_t security_enabled;
	uint8_t revision_id;
	uint16_t tpc_interrupt_id;
	uint64_t engine_core_interrupt_reg_addr;
	uint32_t rotator_enabled_mask;
	uint32_t reserved8;
	uint64_t reserved_dram_size;
};

struct hlthunk_dram_usage_info {
	uint64_t dram_free_mem;
	uint64_t ctx_dram_mem;
};

struct hlthunk_open_stats_info {
	uint64_t open_counter;
	uint64_t last_open_period_ms;
	uint8_t is_compute_ctx_active;
	uint8_t compute_ctx_in_release;
};

int hlthunk_get_hw_ip_info(int fd, struct hlthunk_hw_ip_info *hw_ip);
/* Project-only facts (engine counts, queue mask, HBM total, version). */
int hlthunk_get_hw_ip_ext(int fd, struct gaudisim_info_hw_ip_ext *info);
int hlthunk_get_dram_usage(int fd, struct hlthunk_dram_usage_info *dram_usage);
/* Project-only: the raw HW_IDLE struct (hl-thunk: hlthunk_get_busy_engines_mask). */
int hlthunk_get_hw_idle(int fd, struct gaudisim_info_hw_idle *idle);
/* Project-only: busy queues rather than busy engines. */
int hlthunk_get_queue_idle(int fd, struct gaudisim_info_queue_idle *idle);
/* Project-only: link state, peer and byte/error counters of every NIC port. */
int hlthunk_get_nic_links(int fd, struct gaudisim_info_nic_links *links);
/* true when no engine has work in flight; false also when INFO fails. */
bool hlthunk_is_device_idle(int fd);
/* The device's enum gaudisim_device_status; MALFUNCTION when INFO fails. */
enum gaudisim_device_status hlthunk_get_device_status_info(int fd);
/* Project-only: the same as 0 / -errno, the status stored. */
int hlthunk_get_device_status(int fd, uint32_t *status);
/* Refused submissions, device-wide and for the caller's context (hl_info_cs_counters). */
int hlthunk_get_cs_counters_info(int fd, struct gaudisim_info_cs_counters *info);
/* Project-only: submitted, completed, errors, timed out. */
int hlthunk_get_cs_stats(int fd, struct gaudisim_info_cs_stats *stats);
int hlthunk_get_open_stats(int fd, struct hlthunk_open_stats_info *open_stats);

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
	HLTHUNK_OPEN_DEV = 0,		/* struct gaudisim_info_last_err_open_dev_time */
	HLTHUNK_CS_TIMEOUT = 1,		/* struct gaudisim_info_cs_timeout_event */
	HLTHUNK_RAZWI_EVENT = 2,	/* struct gaudisim_info_razwi_event */
	HLTHUNK_UNDEFINED_OPCODE = 3,	/* struct gaudisim_info_undefined_opcode_event */
};

int hlthunk_get_busy_engines_mask(int fd, struct hlthunk_engines_idle_info *info);
/*
 * Percent of period_ms (100..1000, steps of 100) in which any engine had
 * work in flight; sleeps for the period.
 */
int hlthunk_get_device_utilization(int fd, uint32_t period_ms, uint32_t *rate);
/* Project-only: the same per engine class, and the modelled busy time; sleeps. */
int hlthunk_get_engine_utilization(int fd, uint32_t period_ms,
				   struct gaudisim_info_engine_utilization *util);
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

/*
 * Allocate HBM (rounded up to GAUDISIM_DRAM_PAGE_SIZE). page_size 0 or
 * GAUDISIM_DRAM_PAGE_SIZE; every allocation is contiguous; shared
 * allocations are not offered (EOPNOTSUPP). Returns the handle, or 0 with
 * errno set.
 */
uint64_t hlthunk_device_memory_alloc(int fd, uint64_t size, uint64_t page_size,
				     bool contiguous, bool shared);
int hlthunk_device_memory_free(int fd, uint64_t handle);
/*
 * Device address of an HBM allocation, for use in packets; 0 with errno
 * set on failure. HBM is mapped where it lies, so hint_addr must be 0.
 */
uint64_t hlthunk_device_memory_map(int fd, uint64_t handle, uint64_t hint_addr);
/*
 * Map user memory for DMA (userptr): host_virt_addr page-aligned,
 * host_size a page multiple. hint_addr 0, or a free page-aligned device VA
 * the driver uses when it can. Returns the device VA that packets use for
 * it, or 0 with errno set.
 */
uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr, uint64_t hint_addr,
				 uint64_t host_size);
int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr);
/*
 * Project-only: let NIC peers write HBM [device_addr, + size) and signal
 * sync objects [sob_first, + sob_count) of this context (docs/nic.md);
 * either range may be empty, not both. A peer's write lands only inside a
 * registration of the receiving device. The handle goes to
 * hlthunk_nic_deregister(); FREE of the memory and close drop it too.
 * 0 or a negative errno (EPERM: not the caller's memory or SOBs; ENOSPC:
 * no registration left).
 */
int hlthunk_nic_register(int fd, uint64_t device_addr, uint64_t size, uint32_t sob_first,
			 uint32_t sob_count, uint64_t *handle);
int hlthunk_nic_deregister(int fd, uint64_t handle);

/* ---- Command buffers ------------------------------------------------------- */

int hlthunk_request_command_buffer(int fd, uint32_t size, uint64_t *handle);
int hlthunk_destroy_command_buffer(int fd, uint64_t handle);
/* How many submitted jobs still use the CB. */
int hlthunk_get_cb_usage_count(int fd, uint64_t cb_handle, uint32_t *usage_cnt);
/* Project-only: usage count and size; either output pointer may be NULL. */
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
	/* Project extension: with GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT (hl-thunk: _timeout). */
	uint32_t timeout_s;
};

struct hlthunk_cs_out {
	uint64_t seq;
	uint32_t status;	/* GAUDISIM_CS_STATUS_* */
	uint16_t sob_count_before_submission;	/* SIGNAL CSs only */
};

int hlthunk_command_submission(int fd, struct hlthunk_cs_in *in,
			       struct hlthunk_cs_out *out);
/* Same with a CS timeout of timeout seconds (0: the driver's default). */
int hlthunk_command_submission_timeout(int fd, struct hlthunk_cs_in *in,
				       struct hlthunk_cs_out *out, uint32_t timeout);

/*
 * Wait for a CS: returns the ioctl's rc (0, -ETIMEDOUT, -EIO, ...) and
 * stores the GAUDISIM_WAIT_CS_STATUS_* value whenever the driver gave one.
 * timeout_us 0 polls.
 */
int hlthunk_wait_for_cs(int fd, uint64_t seq, uint64_t timeout_us, uint32_t *status);
/* Same, storing the completion time in ns (0 when the driver gave none). */
int hlthunk_wait_for_cs_with_timestamp(int fd, uint64_t seq, uint64_t timeout_us,
				       uint32_t *status, uint64_t *timestamp);
/* Project-only: storing the status flags and the raw timestamp too (any may be NULL). */
int hlthunk_wait_for_cs_with_flags(int fd, uint64_t seq, uint64_t timeout_us,
				   uint32_t *status, uint32_t *flags, int64_t *timestamp_nsec);

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
	uint32_t sob_base_addr_offset;	/* the SOB's address - CFG_BASE, in Gaudi's W_S manager */
	uint16_t sob_count_before_submission;
};

struct hlthunk_wait_for_signal_data {
	union {
		uint64_t *signal_seq_arr;
		uint64_t encaps_signal_seq;	/* reserved-signals wait: the CS's seq */
	};
	uint32_t signal_seq_nr;		/* 1..GAUDISIM_CS_WAIT_MAX_SIGNALS (hl-thunk: 1) */
	uint32_t queue_index;		/* the external queue that waits */
	uint32_t flags;			/* unused */
	uint32_t collective_engine_id;	/* unused */
	uint32_t encaps_signal_offset;	/* reserved-signals wait: 0..count */
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

/* ---- Encapsulated signals (hl-thunk's structs) ---------------------------- */

struct reserve_sig_handle {
	uint32_t id;			/* the handle, never 0 */
	uint32_t sob_base_addr_offset;	/* the SOB's address - CFG_BASE (Gaudi's W_S) */
	uint32_t count;			/* signals reserved */
};

struct hlthunk_sig_res_in {
	uint32_t queue_index;		/* an external queue */
	uint32_t count;			/* signals to reserve */
};

struct hlthunk_sig_res_out {
	struct reserve_sig_handle handle;
	uint32_t status;
};

/*
 * Reserve in->count signals of queue in->queue_index's sync object; a CS
 * submitted with GAUDISIM_CS_FLAGS_ENCAP_SIGNALS and the handle may add to
 * it. Returns 0 or a negative errno.
 */
int hlthunk_reserve_encaps_signals(int fd, struct hlthunk_sig_res_in *in,
				   struct hlthunk_sig_res_out *out);
/* Release a reservation; *status gets the CS status. */
int hlthunk_unreserve_encaps_signals(int fd, struct reserve_sig_handle *handle,
				     uint32_t *status);
/*
 * Submit a WAIT CS on reserved signals: the hlthunk_wait_for_signal_data's
 * encaps_signal_seq names the CS submitted with the handle, and the queue
 * waits until encaps_signal_offset of the reserved signals happened.
 */
int hlthunk_wait_for_reserved_encaps_signals(int fd, struct hlthunk_wait_in *in,
					     struct hlthunk_wait_out *out);

/* ---- debugfs (root): device registers and HBM through addr / data32 ------ */

struct hlthunk_debugfs {
	int addr_fd;
	int data_fd;
	int clk_gate_fd;	/* gaudisim has no clock gating: always -1 */
	char clk_gate_val[32];
};

/*
 * Open the debugfs files of the device behind fd (mounting debugfs if it
 * is not). 0 or -errno (-EACCES / -EPERM without root).
 */
int hlthunk_debugfs_open(int fd, struct hlthunk_debugfs *debugfs);
/* Read / write the 32-bit word at a device address (register or HBM). */
int hlthunk_debugfs_read(struct hlthunk_debugfs *debugfs, uint64_t full_address, uint32_t *val);
int hlthunk_debugfs_write(struct hlthunk_debugfs *debugfs, uint64_t full_address, uint32_t val);
int hlthunk_debugfs_close(struct hlthunk_debugfs *debugfs);

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_H */
