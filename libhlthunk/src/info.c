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

int hlthunk_get_info(int fd, uint32_t op, void *buf, uint32_t size)
{
	return hlthunk_get_info_arg(fd, op, 0, buf, size);
}

int hlthunk_get_hw_ip_info(int fd, struct gaudisim_info_hw_ip_info *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_HW_IP_INFO, info, sizeof(*info));
}

int hlthunk_get_hw_ip_ext(int fd, struct gaudisim_info_hw_ip_ext *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_HW_IP_EXT, info, sizeof(*info));
}

int hlthunk_get_queue_idle(int fd, struct gaudisim_info_queue_idle *idle)
{
	if (!idle)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_QUEUE_IDLE, idle, sizeof(*idle));
}

int hlthunk_get_nic_links(int fd, struct gaudisim_info_nic_links *links)
{
	if (!links)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_NIC_LINKS, links, sizeof(*links));
}

int hlthunk_get_dram_usage(int fd, struct gaudisim_info_dram_usage *usage)
{
	if (!usage)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_DRAM_USAGE, usage, sizeof(*usage));
}

int hlthunk_get_hw_idle(int fd, struct gaudisim_info_hw_idle *idle)
{
	if (!idle)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_HW_IDLE, idle, sizeof(*idle));
}

int hlthunk_is_device_idle(int fd)
{
	struct gaudisim_info_hw_idle idle;
	int rc = hlthunk_get_hw_idle(fd, &idle);

	return rc ? rc : idle.is_idle != 0;
}

int hlthunk_get_device_status(int fd, uint32_t *status)
{
	struct gaudisim_info_device_status info;
	int rc;

	if (!status)
		return -EINVAL;
	rc = hlthunk_get_info(fd, GAUDISIM_INFO_DEVICE_STATUS, &info, sizeof(info));
	if (!rc)
		*status = info.status;
	return rc;
}

int hlthunk_get_cs_counters_info(int fd, struct gaudisim_info_cs_counters *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_CS_COUNTERS, info, sizeof(*info));
}

int hlthunk_get_cs_stats(int fd, struct gaudisim_info_cs_stats *stats)
{
	if (!stats)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_CS_STATS, stats, sizeof(*stats));
}

int hlthunk_get_open_stats(int fd, struct gaudisim_info_open_stats *stats)
{
	if (!stats)
		return -EINVAL;
	return hlthunk_get_info(fd, GAUDISIM_INFO_OPEN_STATS, stats, sizeof(*stats));
}

int hlthunk_get_driver_version(int fd, char *buf, size_t len)
{
	struct gaudisim_info_driver_version info;
	size_t n;
	int rc;

	if (!buf || !len)
		return -EINVAL;
	rc = hlthunk_get_info(fd, GAUDISIM_INFO_DRIVER_VERSION, &info, sizeof(info));
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
