// SPDX-License-Identifier: MIT
/*
 * hl-smi: the processes using a device, found the way DRM usage tools do:
 * every /proc/<pid>/fdinfo/<fd> whose drm-driver is ours and whose
 * drm-pdev is the device's PCI address is one of its compute files. A
 * process with several such files shows once, with their sums.
 */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "values.h"

struct fdinfo {
	bool ours;
	uint64_t hbm_bytes;
	uint64_t engine_ns[SMI_ENGINE_CLASSES];
};

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* "key:\tvalue": the value after the key, or NULL for another key. */
static const char *value_of(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || line[n] != ':')
		return NULL;
	line += n + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

static void parse_fdinfo(const char *path, const char *bus_id, struct fdinfo *fi)
{
	bool driver = false, pdev = false;
	char line[256];
	const char *v;
	FILE *f;
	int c;

	memset(fi, 0, sizeof(*fi));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if ((v = value_of(line, "drm-driver")))
			driver = !strcmp(v, GAUDISIM_DRIVER_NAME);
		else if ((v = value_of(line, "drm-pdev")))
			pdev = !strcasecmp(v, bus_id);
		else if ((v = value_of(line, "drm-total-hbm")))
			fi->hbm_bytes = strtoull(v, NULL, 10);
		for (c = 0; c < SMI_ENGINE_CLASSES; c++) {
			char key[32];

			snprintf(key, sizeof(key), "drm-engine-%s", smi_engine_class_name(c));
			if ((v = value_of(line, key)))
				fi->engine_ns[c] = strtoull(v, NULL, 10);
		}
	}
	fclose(f);
	fi->ours = driver && pdev;
}

void smi_read_process_name(const char *proc_root, const char *pid, char *buf, size_t len)
{
	char path[512];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s/comm", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	else
		buf[0] = '\0';
	fclose(f);
}

/* Add one process's files to d->procs (in PID order of the directory scan). */
static void scan_pid(const char *proc_root, const char *pid, struct smi_device *d)
{
	struct smi_process *p = NULL;
	char path[512];
	struct dirent *e;
	struct fdinfo fi;
	DIR *dir;
	int c;

	snprintf(path, sizeof(path), "%s/%s/fdinfo", proc_root, pid);
	dir = opendir(path);
	if (!dir)
		return;	/* gone, or another user's */
	while ((e = readdir(dir))) {
		if (!is_number(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/fdinfo/%s", proc_root, pid, e->d_name);
		parse_fdinfo(path, d->bus_id, &fi);
		if (!fi.ours)
			continue;
		if (!p) {
			if (d->num_procs == SMI_MAX_PROCS)
				break;
			p = &d->procs[d->num_procs++];
			memset(p, 0, sizeof(*p));
			p->pid = (uint32_t)strtoul(pid, NULL, 10);
			p->engine_known = true;
			smi_read_process_name(proc_root, pid, p->name, sizeof(p->name));
		}
		p->hbm_bytes += fi.hbm_bytes;
		for (c = 0; c < SMI_ENGINE_CLASSES; c++)
			p->engine_ns[c] += fi.engine_ns[c];
	}
	closedir(dir);
}

static int by_pid(const void *a, const void *b)
{
	const struct smi_process *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void smi_collect_processes(const char *proc_root, struct smi_device *d)
{
	struct dirent *e;
	DIR *dir;

	d->num_procs = 0;
	if (!d->bus_id[0])
		return;
	dir = opendir(proc_root);
	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (is_number(e->d_name))
			scan_pid(proc_root, e->d_name, d);
	closedir(dir);
	qsort(d->procs, (size_t)d->num_procs, sizeof(d->procs[0]), by_pid);
	d->have |= SMI_HAVE_PROCS;
}
