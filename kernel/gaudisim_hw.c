// SPDX-License-Identifier: GPL-2.0
/*
 * gaudisim hardware access: identity, sizes, hard reset and habanalabs'
 * engine IDs.
 */

#include <linux/bits.h>
#include <linux/iopoll.h>
#include <linux/unaligned.h>

#include "gaudisim_drv.h"
#include "gaudisim_hw.h"

#define GAUDISIM_RESET_POLL_US	100
#define GAUDISIM_RESET_TIMEOUT_US	(2 * USEC_PER_SEC)

/**
 * gaudisim_hw_reset() - hard-reset every engine and queue of the device
 * @gdev: the device
 *
 * The device clears HW_STATE on reset; waiting for that (and for READY)
 * tells us the reset really happened, whichever way the device model
 * schedules it. Nothing DMAs or interrupts for old work afterwards.
 *
 * Return: 0, or -ETIMEDOUT when the device does not come back.
 */
int gaudisim_hw_reset(struct gaudisim_device *gdev)
{
	u32 state, sts;
	int rc;

	gaudisim_wreg(gdev, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);

	rc = readl_poll_timeout(gdev->regs + GAUDISIM_REG_HW_STATE, state,
				state != GAUDISIM_HW_STATE_DIRTY,
				GAUDISIM_RESET_POLL_US, GAUDISIM_RESET_TIMEOUT_US);
	if (!rc)
		rc = readl_poll_timeout(gdev->regs + GAUDISIM_REG_DEV_STATUS, sts,
					(sts & GAUDISIM_DEV_STATUS_READY) &&
					!(sts & GAUDISIM_DEV_STATUS_IN_RESET),
					GAUDISIM_RESET_POLL_US, GAUDISIM_RESET_TIMEOUT_US);
	if (rc)
		dev_err(&gdev->pdev->dev,
			"hard reset did not complete: HW_STATE 0x%08x DEV_STATUS 0x%08x\n",
			gaudisim_rreg(gdev, GAUDISIM_REG_HW_STATE),
			gaudisim_rreg(gdev, GAUDISIM_REG_DEV_STATUS));
	return rc;
}

/* Tell a later driver instance that this one owns a running device. */
void gaudisim_hw_mark_dirty(struct gaudisim_device *gdev)
{
	gaudisim_wreg(gdev, GAUDISIM_REG_HW_STATE, GAUDISIM_HW_STATE_DIRTY);
}

/* Busy bits of the streams of one QMAN. */
u32 gaudisim_hw_busy_streams(struct gaudisim_device *gdev, u32 engine)
{
	return gaudisim_rreg(gdev, gaudisim_qm_reg(engine, GAUDISIM_QM_GLBL_STS0)) &
	       GENMASK(GAUDISIM_STREAMS_PER_QMAN - 1, 0);
}

static int gaudisim_hw_check_sizes(struct gaudisim_device *gdev)
{
	struct device *dev = &gdev->pdev->dev;

	if (gdev->hbm_reserved != GAUDISIM_HBM_RESERVED_SIZE ||
	    gdev->hbm_size <= GAUDISIM_HBM_USER_BASE ||
	    !IS_ALIGNED(gdev->hbm_size, GAUDISIM_DRAM_PAGE_SIZE)) {
		dev_err(dev, "unusable HBM layout: %llu bytes, %llu reserved\n",
			gdev->hbm_size, gdev->hbm_reserved);
		return -ENODEV;
	}
	if (gdev->sram_size > GAUDISIM_SRAM_SIZE) {
		dev_err(dev, "SRAM size %llu exceeds the SRAM window\n",
			gdev->sram_size);
		return -ENODEV;
	}
	return 0;
}

/*
 * The board identity (EEPROM contents) survives a hard reset: read it once.
 * Registers hold bytes little-endian, byte 0 in bits [7:0].
 */
static void gaudisim_hw_read_board(struct gaudisim_device *gdev)
{
	u32 i, w;

	for (i = 0; i < GAUDISIM_SERIAL_WORDS; i++) {
		w = gaudisim_rreg(gdev, GAUDISIM_REG_SERIAL(i));
		put_unaligned_le32(w, gdev->serial + 4 * i);
	}
	gdev->serial[GAUDISIM_SERIAL_MAX_LEN] = '\0';
	for (i = 0; i < GAUDISIM_UUID_WORDS; i++) {
		w = gaudisim_rreg(gdev, GAUDISIM_REG_UUID(i));
		put_unaligned_le32(w, gdev->uuid + 4 * i);
	}
	gdev->fw_version = gaudisim_rreg(gdev, GAUDISIM_REG_FW_VERSION);
	gdev->cpld_version = gaudisim_rreg(gdev, GAUDISIM_REG_CPLD_VERSION);
}

/**
 * gaudisim_hw_fw_string() - the firmware version as habanalabs' cpucp_version
 * @gdev: the device
 * @buf: where to write it
 * @size: bytes of @buf
 *
 * Return: characters written (snprintf's result).
 */
int gaudisim_hw_fw_string(struct gaudisim_device *gdev, char *buf, size_t size)
{
	u32 v = gdev->fw_version;

	return snprintf(buf, size, "gaudisim-fw-%u.%u.%u", GAUDISIM_FW_VERSION_MAJOR(v),
			GAUDISIM_FW_VERSION_MINOR(v), GAUDISIM_FW_VERSION_BUILD(v));
}

/**
 * gaudisim_hw_identify() - check that this is a gaudisim device and read its sizes
 * @gdev: the device, with its CFG BAR mapped
 *
 * A device that a previous driver instance left running (HW_STATE DIRTY)
 * is reset before anything else is read.
 *
 * Return: 0, or -ENODEV for a device this driver cannot drive.
 */
int gaudisim_hw_identify(struct gaudisim_device *gdev)
{
	struct device *dev = &gdev->pdev->dev;
	u32 id, major, minor, q;
	int rc;

	id = gaudisim_rreg(gdev, GAUDISIM_REG_ID);
	if (id != GAUDISIM_ID_MAGIC) {
		dev_err(dev, "not a gaudisim device: ID register reads 0x%08x, expected 0x%08x\n",
			id, GAUDISIM_ID_MAGIC);
		return -ENODEV;
	}

	gdev->hw_version = gaudisim_rreg(gdev, GAUDISIM_REG_VERSION);
	major = gdev->hw_version >> 16;
	minor = gdev->hw_version & 0xffff;
	if (major != GAUDISIM_HW_VERSION_MAJOR) {
		dev_err(dev, "unsupported hardware version %u.%u, this driver handles %u.x\n",
			major, minor, GAUDISIM_HW_VERSION_MAJOR);
		return -ENODEV;
	}

	if (gaudisim_rreg(gdev, GAUDISIM_REG_HW_STATE) == GAUDISIM_HW_STATE_DIRTY) {
		dev_info(dev, "device was left running by a previous driver instance, resetting it\n");
		rc = gaudisim_hw_reset(gdev);
		if (rc)
			return rc;
	}

	gdev->caps = gaudisim_rreg(gdev, GAUDISIM_REG_CAPS);
	if (!(gdev->caps & GAUDISIM_CAP_EXT_QUEUES)) {
		dev_err(dev, "device reports no external queues (CAPS 0x%08x)\n",
			gdev->caps);
		return -ENODEV;
	}

	gdev->hbm_size = gaudisim_rreg64(gdev, GAUDISIM_REG_HBM_SIZE_LO,
					 GAUDISIM_REG_HBM_SIZE_HI);
	gdev->hbm_reserved = gaudisim_rreg(gdev, GAUDISIM_REG_HBM_RESERVED);
	gdev->hbm_bar_size = gaudisim_rreg64(gdev, GAUDISIM_REG_HBM_BAR_SIZE_LO,
					     GAUDISIM_REG_HBM_BAR_SIZE_HI);
	gdev->sram_size = gaudisim_rreg(gdev, GAUDISIM_REG_SRAM_SIZE);
	gdev->engines = gaudisim_rreg(gdev, GAUDISIM_REG_ENGINES);
	rc = gaudisim_hw_check_sizes(gdev);
	if (rc)
		return rc;

	gdev->queue_mask[0] = gaudisim_rreg64(gdev, GAUDISIM_REG_QUEUE_MASK_LO,
					      GAUDISIM_REG_QUEUE_MASK_HI);
	gdev->queue_mask[1] = gaudisim_rreg64(gdev, GAUDISIM_REG_QUEUE_MASK_HI2,
					      GAUDISIM_REG_QUEUE_MASK_HI3) &
			      GENMASK_ULL(GAUDISIM_QUEUE_ID_SIZE - 64 - 1, 0);
	gdev->module_id = gaudisim_rreg(gdev, GAUDISIM_REG_MODULE_ID);
	gaudisim_hw_read_board(gdev);

	gdev->num_ext_queues = 0;
	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		if (gaudisim_queue_present(gdev, q))
			gdev->num_ext_queues++;
	if (!gdev->num_ext_queues) {
		dev_err(dev, "no external queue is present (QUEUE_MASK 0x%016llx)\n",
			gdev->queue_mask[0]);
		return -ENODEV;
	}

	return 0;
}

/* habanalabs' engine ID (enum gaudi_engine_id) of a gaudisim engine. */
u32 gaudisim_hl_engine_id(u32 engine)
{
	if (engine <= GAUDISIM_ENGINE_DMA_7)
		return GAUDISIM_HL_ENGINE_ID_DMA(engine);
	if (engine == GAUDISIM_ENGINE_MME)
		return GAUDISIM_HL_ENGINE_ID_MME_2;
	if (engine == GAUDISIM_ENGINE_MME_1)
		return GAUDISIM_HL_ENGINE_ID_MME_0;
	if (engine >= GAUDISIM_ENGINE_NIC_0)
		return GAUDISIM_HL_ENGINE_ID_NIC(engine - GAUDISIM_ENGINE_NIC_0);
	return GAUDISIM_HL_ENGINE_ID_TPC(engine - GAUDISIM_ENGINE_TPC_0);
}
