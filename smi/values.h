/* SPDX-License-Identifier: MIT */
/*
 * The values every hl-smi format prints, as text: pure formatting of a
 * struct smi_device, no device access.
 */
#ifndef SMI_VALUES_H
#define SMI_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "query.h"

/* What a value the driver did not report prints as. */
#define SMI_NA		"N/A"
#define SMI_MIB_SHIFT	20

/* Name of an engine class as fdinfo and the JSON output spell it ("dma"). */
const char *smi_engine_class_name(enum smi_engine_class c);

/* Text for an enum gaudisim_device_status value ("Operational", ...). */
const char *smi_status_name(uint32_t status);

/*
 * The processes to list for d: the /proc scan when it ran, else the one
 * holder INFO OPEN_STATS names (engine time unknown). Returns the count.
 */
int smi_device_processes(const struct smi_device *d, struct smi_process *out, int max);

/*
 * A field's value as text, with its unit when units is set; "N/A" when
 * the driver did not report it. Returns false for N/A.
 */
bool smi_field_value(const struct smi_report *r, const struct smi_device *d,
		     enum smi_field field, bool units, char *buf, size_t len);

/* Card name, or N/A without HW_IP. */
void smi_text_device_name(const struct smi_device *d, char *buf, size_t len);
/* PCI bus id, or N/A. */
const char *smi_text_bus_id(const struct smi_device *d);
/* Device status name, or N/A. */
const char *smi_text_status(const struct smi_device *d);
void smi_text_driver_version(const struct smi_device *d, char *buf, size_t len);
/* The driver version shown once for the whole report: the first one known. */
void smi_text_report_driver_version(const struct smi_report *r, char *buf, size_t len);
unsigned long long smi_mib(uint64_t bytes);
/* Whether INFO OPEN_STATS names a process holding d. */
bool smi_device_has_holder(const struct smi_device *d);
/* The board serial, "" when the driver did not report it. */
const char *smi_text_serial(const struct smi_device *d);
/* RFC 4122 text of the board UUID; false when unknown (all zero). */
bool smi_text_uuid(const struct smi_device *d, char *buf, size_t len);
/* Milliwatts as watts with two decimals. */
void smi_put_watts(char *buf, size_t len, long long mw, bool units);

/*
 * Text another user controls (a process name) as it may go to a terminal:
 * every byte outside printable ASCII, and the backslash, as \xNN, so no
 * escape sequence reaches root's screen. Cut to len - 1 bytes.
 */
void smi_text_escape(char *buf, size_t len, const char *text);

/* n copies of c: the table rules and the detailed log's padding. */
void smi_put_repeat(FILE *out, char c, int n);

#endif /* SMI_VALUES_H */
