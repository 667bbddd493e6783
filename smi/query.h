/* SPDX-License-Identifier: MIT */
/*
 * hl-smi's command-line queries: -Q fields, the -f format spec and the -d
 * sections of the detailed log.
 */
#ifndef SMI_QUERY_H
#define SMI_QUERY_H

#include <stdbool.h>
#include <stddef.h>

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

/* Set the defaults of a query: no fields, header and units on. */
void smi_query_init(struct smi_query *q);

/* Name of a field as written in -Q ("memory.used"). */
const char *smi_field_name(enum smi_field field);

/* Unit of a field's values ("MiB", "W", ...), or NULL for none. */
const char *smi_field_unit(enum smi_field field);

/*
 * Parse a -Q list ("index,name,memory.used") into q->fields. On error,
 * returns -EINVAL and writes a message (without program name) to err.
 */
int smi_parse_fields(const char *list, struct smi_query *q, char *err, size_t errlen);

/* Parse a -f spec: "csv" optionally followed by ",noheader" and/or ",nounits". */
int smi_parse_format(const char *spec, struct smi_query *q, char *err, size_t errlen);

/* Parse a -d list ("MEMORY,POWER") into enum smi_section bits. */
int smi_parse_sections(const char *list, unsigned int *sections, char *err, size_t errlen);

#endif /* SMI_QUERY_H */
