/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * gaudisim accel driver ioctl ABI.
 *
 * Binary compatible with Linux's habanalabs_accel.h for everything gaudisim
 * implements: the six ioctls on /dev/accel/accelN (INFO, CB, CS, WAIT_CS,
 * MEMORY, DEBUG; INFO alone on the control node /dev/accel/accel_controlDN) have
 * habanalabs' numbers, and every struct, op, flag and enum value here has
 * habanalabs' size, offsets and value (tests/host/test_uapi_layout.c checks
 * them against the numbers of habanalabs' header). Project-only extras sit
 * in ops from GAUDISIM_INFO_PROJECT_FIRST up or in fields habanalabs leaves
 * as padding, and say so. Rules every struct follows:
 *  - sizes are multiples of 8 and every field is naturally aligned, with
 *    explicit padding; pad and reserved fields must be zero (EINVAL);
 *  - unknown flags and ops are rejected with EINVAL;
 *  - in and out share one union so one copy serves both directions;
 *  - errors are negative errno values from the ioctl.
 */
#ifndef GAUDISIM_ACCEL_H
#define GAUDISIM_ACCEL_H

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define GAUDISIM_DRIVER_NAME		"gaudisim"

/* ---- INFO ---------------------------------------------------------------- */

/*
 * Ops 0..63 carry habanalabs' numbers and structs; ops from 64 up are this
 * project's own (GAUDISIM_INFO_PROJECT_FIRST), for facts habanalabs'
 * structs have no room for.
 */
#define GAUDISIM_INFO_HW_IP_INFO		0	/* struct gaudisim_info_hw_ip_info */
#define GAUDISIM_INFO_HW_EVENTS			1	/* __u32[], since the last hard reset */
#define GAUDISIM_INFO_DRAM_USAGE		2	/* struct gaudisim_info_dram_usage */
#define GAUDISIM_INFO_HW_IDLE			3	/* struct gaudisim_info_hw_idle */
#define GAUDISIM_INFO_DEVICE_STATUS		4	/* struct gaudisim_info_device_status */
/* struct gaudisim_info_device_utilization */
#define GAUDISIM_INFO_DEVICE_UTILIZATION	6
#define GAUDISIM_INFO_HW_EVENTS_AGGREGATE	7	/* __u32[], since the driver loaded */
#define GAUDISIM_INFO_CLK_RATE			8	/* struct gaudisim_info_clk_rate */
#define GAUDISIM_INFO_RESET_COUNT		9	/* struct gaudisim_info_reset_count */
#define GAUDISIM_INFO_TIME_SYNC			10	/* struct gaudisim_info_time_sync */
#define GAUDISIM_INFO_CS_COUNTERS		11	/* struct gaudisim_info_cs_counters */
#define GAUDISIM_INFO_PCI_COUNTERS		12	/* struct gaudisim_info_pci_counters */
#define GAUDISIM_INFO_CLK_THROTTLE_REASON	13	/* struct gaudisim_info_clk_throttle */
#define GAUDISIM_INFO_SYNC_MANAGER		14	/* struct gaudisim_info_sync_manager */
#define GAUDISIM_INFO_TOTAL_ENERGY		15	/* struct gaudisim_info_energy */
#define GAUDISIM_INFO_PLL_FREQUENCY		16	/* struct gaudisim_pll_frequency_info */
#define GAUDISIM_INFO_POWER			17	/* struct gaudisim_power_info */
#define GAUDISIM_INFO_OPEN_STATS		18	/* struct gaudisim_info_open_stats */
/* struct gaudisim_info_last_err_open_dev_time */
#define GAUDISIM_INFO_LAST_ERR_OPEN_DEV_TIME	23
#define GAUDISIM_INFO_CS_TIMEOUT_EVENT		24	/* struct gaudisim_info_cs_timeout_event */
#define GAUDISIM_INFO_RAZWI_EVENT		25	/* struct gaudisim_info_razwi_event */
/* struct gaudisim_info_dev_memalloc_page_sizes */
#define GAUDISIM_INFO_DEV_MEM_ALLOC_PAGE_SIZES	26
#define GAUDISIM_INFO_REGISTER_EVENTFD		28	/* eventfd in gaudisim_info_args */
#define GAUDISIM_INFO_UNREGISTER_EVENTFD	29
#define GAUDISIM_INFO_GET_EVENTS		30	/* __u64 GAUDISIM_NOTIFIER_EVENT_* */
/* struct gaudisim_info_undefined_opcode_event */
#define GAUDISIM_INFO_UNDEFINED_OPCODE_EVENT	31
#define GAUDISIM_INFO_ENGINE_STATUS		32	/* text, see below */
#define GAUDISIM_INFO_PAGE_FAULT_EVENT		33	/* struct gaudisim_page_fault_info */

/* Project-only ops. */
#define GAUDISIM_INFO_PROJECT_FIRST		64
#define GAUDISIM_INFO_DRIVER_VERSION		64	/* struct gaudisim_info_driver_version */
#define GAUDISIM_INFO_HW_IP_EXT			65	/* struct gaudisim_info_hw_ip_ext */
#define GAUDISIM_INFO_QUEUE_IDLE		66	/* struct gaudisim_info_queue_idle */
#define GAUDISIM_INFO_CS_STATS			67	/* struct gaudisim_info_cs_stats */
#define GAUDISIM_INFO_NIC_LINKS			68	/* struct gaudisim_info_nic_links */
/* struct gaudisim_info_engine_utilization */
#define GAUDISIM_INFO_ENGINE_UTILIZATION	69

/**
 * struct gaudisim_info_args - INFO ioctl argument (habanalabs' hl_info_args)
 * @return_pointer: user buffer that receives the op's struct
 * @return_size: its size; the driver copies min(return_size, struct size),
 *               so a smaller, older struct keeps working. 0 is EINVAL.
 * @op: GAUDISIM_INFO_*
 * @dcore_id: SYNC_MANAGER: a Gaudi dcore, enum gaudisim_dcore
 * @ctx_id: unused, 0
 * @period_ms: DEVICE_UTILIZATION, ENGINE_UTILIZATION: 100..1000 in steps of 100
 * @pll_index: PLL_FREQUENCY: enum gaudisim_pll_index
 * @eventfd: REGISTER_EVENTFD: an eventfd file descriptor (UNREGISTER
 *           ignores it)
 * @user_buffer_actual_size: ENGINE_STATUS: out, bytes written
 * @pad: must be 0
 *
 * The union must be 0 for ops that take no argument.
 */
/*
 * Gaudi's dcores (habanalabs' enum gaudi_dcores), as INFO SYNC_MANAGER's
 * dcore_id. Gaudi has a sync manager per dcore; gaudisim has one, reached
 * through MSG_SHORT bases 0 and 1 like Gaudi's E_N one, which is the one
 * Gaudi's user space asks about. It answers for each of the four IDs.
 */
enum gaudisim_dcore {
	GAUDISIM_DCORE_WS = 0,
	GAUDISIM_DCORE_WN = 1,
	GAUDISIM_DCORE_EN = 2,
	GAUDISIM_DCORE_ES = 3,
	GAUDISIM_DCORE_MAX = 4,
};

struct gaudisim_info_args {
	__u64 return_pointer;
	__u32 return_size;
	__u32 op;
	union {
		__u32 dcore_id;
		__u32 ctx_id;
		__u32 period_ms;
		__u32 pll_index;
		__u32 eventfd;
		__u32 user_buffer_actual_size;
	};
	__u32 pad;
};

#define GAUDISIM_INFO_VERSION_MAX_LEN	128
#define GAUDISIM_CARD_NAME_MAX_LEN	16

/* HW_IP_INFO reports the Gaudi family's device ID (the PCI ID is our own). */
#define GAUDISIM_HL_DEVICE_ID_GAUDI	0x1000

/**
 * struct gaudisim_info_hw_ip_info - what the device is (hl_info_hw_ip_info)
 * @sram_base_address: first device address of SRAM free for users
 * @dram_base_address: first device address of user HBM
 * @dram_size: user HBM bytes (total HBM minus the reserved part)
 * @sram_size: SRAM bytes
 * @num_of_events: entries of the HW_EVENTS arrays
 * @device_id: GAUDISIM_HL_DEVICE_ID_GAUDI
 * @module_id: card position; 0 (one card)
 * @tpc_enabled_mask: TPCs that may be used
 * @dram_enabled: 1
 * @cpucp_version: version of the device's firmware interface, NUL-terminated
 * @card_name: product name, NUL-terminated
 * @dram_page_size: HBM allocation granule (GAUDISIM_DRAM_PAGE_SIZE)
 * @device_mem_alloc_default_page_size: the same
 * @revision_id: PCI revision
 * @reserved_dram_size: HBM bytes the driver keeps for itself
 * @first_available_interrupt_id: GAUDISIM_MSIX_VEC_USER_FIRST, the first
 *				  user interrupt ID (WAIT_CS INTERRUPT)
 * @number_of_user_interrupts: GAUDISIM_MSIX_NUM_USER
 * @cpld_version: the device's GAUDISIM_REG_CPLD_VERSION
 *
 * Fields habanalabs has and gaudisim has nothing for are 0.
 */
struct gaudisim_info_hw_ip_info {
	__u64 sram_base_address;
	__u64 dram_base_address;
	__u64 dram_size;
	__u32 sram_size;
	__u32 num_of_events;
	__u32 device_id;
	__u32 module_id;
	__u32 decoder_enabled_mask;
	__u16 first_available_interrupt_id;
	__u16 server_type;
	__u32 cpld_version;
	__u32 psoc_pci_pll_nr;
	__u32 psoc_pci_pll_nf;
	__u32 psoc_pci_pll_od;
	__u32 psoc_pci_pll_div_factor;
	__u8 tpc_enabled_mask;
	__u8 dram_enabled;
	__u8 security_enabled;
	__u8 mme_master_slave_mode;
	__u8 cpucp_version[GAUDISIM_INFO_VERSION_MAX_LEN];
	__u8 card_name[GAUDISIM_CARD_NAME_MAX_LEN];
	__u64 tpc_enabled_mask_ext;
	__u64 dram_page_size;
	__u32 edma_enabled_mask;
	__u16 number_of_user_interrupts;
	__u8 reserved1;
	__u8 reserved2;
	__u64 reserved3;
	__u64 device_mem_alloc_default_page_size;
	__u64 reserved4;
	__u64 reserved5;
	__u32 reserved6;
	__u8 reserved7;
	__u8 revision_id;
	__u16 tpc_interrupt_id;
	__u32 rotator_enabled_mask;
	__u32 reserved9;
	__u64 engine_core_interrupt_reg_addr;
	__u64 reserved_dram_size;
};

/**
 * struct gaudisim_info_hw_ip_ext - project-only: what HW_IP_INFO has no room for
 * @hbm_total_size: all HBM bytes, reserved part included
 * @host_base_address: device address of host bus address 0
 * @hw_version: device version register (major << 16 | minor)
 * @num_pci_dma: external DMA engines
 * @num_hbm_dma: internal DMA engines
 * @num_mme: MME engines
 * @num_tpc: TPC engines
 * @num_queues: number of queue IDs (some are holes; see queue_mask)
 * @num_sync_objects: SOBs in the sync manager
 * @num_monitors: monitors in the sync manager
 * @queue_mask: bit q set when queue ID q can take a CS chunk
 * @card_name: full product name, NUL-terminated
 * @serial: board serial number, NUL-terminated (GAUDISIM_REG_SERIAL)
 * @uuid: board UUID, 16 bytes in RFC 4122 order (GAUDISIM_REG_UUID)
 * @fw_version: the simulated firmware's version (GAUDISIM_REG_FW_VERSION)
 * @pad: 0
 *
 * The fields from @serial on came later: a caller that passes the older,
 * shorter size still gets the fields before them.
 */
struct gaudisim_info_hw_ip_ext {
	__u64 hbm_total_size;
	__u64 host_base_address;
	__u32 hw_version;
	__u32 num_pci_dma;
	__u32 num_hbm_dma;
	__u32 num_mme;
	__u32 num_tpc;
	__u32 num_queues;
	__u32 num_sync_objects;
	__u32 num_monitors;
	__u64 queue_mask[2];
	char card_name[32];
	char serial[32];
	__u8 uuid[16];
	__u32 fw_version;
	__u32 pad;
};

/**
 * struct gaudisim_info_dram_usage - HBM accounting (hl_info_dram_usage)
 * @dram_free_mem: user HBM bytes not allocated by anyone
 * @ctx_dram_mem: bytes allocated by the calling file's context
 */
struct gaudisim_info_dram_usage {
	__u64 dram_free_mem;
	__u64 ctx_dram_mem;
};

#define GAUDISIM_BUSY_ENGINES_MASK_EXT_SIZE	4

/*
 * Engine bits of HW_IDLE's busy masks: habanalabs' enum gaudi_engine_id.
 * DMA engine n is bit n, TPC n bit 12 + n. The two MMEs are Gaudi's two
 * master MMEs: queues 37..40 (gaudisim's MME 1) belong to Gaudi's MME0,
 * bit 8; queues 33..36 (gaudisim's MME 0) to its MME2, bit 10 (habanalabs
 * maps the queues so).
 */
#define GAUDISIM_HL_ENGINE_ID_DMA(n)	(n)
#define GAUDISIM_HL_ENGINE_ID_MME_0	8
#define GAUDISIM_HL_ENGINE_ID_MME_2	10
#define GAUDISIM_HL_ENGINE_ID_TPC(n)	(12 + (n))
#define GAUDISIM_HL_ENGINE_ID_NIC(n)	(20 + (n))

/**
 * struct gaudisim_info_hw_idle - engine activity (hl_info_hw_idle)
 * @is_idle: 1 when no engine has work in flight
 * @busy_engines_mask: bit e set when engine e (GAUDISIM_HL_ENGINE_ID_*) is busy
 * @busy_engines_mask_ext: [0] the same mask, the rest 0
 */
struct gaudisim_info_hw_idle {
	__u32 is_idle;
	__u32 busy_engines_mask;
	__u64 busy_engines_mask_ext[GAUDISIM_BUSY_ENGINES_MASK_EXT_SIZE];
};

/**
 * struct gaudisim_info_queue_idle - project-only: activity per queue
 * @is_idle: 1 when no queue has work in flight
 * @pad: 0
 * @busy_queues_mask: bit q set when queue ID q has work in flight
 */
struct gaudisim_info_queue_idle {
	__u32 is_idle;
	__u32 pad;
	__u64 busy_queues_mask[2];
};

/* NIC ports per device and the bits of gaudisim_info_nic_port.link. */
#define GAUDISIM_INFO_NIC_MAX_PORTS		10
#define GAUDISIM_INFO_NIC_LINK_UP		(1u << 0)	/* cabled and not cut */
#define GAUDISIM_INFO_NIC_LINK_CABLED		(1u << 1)	/* a peer is attached */
#define GAUDISIM_INFO_NIC_LINK_SCALEOUT		(1u << 2)	/* port leaves the box */

/**
 * struct gaudisim_info_nic_port - project-only: one NIC port (docs/nic.md)
 * @link: GAUDISIM_INFO_NIC_LINK_* bits
 * @peer_module: module ID at the other end (valid when CABLED)
 * @peer_port: port at the other end (valid when CABLED)
 * @pad: 0
 * @tx_bytes: bytes sent since the last reset
 * @rx_bytes: bytes received and accepted since the last reset
 * @tx_xfers: transfers completed
 * @rx_xfers: transfers accepted
 * @tx_errors: transfers that failed (link down, refused, bad descriptor)
 * @rx_refused: incoming writes refused (outside the receive window/SOBs)
 * @link_down_count: up -> down transitions
 * @pad2: 0
 */
struct gaudisim_info_nic_port {
	__u32 link;
	__u32 peer_module;
	__u32 peer_port;
	__u32 pad;
	__u64 tx_bytes;
	__u64 rx_bytes;
	__u32 tx_xfers;
	__u32 rx_xfers;
	__u32 tx_errors;
	__u32 rx_refused;
	__u32 link_down_count;
	__u32 pad2;
};

/**
 * struct gaudisim_info_nic_links - project-only: GAUDISIM_INFO_NIC_LINKS
 * @module_id: this device's module ID in its box (0..7)
 * @num_ports: ports the device has (entries of @port that are valid)
 * @port: per-port link state and counters
 */
struct gaudisim_info_nic_links {
	__u32 module_id;
	__u32 num_ports;
	struct gaudisim_info_nic_port port[GAUDISIM_INFO_NIC_MAX_PORTS];
};

enum gaudisim_device_status {
	GAUDISIM_DEVICE_STATUS_OPERATIONAL = 0,
	GAUDISIM_DEVICE_STATUS_IN_RESET = 1,
	GAUDISIM_DEVICE_STATUS_MALFUNCTION = 2,
	GAUDISIM_DEVICE_STATUS_NEEDS_RESET = 3,
	GAUDISIM_DEVICE_STATUS_IN_DEVICE_CREATION = 4,
	GAUDISIM_DEVICE_STATUS_IN_RESET_AFTER_DEVICE_RELEASE = 5,
};

struct gaudisim_info_device_status {
	__u32 status;		/* enum gaudisim_device_status */
	__u32 pad;
};

/*
 * DEVICE_UTILIZATION: percent of the period (device time) in which any
 * engine had work in flight, nvidia-smi's definition (docs/telemetry.md).
 */
struct gaudisim_info_device_utilization {
	__u32 utilization;
	__u32 pad;
};

/**
 * struct gaudisim_info_engine_utilization - project-only: ENGINE_UTILIZATION
 * @card: percent of the period with work in flight on any engine (what
 *        DEVICE_UTILIZATION reports)
 * @dma: ... on any DMA engine
 * @mme: ... on the MME
 * @tpc: ... on any TPC
 * @nic: ... on any NIC port
 * @pad: 0
 * @busy_ns: modelled hardware busy time of the busiest engine over the
 *           period, ns (what a real Gaudi would have needed for the work)
 * @period_ns: the period as measured in device time, ns
 */
struct gaudisim_info_engine_utilization {
	__u32 card;
	__u32 dma;
	__u32 mme;
	__u32 tpc;
	__u32 nic;
	__u32 pad;
	__u64 busy_ns;
	__u64 period_ns;
};

struct gaudisim_info_clk_rate {
	__u32 cur_clk_rate_mhz;
	__u32 max_clk_rate_mhz;	/* the cap, settable through sysfs */
};

struct gaudisim_info_reset_count {
	__u32 hard_reset_cnt;
	__u32 soft_reset_cnt;	/* the device has no soft reset: stays 0 */
};

/**
 * struct gaudisim_info_time_sync - device time against host time
 * @device_time: device timestamp counter, ns
 * @host_time: CLOCK_MONOTONIC_RAW, ns, read right after
 * @tsc_time: the CPU cycle counter, read right after (0 where none)
 */
struct gaudisim_info_time_sync {
	__u64 device_time;
	__u64 host_time;
	__u64 tsc_time;
};

/**
 * struct gaudisim_info_pci_counters - PCIe traffic (hl_info_pci_counters)
 * @rx_throughput: host-to-device traffic (what the device received), KB/s,
 *		   measured over a 10 ms window like the real card's firmware
 * @tx_throughput: device-to-host traffic (what the device sent), KB/s,
 *		   over the same window
 * @replay_cnt: PCIe replays since the last hard reset (a simulated link
 *		replays only when fault injection says so)
 *
 * The device's byte counters (GAUDISIM_REG_PCIE_*_BYTES) say what counts.
 */
struct gaudisim_info_pci_counters {
	__u64 rx_throughput;
	__u64 tx_throughput;
	__u64 replay_cnt;
};

enum gaudisim_clk_throttling_type {
	GAUDISIM_CLK_THROTTLE_TYPE_POWER = 0,
	GAUDISIM_CLK_THROTTLE_TYPE_THERMAL = 1,
	GAUDISIM_CLK_THROTTLE_TYPE_MAX = 2,
};

#define GAUDISIM_CLK_THROTTLE_POWER	(1 << GAUDISIM_CLK_THROTTLE_TYPE_POWER)
#define GAUDISIM_CLK_THROTTLE_THERMAL	(1 << GAUDISIM_CLK_THROTTLE_TYPE_THERMAL)

/**
 * struct gaudisim_info_clk_throttle - why the clock is below its cap
 * @clk_throttling_reason: GAUDISIM_CLK_THROTTLE_* active now
 * @pad: 0
 * @clk_throttling_timestamp_us: CLOCK_MONOTONIC time at which the driver
 *                               first saw the current throttle, 0 if none
 * @clk_throttling_duration_ns: time throttled for each reason since reset
 */
struct gaudisim_info_clk_throttle {
	__u32 clk_throttling_reason;
	__u32 pad;
	__u64 clk_throttling_timestamp_us[GAUDISIM_CLK_THROTTLE_TYPE_MAX];
	__u64 clk_throttling_duration_ns[GAUDISIM_CLK_THROTTLE_TYPE_MAX];
};

/* TOTAL_ENERGY: millijoules since the device powered on. */
struct gaudisim_info_energy {
	__u64 total_energy_consumption;
};

#define GAUDISIM_PLL_NUM_OUTPUTS	4

/* PLL_FREQUENCY pll_index values: habanalabs' enum hl_gaudi_pll_index. */
enum gaudisim_pll_index {
	GAUDISIM_CPU_PLL = 0,
	GAUDISIM_PCI_PLL = 1,
	GAUDISIM_SRAM_PLL = 2,
	GAUDISIM_HBM_PLL = 3,
	GAUDISIM_NIC_PLL = 4,
	GAUDISIM_DMA_PLL = 5,
	GAUDISIM_MESH_PLL = 6,
	GAUDISIM_MME_PLL = 7,
	GAUDISIM_TPC_PLL = 8,
	GAUDISIM_IF_PLL = 9,
	GAUDISIM_PLL_MAX = 10,
};

/*
 * PLL_FREQUENCY: MHz of each PLL output, from the device's clock model: the
 * MME and TPC PLLs are the engine clock, the DMA and NIC PLLs scale with
 * it, the others are fixed (docs/telemetry.md).
 */
struct gaudisim_pll_frequency_info {
	__u16 output[GAUDISIM_PLL_NUM_OUTPUTS];
};

/**
 * struct gaudisim_info_open_stats - compute-node users (hl_open_stats_info)
 * @open_counter: successful compute opens since load
 * @last_open_period_ms: how long the last (or current) user held the device
 * @is_compute_ctx_active: 1 while a process holds the compute node
 * @compute_ctx_in_release: 1 while that process's context is being torn down
 * @pad: 0
 * @compute_pid: project extra in habanalabs' padding: the thread group ID of
 *               that process, 0 when none
 */
struct gaudisim_info_open_stats {
	__u64 open_counter;
	__u64 last_open_period_ms;
	__u8 is_compute_ctx_active;
	__u8 compute_ctx_in_release;
	__u16 pad;
	__u32 compute_pid;
};

/* POWER: milliwatts, averaged over the device's power window. */
struct gaudisim_power_info {
	__u64 power;
};

/**
 * struct gaudisim_info_sync_manager - sync objects and monitors for users
 * @first_available_sync_object: first SOB user CBs may use
 * @first_available_monitor: first monitor user CBs may use
 * @first_available_cq: first completion queue for users; 0, none reserved
 * @reserved: 0
 *
 * Users may not touch the ranges below the first available ones, nor
 * monitors the device reserves (see include/hw/gaudisim_hw_sync.h).
 */
struct gaudisim_info_sync_manager {
	__u32 first_available_sync_object;
	__u32 first_available_monitor;
	__u32 first_available_cq;
	__u32 reserved;
};

/**
 * struct gaudisim_info_cs_counters - refused command submissions
 *
 * total_*: device-wide since load; ctx_*: the calling context's (0 on the
 * control node). out_of_mem: an allocation failed; parsing: the packet
 * parser refused a CB; queue_full: a queue had no room; device_in_reset:
 * the device was not operational; max_cs_in_flight: too many CSs pending;
 * validation: a chunk check failed (queue, size, handle).
 */
struct gaudisim_info_cs_counters {
	__u64 total_out_of_mem_drop_cnt;
	__u64 ctx_out_of_mem_drop_cnt;
	__u64 total_parsing_drop_cnt;
	__u64 ctx_parsing_drop_cnt;
	__u64 total_queue_full_drop_cnt;
	__u64 ctx_queue_full_drop_cnt;
	__u64 total_device_in_reset_drop_cnt;
	__u64 ctx_device_in_reset_drop_cnt;
	__u64 total_max_cs_in_flight_drop_cnt;
	__u64 ctx_max_cs_in_flight_drop_cnt;
	__u64 total_validation_drop_cnt;
	__u64 ctx_validation_drop_cnt;
};

/**
 * struct gaudisim_info_cs_stats - project-only: how submissions ended
 * @submitted: CSs accepted since the driver loaded
 * @completed: CSs whose jobs all completed successfully
 * @errors: CSs completed with an error completion
 * @timed_out: CSs that hit their timeout
 */
struct gaudisim_info_cs_stats {
	__u64 submitted;
	__u64 completed;
	__u64 errors;
	__u64 timed_out;
};

/*
 * LAST_ERR_OPEN_DEV_TIME: when the device was opened by the user it held
 * at the time of the last captured error (the *_EVENT ops' errors);
 * 0 while none happened.
 */
struct gaudisim_info_last_err_open_dev_time {
	__s64 timestamp;	/* CLOCK_MONOTONIC, ns */
};

/* CS_TIMEOUT_EVENT: the last CS that timed out; all 0 while none did. */
struct gaudisim_info_cs_timeout_event {
	__s64 timestamp;	/* CLOCK_MONOTONIC, ns */
	__u64 seq;
};

#define GAUDISIM_RAZWI_NA_ENG_ID		0xffff
#define GAUDISIM_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR	128
#define GAUDISIM_RAZWI_READ		(1 << 0)
#define GAUDISIM_RAZWI_WRITE		(1 << 1)
#define GAUDISIM_RAZWI_LBW		(1 << 2)
#define GAUDISIM_RAZWI_HBW		(1 << 3)
#define GAUDISIM_RAZWI_RR		(1 << 4)
#define GAUDISIM_RAZWI_ADDR_DEC		(1 << 5)

/**
 * struct gaudisim_info_razwi_event - the last illegal access (razwi)
 * @timestamp: CLOCK_MONOTONIC ns when the driver got the event, 0 if none
 * @addr: the address accessed
 * @engine_id: the initiator (GAUDISIM_HL_ENGINE_ID_*) in [0]
 * @num_of_possible_engines: 1, or 0 when the device named no engine
 * @flags: GAUDISIM_RAZWI_*
 * @pad: 0
 *
 * gaudisim reports as razwi the DMA errors (address decode) and the MMU
 * faults.
 */
struct gaudisim_info_razwi_event {
	__s64 timestamp;
	__u64 addr;
	__u16 engine_id[GAUDISIM_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR];
	__u16 num_of_possible_engines;
	__u8 flags;
	__u8 pad[5];
};

#define GAUDISIM_MAX_QMAN_STREAMS_INFO		4
#define GAUDISIM_OPCODE_INFO_MAX_ADDR_SIZE	8

/**
 * struct gaudisim_info_undefined_opcode_event - the last QMAN packet error
 * @timestamp: CLOCK_MONOTONIC ns when the driver got the event, 0 if none
 * @cb_addr_streams: [stream][0]: address of the CB that held the packet
 * @cq_addr: address of the offending packet
 * @cq_size: 0 (not reported by the device)
 * @cb_addr_streams_len: 1
 * @engine_id: GAUDISIM_HL_ENGINE_ID_* of the QMAN's engine
 * @stream_id: its stream
 */
struct gaudisim_info_undefined_opcode_event {
	__s64 timestamp;
	__u64 cb_addr_streams[GAUDISIM_MAX_QMAN_STREAMS_INFO][GAUDISIM_OPCODE_INFO_MAX_ADDR_SIZE];
	__u64 cq_addr;
	__u32 cq_size;
	__u32 cb_addr_streams_len;
	__u32 engine_id;
	__u32 stream_id;
};

/*
 * DEV_MEM_ALLOC_PAGE_SIZES: bit n set when allocations may choose pages of
 * 2^n bytes. 0 on Gaudi: HBM comes in the one page size of
 * gaudisim_info_hw_ip_info.dram_page_size.
 */
struct gaudisim_info_dev_memalloc_page_sizes {
	__u64 page_order_bitmask;
};

/**
 * struct gaudisim_page_fault_info - the last device MMU fault
 * @timestamp: CLOCK_MONOTONIC ns when the driver got the event, 0 if none
 * @addr: the faulting device virtual address
 * @engine_id: GAUDISIM_HL_ENGINE_ID_* of the engine that faulted
 * @pad: 0
 */
struct gaudisim_page_fault_info {
	__s64 timestamp;
	__u64 addr;
	__u16 engine_id;
	__u8 pad[6];
};

/*
 * ENGINE_STATUS writes a text table, one line per engine (QMAN status,
 * busy streams, engine status) like habanalabs' is_device_idle dump, NUL-
 * terminated and cut to return_size; user_buffer_actual_size returns the
 * bytes written, NUL included.
 */
#define GAUDISIM_ENGINES_DATA_MAX_SIZE	(1 << 20)

/* Event bits of GET_EVENTS and the eventfd notifier (HL_NOTIFIER_EVENT_*). */
#define GAUDISIM_NOTIFIER_EVENT_TPC_ASSERT		(1ULL << 0)
#define GAUDISIM_NOTIFIER_EVENT_UNDEFINED_OPCODE	(1ULL << 1)
#define GAUDISIM_NOTIFIER_EVENT_DEVICE_RESET		(1ULL << 2)
#define GAUDISIM_NOTIFIER_EVENT_CS_TIMEOUT		(1ULL << 3)
#define GAUDISIM_NOTIFIER_EVENT_DEVICE_UNAVAILABLE	(1ULL << 4)
#define GAUDISIM_NOTIFIER_EVENT_USER_ENGINE_ERR		(1ULL << 5)
#define GAUDISIM_NOTIFIER_EVENT_GENERAL_HW_ERR		(1ULL << 6)
#define GAUDISIM_NOTIFIER_EVENT_RAZWI			(1ULL << 7)
#define GAUDISIM_NOTIFIER_EVENT_PAGE_FAULT		(1ULL << 8)
#define GAUDISIM_NOTIFIER_EVENT_CRITICAL_HW_ERR		(1ULL << 9)
#define GAUDISIM_NOTIFIER_EVENT_CRITICAL_FW_ERR		(1ULL << 10)

/*
 * HW_EVENTS and HW_EVENTS_AGGREGATE: how many device events of each type
 * (index = event type of the device's event queue, include/hw/gaudisim_hw_eq.h)
 * the driver received; hw_ip_info.num_of_events entries.
 */
#define GAUDISIM_INFO_HW_EVENTS_NUM	64

#define GAUDISIM_VERSION_STR_LEN	32

struct gaudisim_info_driver_version {
	char version[GAUDISIM_VERSION_STR_LEN];	/* NUL-terminated */
};

/* ---- CB: command buffers in host memory, mmap()ed by user space ---------- */

#define GAUDISIM_CB_OP_CREATE		0
#define GAUDISIM_CB_OP_DESTROY		1
#define GAUDISIM_CB_OP_INFO		2

/* CB sizes: at least 8 bytes, at most GAUDISIM_CB_MAX_SIZE. */
#define GAUDISIM_CB_MAX_SIZE		(0x200000u - 32)	/* 2 MiB - 32 */

/*
 * habanalabs' CB flags, MAP (0x1) and GET_DEVICE_VA (0x2), ask for a CB
 * mapped into the device MMU; gaudisim's CBs are reached by the driver's
 * copy, so flags must be 0.
 */
struct gaudisim_cb_in {
	__u64 cb_handle;	/* DESTROY, INFO */
	__u32 op;		/* GAUDISIM_CB_OP_* */
	__u32 cb_size;		/* CREATE: bytes */
	__u32 ctx_id;		/* must be 0 */
	__u32 flags;		/* must be 0 */
};

struct gaudisim_cb_out {
	union {
		__u64 cb_handle;	/* CREATE: handle = mmap offset */
		struct {
			__u32 usage_cnt;	/* INFO: in-flight jobs using it */
			__u32 size;		/* INFO: bytes; project extra in hl's pad */
		};
	};
};

union gaudisim_cb_args {
	struct gaudisim_cb_in in;
	struct gaudisim_cb_out out;
};

/* ---- CS: command submission --------------------------------------------- */

/**
 * struct gaudisim_cs_chunk - one job: a CB bound to a queue (64 bytes)
 * @cb_handle: external queue: a CB handle; internal queue: device address;
 *             SIGNAL CS: 0
 * @signal_seq_arr: WAIT CS: user pointer to the u64 seqs of the signals
 * @encaps_signal_seq: WAIT CS with ENCAP_SIGNALS: the seq of the CS that
 *                     was submitted with the reservation
 * @queue_index: GAUDISIM_QUEUE_ID_* (see include/hw/gaudisim_hw_queues.h)
 * @cb_size: bytes of the CB to execute, multiple of 8, at least 8; SIGNAL: 0
 * @num_signal_seq_arr: WAIT CS: entries of @signal_seq_arr
 * @encaps_signal_offset: WAIT CS with ENCAP_SIGNALS: wait until that many
 *                        of the reserved signals happened (0..count)
 * @cs_chunk_flags: 0, or GAUDISIM_CS_CHUNK_FLAGS_USER_ALLOC_CB on an
 *                  internal queue (whose CB is always the user's own, in
 *                  device memory: the flag changes nothing there)
 * @collective_engine_id: must be 0
 * @pad: must be 0
 */
/* habanalabs' HL_CS_CHUNK_FLAGS_USER_ALLOC_CB: @cb_handle is not a kernel CB. */
#define GAUDISIM_CS_CHUNK_FLAGS_USER_ALLOC_CB	0x1

struct gaudisim_cs_chunk {
	union {
		__u64 cb_handle;
		__u64 signal_seq_arr;	/* WAIT CS: user pointer to u64 seqs */
		__u64 encaps_signal_seq;	/* WAIT CS with ENCAP_SIGNALS */
	};
	__u32 queue_index;
	union {
		__u32 cb_size;
		__u32 num_signal_seq_arr;	/* WAIT CS: 1..GAUDISIM_CS_WAIT_MAX_SIGNALS */
		__u32 encaps_signal_offset;	/* WAIT CS with ENCAP_SIGNALS */
	};
	__u32 cs_chunk_flags;
	__u32 collective_engine_id;
	__u32 pad[10];
};

/*
 * SIGNAL: one chunk naming an external queue (no CB); the driver's job adds
 * 1 to that queue's sync object when the queue reaches it. WAIT: one chunk
 * naming an external queue and signal_seq_arr / num_signal_seq_arr, the
 * seqs of SIGNAL CSs of this context; the queue waits in the sync manager
 * until they all happened. A WAIT whose signals have all completed returns
 * seq ULLONG_MAX and submits nothing, as habanalabs does.
 */
#define GAUDISIM_CS_FLAGS_FORCE_RESTORE	0x1
#define GAUDISIM_CS_FLAGS_SIGNAL	0x2
#define GAUDISIM_CS_FLAGS_WAIT		0x4
#define GAUDISIM_CS_FLAGS_TIMESTAMP	0x20
/*
 * Staged submission (habanalabs' flags): one CS submitted in parts. The
 * FIRST part gets the sequence number; every later part passes it in
 * @seq and gets it back; the LAST part closes the CS. The CS completes
 * when it is closed and the jobs of all its parts completed, fails with
 * the first error of any part, and times out (one timeout, from the first
 * part) as one CS. Only the LAST part needs an external-queue job.
 */
#define GAUDISIM_CS_FLAGS_STAGED_SUBMISSION		0x40
#define GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST	0x80
#define GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST	0x100
#define GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT	0x200
/*
 * Encapsulated signals (habanalabs' flags). RESERVE_SIGNALS_ONLY reserves
 * @encaps_signals_count signals of external queue @encaps_signals_q_idx's
 * sync object and answers @handle_id, @count and @sob_base_addr_offset
 * (nothing is submitted). A CS with ENCAP_SIGNALS (not a later staged
 * part) passes the handle in @encaps_sig_handle_id: its jobs may add to
 * that sync object, up to the reserved count per job. A WAIT CS with
 * ENCAP_SIGNALS names that CS's seq in the chunk's @encaps_signal_seq and
 * waits for @encaps_signal_offset of the reserved signals.
 * UNRESERVE_SIGNALS_ONLY releases the handle in @encaps_sig_handle_id; a
 * context's reservations end when it closes.
 */
#define GAUDISIM_CS_FLAGS_ENCAP_SIGNALS		0x800
#define GAUDISIM_CS_FLAGS_RESERVE_SIGNALS_ONLY	0x1000
#define GAUDISIM_CS_FLAGS_UNRESERVE_SIGNALS_ONLY	0x2000
#define GAUDISIM_CS_FLAGS_ALL \
	(GAUDISIM_CS_FLAGS_FORCE_RESTORE | GAUDISIM_CS_FLAGS_SIGNAL | \
	 GAUDISIM_CS_FLAGS_WAIT | GAUDISIM_CS_FLAGS_TIMESTAMP | \
	 GAUDISIM_CS_FLAGS_STAGED_SUBMISSION | \
	 GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST | \
	 GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST | \
	 GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT | GAUDISIM_CS_FLAGS_ENCAP_SIGNALS | \
	 GAUDISIM_CS_FLAGS_RESERVE_SIGNALS_ONLY | \
	 GAUDISIM_CS_FLAGS_UNRESERVE_SIGNALS_ONLY)

/* Signals one WAIT CS may name (habanalabs takes 1; a project extension). */
#define GAUDISIM_CS_WAIT_MAX_SIGNALS	8

#define GAUDISIM_MAX_JOBS_PER_CS	512

/* Encapsulated-signal reservations one context may hold at once. */
#define GAUDISIM_CS_ENCAP_MAX_RESERVATIONS	1024

/*
 * CSs one context may have in flight (habanalabs' max_pending_cs on
 * Gaudi); one more gets EAGAIN until the oldest retires.
 */
#define GAUDISIM_CS_MAX_PENDING	16384

/**
 * struct gaudisim_cs_in - submit (hl_cs_in)
 * @chunks_restore: user pointer to restore chunks, run before the execute
 *                  chunks on a context's first CS or with FORCE_RESTORE
 * @chunks_execute: user pointer to the execute chunks
 * @seq: STAGED_SUBMISSION without FIRST: the sequence number of the
 *       staged CS (its FIRST part's); otherwise 0
 * @encaps_sig_handle_id: ENCAP_SIGNALS (not with a later staged part) and
 *                        UNRESERVE_SIGNALS_ONLY: a reservation's handle
 * @encaps_signals_count: RESERVE_SIGNALS_ONLY: signals to reserve
 * @encaps_signals_q_idx: RESERVE_SIGNALS_ONLY: the external queue
 * @num_chunks_restore: 0..GAUDISIM_MAX_JOBS_PER_CS
 * @num_chunks_execute: 1..GAUDISIM_MAX_JOBS_PER_CS
 * @timeout: seconds, used with CUSTOM_TIMEOUT (1..3600)
 * @cs_flags: GAUDISIM_CS_FLAGS_*
 * @ctx_id: must be 0
 * @pad: must be 0
 */
struct gaudisim_cs_in {
	__u64 chunks_restore;
	__u64 chunks_execute;
	union {
		__u64 seq;
		__u32 encaps_sig_handle_id;
		struct {
			__u32 encaps_signals_count;
			__u32 encaps_signals_q_idx;
		};
	};
	__u32 num_chunks_restore;
	__u32 num_chunks_execute;
	__u32 timeout;
	__u32 cs_flags;
	__u32 ctx_id;
	__u8 pad[4];
};

#define GAUDISIM_CS_STATUS_SUCCESS	0

struct gaudisim_cs_out {
	union {
		__u64 seq;		/* never 0 */
		struct {		/* RESERVE_SIGNALS_ONLY */
			__u32 handle_id;
			__u32 count;
		};
	};
	__u32 status;		/* GAUDISIM_CS_STATUS_* */
	/*
	 * SIGNAL CSs and reservations: the SOB's address as an offset from
	 * CFG_BASE (Gaudi's W_S); SIGNAL and ENCAP_SIGNALS CSs: its count
	 * before (a reservation's first signal makes it this + 1)
	 */
	__u32 sob_base_addr_offset;
	__u16 sob_count_before_submission;
	__u16 pad[3];
};

union gaudisim_cs_args {
	struct gaudisim_cs_in in;
	struct gaudisim_cs_out out;
};

/* ---- WAIT_CS -------------------------------------------------------------- */

/*
 * WAIT_CS flags. MULTI_CS: @seq points to an array of @seq_arr_len (1 to
 * GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN) sequence numbers; the wait ends when
 * any of them completes.
 *
 * INTERRUPT: habanalabs' wait on a user interrupt (Gaudi2's; Gaudi-1 had
 * none, gaudisim has GAUDISIM_MSIX_NUM_USER of them). The interrupt ID sits
 * in the flags' INTERRUPT_MASK bits: an ID from HW_IP_INFO's
 * first_available_interrupt_id up, or ANY_CQ_INTERRUPT for any user
 * interrupt. @addr is a user address of a __u64; the wait ends when
 * *@addr >= @target, checked on entry and after every interrupt of that
 * ID, or after @interrupt_timeout_us (0: check once). Out: COMPLETED, or
 * BUSY with rc 0 on timeout; -EFAULT if @addr cannot be read; with
 * TIMESTAMP_VLD, the CLOCK_MONOTONIC time of the interrupt that ended it.
 * INTERRUPT_KERNEL_CQ and REGISTER_INTERRUPT (counters in a driver CB,
 * timestamp registration) are not implemented: -EINVAL.
 */
#define GAUDISIM_WAIT_CS_FLAGS_INTERRUPT	0x2
#define GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_MASK	0xFFF00000
#define GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_SHIFT	20
#define GAUDISIM_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT	0xFFF00000
#define GAUDISIM_WAIT_CS_FLAGS_ANY_DEC_INTERRUPT 0xFFE00000
#define GAUDISIM_WAIT_CS_FLAGS_MULTI_CS		0x4
#define GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ 0x10
#define GAUDISIM_WAIT_CS_FLAGS_REGISTER_INTERRUPT 0x20

#define GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN	32

/**
 * struct gaudisim_wait_cs_in - wait for a CS (hl_wait_cs_in)
 * @seq: sequence number returned by CS; with MULTI_CS, a user pointer to
 *	 the array of sequence numbers
 * @timeout_us: 0 polls; otherwise interruptible wait of at most this long
 * @addr: INTERRUPT: user address of the __u64 to compare
 * @target: INTERRUPT: the value *@addr must reach
 * @ctx_id: must be 0
 * @flags: 0, GAUDISIM_WAIT_CS_FLAGS_MULTI_CS, or INTERRUPT with an ID
 * @seq_arr_len: MULTI_CS: entries in the @seq array; otherwise 0
 * @pad: must be 0
 * @interrupt_timeout_us: INTERRUPT: timeout in microseconds (shares @seq_arr_len)
 * @cq_counters_offset: must be 0
 * @timestamp_handle: must be 0
 * @timestamp_offset: must be 0
 */
struct gaudisim_wait_cs_in {
	union {
		struct {
			__u64 seq;
			__u64 timeout_us;
		};
		struct {
			__u64 addr;
			__u64 target;
		};
	};
	__u32 ctx_id;
	__u32 flags;
	union {
		struct {
			__u8 seq_arr_len;
			__u8 pad[7];
		};
		__u64 interrupt_timeout_us;
	};
	__u64 cq_counters_offset;
	__u64 timestamp_handle;
	__u64 timestamp_offset;
};

#define GAUDISIM_WAIT_CS_STATUS_COMPLETED	0
#define GAUDISIM_WAIT_CS_STATUS_BUSY		1
#define GAUDISIM_WAIT_CS_STATUS_TIMEDOUT	2
#define GAUDISIM_WAIT_CS_STATUS_ABORTED		3

#define GAUDISIM_WAIT_CS_STATUS_FLAG_GONE	0x1	/* CS long retired */
#define GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD 0x2

/*
 * rc 0 with COMPLETED or BUSY; rc -ETIMEDOUT with TIMEDOUT; rc -EIO with
 * ABORTED (a job ended with an error completion, or the device was reset).
 */
struct gaudisim_wait_cs_out {
	__u32 status;
	__u32 flags;
	/* completion time, CLOCK_MONOTONIC, with TIMESTAMP; multi-CS: the first */
	__s64 timestamp_nsec;
	__u32 cs_completion_map;	/* multi-CS waits: bit i, array entry i done */
	__u32 pad;
};

union gaudisim_wait_cs_args {
	struct gaudisim_wait_cs_in in;
	struct gaudisim_wait_cs_out out;
};

/* ---- MEMORY --------------------------------------------------------------- */

#define GAUDISIM_MEM_OP_ALLOC		0
#define GAUDISIM_MEM_OP_FREE		1
#define GAUDISIM_MEM_OP_MAP		2
#define GAUDISIM_MEM_OP_UNMAP		3
/*
 * Project-only ops, above habanalabs' (MAP_BLOCK 4, EXPORT_DMABUF_FD 5,
 * TS_ALLOC 6 stay EINVAL). NIC_REGISTER lets NIC peers write HBM and
 * signal sync objects of this context (docs/nic.md): a peer's write lands
 * only inside a registration of the receiving device; with none, every
 * write is refused.
 */
#define GAUDISIM_MEM_OP_PROJECT_FIRST	64
#define GAUDISIM_MEM_OP_NIC_REGISTER	64
#define GAUDISIM_MEM_OP_NIC_DEREGISTER	65

/*
 * ALLOC flag: physically contiguous HBM. Every allocation is, so it is
 * accepted and changes nothing.
 */
#define GAUDISIM_MEM_CONTIGUOUS		0x1
/* MAP flag: map user host memory for DMA (userptr) instead of an HBM handle. */
#define GAUDISIM_MEM_USERPTR		0x4

/* HBM is handed out in pages of this size. */
#define GAUDISIM_DRAM_PAGE_SIZE		0x200000u	/* 2 MiB */

/*
 * Host buffers mapped with MAP + USERPTR get device virtual addresses from
 * this range. The driver translates them when it copies an external CB;
 * a LIN_DMA must stay inside one mapping. The range lies above the
 * device's physical host window (GAUDISIM_HOST_BASE + 2^48), so an address
 * is never both.
 */
#define GAUDISIM_HOST_VA_BASE		0x2000000000000ULL
#define GAUDISIM_HOST_VA_SIZE		0x1000000000000ULL
#define GAUDISIM_USERPTR_MAX_SIZE	(1ULL << 36)	/* 64 GiB per mapping */

/**
 * struct gaudisim_mem_in - MEMORY ioctl input (hl_mem_in)
 * @alloc.mem_size: ALLOC: bytes, rounded up to GAUDISIM_DRAM_PAGE_SIZE
 * @alloc.page_size: ALLOC: 0 or GAUDISIM_DRAM_PAGE_SIZE
 * @free.handle: FREE: handle from ALLOC
 * @map_device.hint_addr: MAP: must be 0 (HBM is mapped where it lies)
 * @map_device.handle: MAP: HBM handle; returns its device address
 * @map_host.host_virt_addr: MAP + USERPTR: user address, any alignment
 * @map_host.hint_addr: MAP + USERPTR: 0, or a free page-aligned address in
 *                      the host VA range to map at
 * @map_host.mem_size: MAP + USERPTR: bytes, at least 1; the whole pages
 *                     covering the range are pinned and mapped, and the
 *                     device VA returned keeps host_virt_addr's offset in
 *                     its page (as habanalabs)
 * @unmap.device_virt_addr: UNMAP: the address MAP + USERPTR returned
 * @nic_register.device_addr: NIC_REGISTER: HBM peers may write (user HBM;
 *                            a shared context's own allocation)
 * @nic_register.size: NIC_REGISTER: bytes from @device_addr, 0 for none
 * @nic_register.sob_first: NIC_REGISTER: first sync object peers may signal
 *                          (of the context's own range)
 * @nic_register.sob_count: NIC_REGISTER: how many, 0 for none; @size and
 *                          @sob_count are not both 0. Returns a handle.
 * @nic_deregister.handle: NIC_DEREGISTER: handle from NIC_REGISTER
 * @op: GAUDISIM_MEM_OP_*
 * @flags: GAUDISIM_MEM_* valid for the op
 * @ctx_id: must be 0
 * @num_of_elements: must be 0
 *
 * Bytes of the union an op does not use must be 0.
 */
struct gaudisim_mem_in {
	union {
		struct {
			__u64 mem_size;
			__u64 page_size;
		} alloc;
		struct {
			__u64 handle;
		} free;
		struct {
			__u64 hint_addr;
			__u64 handle;
		} map_device;
		struct {
			__u64 host_virt_addr;
			__u64 hint_addr;
			__u64 mem_size;
		} map_host;
		struct {
			__u64 device_virt_addr;
		} unmap;
		struct {
			__u64 device_addr;
			__u64 size;
			__u32 sob_first;
			__u32 sob_count;
		} nic_register;
		struct {
			__u64 handle;
		} nic_deregister;
		__u64 raw[3];
	};
	__u32 op;
	__u32 flags;
	__u32 ctx_id;
	__u32 num_of_elements;
};

struct gaudisim_mem_out {
	union {
		__u64 handle;			/* ALLOC, NIC_REGISTER */
		__u64 device_virt_addr;		/* MAP */
	};
	__u64 reserved;
};

union gaudisim_mem_args {
	struct gaudisim_mem_in in;
	struct gaudisim_mem_out out;
};

/* ---- DEBUG ---------------------------------------------------------------- */

/*
 * habanalabs' HL_DEBUG_OP_*. Gaudi's profiler programs the CoreSight trace
 * blocks with ops 0..6 once its context put the device in debug mode
 * (SET_MODE). gaudisim keeps debug mode with habanalabs' rules; it has no
 * trace hardware, so ops 0..6 answer EOPNOTSUPP (EFAULT outside debug mode,
 * as habanalabs).
 */
#define GAUDISIM_DEBUG_OP_ETR		0
#define GAUDISIM_DEBUG_OP_ETF		1
#define GAUDISIM_DEBUG_OP_STM		2
#define GAUDISIM_DEBUG_OP_FUNNEL	3
#define GAUDISIM_DEBUG_OP_BMON		4
#define GAUDISIM_DEBUG_OP_SPMU		5
#define GAUDISIM_DEBUG_OP_TIMESTAMP	6
#define GAUDISIM_DEBUG_OP_SET_MODE	7

/**
 * struct gaudisim_debug_args - DEBUG ioctl argument (hl_debug_args)
 * @input_ptr: CoreSight ops: the block's configuration
 * @output_ptr: CoreSight ops: where results go
 * @input_size: size at @input_ptr
 * @output_size: size at @output_ptr
 * @op: GAUDISIM_DEBUG_OP_*
 * @reg_idx: CoreSight ops: which block
 * @enable: SET_MODE: nonzero enters debug mode, 0 leaves it. Entering
 *          while the device is in debug mode, or leaving outside it, is
 *          EFAULT; closing the file leaves it.
 * @ctx_id: unused, must be 0
 */
struct gaudisim_debug_args {
	__u64 input_ptr;
	__u64 output_ptr;
	__u32 input_size;
	__u32 output_size;
	__u32 op;
	__u32 reg_idx;
	__u32 enable;
	__u32 ctx_id;
};

/* ---- Ioctl numbers -------------------------------------------------------- */

#define DRM_GAUDISIM_INFO	0x00
#define DRM_GAUDISIM_CB		0x01
#define DRM_GAUDISIM_CS		0x02
#define DRM_GAUDISIM_WAIT_CS	0x03
#define DRM_GAUDISIM_MEMORY	0x04
#define DRM_GAUDISIM_DEBUG	0x05

#define DRM_IOCTL_GAUDISIM_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_INFO, struct gaudisim_info_args)
#define DRM_IOCTL_GAUDISIM_CB \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_CB, union gaudisim_cb_args)
#define DRM_IOCTL_GAUDISIM_CS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_CS, union gaudisim_cs_args)
#define DRM_IOCTL_GAUDISIM_WAIT_CS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_WAIT_CS, union gaudisim_wait_cs_args)
#define DRM_IOCTL_GAUDISIM_MEMORY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_MEMORY, union gaudisim_mem_args)
#define DRM_IOCTL_GAUDISIM_DEBUG \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GAUDISIM_DEBUG, struct gaudisim_debug_args)

#if defined(__cplusplus)
}
#endif

#endif /* GAUDISIM_ACCEL_H */
