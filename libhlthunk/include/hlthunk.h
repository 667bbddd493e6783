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

int hlthunk_get_hw_ip_info(int fd, struct gaudisim_info_hw_ip_info *info);
int hlthunk_get_dram_usage(int fd, struct gaudisim_info_dram_usage *usage);
int hlthunk_get_hw_idle(int fd, struct gaudisim_info_hw_idle *idle);
/* 1 when idle, 0 when some queue has work in flight, or -errno. */
int hlthunk_is_device_idle(int fd);
/* Stores an enum gaudisim_device_status value. */
int hlthunk_get_device_status(int fd, uint32_t *status);
int hlthunk_get_cs_counters(int fd, struct gaudisim_info_cs_counters *counters);
int hlthunk_get_open_stats(int fd, struct gaudisim_info_open_stats *stats);
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

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_H */
