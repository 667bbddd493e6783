/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: PCI identity, BARs, device memory map and the
 * register map of the configuration BAR.
 *
 * This header is shared by the QEMU device model, the Linux driver, the user
 * libraries and the tests. It must build in the kernel, in QEMU and in plain
 * C11 user space, so it uses only integer constants and macros.
 *
 * The layout follows first-generation Gaudi where that matters to software
 * (memory map, QMAN registers, PQ/CQ semantics) and is compacted where
 * Gaudi's map is only sparse (one 4 MiB register BAR instead of 128 MiB).
 * Engines and packets also reach the QMAN and sync-manager registers at
 * Gaudi's own addresses (gaudisim_hw_gaudi_map.h). docs/device.md
 * describes every block.
 */
#ifndef GAUDISIM_HW_REGS_H
#define GAUDISIM_HW_REGS_H

/* ---- PCI identity ------------------------------------------------------ */

/*
 * An ID pair that no upstream driver claims. 0x1de5 is not assigned to
 * Habana (0x1da3); the device ID echoes Gaudi's 0x1000 with a simulator
 * marker, like Habana's own simulator IDs (0xffxx).
 */
#define GAUDISIM_PCI_VENDOR_ID		0x1de5
#define GAUDISIM_PCI_DEVICE_ID		0xff10
#define GAUDISIM_PCI_REVISION		0x01
#define GAUDISIM_PCI_CLASS		0x1200	/* processing accelerator */

/* BAR numbers; all are 64-bit memory BARs. */
#define GAUDISIM_BAR_CFG		0	/* registers */
#define GAUDISIM_BAR_MSIX		2	/* exclusive MSI-X table + PBA */
#define GAUDISIM_BAR_HBM		4	/* window into HBM (prefetchable) */

#define GAUDISIM_CFG_BAR_SIZE		0x400000ULL	/* 4 MiB */
/* Default HBM window; the device property hbm-bar-size changes it. */
#define GAUDISIM_HBM_BAR_SIZE_DEFAULT	0x10000000ULL	/* 256 MiB */

/*
 * MSI-X vectors: one per completion queue, then the event queue, then the
 * user interrupts. A user interrupt is raised by work itself (a MSG_LONG
 * of a user CB or a monitor payload writing GAUDISIM_REG_USER_INTR), so a
 * process can sleep until its work reaches a point, as on Gaudi2; Gaudi-1
 * had none. The driver reports them as HW_IP_INFO's
 * first_available_interrupt_id / number_of_user_interrupts; an interrupt
 * ID is the vector number.
 */
#define GAUDISIM_MSIX_NUM_CQ		8
#define GAUDISIM_MSIX_VEC_EQ		8
#define GAUDISIM_MSIX_VEC_USER_FIRST	9
#define GAUDISIM_MSIX_NUM_USER		8
#define GAUDISIM_MSIX_NUM_VECTORS	17

/* ---- Device address space (as seen by engines and packets) ------------- */

#define GAUDISIM_HBM_BASE		0x0ULL
#define GAUDISIM_HBM_SIZE_DEFAULT	(32ULL << 30)		/* 32 GiB */
/*
 * The first 512 MiB of HBM are reserved for the driver (page tables,
 * scratch), as on Gaudi; users get memory from GAUDISIM_HBM_USER_BASE.
 */
#define GAUDISIM_HBM_RESERVED_SIZE	0x20000000ULL
#define GAUDISIM_HBM_USER_BASE		0x20000000ULL

#define GAUDISIM_SRAM_BASE		0x7FF0000000ULL
#define GAUDISIM_SRAM_SIZE		(20ULL << 20)		/* 20 MiB */

/* The register BAR's contents, reachable by MSG_LONG/MSG_PROT writes. */
#define GAUDISIM_CFG_BASE		0x7FFC000000ULL

/*
 * Host memory: device address = host bus address + GAUDISIM_HOST_BASE,
 * 48 bits of bus address, like Gaudi's outbound window.
 */
#define GAUDISIM_HOST_BASE		0x8000000000ULL
#define GAUDISIM_HOST_ADDR_BITS		48
#define GAUDISIM_HOST_END \
	(GAUDISIM_HOST_BASE + (1ULL << GAUDISIM_HOST_ADDR_BITS))

/* ---- Global block (CFG BAR offset 0x0) --------------------------------- */

#define GAUDISIM_REG_ID			0x000	/* RO: GAUDISIM_ID_MAGIC */
#define GAUDISIM_ID_MAGIC		0x4D495347	/* "GSIM" little-endian */
#define GAUDISIM_REG_VERSION		0x004	/* RO: major [31:16] minor [15:0] */
#define GAUDISIM_HW_VERSION_MAJOR	1
#define GAUDISIM_HW_VERSION_MINOR	0
#define GAUDISIM_REG_CAPS		0x008	/* RO: GAUDISIM_CAP_* */
#define GAUDISIM_CAP_EXT_QUEUES		(1u << 0)	/* PCI-DMA external queues */
#define GAUDISIM_CAP_HBM_WINDOW		(1u << 1)	/* movable HBM BAR window */
#define GAUDISIM_CAP_INT_QUEUES		(1u << 2)	/* internal queues (QUEUE_MASK) */
#define GAUDISIM_CAP_SYNC_MNGR		(1u << 3)	/* sync manager, gaudisim_hw_sync.h */
#define GAUDISIM_CAP_EVENT_QUEUE	(1u << 4)	/* event queue, gaudisim_hw_eq.h */
#define GAUDISIM_CAP_NIC		(1u << 5)	/* NIC ports, gaudisim_hw_nic.h */

#define GAUDISIM_REG_HBM_SIZE_LO	0x010	/* RO: bytes */
#define GAUDISIM_REG_HBM_SIZE_HI	0x014
#define GAUDISIM_REG_SRAM_SIZE		0x018	/* RO: bytes */
#define GAUDISIM_REG_HBM_RESERVED	0x01C	/* RO: bytes reserved at HBM start */

/* RO engine counts: each field is a count of engines. */
#define GAUDISIM_REG_ENGINES		0x020
#define GAUDISIM_ENGINES_PCI_DMA_SHIFT	0	/* [3:0]   external DMA */
#define GAUDISIM_ENGINES_HBM_DMA_SHIFT	4	/* [7:4]   internal DMA */
#define GAUDISIM_ENGINES_MME_SHIFT	8	/* [11:8]  */
#define GAUDISIM_ENGINES_TPC_SHIFT	12	/* [19:12] */
#define GAUDISIM_ENGINES_STREAMS_SHIFT	20	/* [23:20] streams per QMAN */
#define GAUDISIM_ENGINES_NIC_SHIFT	24	/* [27:24] NIC ports */
#define GAUDISIM_ENGINES_FIELD(v, shift, bits) (((v) >> (shift)) & ((1u << (bits)) - 1))
/* RO bitmask of engines whose queues are implemented by this device. */
#define GAUDISIM_REG_QUEUE_MASK_LO	0x024	/* queue IDs 0..31 */
#define GAUDISIM_REG_QUEUE_MASK_HI	0x028	/* queue IDs 32..63 */
#define GAUDISIM_REG_QUEUE_MASK_HI2	0x02C	/* queue IDs 64..95 */
#define GAUDISIM_REG_QUEUE_MASK_HI3	0x030	/* queue IDs 96..127 */
/* RO: this device's module ID in its box (0..7), the device property module-id. */
#define GAUDISIM_REG_MODULE_ID		0x034

#define GAUDISIM_REG_DEV_STATUS		0x040	/* RO */
#define GAUDISIM_DEV_STATUS_READY	(1u << 0)
#define GAUDISIM_DEV_STATUS_IN_RESET	(1u << 1)
/*
 * HW_STATE: the driver writes DIRTY at init; a hard reset clears it, so a
 * driver that finds DIRTY knows a previous owner left the device running.
 */
#define GAUDISIM_REG_HW_STATE		0x044
#define GAUDISIM_HW_STATE_CLEAN		0x0
#define GAUDISIM_HW_STATE_DIRTY		0xD1D1D1D1
/* WO: write GAUDISIM_RESET_HARD to reset every engine and queue. */
#define GAUDISIM_REG_RESET		0x048
#define GAUDISIM_RESET_HARD		0x1

/* RO free-running device clock in nanoseconds; read LO first (latches HI). */
#define GAUDISIM_REG_TIMESTAMP_LO	0x050
#define GAUDISIM_REG_TIMESTAMP_HI	0x054

/*
 * HBM BAR window (Gaudi's iATU): the HBM BAR shows HBM starting at this
 * offset. Must be a multiple of the window size; out-of-range writes are
 * ignored and logged.
 */
#define GAUDISIM_REG_HBM_WINDOW_LO	0x060
#define GAUDISIM_REG_HBM_WINDOW_HI	0x064
#define GAUDISIM_REG_HBM_BAR_SIZE_LO	0x068	/* RO */
#define GAUDISIM_REG_HBM_BAR_SIZE_HI	0x06C	/* RO */

/*
 * WO: raise MSI-X vector <value>. The completion tail that the driver
 * appends to external CBs ends with a MSG_PROT writing here, like Gaudi's
 * mmPCIE_CORE_MSI_REQ. Only secured requesters may write it (the host, the
 * external CPs, driver-armed monitors); an internal-queue CB or a monitor it
 * armed gets GAUDISIM_CP_ERR_PRIV.
 */
#define GAUDISIM_REG_MSIX_REQ		0x080
/*
 * WO: raise user interrupt <value>, an MSI-X vector in
 * [GAUDISIM_MSIX_VEC_USER_FIRST, + GAUDISIM_MSIX_NUM_USER). Unlike
 * MSIX_REQ, user CBs (MSG_LONG) and monitor payloads may write it, so a
 * process can be woken by its own work; any other value is refused (a CB
 * write fails with GAUDISIM_CP_ERR_PKT_FIELD, an MMIO or monitor write is
 * dropped and counted in ERR_PKT_CNT).
 */
#define GAUDISIM_REG_USER_INTR		0x084

/* RO error counters since the last hard reset. */
#define GAUDISIM_REG_ERR_PKT_CNT	0x090	/* malformed or refused packets */
#define GAUDISIM_REG_ERR_DMA_CNT	0x094	/* DMA faults (bad address) */
#define GAUDISIM_REG_ERR_PQ_CNT		0x098	/* bad PQ entries / CB fetch */

/* RO per-device DMA statistics (bytes, 64-bit as LO/HI). */
#define GAUDISIM_REG_DMA_BYTES_LO	0x0A0
#define GAUDISIM_REG_DMA_BYTES_HI	0x0A4
#define GAUDISIM_REG_CB_DONE_CNT	0x0A8	/* CBs completed, all queues */

/*
 * RO PCIe traffic since the last hard reset, in bytes, 64-bit as LO/HI
 * (read LO first, it latches HI). RX is what the device received from the
 * host: data of its DMA reads of host memory (PQ entries, CBs, LIN_DMA
 * sources) and MMIO writes. TX is what it sent: DMA writes into host
 * memory (CQ entries, LIN_DMA destinations, host-bound MSG writes), MSI-X
 * messages and MMIO read data. Host loads and stores through the HBM BAR
 * go straight to memory and are not counted. A simulated link never
 * replays; REPLAY_CNT counts replays injected by fault injection.
 */
#define GAUDISIM_REG_PCIE_RX_BYTES_LO	0x0B0
#define GAUDISIM_REG_PCIE_RX_BYTES_HI	0x0B4
#define GAUDISIM_REG_PCIE_TX_BYTES_LO	0x0B8
#define GAUDISIM_REG_PCIE_TX_BYTES_HI	0x0BC
#define GAUDISIM_REG_PCIE_REPLAY_CNT	0x0C0

/*
 * RO identity, what the real card's firmware keeps in its EEPROM: the
 * board serial number (ASCII, NUL-padded, device property serial=), the
 * board UUID (16 bytes in RFC 4122 order, byte 0 in bits [7:0] of word 0;
 * device property uuid=), the simulated firmware's version
 * (GAUDISIM_FW_VERSION_*) and the CPLD version.
 */
#define GAUDISIM_REG_SERIAL(i)		(0x200 + 4 * (i))	/* i < GAUDISIM_SERIAL_WORDS */
#define GAUDISIM_SERIAL_WORDS		8
#define GAUDISIM_SERIAL_MAX_LEN		(4 * GAUDISIM_SERIAL_WORDS - 1)
#define GAUDISIM_REG_UUID(i)		(0x220 + 4 * (i))	/* i < GAUDISIM_UUID_WORDS */
#define GAUDISIM_UUID_WORDS		4
#define GAUDISIM_REG_FW_VERSION		0x230	/* major [31:24] minor [23:16] build [15:0] */
#define GAUDISIM_FW_VERSION_MAJOR(v)	(((v) >> 24) & 0xff)
#define GAUDISIM_FW_VERSION_MINOR(v)	(((v) >> 16) & 0xff)
#define GAUDISIM_FW_VERSION_BUILD(v)	((v) & 0xffff)
#define GAUDISIM_REG_CPLD_VERSION	0x234

/* ---- Block map of the CFG BAR --------------------------------------------- */

/*
 * Blocks other than the global one and the engine blocks; each block's
 * registers are defined in its own header (gaudisim_<block>.h) as offsets
 * inside the block.
 */
#define GAUDISIM_BLOCK_EQ		0x001000	/* event queue */
#define GAUDISIM_BLOCK_MMU		0x002000	/* device MMU for host memory */
#define GAUDISIM_BLOCK_TELEMETRY	0x003000	/* power, thermal, clocks, ECC */
#define GAUDISIM_BLOCK_NIC_RX		0x004000	/* NIC receive registrations (hw_nic.h) */
#define GAUDISIM_BLOCK_DBG_MEM		0x005000	/* debug memory port, below */
#define GAUDISIM_BLOCK_SIZE		0x1000
#define GAUDISIM_BLOCK_SYNC_MNGR	0x200000	/* sync objects, monitors */
#define GAUDISIM_BLOCK_SYNC_MNGR_SIZE	0x10000

/*
 * Debug memory port (Gaudi's debugfs reaches SRAM through a BAR; gaudisim
 * has no SRAM BAR): 32-bit access to device memory at any device address
 * the device itself can reach - SRAM, HBM (reserved HBM too) and host
 * memory through the physical window (GAUDISIM_HOST_BASE + bus address;
 * the driver walks its MMU tables to turn a device VA into one). Write
 * ADDR_LO then ADDR_HI (4-byte aligned), then read or write DATA; STS
 * says whether that access happened. MMIO only: command buffers and
 * monitor payloads that write here are refused (GAUDISIM_CP_ERR_PRIV),
 * so only the driver - its debugfs, root only - uses it. Reset to 0.
 */
#define GAUDISIM_DBG_MEM_ADDR_LO	0x000
#define GAUDISIM_DBG_MEM_ADDR_HI	0x004
/* RW: the 32 bits at ADDR; a read of an unreachable address returns 0. */
#define GAUDISIM_DBG_MEM_DATA		0x008
/* RO: 0, or the GAUDISIM_CP_ERR_* code of the last DATA access. */
#define GAUDISIM_DBG_MEM_STS		0x00C

/* ---- Engine blocks ------------------------------------------------------ */

/*
 * Every engine owns a 16 KiB block: its core registers at +0x0000 and its
 * queue manager (QMAN) at +GAUDISIM_QM_OFFSET. The blocks start at 3 MiB,
 * clear of the addresses Gaudi gives its MME QMANs inside the first 4 MiB
 * (gaudisim_hw_gaudi_map.h), so both names of a QMAN decode unambiguously.
 */
#define GAUDISIM_ENGINE_BLOCK_BASE	0x300000
#define GAUDISIM_ENGINE_BLOCK_SIZE	0x4000
#define GAUDISIM_QM_OFFSET		0x2000

#define GAUDISIM_ENGINE_BLOCK(e) \
	(GAUDISIM_ENGINE_BLOCK_BASE + (e) * GAUDISIM_ENGINE_BLOCK_SIZE)
#define GAUDISIM_QM_BLOCK(e)		(GAUDISIM_ENGINE_BLOCK(e) + GAUDISIM_QM_OFFSET)

/*
 * Registers every engine has, at the end of its core registers (offsets
 * inside the engine block; an engine's own registers, e.g. gaudisim_hw_mme.h,
 * stay below GAUDISIM_ENG_COMMON_BASE).
 *
 * Completion message (Gaudi's WR_COMP_ADDR/WDATA): when a unit of engine
 * work finishes - a LIN_DMA with wr_comp_en on a DMA engine, or a launch
 * of an engine started by COMMIT while WR_COMP_EN is 1 - the engine writes
 * WR_COMP_WDATA (32 bits) to the device address WR_COMP_ADDR_HI:LO,
 * usually a sync object (so WDATA uses the sync-object data format of
 * gaudisim_hw_sync.h). Writable from MMIO and from command buffers.
 */
#define GAUDISIM_ENG_COMMON_BASE	0x1F00
#define GAUDISIM_ENG_WR_COMP_ADDR_LO	0x1F00
#define GAUDISIM_ENG_WR_COMP_ADDR_HI	0x1F04
#define GAUDISIM_ENG_WR_COMP_WDATA	0x1F08
#define GAUDISIM_ENG_WR_COMP_EN		0x1F0C	/* [0]: after every COMMIT launch */
/* RO: GAUDISIM_ENG_STATUS_*; the launch and error counts since reset. */
#define GAUDISIM_ENG_STATUS		0x1F10
#define GAUDISIM_ENG_STATUS_BUSY	(1u << 0)	/* launched work still running */
#define GAUDISIM_ENG_STATUS_ERR		(1u << 1)	/* the last launch failed */
#define GAUDISIM_ENG_STATUS_ERR_SHIFT	8		/* [15:8] engine error code */
#define GAUDISIM_ENG_STATUS_ERR_MASK	(0xffu << GAUDISIM_ENG_STATUS_ERR_SHIFT)
#define GAUDISIM_ENG_LAUNCH_CNT		0x1F14
#define GAUDISIM_ENG_ERR_CNT		0x1F18
/*
 * WO, MMIO only: write GAUDISIM_ENG_SOFT_RESET_GO to reset this engine and
 * its QMAN alone: streams stop, every QMAN and engine register returns to
 * its reset value (PQ registers, enables, fences, CP_MSG_BASE, completion
 * message), work in flight is dropped without completion or interrupt.
 * The rest of the device keeps running. A RESET_DONE event follows.
 */
#define GAUDISIM_ENG_SOFT_RESET		0x1F20
#define GAUDISIM_ENG_SOFT_RESET_GO	0x1
#define GAUDISIM_ENG_COMMON_END		0x1F40

/*
 * QMAN registers, offsets inside the QM block. Offsets are Gaudi's (gaudi
 * QMAN block, e.g. DMA0_QM): the PQ registers have one entry per stream
 * (4 bytes apart, stream s at +4*s); the CP arrays have Gaudi's five
 * entries per register (the four upper CPs, one per stream, and the lower
 * CP 4 of Gaudi's internal QMANs), so register i of CP s is at
 * +GAUDISIM_QM_CP_ARRAY_STRIDE*i + 4*s. gaudisim's streams are the upper
 * CPs. The lower CP is where Gaudi runs the buffers a CB fetches with
 * CP_DMA; gaudisim runs them on the stream that fetched them, but a FENCE
 * or WAIT in such a buffer uses the lower CP's fence counters
 * (CP_FENCE<f>_RDATA/CNT of CP 4), one set per QMAN shared by its
 * streams. Its other CP 4 slots are holes.
 */
#define GAUDISIM_QM_NUM_CPS		5
#define GAUDISIM_QM_LOWER_CP		4
#define GAUDISIM_QM_CP_ARRAY_STRIDE	(4 * GAUDISIM_QM_NUM_CPS)	/* 0x14 */
#define GAUDISIM_QM_GLBL_CFG0		0x000	/* [3:0] stream enable bits */
#define GAUDISIM_QM_GLBL_STS0		0x038	/* RO: [3:0] stream busy bits */
#define GAUDISIM_QM_PQ_BASE_LO(s)	(0x070 + 4 * (s))	/* bus address */
#define GAUDISIM_QM_PQ_BASE_HI(s)	(0x080 + 4 * (s))
#define GAUDISIM_QM_PQ_SIZE(s)		(0x090 + 4 * (s))	/* log2(entries) */
#define GAUDISIM_QM_PQ_PI(s)		(0x0A0 + 4 * (s))	/* doorbell */
#define GAUDISIM_QM_PQ_CI(s)		(0x0B0 + 4 * (s))	/* RO */
/*
 * MSG_SHORT bases: a MSG_SHORT writes to CP_MSG_BASE<base> + its offset.
 * The driver points them at the sync manager (gaudisim_hw_sync.h); 0 means
 * not programmed and fails the MSG_SHORT. Internal QMANs' bases are also
 * writable from command buffers (users own those CPs); external ones are
 * MMIO only. Gaudi: CP_MSG_BASE<b>_ADDR_LO_<s> / _HI_<s>.
 */
#define GAUDISIM_QM_NUM_MSG_BASES	4
#define GAUDISIM_QM_CP_MSG_BASE_LO(b, s) \
	(0x228 + 2 * GAUDISIM_QM_CP_ARRAY_STRIDE * (b) + 4 * (s))
#define GAUDISIM_QM_CP_MSG_BASE_HI(b, s) \
	(0x23C + 2 * GAUDISIM_QM_CP_ARRAY_STRIDE * (b) + 4 * (s))
/* Gaudi's CP_FENCE<f>_RDATA_<s> (WO: adds) and CP_FENCE<f>_CNT_<s> (RO). */
#define GAUDISIM_QM_CP_FENCE_RDATA(f, s) (0x308 + GAUDISIM_QM_CP_ARRAY_STRIDE * (f) + 4 * (s))
#define GAUDISIM_QM_CP_FENCE_CNT(f, s)	(0x358 + GAUDISIM_QM_CP_ARRAY_STRIDE * (f) + 4 * (s))
#define GAUDISIM_QM_CP_STS(s)		(0x3A8 + 4 * (s))	/* RO: GAUDISIM_CP_STS_* */
/*
 * gaudisim's own per-stream error registers, in a hole of Gaudi's QMAN
 * block (after CP_AWUSER, before ARB_CFG_0).
 */
#define GAUDISIM_QM_CP_ERR_ADDR_LO(s)	(0x480 + 4 * (s))	/* RO: CB address of last error */
#define GAUDISIM_QM_CP_ERR_ADDR_HI(s)	(0x490 + 4 * (s))	/* RO */
#define GAUDISIM_QM_CP_ERR_CNT(s)	(0x4A0 + 4 * (s))	/* RO */
/*
 * Arbitration, Gaudi's registers: ARB_CFG_0 (TYPE [0]: 0 priority, 1
 * weighted round robin; IS_MASTER [4]; EN [8]), the per-stream weights and
 * the quiet period between grants. ARB_POINT holds are modelled (ARB_OWNER
 * below), and with priority arbitration enabled (EN, TYPE 0) the arbiter
 * goes to the stream asking at its ARB_POINT with the highest priority
 * (the packet's priority field). The weights and the quiet period are
 * stored and read back but do not change the order in which the device
 * serves streams: its scheduler gives every runnable stream one slice in
 * turn, a difference that only timing can show.
 */
#define GAUDISIM_QM_ARB_CFG		0xA00
#define GAUDISIM_QM_ARB_CFG_TYPE_WRR	(1u << 0)
#define GAUDISIM_QM_ARB_CFG_IS_MASTER	(1u << 4)
#define GAUDISIM_QM_ARB_CFG_EN		(1u << 8)
#define GAUDISIM_QM_ARB_WRR_WEIGHT(s)	(0xA08 + 4 * (s))
#define GAUDISIM_QM_ARB_MST_QUIET_PER	0xB34
/*
 * RO: the stream holding the QMAN's arbiter (ARB_POINT without rls): while
 * held, the other streams of the QMAN do not run. Released by ARB_POINT
 * with rls, at the end of the holder's CB, on STOP and on reset. gaudisim's
 * format, in the slot of Gaudi's ARB_STATE_STS.
 */
#define GAUDISIM_QM_ARB_OWNER		0xB80
#define GAUDISIM_QM_ARB_OWNER_HELD	(1u << 31)
#define GAUDISIM_QM_ARB_OWNER_STREAM_MASK 0x3u
/* End of the QMAN registers inside the QM block (Gaudi's end at 0xD04). */
#define GAUDISIM_QM_REGS_END		0xD04

#define GAUDISIM_QM_PQ_SIZE_LOG2_MIN	1
#define GAUDISIM_QM_PQ_SIZE_LOG2_MAX	16
#define GAUDISIM_QM_NUM_FENCES		4

/*
 * PQ_PI and PQ_CI count entries modulo 2 * ring entries, so a full ring
 * (PI - CI == entries) differs from an empty one (PI == CI).
 */

/* CP_STS: busy, waiting on a fence, and the last error code. */
#define GAUDISIM_CP_STS_BUSY		(1u << 0)
#define GAUDISIM_CP_STS_FENCE_WAIT	(1u << 1)
#define GAUDISIM_CP_STS_HALTED		(1u << 2)	/* stream stopped on error */
#define GAUDISIM_CP_STS_ENGINE_WAIT	(1u << 3)	/* EB: waiting for engine idle */
#define GAUDISIM_CP_STS_STOPPED		(1u << 4)	/* STOP executed, not re-enabled */
#define GAUDISIM_CP_STS_ERR_SHIFT	8
#define GAUDISIM_CP_STS_ERR_MASK	(0xffu << GAUDISIM_CP_STS_ERR_SHIFT)

/* Error codes reported in CP_STS and in error completions. */
#define GAUDISIM_CP_ERR_NONE		0
#define GAUDISIM_CP_ERR_UNDEF_OPCODE	1	/* unknown opcode */
#define GAUDISIM_CP_ERR_PKT_OVERRUN	2	/* packet runs past the CB end */
#define GAUDISIM_CP_ERR_PKT_FIELD	3	/* reserved or unsupported field */
#define GAUDISIM_CP_ERR_DMA_ADDR	4	/* address outside any memory */
#define GAUDISIM_CP_ERR_HOST_FAULT	5	/* host bus access failed */
#define GAUDISIM_CP_ERR_CB_FETCH	6	/* CB unreadable or bad length */
#define GAUDISIM_CP_ERR_PQ_ENTRY	7	/* bad PQ entry */
#define GAUDISIM_CP_ERR_PRIV		8	/* privileged packet where not allowed */
#define GAUDISIM_CP_ERR_MMU_FAULT	9	/* device MMU translation failed */
#define GAUDISIM_CP_ERR_ECC		10	/* uncorrectable HBM ECC error */
#define GAUDISIM_CP_ERR_ENGINE		11	/* a NIC launch from the CB failed (ENGINE_ERR) */

#endif /* GAUDISIM_HW_REGS_H */
