// SPDX-License-Identifier: MIT
/* hl-smi: gathers the facts it prints from the control node's INFO ops, sysfs and hwmon. */
#include <stdio.h>
#include <string.h>

#include "collect.h"
#include "hlthunk.h"

/* The name of the process INFO names as the holder, "" for none. */
static void read_holder_name(uint32_t pid, char *buf, size_t len)
{
	char pid_text[16];

	buf[0] = '\0';
	if (!pid)
		return;
	snprintf(pid_text, sizeof(pid_text), "%u", pid);
	smi_read_process_name("/proc", pid_text, buf, len);
}

int smi_collect_device(int index, struct smi_device *d)
{
	struct hlthunk_dram_usage_info dram;
	struct gaudisim_info_cs_stats stats;
	struct gaudisim_info_cs_counters drops;
	struct hlthunk_pci_counters_info pci;
	int fd;

	memset(d, 0, sizeof(*d));
	d->index = index;
	fd = hlthunk_open_control(index, NULL);
	if (fd < 0)
		return fd;

	if (hlthunk_get_pci_bus_id_from_fd(fd, d->bus_id, sizeof(d->bus_id)))
		d->bus_id[0] = '\0';
	if (!hlthunk_get_driver_version(fd, d->driver_version, sizeof(d->driver_version)))
		d->have |= SMI_HAVE_DRIVER_VERSION;
	if (!hlthunk_get_hw_ip_info(fd, &d->hw) && !hlthunk_get_hw_ip_ext(fd, &d->hw_ext))
		d->have |= SMI_HAVE_HW_IP;
	if ((d->have & SMI_HAVE_HW_IP) && !hlthunk_get_dram_usage(fd, &dram)) {
		d->dram.dram_free_mem = dram.dram_free_mem;
		d->dram.ctx_dram_mem = dram.ctx_dram_mem;
		d->dram.dram_total_mem = d->hw.dram_size;
		d->dram.dram_used_mem = d->hw.dram_size - dram.dram_free_mem;
		d->have |= SMI_HAVE_DRAM;
	}
	if (!hlthunk_get_device_status(fd, &d->status))
		d->have |= SMI_HAVE_STATUS;
	if (!hlthunk_get_queue_idle(fd, &d->idle))
		d->have |= SMI_HAVE_IDLE;
	/* The driver's struct, which names the holder too. */
	if (!hlthunk_get_info_op(fd, GAUDISIM_INFO_OPEN_STATS, &d->open_stats,
				 sizeof(d->open_stats)))
		d->have |= SMI_HAVE_OPEN_STATS;
	if (!hlthunk_get_cs_stats(fd, &stats) && !hlthunk_get_cs_counters_info(fd, &drops)) {
		d->cs.submitted = stats.submitted;
		d->cs.completed = stats.completed;
		d->cs.errors = stats.errors;
		d->cs.timed_out = stats.timed_out;
		d->cs.validation_drop = drops.total_validation_drop_cnt;
		d->cs.parsing_drop = drops.total_parsing_drop_cnt;
		d->cs.queue_full_drop = drops.total_queue_full_drop_cnt +
					drops.total_max_cs_in_flight_drop_cnt;
		d->cs.device_not_ready_drop = drops.total_device_in_reset_drop_cnt;
		d->have |= SMI_HAVE_CS_COUNTERS;
	}
	if ((d->have & SMI_HAVE_OPEN_STATS) && d->open_stats.is_compute_ctx_active)
		read_holder_name(d->open_stats.compute_pid, d->process_name,
				  sizeof(d->process_name));
	if (!hlthunk_get_nic_links(fd, &d->nic))
		d->have |= SMI_HAVE_NIC;
	if (!hlthunk_get_pci_counters_info(fd, &pci)) {
		d->pci.rx_throughput = pci.rx_throughput;
		d->pci.tx_throughput = pci.tx_throughput;
		d->pci.replay_cnt = pci.replay_cnt;
		d->have |= SMI_HAVE_PCI;
	}
	smi_collect_processes("/proc", d);
	smi_collect_telemetry(index, fd, &d->tel);
	hlthunk_close(fd);
	return 0;
}
