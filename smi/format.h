/* SPDX-License-Identifier: MIT */
/*
 * hl-smi's model: the facts gathered about each device (collect.c) that
 * every output format prints. query.h holds the command-line queries,
 * values.h the values as text, render.h the output formats.
 */
#ifndef SMI_FORMAT_H
#define SMI_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gaudisim_accel.h"
#include "hlthunk.h"
#include "telemetry.h"

/* Which INFO answers a struct smi_device holds (the rest print as N/A). */
enum smi_have {
	SMI_HAVE_HW_IP = 1u << 0,
	SMI_HAVE_DRAM = 1u << 1,
	SMI_HAVE_STATUS = 1u << 2,
	SMI_HAVE_IDLE = 1u << 3,
	SMI_HAVE_OPEN_STATS = 1u << 4,
	SMI_HAVE_CS_COUNTERS = 1u << 5,
	SMI_HAVE_DRIVER_VERSION = 1u << 6,
	SMI_HAVE_NIC = 1u << 7,
	SMI_HAVE_PCI = 1u << 8,		/* pci */
	SMI_HAVE_PROCS = 1u << 9,	/* procs, num_procs: /proc was scanned */
};

/* HBM use: INFO DRAM_USAGE with the totals HW_IP_INFO gives. */
struct smi_dram_usage {
	uint64_t dram_free_mem;
	uint64_t ctx_dram_mem;
	uint64_t dram_used_mem;
	uint64_t dram_total_mem;
};

/* How submissions ended (INFO CS_STATS) and why some were refused (CS_COUNTERS). */
struct smi_cs_counters {
	uint64_t submitted;
	uint64_t completed;
	uint64_t errors;
	uint64_t timed_out;
	uint64_t validation_drop;
	uint64_t parsing_drop;
	uint64_t queue_full_drop;
	uint64_t device_not_ready_drop;
};

#define SMI_BUS_ID_LEN		32
#define SMI_PROCESS_NAME_LEN	32
#define SMI_MAX_PROCS		16

/* Engine classes of the driver's fdinfo (drm-engine-<class>). */
enum smi_engine_class {
	SMI_ENGINE_DMA,
	SMI_ENGINE_MME,
	SMI_ENGINE_TPC,
	SMI_ENGINE_NIC,
	SMI_ENGINE_CLASSES,
};

/* One process using a device, summed over its open compute files. */
struct smi_process {
	uint32_t pid;
	char name[SMI_PROCESS_NAME_LEN];
	uint64_t hbm_bytes;			/* drm-total-hbm */
	uint64_t engine_ns[SMI_ENGINE_CLASSES];	/* drm-engine-<class> */
	bool engine_known;			/* false: only INFO's holder PID is known */
};

struct smi_device {
	int index;				/* accel minor */
	unsigned int have;			/* enum smi_have bits */
	char bus_id[SMI_BUS_ID_LEN];		/* "" when unknown */
	char driver_version[GAUDISIM_VERSION_STR_LEN];
	struct hlthunk_hw_ip_info hw;
	struct gaudisim_info_hw_ip_ext hw_ext;	/* with SMI_HAVE_HW_IP */
	struct smi_dram_usage dram;
	uint32_t status;			/* enum gaudisim_device_status */
	struct gaudisim_info_queue_idle idle;
	struct gaudisim_info_open_stats open_stats;
	struct smi_cs_counters cs;
	char process_name[SMI_PROCESS_NAME_LEN];	/* of open_stats.compute_pid */
	struct smi_telemetry tel;		/* sysfs, hwmon, telemetry INFO ops */
	struct gaudisim_info_nic_links nic;	/* with SMI_HAVE_NIC */
	struct gaudisim_info_pci_counters pci;	/* with SMI_HAVE_PCI */
	struct smi_process procs[SMI_MAX_PROCS];	/* with SMI_HAVE_PROCS */
	int num_procs;
};

struct smi_report {
	const char *smi_version;
	const char *timestamp;		/* preformatted, for the detailed log */
	const char *query_time;		/* "YYYY/MM/DD HH:MM:SS.mmm", for -Q timestamp */
	unsigned int sections;		/* enum smi_section bits of -q; 0: all */
	const struct smi_device *devices;
	int num_devices;
};

#endif /* SMI_FORMAT_H */
