/* SPDX-License-Identifier: MIT */
/*
 * hl-smi output: the facts gathered about each device and the code that
 * prints them (table, detailed log, CSV). Pure formatting, no device
 * access, so it can be tested with captured structs.
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

/* Sections of the detailed log (-d); 0 means all. */
enum smi_section {
	SMI_SECTION_MEMORY = 1u << 0,
	SMI_SECTION_TEMPERATURE = 1u << 1,
	SMI_SECTION_POWER = 1u << 2,
	SMI_SECTION_CLOCK = 1u << 3,
	SMI_SECTION_UTILIZATION = 1u << 4,
	SMI_SECTION_ECC = 1u << 5,
	SMI_SECTION_PROCESSES = 1u << 6,
	SMI_SECTION_NIC = 1u << 7,
	SMI_SECTION_PCIE = 1u << 8,
	SMI_SECTION_ALL = (1u << 9) - 1,
};

struct smi_report {
	const char *smi_version;
	const char *timestamp;		/* preformatted, for the detailed log */
	const char *query_time;		/* "YYYY/MM/DD HH:MM:SS.mmm", for -Q timestamp */
	unsigned int sections;		/* enum smi_section bits of -q; 0: all */
	const struct smi_device *devices;
	int num_devices;
};

/* -Q fields. */
enum smi_field {
	SMI_FIELD_INDEX,
	SMI_FIELD_NAME,
	SMI_FIELD_BUS_ID,
	SMI_FIELD_DRIVER_VERSION,
	SMI_FIELD_MEMORY_TOTAL,
	SMI_FIELD_MEMORY_USED,
	SMI_FIELD_MEMORY_FREE,
	SMI_FIELD_STATUS,
	SMI_FIELD_TIMESTAMP,
	SMI_FIELD_MODULE_ID,
	SMI_FIELD_SERIAL,
	SMI_FIELD_UUID,
	SMI_FIELD_TEMPERATURE_AIP,
	SMI_FIELD_UTILIZATION_AIP,
	SMI_FIELD_POWER_DRAW,
	SMI_FIELD_POWER_LIMIT,
	SMI_FIELD_POWER_MAX,
	SMI_FIELD_CLOCKS_CURRENT_SOC,
	SMI_FIELD_CLOCKS_LIMIT_SOC,
	SMI_FIELD_ECC_UNCORRECTED_AGGREGATE,
	SMI_FIELD_ECC_UNCORRECTED_VOLATILE,
	SMI_FIELD_ECC_CORRECTED_AGGREGATE,
	SMI_FIELD_ECC_CORRECTED_VOLATILE,
	SMI_FIELD_VIOLATION_POWER,
	SMI_FIELD_VIOLATION_THERMAL,
	SMI_FIELD_RESET_COUNT_HARD,
	SMI_FIELD_PCIE_RX,
	SMI_FIELD_PCIE_TX,
	SMI_FIELD_PCIE_REPLAY_COUNT,
	SMI_FIELD_COUNT,
};

#define SMI_MAX_QUERY_FIELDS	32

struct smi_query {
	enum smi_field fields[SMI_MAX_QUERY_FIELDS];
	int num_fields;
	bool header;	/* CSV header line */
	bool units;	/* "MiB" in header and values */
};

/* Width of the default table. */
#define SMI_TABLE_WIDTH		79

/* Name of an engine class as fdinfo and the JSON output spell it ("dma"). */
const char *smi_engine_class_name(enum smi_engine_class c);

/*
 * The processes to list for d: the /proc scan when it ran, else the one
 * holder INFO OPEN_STATS names (engine time unknown). Returns the count.
 */
int smi_device_processes(const struct smi_device *d, struct smi_process *out, int max);

/* Text for an enum gaudisim_device_status value ("Operational", ...). */
const char *smi_status_name(uint32_t status);

/* Name of a field as written in -Q ("memory.used"). */
const char *smi_field_name(enum smi_field field);

/*
 * Parse a -Q list ("index,name,memory.used") into q->fields. On error,
 * returns -EINVAL and writes a message (without program name) to err.
 */
int smi_parse_fields(const char *list, struct smi_query *q, char *err, size_t errlen);

/* Unit of a field's values ("MiB", "W", ...), or NULL for none. */
const char *smi_field_unit(enum smi_field field);

/*
 * A field's value as text, with its unit when units is set; "N/A" when
 * the driver did not report it. Returns false for N/A.
 */
bool smi_field_value(const struct smi_report *r, const struct smi_device *d,
		     enum smi_field field, bool units, char *buf, size_t len);

/* Parse a -d list ("MEMORY,POWER") into enum smi_section bits. */
int smi_parse_sections(const char *list, unsigned int *sections, char *err, size_t errlen);

/* Parse a -f spec: "csv" optionally followed by ",noheader" and/or ",nounits". */
int smi_parse_format(const char *spec, struct smi_query *q, char *err, size_t errlen);

/* Set the defaults of a query: no fields, header and units on. */
void smi_query_init(struct smi_query *q);

void smi_print_table(FILE *out, const struct smi_report *report);
void smi_print_detail(FILE *out, const struct smi_report *report);
void smi_print_csv(FILE *out, const struct smi_report *report, const struct smi_query *q);
/* Every field (or the -Q ones when q has fields) of every device as JSON. */
void smi_print_json(FILE *out, const struct smi_report *report, const struct smi_query *q);
/* Prometheus text exposition (node_exporter textfile collector). */
void smi_print_prometheus(FILE *out, const struct smi_report *report);
/* "topo -c": the NIC link matrix between the reported devices (topo.c). */
void smi_print_topo(FILE *out, const struct smi_report *report);

#endif /* SMI_FORMAT_H */
