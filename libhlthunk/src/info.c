// SPDX-License-Identifier: MIT
/* INFO ioctl: the generic call and one typed wrapper per op. */
#include <errno.h>
#include <string.h>

#include "hlthunk_internal.h"

int hlthunk_get_info_arg(int fd, uint32_t op, uint32_t arg, void *buf, uint32_t size)
{
	struct gaudisim_info_args args = {
		.return_pointer = hlthunk_ptr_to_u64(buf),
		.return_size = size,
		.op = op,
		.ctx_id = arg,
	};

	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_INFO, &args);
}

int hlthunk_get_info_op(int fd, uint32_t op, void *buf, uint32_t size)
{
	return hlthunk_get_info_arg(fd, op, 0, buf, size);
}

int hlthunk_get_info(int fd, struct gaudisim_info_args *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_INFO, info);
}

int hlthunk_debug(int fd, struct gaudisim_debug_args *debug)
{
	if (!debug)
		return -EINVAL;
	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_DEBUG, debug);
}

int hlthunk_get_hw_ip_info(int fd, struct hlthunk_hw_ip_info *hw_ip)
{
	struct gaudisim_info_hw_ip_info hw;
	int rc;

	if (!hw_ip)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_HW_IP_INFO, &hw, sizeof(hw));
	if (rc)
		return rc;
	/* Field by field: hl-thunk's struct orders and sizes them its own way. */
	memset(hw_ip, 0, sizeof(*hw_ip));
	hw_ip->sram_base_address = hw.sram_base_address;
	hw_ip->dram_base_address = hw.dram_base_address;
	hw_ip->dram_size = hw.dram_size;
	hw_ip->sram_size = hw.sram_size;
	hw_ip->num_of_events = hw.num_of_events;
	hw_ip->device_id = hw.device_id;
	hw_ip->cpld_version = hw.cpld_version;
	hw_ip->psoc_pci_pll_nr = hw.psoc_pci_pll_nr;
	hw_ip->psoc_pci_pll_nf = hw.psoc_pci_pll_nf;
	hw_ip->psoc_pci_pll_od = hw.psoc_pci_pll_od;
	hw_ip->psoc_pci_pll_div_factor = hw.psoc_pci_pll_div_factor;
	hw_ip->tpc_enabled_mask = hw.tpc_enabled_mask;
	hw_ip->dram_enabled = hw.dram_enabled;
	memcpy(hw_ip->cpucp_version, hw.cpucp_version, sizeof(hw_ip->cpucp_version));
	hw_ip->module_id = hw.module_id;
	memcpy(hw_ip->card_name, hw.card_name, sizeof(hw_ip->card_name));
	hw_ip->decoder_enabled_mask = hw.decoder_enabled_mask;
	hw_ip->mme_master_slave_mode = hw.mme_master_slave_mode;
	hw_ip->tpc_enabled_mask_ext = hw.tpc_enabled_mask_ext;
	hw_ip->dram_page_size = hw.dram_page_size;
	hw_ip->first_available_interrupt_id = hw.first_available_interrupt_id;
	hw_ip->edma_enabled_mask = hw.edma_enabled_mask;
	hw_ip->server_type = hw.server_type;
	hw_ip->number_of_user_interrupts = hw.number_of_user_interrupts;
	hw_ip->device_mem_alloc_default_page_size = hw.device_mem_alloc_default_page_size;
	hw_ip->security_enabled = hw.security_enabled;
	hw_ip->revision_id = hw.revision_id;
	hw_ip->tpc_interrupt_id = hw.tpc_interrupt_id;
	hw_ip->engine_core_interrupt_reg_addr = hw.engine_core_interrupt_reg_addr;
	hw_ip->rotator_enabled_mask = hw.rotator_enabled_mask;
	hw_ip->reserved_dram_size = hw.reserved_dram_size;
	return 0;
}

uint32_t hlthunk_get_device_id_from_fd(int fd)
{
	struct gaudisim_info_hw_ip_info hw;

	if (hlthunk_get_info_op(fd, GAUDISIM_INFO_HW_IP_INFO, &hw, sizeof(hw)))
		return 0;
	return hw.device_id;
}

enum hlthunk_device_name hlthunk_get_device_name_from_fd(int fd)
{
	switch (hlthunk_get_device_id_from_fd(fd)) {
	case GAUDISIM_HL_DEVICE_ID_GAUDI:
		return HLTHUNK_DEVICE_GAUDI;
	default:
		return HLTHUNK_DEVICE_INVALID;
	}
}

int hlthunk_get_hw_ip_ext(int fd, struct gaudisim_info_hw_ip_ext *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_HW_IP_EXT, info, sizeof(*info));
}

int hlthunk_get_queue_idle(int fd, struct gaudisim_info_queue_idle *idle)
{
	if (!idle)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_QUEUE_IDLE, idle, sizeof(*idle));
}

int hlthunk_get_nic_links(int fd, struct gaudisim_info_nic_links *links)
{
	if (!links)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_NIC_LINKS, links, sizeof(*links));
}

int hlthunk_get_dram_usage(int fd, struct hlthunk_dram_usage_info *dram_usage)
{
	struct gaudisim_info_dram_usage u;
	int rc;

	if (!dram_usage)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_DRAM_USAGE, &u, sizeof(u));
	if (!rc) {
		dram_usage->dram_free_mem = u.dram_free_mem;
		dram_usage->ctx_dram_mem = u.ctx_dram_mem;
	}
	return rc;
}

int hlthunk_get_hw_idle(int fd, struct gaudisim_info_hw_idle *idle)
{
	if (!idle)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_HW_IDLE, idle, sizeof(*idle));
}

bool hlthunk_is_device_idle(int fd)
{
	struct gaudisim_info_hw_idle idle;

	return !hlthunk_get_hw_idle(fd, &idle) && idle.is_idle;
}

enum gaudisim_device_status hlthunk_get_device_status_info(int fd)
{
	uint32_t status;

	/* hl-thunk's answer when it cannot ask: the device is not usable. */
	if (hlthunk_get_device_status(fd, &status))
		return GAUDISIM_DEVICE_STATUS_MALFUNCTION;
	return (enum gaudisim_device_status)status;
}

int hlthunk_get_device_status(int fd, uint32_t *status)
{
	struct gaudisim_info_device_status info;
	int rc;

	if (!status)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_DEVICE_STATUS, &info, sizeof(info));
	if (!rc)
		*status = info.status;
	return rc;
}

int hlthunk_get_cs_counters_info(int fd, struct gaudisim_info_cs_counters *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_CS_COUNTERS, info, sizeof(*info));
}

int hlthunk_get_cs_stats(int fd, struct gaudisim_info_cs_stats *stats)
{
	if (!stats)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_CS_STATS, stats, sizeof(*stats));
}

int hlthunk_get_open_stats(int fd, struct hlthunk_open_stats_info *open_stats)
{
	struct gaudisim_info_open_stats st;
	int rc;

	if (!open_stats)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_OPEN_STATS, &st, sizeof(st));
	if (!rc) {
		memset(open_stats, 0, sizeof(*open_stats));
		open_stats->open_counter = st.open_counter;
		open_stats->last_open_period_ms = st.last_open_period_ms;
		open_stats->is_compute_ctx_active = st.is_compute_ctx_active;
		open_stats->compute_ctx_in_release = st.compute_ctx_in_release;
	}
	return rc;
}

int hlthunk_get_driver_version(int fd, char *buf, size_t len)
{
	struct gaudisim_info_driver_version info;
	size_t n;
	int rc;

	if (!buf || !len)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_DRIVER_VERSION, &info, sizeof(info));
	if (rc)
		return rc;
	/* Never trust the terminator to be there. */
	n = strnlen(info.version, sizeof(info.version));
	if (n >= len)
		n = len - 1;
	memcpy(buf, info.version, n);
	buf[n] = '\0';
	return 0;
}
