// SPDX-License-Identifier: MIT
/* hl-smi actions through sysfs: reset and the power cap. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "telemetry.h"

static int write_attr(int index, const char *attr, const char *text)
{
	char path[256];
	ssize_t n;
	int fd, err;

	if (smi_sysfs_path(index, attr, path, sizeof(path)))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	err = n < 0 ? errno : 0;
	close(fd);
	return -err;
}

int smi_reset_device(int index, const char *bus_id)
{
	int rc = write_attr(index, "hard_reset", "1");

	if (rc)
		fprintf(stderr, "hl-smi: reset of AIP %s failed: %s\n", bus_id, strerror(-rc));
	else
		printf("Reset of AIP %s done: hard reset\n", bus_id);
	return rc;
}

int smi_set_power_max(int index, const char *bus_id, long long mw)
{
	char text[32];
	int rc;

	snprintf(text, sizeof(text), "%lld", mw);
	rc = write_attr(index, "max_power", text);
	if (rc == -ERANGE)
		fprintf(stderr, "hl-smi: %lld.%03lld W is outside the power range of AIP %s\n",
			mw / 1000, mw % 1000, bus_id);
	else if (rc)
		fprintf(stderr, "hl-smi: cannot set the power cap of AIP %s: %s\n", bus_id,
			strerror(-rc));
	else
		printf("Power cap of AIP %s set to %lld.%03lld W\n", bus_id, mw / 1000, mw % 1000);
	return rc;
}

long long smi_parse_watts(const char *text)
{
	long long whole = 0, frac = 0;
	int digits = 0, frac_digits = 0;
	const char *p = text;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (whole > 1000000)
			return -1;
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, frac_digits++) {
			if (frac_digits == 3)
				return -1;
			frac = frac * 10 + (*p - '0');
		}
	}
	if (*p || (!digits && !frac_digits))
		return -1;
	while (frac_digits++ < 3)
		frac *= 10;
	return whole * 1000 + frac > 0 ? whole * 1000 + frac : -1;
}
