/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * gaudisim accel driver ioctl ABI.
 *
 * Modelled on habanalabs_accel.h: five ioctls on /dev/accel/accelN (INFO,
 * CB, CS, WAIT_CS, MEMORY), INFO alone on the control node
 * /dev/accel/accel_controlDN. Rules every struct follows:
 *  - sizes are multiples of 8 and every field is naturally aligned, with
 *    explicit padding; pad and reserved fields must be zero (EINVAL);
 *  - unknown flags and ops are rejected with EINVAL;
 *  - in and out share one union so one copy serves both directions;
 *  - errors are negative errno values from the ioctl.
 */
#ifndef GAUDISIM_ACCEL_H
#define GAUDISIM_ACCEL_H

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define GAUDISIM_DRIVER_NAME		"gaudisim"

/* ---- INFO ---------------------------------------------------------------- */

#define GAUDISIM_INFO_HW_IP_INFO	0	/* struct gaudisim_info_hw_ip_info */
#define GAUDISIM_INFO_HW_EVENTS		1	/* __u32[GAUDISIM_INFO_HW_EVENTS_NUM] */
#define GAUDISIM_INFO_DRAM_USAGE	2	/* struct gaudisim_info_dram_usage */
#define GAUDISIM_INFO_HW_IDLE		3	/* struct gaudisim_info_hw_idle */
#define GAUDISIM_INFO_DEVICE_STATUS	4	/* struct gaudisim_info_device_status */
#define GAUDISIM_INFO_CS_COUNTERS	11	/* struct gaudisim_info_cs_counters */
#define GAUDISIM_INFO_SYNC_MANAGER	14	/* struct gaudisim_info_sync_manager */
#define GAUDISIM_INFO_OPEN_STATS	18	/* struct gaudisim_info_open_stats */
#define GAUDISIM_INFO_DRIVER_VERSION	64	/* struct gaudisim_info_driver_version */

/**
 * struct gaudisim_info_args - INFO ioctl argument
 * @return_pointer: user buffer that receives the op's struct
 * @return_size: its size; the driver copies min(return_size, struct size),
 *               so a smaller, older struct keeps working. 0 is EINVAL.
 * @op: GAUDISIM_INFO_*
 * @pad: must be 0
 */
struct gaudisim_info_args {
	__u64 return_pointer;
	__u32 return_size;
	__u32 op;
	__u32 reserved;		/* must be 0 */
	__u32 pad;		/* must be 0 */
};

#define GAUDISIM_CARD_NAME_MAX_LEN	32

/**
 * struct gaudisim_info_hw_ip_info - what the device is and has
 * @dram_base_address: first device address of user HBM
 * @dram_size: user HBM bytes (total HBM minus the reserved part)
 * @sram_base_address: first device address of SRAM
 * @sram_size: SRAM bytes
 * @hbm_total_size: all HBM bytes, reserved part included
 * @host_base_address: device address of host bus address 0
 * @device_id: PCI device ID
 * @hw_version: device version register (major << 16 | minor)
 * @num_pci_dma: external DMA engines
 * @num_hbm_dma: internal DMA engines
 * @num_mme: MME engines
 * @num_tpc: TPC engines
 * @tpc_enabled_mask: TPCs that may be used
 * @num_queues: number of queue IDs (some are holes; see queue_mask)
 * @queue_mask: bit q set when queue ID q can take a CS chunk
 * @card_name: product name, NUL-terminated
 */
struct gaudisim_info_hw_ip_info {
	__u64 dram_base_address;
	__u64 dram_size;
	__u64 sram_base_address;
	__u64 sram_size;
	__u64 hbm_total_size;
	__u64 host_base_address;
	__u32 device_id;
	__u32 hw_version;
	__u32 num_pci_dma;
	__u32 num_hbm_dma;
	__u32 num_mme;
	__u32 num_tpc;
	__u32 tpc_enabled_mask;
	__u32 num_queues;
	__u64 queue_mask[2];
	char card_name[GAUDISIM_CARD_NAME_MAX_LEN];
};

/**
 * struct gaudisim_info_dram_usage - HBM accounting
 * @dram_free_mem: user HBM bytes not allocated by anyone
 * @ctx_dram_mem: bytes allocated by the calling file's context
 * @dram_used_mem: user HBM bytes allocated in total
 * @dram_total_mem: user HBM bytes
 */
struct gaudisim_info_dram_usage {
	__u64 dram_free_mem;
	__u64 ctx_dram_mem;
	__u64 dram_used_mem;
	__u64 dram_total_mem;
};

/**
 * struct gaudisim_info_hw_idle - engine activity
 * @is_idle: 1 when no queue has work in flight
 * @pad: 0
 * @busy_queues_mask: bit q set when queue ID q has work in flight
 */
struct gaudisim_info_hw_idle {
	__u32 is_idle;
	__u32 pad;
	__u64 busy_queues_mask[2];
};

enum gaudisim_device_status {
	GAUDISIM_DEVICE_STATUS_OPERATIONAL = 0,
	GAUDISIM_DEVICE_STATUS_IN_RESET = 1,
	GAUDISIM_DEVICE_STATUS_MALFUNCTION = 2,
	GAUDISIM_DEVICE_STATUS_NEEDS_RESET = 3,
	GAUDISIM_DEVICE_STATUS_IN_DEVICE_CREATION = 4,
};

struct gaudisim_info_device_status {
	__u32 status;		/* enum gaudisim_device_status */
	__u32 pad;
};

/**
 * struct gaudisim_info_cs_counters - why command submissions were refused
 * @submitted: CSs accepted since the driver loaded
 * @completed: CSs whose jobs all completed successfully
 * @errors: CSs completed with an error completion
 * @timed_out: CSs that hit their timeout
 * @validation_drop: chunks refused by chunk checks (queue, size, handle)
 * @parsing_drop: CBs refused by the packet parser
 * @queue_full_drop: CSs refused because a queue was full
 * @device_not_ready_drop: CSs refused while the device was not operational
 */
struct gaudisim_info_cs_counters {
	__u64 submitted;
	__u64 completed;
	__u64 errors;
	__u64 timed_out;
	__u64 validation_drop;
	__u64 parsing_drop;
	__u64 queue_full_drop;
	__u64 device_not_ready_drop;
};

/**
 * struct gaudisim_info_open_stats - compute-node users
 * @open_counter: successful compute opens since load
 * @last_open_period_ms: how long the last (or current) user held the device
 * @is_compute_ctx_active: 1 while a process holds the compute node
 * @pad: 0
 * @compute_pid: thread group ID of that process, 0 when none
 */
struct gaudisim_info_open_stats {
	__u64 open_counter;
	__u64 last_open_period_ms;
	__u32 is_compute_ctx_active;
	__u32 compute_pid;
};

/*
 * HW_EVENTS: how many device events of each type (index = event type of
 * the device's event queue, include/hw/gaudisim_eq.h) the driver received
 * since it loaded; types at or above the array size are not counted.
 */
#define GAUDISIM_INFO_HW_EVENTS_NUM	64

/**
 * struct gaudisim_info_sync_manager - sync objects and monitors for users
 * @first_available_sync_object: first SOB user CBs may use
 * @first_available_monitor: first monitor user CBs may use
 * @num_sync_objects: SOBs in the sync manager
 * @num_monitors: monitors in the sync manager
 *
 * Users may not touch the ranges below the first available ones, nor
 * monitors the device reserves (see include/hw/gaudisim_sync.h).
 */
struct gaudisim_info_sync_manager {
	__u32 first_available_sync_object;
	__u32 first_available_monitor;
	__u32 num_sync_objects;
	__u32 num_monitors;
};

#define GAUDISIM_VERSION_STR_LEN	32

struct gaudisim_info_driver_version {
	char version[GAUDISIM_VERSION_STR_LEN];	/* NUL-terminated */
};

/* ---- CB: command buffers in host memory, mmap()ed by user space ---------- */

#define GAUDISIM_CB_OP_CREATE		0
#define GAUDISIM_CB_OP_DESTROY		1
#define GAUDISIM_CB_OP_INFO		2

/* CB sizes: at least 8 bytes, at most GAUDISIM_CB_MAX_SIZE. */
#define GAUDISIM_CB_MAX_SIZE		(0x200000u - 32)	/* 2 MiB - 32 */

struct gaudisim_cb_in {
	__u64 cb_handle;	/* DESTROY, INFO */
	__u32 op;		/* GAUDISIM_CB_OP_* */
	__u32 cb_size;		/* CREATE: bytes */
	__u32 flags;		/* must be 0 */
	__u32 pad;		/* must be 0 */
};

struct gaudisim_cb_out {
	union {
		__u64 cb_handle;	/* CREATE: handle = mmap offset */
		struct {
			__u32 usage_cnt;	/* INFO: in-flight jobs using it */
			__u32 size;		/* INFO: bytes */
		};
	};
};

union gaudisim_cb_args {
	struct gaudisim_cb_in in;
	struct gaudisim_cb_out out;
};

/* ---- CS: command submission --------------------------------------------- */

/**
 * struct gaudisim_cs_chunk - one job: a CB bound to a queue (64 bytes)
 * @cb_handle: external queue: a CB handle; internal queue: device address
 * @queue_index: GAUDISIM_QUEUE_ID_* (see include/hw/gaudisim_queues.h)
 * @cb_size: bytes of the CB to execute, multiple of 8, at least 8
 * @cs_chunk_flags: must be 0
 * @pad: must be 0
 */
struct gaudisim_cs_chunk {
	__u64 cb_handle;
	__u32 queue_index;
	__u32 cb_size;
	__u32 cs_chunk_flags;
	__u32 pad[11];
};

#define GAUDISIM_CS_FLAGS_FORCE_RESTORE	0x1
#define GAUDISIM_CS_FLAGS_TIMESTAMP	0x20
#define GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT	0x200
#define GAUDISIM_CS_FLAGS_ALL \
	(GAUDISIM_CS_FLAGS_FORCE_RESTORE | GAUDISIM_CS_FLAGS_TIMESTAMP | \
	 GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT)

#define GAUDISIM_MAX_JOBS_PER_CS	512

/**
 * struct gaudisim_cs_in - submit
 * @chunks_restore: user pointer to restore chunks, run before the execute
 *                  chunks on a context's first CS or with FORCE_RESTORE
 * @chunks_execute: user pointer to the execute chunks
 * @num_chunks_restore: 0..GAUDISIM_MAX_JOBS_PER_CS
 * @num_chunks_execute: 1..GAUDISIM_MAX_JOBS_PER_CS
 * @timeout: seconds, used with CUSTOM_TIMEOUT (1..3600)
 * @cs_flags: GAUDISIM_CS_FLAGS_*
 * @ctx_id: must be 0
 * @pad: must be 0
 */
struct gaudisim_cs_in {
	__u64 chunks_restore;
	__u64 chunks_execute;
	__u32 num_chunks_restore;
	__u32 num_chunks_execute;
	__u32 timeout;
	__u32 cs_flags;
	__u32 ctx_id;
	__u32 pad;
};

#define GAUDISIM_CS_STATUS_SUCCESS	0

struct gaudisim_cs_out {
	__u64 seq;		/* never 0 */
	__u32 status;		/* GAUDISIM_CS_STATUS_* */
	__u32 pad;
};

union gaudisim_cs_args {
	struct gaudisim_cs_in in;
	struct gaudisim_cs_out out;
};

/* ---- WAIT_CS -------------------------------------------------------------- */

/**
 * struct gaudisim_wait_cs_in - wait for a CS
 * @seq: sequence number returned by CS
 * @timeout_us: 0 polls; otherwise interruptible wait of at most this long
 * @ctx_id: must be 0
 * @flags: must be 0
 */
struct gaudisim_wait_cs_in {
	__u64 seq;
	__u64 timeout_us;
	__u32 ctx_id;
	__u32 flags;
};

#define GAUDISIM_WAIT_CS_STATUS_COMPLETED	0
#define GAUDISIM_WAIT_CS_STATUS_BUSY		1
#define GAUDISIM_WAIT_CS_STATUS_TIMEDOUT	2
#define GAUDISIM_WAIT_CS_STATUS_ABORTED		3

#define GAUDISIM_WAIT_CS_STATUS_FLAG_GONE	0x1	/* CS long retired */
#define GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD 0x2

/*
 * rc 0 with COMPLETED or BUSY; rc -ETIMEDOUT with TIMEDOUT; rc -EIO with
 * ABORTED (a job ended with an error completion, or the device was reset).
 */
struct gaudisim_wait_cs_out {
	__u32 status;
	__u32 flags;
	__s64 timestamp_nsec;	/* completion time, CLOCK_MONOTONIC, with TIMESTAMP */
};

union gaudisim_wait_cs_args {
	struct gaudisim_wait_cs_in in;
	struct gaudisim_wait_cs_out out;
};

/* ---- MEMORY --------------------------------------------------------------- */

#define GAUDISIM_MEM_OP_ALLOC		0
#define GAUDISIM_MEM_OP_FREE		1
#define GAUDISIM_MEM_OP_MAP		2
#define GAUDISIM_MEM_OP_UNMAP		3

/* MAP flag: map user host memory for DMA (userptr) instead of an HBM handle. */
#define GAUDISIM_MEM_USERPTR		0x4
#define GAUDISIM_MEM_FLAGS_ALL		GAUDISIM_MEM_USERPTR

/* HBM is handed out in pages of this size. */
#define GAUDISIM_DRAM_PAGE_SIZE		0x200000u	/* 2 MiB */

/*
 * Host buffers mapped with MAP + USERPTR get device virtual addresses from
 * this range. The driver translates them when it copies an external CB;
 * a LIN_DMA must stay inside one mapping. The range lies above the
 * device's physical host window (GAUDISIM_HOST_BASE + 2^48), so an address
 * is never both.
 */
#define GAUDISIM_HOST_VA_BASE		0x2000000000000ULL
#define GAUDISIM_HOST_VA_SIZE		0x1000000000000ULL
#define GAUDISIM_USERPTR_MAX_SIZE	(1ULL << 32)	/* 4 GiB per mapping */

/**
 * struct gaudisim_mem_in - MEMORY ioctl input
 * @alloc.mem_size: ALLOC: bytes, rounded up to GAUDISIM_DRAM_PAGE_SIZE
 * @free.handle: FREE: handle from ALLOC
 * @map_device.handle: MAP: HBM handle; returns its device address
 * @map_host.host_virt_addr: MAP + USERPTR: page-aligned user address
 * @map_host.mem_size: MAP + USERPTR: bytes, page multiple
 * @unmap.device_virt_addr: UNMAP: address from MAP + USERPTR
 * @op: GAUDISIM_MEM_OP_*
 * @flags: GAUDISIM_MEM_* valid for the op
 * @ctx_id: must be 0
 * @pad: must be 0
 */
struct gaudisim_mem_in {
	union {
		struct {
			__u64 mem_size;
			__u64 reserved;		/* must be 0 */
		} alloc;
		struct {
			__u64 handle;
			__u64 reserved;		/* must be 0 */
		} free;
		struct {
			__u64 handle;
			__u64 reserved;		/* must be 0 */
		} map_device;
		struct {
			__u64 host_virt_addr;
			__u64 mem_size;
		} map_host;
		struct {
			__u64 device_virt_addr;
			__u64 reserved;		/* must be 0 */
		} unmap;
	};
	__u32 op;
	__u32 flags;
	__u32 ctx_id;
	__u32 pad;
};

struct gaudisim_mem_out {
	union {
		__u64 handle;			/* ALLOC */
		__u64 device_virt_addr;		/* MAP */
	};
	__u64 reserved;
};

union gaudisim_mem_args {
	struct gaudisim_mem_in in;
	struct gaudisim_mem_out out;
};

/* ---- Ioctl numbers -------------------------------------------------------- */

#define DRM_GAUDISIM_INFO	0x00
#define DRM_GAUDISIM_CB		0x01
#define DRM_GAUDISIM_CS		0x02
#define DRM_GAUDISIM_WAIT_CS	0x03
#define DRM_GAUDISIM_MEMORY	0x04

#define DRM_IOCTL_GAUDISIM_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_INFO, struct gaudisim_info_args)
#define DRM_IOCTL_GAUDISIM_CB \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_CB, union gaudisim_cb_args)
#define DRM_IOCTL_GAUDISIM_CS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_CS, union gaudisim_cs_args)
#define DRM_IOCTL_GAUDISIM_WAIT_CS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_WAIT_CS, union gaudisim_wait_cs_args)
#define DRM_IOCTL_GAUDISIM_MEMORY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_MEMORY, union gaudisim_mem_args)

#if defined(__cplusplus)
}
#endif

#endif /* GAUDISIM_ACCEL_H */
