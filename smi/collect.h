/* SPDX-License-Identifier: MIT */
/* hl-smi: reading a device's facts through its control node. */
#ifndef SMI_COLLECT_H
#define SMI_COLLECT_H

#include "format.h"

/*
 * Fill d for device <index>. Opens the control node, so it works while a
 * job holds the compute node. INFO ops that fail leave their "have" bit
 * clear. Returns 0, or -errno when the control node cannot be opened.
 */
int smi_collect_device(int index, struct smi_device *d);

/*
 * procs.c: fill d->procs with the processes that hold a compute file of
 * the device at d->bus_id, from /proc/<pid>/fdinfo (drm-driver, drm-pdev).
 * Sets SMI_HAVE_PROCS when /proc could be read.
 */
void smi_collect_processes(const char *proc_root, struct smi_device *d);
/* PROC_ROOT/PID/comm into buf, "" when it cannot be read (e.g. another namespace). */
void smi_read_process_name(const char *proc_root, const char *pid, char *buf, size_t len);

#endif /* SMI_COLLECT_H */
