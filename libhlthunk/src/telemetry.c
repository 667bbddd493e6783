// SPDX-License-Identifier: MIT
/*
 * INFO wrappers for telemetry, captured errors and event notification,
 * with hl-thunk's names and signatures.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hlthunk_internal.h"

int hlthunk_get_busy_engines_mask(int fd, struct hlthunk_engines_idle_info *info)
{
	struct gaudisim_info_hw_idle idle;
	int rc, i;

	if (!info)
		return -EINVAL;
	rc = hlthunk_get_hw_idle(fd, &idle);
	if (rc)
		return rc;
	memset(info, 0, sizeof(*info));
	info->is_idle = idle.is_idle;
	for (i = 0; i < HLTHUNK_BUSY_ENGINES_MASK_SIZE; i++)
		info->mask[i] = idle.busy_engines_mask_ext[i];
	return 0;
}

int hlthunk_get_device_utilization(int fd, uint32_t period_ms, uint32_t *rate)
{
	struct gaudisim_info_device_utilization util;
	int rc;

	if (!rate)
		return -EINVAL;
	rc = hlthunk_get_info_arg(fd, GAUDISIM_INFO_DEVICE_UTILIZATION, period_ms,
				  &util, sizeof(util));
	if (!rc)
		*rate = util.utilization;
	return rc;
}

int hlthunk_get_engine_utilization(int fd, uint32_t period_ms,
				   struct gaudisim_info_engine_utilization *util)
{
	if (!util)
		return -EINVAL;
	return hlthunk_get_info_arg(fd, GAUDISIM_INFO_ENGINE_UTILIZATION, period_ms,
				    util, sizeof(*util));
}

int hlthunk_get_hw_events_arr(int fd, bool aggregate, uint32_t hw_events_arr_size,
			      uint32_t *hw_events_arr)
{
	if (!hw_events_arr || !hw_events_arr_size)
		return -EINVAL;
	return hlthunk_get_info_op(fd, aggregate ? GAUDISIM_INFO_HW_EVENTS_AGGREGATE :
				GAUDISIM_INFO_HW_EVENTS, hw_events_arr, hw_events_arr_size);
}

int hlthunk_get_clk_rate(int fd, uint32_t *cur_clk_mhz, uint32_t *max_clk_mhz)
{
	struct gaudisim_info_clk_rate clk;
	int rc;

	if (!cur_clk_mhz || !max_clk_mhz)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_CLK_RATE, &clk, sizeof(clk));
	if (!rc) {
		*cur_clk_mhz = clk.cur_clk_rate_mhz;
		*max_clk_mhz = clk.max_clk_rate_mhz;
	}
	return rc;
}

int hlthunk_get_reset_count_info(int fd, struct hlthunk_reset_count_info *info)
{
	struct gaudisim_info_reset_count cnt;
	int rc;

	if (!info)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_RESET_COUNT, &cnt, sizeof(cnt));
	if (!rc) {
		info->hard_reset_count = cnt.hard_reset_cnt;
		info->soft_reset_count = cnt.soft_reset_cnt;
	}
	return rc;
}

int hlthunk_get_time_sync_info(int fd, struct hlthunk_time_sync_info *info)
{
	struct gaudisim_info_time_sync ts;
	int rc;

	if (!info)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_TIME_SYNC, &ts, sizeof(ts));
	if (!rc) {
		info->device_time = ts.device_time;
		info->host_time = ts.host_time;
	}
	return rc;
}

int hlthunk_get_sync_manager_info(int fd, int dcore_id, struct hlthunk_sync_manager_info *info)
{
	struct gaudisim_info_sync_manager sm;
	int rc;

	if (!info || dcore_id < 0)
		return -EINVAL;
	rc = hlthunk_get_info_arg(fd, GAUDISIM_INFO_SYNC_MANAGER, (uint32_t)dcore_id,
				  &sm, sizeof(sm));
	if (!rc) {
		info->first_available_sync_object = sm.first_available_sync_object;
		info->first_available_monitor = sm.first_available_monitor;
		info->first_available_cq = sm.first_available_cq;
		info->reserved = 0;
	}
	return rc;
}

int hlthunk_get_clk_throttle_info(int fd, struct hlthunk_clk_throttle_info *info)
{
	struct gaudisim_info_clk_throttle th;
	int rc, i;

	if (!info)
		return -EINVAL;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_CLK_THROTTLE_REASON, &th, sizeof(th));
	if (rc)
		return rc;
	info->clk_throttle_reason_bitmask = th.clk_throttling_reason;
	for (i = 0; i < GAUDISIM_CLK_THROTTLE_TYPE_MAX; i++) {
		info->clk_throttle_start_timestamp_us[i] = th.clk_throttling_timestamp_us[i];
		info->clk_throttle_duration_ns[i] = th.clk_throttling_duration_ns[i];
	}
	return 0;
}

int hlthunk_get_total_energy_consumption_info(int fd, struct hlthunk_energy_info *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_TOTAL_ENERGY, &info->total_energy_consumption,
				sizeof(info->total_energy_consumption));
}

int hlthunk_get_power_info(int fd, struct hlthunk_power_info *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_POWER, &info->power, sizeof(info->power));
}

int hlthunk_get_pci_counters_info(int fd, struct hlthunk_pci_counters_info *info)
{
	struct gaudisim_info_pci_counters pci;
	int rc;

	if (!info)
		return -EINVAL;
	memset(&pci, 0, sizeof(pci));
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_PCI_COUNTERS, &pci, sizeof(pci));
	if (!rc) {
		info->rx_throughput = pci.rx_throughput;
		info->tx_throughput = pci.tx_throughput;
		info->replay_cnt = pci.replay_cnt;
	}
	return rc;
}

int hlthunk_get_pll_frequency(int fd, uint32_t index,
			      struct hlthunk_pll_frequency_info *frequency)
{
	struct gaudisim_pll_frequency_info pll;
	int rc;

	if (!frequency)
		return -EINVAL;
	rc = hlthunk_get_info_arg(fd, GAUDISIM_INFO_PLL_FREQUENCY, index, &pll, sizeof(pll));
	if (!rc)
		memcpy(frequency->output, pll.output, sizeof(frequency->output));
	return rc;
}

int hlthunk_get_dev_memalloc_page_orders(int fd, uint64_t *page_order_bitmask)
{
	if (!page_order_bitmask)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_DEV_MEM_ALLOC_PAGE_SIZES, page_order_bitmask,
				sizeof(*page_order_bitmask));
}

int hlthunk_get_engine_status(int fd, char *status_buf, uint32_t status_buf_size,
			      int *actual_size)
{
	struct gaudisim_info_args args = {
		.return_pointer = hlthunk_ptr_to_u64(status_buf),
		.return_size = status_buf_size,
		.op = GAUDISIM_INFO_ENGINE_STATUS,
	};
	int rc;

	if (!status_buf || !status_buf_size || !actual_size)
		return -EINVAL;
	rc = hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_INFO, &args);
	if (!rc)
		*actual_size = (int)args.user_buffer_actual_size;
	return rc;
}

int hlthunk_get_event_record(int fd, enum hlthunk_event_record_id event_id, void *buf)
{
	if (!buf)
		return -EINVAL;
	switch (event_id) {
	case HLTHUNK_OPEN_DEV:
		return hlthunk_get_info_op(fd, GAUDISIM_INFO_LAST_ERR_OPEN_DEV_TIME, buf,
					sizeof(struct gaudisim_info_last_err_open_dev_time));
	case HLTHUNK_CS_TIMEOUT:
		return hlthunk_get_info_op(fd, GAUDISIM_INFO_CS_TIMEOUT_EVENT, buf,
					sizeof(struct gaudisim_info_cs_timeout_event));
	case HLTHUNK_RAZWI_EVENT:
		return hlthunk_get_info_op(fd, GAUDISIM_INFO_RAZWI_EVENT, buf,
					sizeof(struct gaudisim_info_razwi_event));
	case HLTHUNK_UNDEFINED_OPCODE:
		return hlthunk_get_info_op(fd, GAUDISIM_INFO_UNDEFINED_OPCODE_EVENT, buf,
					sizeof(struct gaudisim_info_undefined_opcode_event));
	default:
		return -EINVAL;
	}
}

int hlthunk_get_page_fault_info(int fd, struct gaudisim_page_fault_info *info)
{
	if (!info)
		return -EINVAL;
	return hlthunk_get_info_op(fd, GAUDISIM_INFO_PAGE_FAULT_EVENT, info, sizeof(*info));
}

int hlthunk_notifier_create(int fd)
{
	int efd = eventfd(0, EFD_CLOEXEC);
	int rc;

	if (efd < 0)
		return -errno;
	rc = hlthunk_get_info_arg(fd, GAUDISIM_INFO_REGISTER_EVENTFD, (uint32_t)efd, NULL, 0);
	if (rc) {
		close(efd);
		return rc;
	}
	return efd;
}

int hlthunk_notifier_recv(int fd, int handle, uint64_t *notifier_events,
			  uint64_t *notifier_cnt, uint32_t flags, uint32_t timeout)
{
	struct pollfd pfd = { .fd = handle, .events = POLLIN };
	uint64_t cnt;
	int rc;

	if (!notifier_events || !notifier_cnt || flags || handle < 0)
		return -EINVAL;
	*notifier_cnt = 0;
	*notifier_events = 0;
	rc = poll(&pfd, 1, timeout > INT32_MAX ? -1 : (int)timeout);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return 0;
	if (read(handle, &cnt, sizeof(cnt)) != (ssize_t)sizeof(cnt))
		return -EIO;
	rc = hlthunk_get_info_op(fd, GAUDISIM_INFO_GET_EVENTS, notifier_events,
			      sizeof(*notifier_events));
	if (!rc)
		*notifier_cnt = cnt;
	return rc;
}

int hlthunk_notifier_release(int fd, int handle)
{
	int rc;

	if (handle < 0)
		return -EINVAL;
	rc = hlthunk_get_info_arg(fd, GAUDISIM_INFO_UNREGISTER_EVENTFD, (uint32_t)handle, NULL, 0);
	if (rc)
		return rc;
	return close(handle) ? -errno : 0;
}
