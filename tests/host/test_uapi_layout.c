// SPDX-License-Identifier: MIT
/*
 * Binary compatibility with habanalabs' uAPI. Every number below is taken
 * from Linux's include/uapi/drm/habanalabs_accel.h (struct sizes, field
 * offsets, ioctl request codes, op, flag and enum values), written out by
 * hand rather than computed from gaudisim_accel.h, so a change to our
 * header that breaks compatibility fails to compile.
 */
#include <assert.h>
#include <stddef.h>
#include <sys/ioctl.h>

#include "gaudisim_accel.h"
#include "suites.h"

#define LAYOUT(type, field, off) \
	static_assert(offsetof(type, field) == (off), #type "." #field " offset")
#define SIZE(type, size) \
	static_assert(sizeof(type) == (size), #type " size")
#define VALUE(name, value) \
	static_assert((name) == (value), #name " value")

/* ---- INFO ---- */
SIZE(struct gaudisim_info_args, 24);
LAYOUT(struct gaudisim_info_args, return_pointer, 0);
LAYOUT(struct gaudisim_info_args, return_size, 8);
LAYOUT(struct gaudisim_info_args, op, 12);
LAYOUT(struct gaudisim_info_args, dcore_id, 16);
LAYOUT(struct gaudisim_info_args, period_ms, 16);
LAYOUT(struct gaudisim_info_args, pll_index, 16);
LAYOUT(struct gaudisim_info_args, eventfd, 16);
LAYOUT(struct gaudisim_info_args, user_buffer_actual_size, 16);
LAYOUT(struct gaudisim_info_args, pad, 20);

/* enum gaudi_dcores, SYNC_MANAGER's dcore_id */
VALUE(GAUDISIM_DCORE_WS, 0);
VALUE(GAUDISIM_DCORE_WN, 1);
VALUE(GAUDISIM_DCORE_EN, 2);
VALUE(GAUDISIM_DCORE_ES, 3);

SIZE(struct gaudisim_info_hw_ip_info, 304);
LAYOUT(struct gaudisim_info_hw_ip_info, sram_base_address, 0);
LAYOUT(struct gaudisim_info_hw_ip_info, dram_base_address, 8);
LAYOUT(struct gaudisim_info_hw_ip_info, dram_size, 16);
LAYOUT(struct gaudisim_info_hw_ip_info, sram_size, 24);
LAYOUT(struct gaudisim_info_hw_ip_info, num_of_events, 28);
LAYOUT(struct gaudisim_info_hw_ip_info, device_id, 32);
LAYOUT(struct gaudisim_info_hw_ip_info, module_id, 36);
LAYOUT(struct gaudisim_info_hw_ip_info, decoder_enabled_mask, 40);
LAYOUT(struct gaudisim_info_hw_ip_info, first_available_interrupt_id, 44);
LAYOUT(struct gaudisim_info_hw_ip_info, server_type, 46);
LAYOUT(struct gaudisim_info_hw_ip_info, cpld_version, 48);
LAYOUT(struct gaudisim_info_hw_ip_info, psoc_pci_pll_nr, 52);
LAYOUT(struct gaudisim_info_hw_ip_info, psoc_pci_pll_nf, 56);
LAYOUT(struct gaudisim_info_hw_ip_info, psoc_pci_pll_od, 60);
LAYOUT(struct gaudisim_info_hw_ip_info, psoc_pci_pll_div_factor, 64);
LAYOUT(struct gaudisim_info_hw_ip_info, tpc_enabled_mask, 68);
LAYOUT(struct gaudisim_info_hw_ip_info, dram_enabled, 69);
LAYOUT(struct gaudisim_info_hw_ip_info, security_enabled, 70);
LAYOUT(struct gaudisim_info_hw_ip_info, mme_master_slave_mode, 71);
LAYOUT(struct gaudisim_info_hw_ip_info, cpucp_version, 72);
LAYOUT(struct gaudisim_info_hw_ip_info, card_name, 200);
LAYOUT(struct gaudisim_info_hw_ip_info, tpc_enabled_mask_ext, 216);
LAYOUT(struct gaudisim_info_hw_ip_info, dram_page_size, 224);
LAYOUT(struct gaudisim_info_hw_ip_info, edma_enabled_mask, 232);
LAYOUT(struct gaudisim_info_hw_ip_info, number_of_user_interrupts, 236);
LAYOUT(struct gaudisim_info_hw_ip_info, reserved3, 240);
LAYOUT(struct gaudisim_info_hw_ip_info, device_mem_alloc_default_page_size, 248);
LAYOUT(struct gaudisim_info_hw_ip_info, reserved4, 256);
LAYOUT(struct gaudisim_info_hw_ip_info, reserved6, 272);
LAYOUT(struct gaudisim_info_hw_ip_info, revision_id, 277);
LAYOUT(struct gaudisim_info_hw_ip_info, tpc_interrupt_id, 278);
LAYOUT(struct gaudisim_info_hw_ip_info, rotator_enabled_mask, 280);
LAYOUT(struct gaudisim_info_hw_ip_info, engine_core_interrupt_reg_addr, 288);
LAYOUT(struct gaudisim_info_hw_ip_info, reserved_dram_size, 296);

SIZE(struct gaudisim_info_dram_usage, 16);
LAYOUT(struct gaudisim_info_dram_usage, ctx_dram_mem, 8);
SIZE(struct gaudisim_info_hw_idle, 40);
LAYOUT(struct gaudisim_info_hw_idle, busy_engines_mask, 4);
LAYOUT(struct gaudisim_info_hw_idle, busy_engines_mask_ext, 8);
SIZE(struct gaudisim_info_device_status, 8);
SIZE(struct gaudisim_info_device_utilization, 8);
SIZE(struct gaudisim_info_engine_utilization, 40);
SIZE(struct gaudisim_info_clk_rate, 8);
LAYOUT(struct gaudisim_info_clk_rate, max_clk_rate_mhz, 4);
SIZE(struct gaudisim_info_reset_count, 8);
LAYOUT(struct gaudisim_info_reset_count, soft_reset_cnt, 4);
SIZE(struct gaudisim_info_time_sync, 24);
LAYOUT(struct gaudisim_info_time_sync, host_time, 8);
LAYOUT(struct gaudisim_info_time_sync, tsc_time, 16);
SIZE(struct gaudisim_info_pci_counters, 24);
LAYOUT(struct gaudisim_info_pci_counters, tx_throughput, 8);
LAYOUT(struct gaudisim_info_pci_counters, replay_cnt, 16);
SIZE(struct gaudisim_info_clk_throttle, 40);
LAYOUT(struct gaudisim_info_clk_throttle, clk_throttling_timestamp_us, 8);
LAYOUT(struct gaudisim_info_clk_throttle, clk_throttling_duration_ns, 24);
SIZE(struct gaudisim_info_energy, 8);
SIZE(struct gaudisim_pll_frequency_info, 8);
SIZE(struct gaudisim_info_open_stats, 24);
LAYOUT(struct gaudisim_info_open_stats, last_open_period_ms, 8);
LAYOUT(struct gaudisim_info_open_stats, is_compute_ctx_active, 16);
LAYOUT(struct gaudisim_info_open_stats, compute_ctx_in_release, 17);
SIZE(struct gaudisim_power_info, 8);
SIZE(struct gaudisim_info_sync_manager, 16);
LAYOUT(struct gaudisim_info_sync_manager, first_available_monitor, 4);
LAYOUT(struct gaudisim_info_sync_manager, first_available_cq, 8);
SIZE(struct gaudisim_info_cs_counters, 96);
LAYOUT(struct gaudisim_info_cs_counters, total_parsing_drop_cnt, 16);
LAYOUT(struct gaudisim_info_cs_counters, total_queue_full_drop_cnt, 32);
LAYOUT(struct gaudisim_info_cs_counters, total_device_in_reset_drop_cnt, 48);
LAYOUT(struct gaudisim_info_cs_counters, total_max_cs_in_flight_drop_cnt, 64);
LAYOUT(struct gaudisim_info_cs_counters, total_validation_drop_cnt, 80);
LAYOUT(struct gaudisim_info_cs_counters, ctx_validation_drop_cnt, 88);
SIZE(struct gaudisim_info_last_err_open_dev_time, 8);
SIZE(struct gaudisim_info_cs_timeout_event, 16);
LAYOUT(struct gaudisim_info_cs_timeout_event, seq, 8);
SIZE(struct gaudisim_info_razwi_event, 280);
LAYOUT(struct gaudisim_info_razwi_event, addr, 8);
LAYOUT(struct gaudisim_info_razwi_event, engine_id, 16);
LAYOUT(struct gaudisim_info_razwi_event, num_of_possible_engines, 272);
LAYOUT(struct gaudisim_info_razwi_event, flags, 274);
SIZE(struct gaudisim_info_undefined_opcode_event, 288);
LAYOUT(struct gaudisim_info_undefined_opcode_event, cb_addr_streams, 8);
LAYOUT(struct gaudisim_info_undefined_opcode_event, cq_addr, 264);
LAYOUT(struct gaudisim_info_undefined_opcode_event, cq_size, 272);
LAYOUT(struct gaudisim_info_undefined_opcode_event, cb_addr_streams_len, 276);
LAYOUT(struct gaudisim_info_undefined_opcode_event, engine_id, 280);
LAYOUT(struct gaudisim_info_undefined_opcode_event, stream_id, 284);
SIZE(struct gaudisim_info_dev_memalloc_page_sizes, 8);
SIZE(struct gaudisim_page_fault_info, 24);
LAYOUT(struct gaudisim_page_fault_info, addr, 8);
LAYOUT(struct gaudisim_page_fault_info, engine_id, 16);

VALUE(GAUDISIM_INFO_HW_IP_INFO, 0);
VALUE(GAUDISIM_INFO_HW_EVENTS, 1);
VALUE(GAUDISIM_INFO_DRAM_USAGE, 2);
VALUE(GAUDISIM_INFO_HW_IDLE, 3);
VALUE(GAUDISIM_INFO_DEVICE_STATUS, 4);
VALUE(GAUDISIM_INFO_DEVICE_UTILIZATION, 6);
VALUE(GAUDISIM_INFO_HW_EVENTS_AGGREGATE, 7);
VALUE(GAUDISIM_INFO_CLK_RATE, 8);
VALUE(GAUDISIM_INFO_RESET_COUNT, 9);
VALUE(GAUDISIM_INFO_TIME_SYNC, 10);
VALUE(GAUDISIM_INFO_CS_COUNTERS, 11);
VALUE(GAUDISIM_INFO_PCI_COUNTERS, 12);
VALUE(GAUDISIM_INFO_CLK_THROTTLE_REASON, 13);
VALUE(GAUDISIM_INFO_SYNC_MANAGER, 14);
VALUE(GAUDISIM_INFO_TOTAL_ENERGY, 15);
VALUE(GAUDISIM_INFO_PLL_FREQUENCY, 16);
VALUE(GAUDISIM_INFO_POWER, 17);
VALUE(GAUDISIM_INFO_OPEN_STATS, 18);
VALUE(GAUDISIM_INFO_LAST_ERR_OPEN_DEV_TIME, 23);
VALUE(GAUDISIM_INFO_CS_TIMEOUT_EVENT, 24);
VALUE(GAUDISIM_INFO_RAZWI_EVENT, 25);
VALUE(GAUDISIM_INFO_DEV_MEM_ALLOC_PAGE_SIZES, 26);
VALUE(GAUDISIM_INFO_REGISTER_EVENTFD, 28);
VALUE(GAUDISIM_INFO_UNREGISTER_EVENTFD, 29);
VALUE(GAUDISIM_INFO_GET_EVENTS, 30);
VALUE(GAUDISIM_INFO_UNDEFINED_OPCODE_EVENT, 31);
VALUE(GAUDISIM_INFO_ENGINE_STATUS, 32);
VALUE(GAUDISIM_INFO_PAGE_FAULT_EVENT, 33);
/* habanalabs' last op is 38 (USER_ENGINE_ERR_EVENT): ours start well above. */
static_assert(GAUDISIM_INFO_PROJECT_FIRST > 38, "project ops clash with habanalabs'");
VALUE(GAUDISIM_INFO_VERSION_MAX_LEN, 128);
VALUE(GAUDISIM_CARD_NAME_MAX_LEN, 16);
VALUE(GAUDISIM_HL_DEVICE_ID_GAUDI, 0x1000);
VALUE(GAUDISIM_DEVICE_STATUS_OPERATIONAL, 0);
VALUE(GAUDISIM_DEVICE_STATUS_IN_RESET, 1);
VALUE(GAUDISIM_DEVICE_STATUS_MALFUNCTION, 2);
VALUE(GAUDISIM_DEVICE_STATUS_NEEDS_RESET, 3);
VALUE(GAUDISIM_DEVICE_STATUS_IN_DEVICE_CREATION, 4);
VALUE(GAUDISIM_DEVICE_STATUS_IN_RESET_AFTER_DEVICE_RELEASE, 5);
VALUE(GAUDISIM_HL_ENGINE_ID_DMA(7), 7);
VALUE(GAUDISIM_HL_ENGINE_ID_MME_0, 8);
VALUE(GAUDISIM_HL_ENGINE_ID_MME_2, 10);
VALUE(GAUDISIM_HL_ENGINE_ID_TPC(0), 12);
VALUE(GAUDISIM_HL_ENGINE_ID_TPC(7), 19);
VALUE(GAUDISIM_CLK_THROTTLE_POWER, 1);
VALUE(GAUDISIM_CLK_THROTTLE_THERMAL, 2);
VALUE(GAUDISIM_MME_PLL, 7);
VALUE(GAUDISIM_TPC_PLL, 8);
VALUE(GAUDISIM_PLL_MAX, 10);
VALUE(GAUDISIM_NOTIFIER_EVENT_UNDEFINED_OPCODE, 0x2);
VALUE(GAUDISIM_NOTIFIER_EVENT_DEVICE_RESET, 0x4);
VALUE(GAUDISIM_NOTIFIER_EVENT_CS_TIMEOUT, 0x8);
VALUE(GAUDISIM_NOTIFIER_EVENT_USER_ENGINE_ERR, 0x20);
VALUE(GAUDISIM_NOTIFIER_EVENT_GENERAL_HW_ERR, 0x40);
VALUE(GAUDISIM_NOTIFIER_EVENT_RAZWI, 0x80);
VALUE(GAUDISIM_NOTIFIER_EVENT_PAGE_FAULT, 0x100);
VALUE(GAUDISIM_NOTIFIER_EVENT_CRITICAL_HW_ERR, 0x200);
VALUE(GAUDISIM_RAZWI_READ, 0x1);
VALUE(GAUDISIM_RAZWI_WRITE, 0x2);
VALUE(GAUDISIM_RAZWI_HBW, 0x8);
VALUE(GAUDISIM_RAZWI_ADDR_DEC, 0x20);
VALUE(GAUDISIM_RAZWI_NA_ENG_ID, 0xffff);

/* ---- CB ---- */
SIZE(struct gaudisim_cb_in, 24);
LAYOUT(struct gaudisim_cb_in, op, 8);
LAYOUT(struct gaudisim_cb_in, cb_size, 12);
LAYOUT(struct gaudisim_cb_in, ctx_id, 16);
LAYOUT(struct gaudisim_cb_in, flags, 20);
SIZE(struct gaudisim_cb_out, 8);
LAYOUT(struct gaudisim_cb_out, usage_cnt, 0);
SIZE(union gaudisim_cb_args, 24);
VALUE(GAUDISIM_CB_OP_CREATE, 0);
VALUE(GAUDISIM_CB_OP_DESTROY, 1);
VALUE(GAUDISIM_CB_OP_INFO, 2);
VALUE(GAUDISIM_CB_MAX_SIZE, 0x200000 - 32);

/* ---- CS ---- */
SIZE(struct gaudisim_cs_chunk, 64);
VALUE(GAUDISIM_CS_CHUNK_FLAGS_USER_ALLOC_CB, 0x1);
LAYOUT(struct gaudisim_cs_chunk, queue_index, 8);
LAYOUT(struct gaudisim_cs_chunk, cb_size, 12);
LAYOUT(struct gaudisim_cs_chunk, signal_seq_arr, 0);
LAYOUT(struct gaudisim_cs_chunk, num_signal_seq_arr, 12);
LAYOUT(struct gaudisim_cs_chunk, encaps_signal_seq, 0);
LAYOUT(struct gaudisim_cs_chunk, encaps_signal_offset, 12);
LAYOUT(struct gaudisim_cs_chunk, cs_chunk_flags, 16);
LAYOUT(struct gaudisim_cs_chunk, collective_engine_id, 20);
LAYOUT(struct gaudisim_cs_chunk, pad, 24);
SIZE(struct gaudisim_cs_in, 48);
LAYOUT(struct gaudisim_cs_in, chunks_execute, 8);
LAYOUT(struct gaudisim_cs_in, seq, 16);
LAYOUT(struct gaudisim_cs_in, encaps_sig_handle_id, 16);
LAYOUT(struct gaudisim_cs_in, encaps_signals_count, 16);
LAYOUT(struct gaudisim_cs_in, encaps_signals_q_idx, 20);
LAYOUT(struct gaudisim_cs_in, num_chunks_restore, 24);
LAYOUT(struct gaudisim_cs_in, num_chunks_execute, 28);
LAYOUT(struct gaudisim_cs_in, timeout, 32);
LAYOUT(struct gaudisim_cs_in, cs_flags, 36);
LAYOUT(struct gaudisim_cs_in, ctx_id, 40);
SIZE(struct gaudisim_cs_out, 24);
LAYOUT(struct gaudisim_cs_out, handle_id, 0);
LAYOUT(struct gaudisim_cs_out, count, 4);
LAYOUT(struct gaudisim_cs_out, status, 8);
LAYOUT(struct gaudisim_cs_out, sob_base_addr_offset, 12);
LAYOUT(struct gaudisim_cs_out, sob_count_before_submission, 16);
SIZE(union gaudisim_cs_args, 48);
VALUE(GAUDISIM_CS_FLAGS_FORCE_RESTORE, 0x1);
VALUE(GAUDISIM_CS_FLAGS_SIGNAL, 0x2);
VALUE(GAUDISIM_CS_FLAGS_WAIT, 0x4);
VALUE(GAUDISIM_CS_FLAGS_TIMESTAMP, 0x20);
VALUE(GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT, 0x200);
VALUE(GAUDISIM_CS_FLAGS_ENCAP_SIGNALS, 0x800);
VALUE(GAUDISIM_CS_FLAGS_RESERVE_SIGNALS_ONLY, 0x1000);
VALUE(GAUDISIM_CS_FLAGS_UNRESERVE_SIGNALS_ONLY, 0x2000);
VALUE(GAUDISIM_CS_STATUS_SUCCESS, 0);
VALUE(GAUDISIM_MAX_JOBS_PER_CS, 512);

/* ---- WAIT_CS ---- */
SIZE(struct gaudisim_wait_cs_in, 56);
LAYOUT(struct gaudisim_wait_cs_in, timeout_us, 8);
LAYOUT(struct gaudisim_wait_cs_in, ctx_id, 16);
LAYOUT(struct gaudisim_wait_cs_in, flags, 20);
LAYOUT(struct gaudisim_wait_cs_in, seq_arr_len, 24);
LAYOUT(struct gaudisim_wait_cs_in, addr, 0);
LAYOUT(struct gaudisim_wait_cs_in, target, 8);
LAYOUT(struct gaudisim_wait_cs_in, pad, 25);
LAYOUT(struct gaudisim_wait_cs_in, interrupt_timeout_us, 24);
LAYOUT(struct gaudisim_wait_cs_in, cq_counters_offset, 32);
LAYOUT(struct gaudisim_wait_cs_in, timestamp_handle, 40);
LAYOUT(struct gaudisim_wait_cs_in, timestamp_offset, 48);
SIZE(struct gaudisim_wait_cs_out, 24);
LAYOUT(struct gaudisim_wait_cs_out, flags, 4);
LAYOUT(struct gaudisim_wait_cs_out, timestamp_nsec, 8);
LAYOUT(struct gaudisim_wait_cs_out, cs_completion_map, 16);
SIZE(union gaudisim_wait_cs_args, 56);
VALUE(GAUDISIM_WAIT_CS_STATUS_COMPLETED, 0);
VALUE(GAUDISIM_WAIT_CS_STATUS_BUSY, 1);
VALUE(GAUDISIM_WAIT_CS_STATUS_TIMEDOUT, 2);
VALUE(GAUDISIM_WAIT_CS_STATUS_ABORTED, 3);
VALUE(GAUDISIM_WAIT_CS_STATUS_FLAG_GONE, 0x1);
VALUE(GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD, 0x2);
VALUE(GAUDISIM_WAIT_CS_FLAGS_INTERRUPT, 0x2);
VALUE(GAUDISIM_WAIT_CS_FLAGS_MULTI_CS, 0x4);
VALUE(GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_MASK, 0xFFF00000);
VALUE(GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_SHIFT, 20);
VALUE(GAUDISIM_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT, 0xFFF00000);
VALUE(GAUDISIM_WAIT_CS_FLAGS_ANY_DEC_INTERRUPT, 0xFFE00000);
VALUE(GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ, 0x10);
VALUE(GAUDISIM_WAIT_CS_FLAGS_REGISTER_INTERRUPT, 0x20);
VALUE(GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN, 32);

/* ---- MEMORY ---- */
SIZE(struct gaudisim_mem_in, 40);
LAYOUT(struct gaudisim_mem_in, alloc.mem_size, 0);
LAYOUT(struct gaudisim_mem_in, alloc.page_size, 8);
LAYOUT(struct gaudisim_mem_in, free.handle, 0);
LAYOUT(struct gaudisim_mem_in, map_device.hint_addr, 0);
LAYOUT(struct gaudisim_mem_in, map_device.handle, 8);
LAYOUT(struct gaudisim_mem_in, map_host.host_virt_addr, 0);
LAYOUT(struct gaudisim_mem_in, map_host.hint_addr, 8);
LAYOUT(struct gaudisim_mem_in, map_host.mem_size, 16);
LAYOUT(struct gaudisim_mem_in, unmap.device_virt_addr, 0);
LAYOUT(struct gaudisim_mem_in, nic_register.device_addr, 0);
LAYOUT(struct gaudisim_mem_in, nic_register.size, 8);
LAYOUT(struct gaudisim_mem_in, nic_register.sob_first, 16);
LAYOUT(struct gaudisim_mem_in, nic_register.sob_count, 20);
LAYOUT(struct gaudisim_mem_in, nic_deregister.handle, 0);
LAYOUT(struct gaudisim_mem_in, op, 24);
LAYOUT(struct gaudisim_mem_in, flags, 28);
LAYOUT(struct gaudisim_mem_in, ctx_id, 32);
LAYOUT(struct gaudisim_mem_in, num_of_elements, 36);
SIZE(struct gaudisim_mem_out, 16);
SIZE(union gaudisim_mem_args, 40);
VALUE(GAUDISIM_MEM_OP_ALLOC, 0);
VALUE(GAUDISIM_MEM_OP_FREE, 1);
VALUE(GAUDISIM_MEM_OP_MAP, 2);
VALUE(GAUDISIM_MEM_OP_UNMAP, 3);
VALUE(GAUDISIM_MEM_OP_NIC_REGISTER, 64);
VALUE(GAUDISIM_MEM_OP_NIC_DEREGISTER, 65);
VALUE(GAUDISIM_MEM_CONTIGUOUS, 0x1);
VALUE(GAUDISIM_MEM_USERPTR, 0x4);

/* ---- DEBUG ---- */
SIZE(struct gaudisim_debug_args, 40);
LAYOUT(struct gaudisim_debug_args, input_ptr, 0);
LAYOUT(struct gaudisim_debug_args, output_ptr, 8);
LAYOUT(struct gaudisim_debug_args, input_size, 16);
LAYOUT(struct gaudisim_debug_args, output_size, 20);
LAYOUT(struct gaudisim_debug_args, op, 24);
LAYOUT(struct gaudisim_debug_args, reg_idx, 28);
LAYOUT(struct gaudisim_debug_args, enable, 32);
LAYOUT(struct gaudisim_debug_args, ctx_id, 36);
VALUE(GAUDISIM_DEBUG_OP_ETR, 0);
VALUE(GAUDISIM_DEBUG_OP_ETF, 1);
VALUE(GAUDISIM_DEBUG_OP_STM, 2);
VALUE(GAUDISIM_DEBUG_OP_FUNNEL, 3);
VALUE(GAUDISIM_DEBUG_OP_BMON, 4);
VALUE(GAUDISIM_DEBUG_OP_SPMU, 5);
VALUE(GAUDISIM_DEBUG_OP_TIMESTAMP, 6);
VALUE(GAUDISIM_DEBUG_OP_SET_MODE, 7);

/* ---- Ioctl request codes (what a habanalabs binary passes to ioctl) ---- */
VALUE(DRM_IOCTL_GAUDISIM_INFO, 0xc0186440u);
VALUE(DRM_IOCTL_GAUDISIM_CB, 0xc0186441u);
VALUE(DRM_IOCTL_GAUDISIM_CS, 0xc0306442u);
VALUE(DRM_IOCTL_GAUDISIM_WAIT_CS, 0xc0386443u);
VALUE(DRM_IOCTL_GAUDISIM_MEMORY, 0xc0286444u);
VALUE(DRM_IOCTL_GAUDISIM_DEBUG, 0xc0286445u);

/*
 * The asserts above fail the build; this test makes the suite report the
 * check and catches a request code that differs only at run time (e.g. a
 * header that computes it from a variable).
 */
static const struct {
	unsigned long request;
	unsigned long expected;
} ioctl_codes[] = {
	{ DRM_IOCTL_GAUDISIM_INFO, 0xc0186440ul },
	{ DRM_IOCTL_GAUDISIM_CB, 0xc0186441ul },
	{ DRM_IOCTL_GAUDISIM_CS, 0xc0306442ul },
	{ DRM_IOCTL_GAUDISIM_WAIT_CS, 0xc0386443ul },
	{ DRM_IOCTL_GAUDISIM_MEMORY, 0xc0286444ul },
	{ DRM_IOCTL_GAUDISIM_DEBUG, 0xc0286445ul },
};

START_TEST(ioctl_codes_are_habanalabs)
{
	ck_assert_uint_eq(ioctl_codes[_i].request, ioctl_codes[_i].expected);
}
END_TEST

Suite *uapi_layout_suite(void)
{
	Suite *s = suite_create("uapi-layout");
	TCase *tc = tcase_create("habanalabs");

	tcase_add_loop_test(tc, ioctl_codes_are_habanalabs, 0,
			    sizeof(ioctl_codes) / sizeof(ioctl_codes[0]));
	suite_add_tcase(s, tc);
	return s;
}
