// SPDX-License-Identifier: MIT
/*
 * hl-smi's command-line queries: the -Q field names and units, the -f
 * format spec and the -d section list.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "query.h"

static const char *const field_names[SMI_FIELD_COUNT] = {
	[SMI_FIELD_INDEX] = "index",
	[SMI_FIELD_NAME] = "name",
	[SMI_FIELD_BUS_ID] = "bus_id",
	[SMI_FIELD_DRIVER_VERSION] = "driver_version",
	[SMI_FIELD_MEMORY_TOTAL] = "memory.total",
	[SMI_FIELD_MEMORY_USED] = "memory.used",
	[SMI_FIELD_MEMORY_FREE] = "memory.free",
	[SMI_FIELD_STATUS] = "status",
	[SMI_FIELD_TIMESTAMP] = "timestamp",
	[SMI_FIELD_MODULE_ID] = "module_id",
	[SMI_FIELD_SERIAL] = "serial",
	[SMI_FIELD_UUID] = "uuid",
	[SMI_FIELD_TEMPERATURE_AIP] = "temperature.aip",
	[SMI_FIELD_UTILIZATION_AIP] = "utilization.aip",
	[SMI_FIELD_POWER_DRAW] = "power.draw",
	[SMI_FIELD_POWER_LIMIT] = "power.limit",
	[SMI_FIELD_POWER_MAX] = "power.max",
	[SMI_FIELD_CLOCKS_CURRENT_SOC] = "clocks.current.soc",
	[SMI_FIELD_CLOCKS_LIMIT_SOC] = "clocks.limit.soc",
	[SMI_FIELD_ECC_UNCORRECTED_AGGREGATE] = "ecc.errors.uncorrected.aggregate.total",
	[SMI_FIELD_ECC_UNCORRECTED_VOLATILE] = "ecc.errors.uncorrected.volatile.total",
	[SMI_FIELD_ECC_CORRECTED_AGGREGATE] = "ecc.errors.corrected.aggregate.total",
	[SMI_FIELD_ECC_CORRECTED_VOLATILE] = "ecc.errors.corrected.volatile.total",
	[SMI_FIELD_VIOLATION_POWER] = "stats.violation.power",
	[SMI_FIELD_VIOLATION_THERMAL] = "stats.violation.thermal",
	[SMI_FIELD_RESET_COUNT_HARD] = "reset_count.hard",
	[SMI_FIELD_PCIE_RX] = "pcie.rx",
	[SMI_FIELD_PCIE_TX] = "pcie.tx",
	[SMI_FIELD_PCIE_REPLAY_COUNT] = "pcie.replay_count",
};


const char *smi_field_name(enum smi_field field)
{
	return (unsigned int)field < SMI_FIELD_COUNT ? field_names[field] : "?";
}

const char *smi_field_unit(enum smi_field field)
{
	switch (field) {
	case SMI_FIELD_MEMORY_TOTAL:
	case SMI_FIELD_MEMORY_USED:
	case SMI_FIELD_MEMORY_FREE:
		return "MiB";
	case SMI_FIELD_TEMPERATURE_AIP:
		return "C";
	case SMI_FIELD_UTILIZATION_AIP:
		return "%";
	case SMI_FIELD_POWER_DRAW:
	case SMI_FIELD_POWER_LIMIT:
	case SMI_FIELD_POWER_MAX:
		return "W";
	case SMI_FIELD_CLOCKS_CURRENT_SOC:
	case SMI_FIELD_CLOCKS_LIMIT_SOC:
		return "MHz";
	case SMI_FIELD_VIOLATION_POWER:
	case SMI_FIELD_VIOLATION_THERMAL:
		return "us";
	case SMI_FIELD_PCIE_RX:
	case SMI_FIELD_PCIE_TX:
		return "KB/s";
	default:
		return NULL;
	}
}

static void set_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void smi_query_init(struct smi_query *q)
{
	memset(q, 0, sizeof(*q));
	q->header = true;
	q->units = true;
}

static int lookup_field(const char *name, size_t len)
{
	int f;

	for (f = 0; f < SMI_FIELD_COUNT; f++)
		if (strlen(field_names[f]) == len && !strncmp(field_names[f], name, len))
			return f;
	return -1;
}

static void list_valid_fields(char *buf, size_t len)
{
	size_t used = 0;
	int f;

	buf[0] = '\0';
	for (f = 0; f < SMI_FIELD_COUNT && used < len; f++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 f ? ", " : "", field_names[f]);
}

int smi_parse_fields(const char *list, struct smi_query *q, char *err, size_t errlen)
{
	char valid[1024];
	const char *p = list;
	int count = 0;

	list_valid_fields(valid, sizeof(valid));
	if (!list || !*list) {
		set_error(err, errlen, "-Q needs a list of fields (%s)", valid);
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int f;

		/* Tolerate blanks around names, as in "index, name". */
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len) {
			set_error(err, errlen, "empty field name in '%s'", list);
			return -EINVAL;
		}
		f = lookup_field(p, len);
		if (f < 0) {
			set_error(err, errlen, "unknown field '%.*s'; valid fields: %s",
				  (int)len, p, valid);
			return -EINVAL;
		}
		if (count == SMI_MAX_QUERY_FIELDS) {
			set_error(err, errlen, "too many fields (at most %d)",
				  SMI_MAX_QUERY_FIELDS);
			return -EINVAL;
		}
		q->fields[count++] = (enum smi_field)f;
		if (!end)
			break;
		p = end + 1;
	}
	q->num_fields = count;
	return 0;
}

int smi_parse_format(const char *spec, struct smi_query *q, char *err, size_t errlen)
{
	bool header = true, units = true;
	const char *p = spec;
	bool first = true;

	if (!spec || !*spec) {
		set_error(err, errlen, "-f needs a format: csv[,noheader][,nounits]");
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (first && len == 3 && !strncmp(p, "csv", 3)) {
			first = false;
		} else if (first) {
			set_error(err, errlen, "unknown format '%s'; use csv[,noheader][,nounits]",
				  spec);
			return -EINVAL;
		} else if (len == 8 && !strncmp(p, "noheader", 8)) {
			header = false;
		} else if (len == 7 && !strncmp(p, "nounits", 7)) {
			units = false;
		} else {
			set_error(err, errlen, "unknown format option '%.*s'; use csv[,noheader][,nounits]",
				  (int)len, p);
			return -EINVAL;
		}
		if (!end)
			break;
		p = end + 1;
	}
	q->header = header;
	q->units = units;
	return 0;
}

static const struct {
	const char *name;
	unsigned int bit;
} section_names[] = {
	{ "MEMORY", SMI_SECTION_MEMORY },
	{ "TEMPERATURE", SMI_SECTION_TEMPERATURE },
	{ "POWER", SMI_SECTION_POWER },
	{ "CLOCK", SMI_SECTION_CLOCK },
	{ "UTILIZATION", SMI_SECTION_UTILIZATION },
	{ "ECC", SMI_SECTION_ECC },
	{ "PROCESSES", SMI_SECTION_PROCESSES },
	{ "NIC", SMI_SECTION_NIC },
	{ "NET", SMI_SECTION_NIC },	/* the real tool's name */
	{ "PCIE", SMI_SECTION_PCIE },
};

int smi_parse_sections(const char *list, unsigned int *sections, char *err, size_t errlen)
{
	const char *p = list;
	unsigned int bits = 0;
	size_t i;

	if (!list || !*list) {
		set_error(err, errlen, "-d needs a list of sections: MEMORY, TEMPERATURE, POWER, "
			  "CLOCK, UTILIZATION, ECC, PROCESSES, NIC, PCIE");
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		for (i = 0; i < sizeof(section_names) / sizeof(section_names[0]); i++)
			if (strlen(section_names[i].name) == len &&
			    !strncasecmp(section_names[i].name, p, len))
				break;
		if (i == sizeof(section_names) / sizeof(section_names[0])) {
			set_error(err, errlen, "unknown section '%.*s'; valid sections: MEMORY, "
				  "TEMPERATURE, POWER, CLOCK, UTILIZATION, ECC, PROCESSES, NIC, PCIE",
				  (int)len, p);
			return -EINVAL;
		}
		bits |= section_names[i].bit;
		if (!end)
			break;
		p = end + 1;
	}
	*sections = bits;
	return 0;
}

