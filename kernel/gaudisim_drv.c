// SPDX-License-Identifier: GPL-2.0
/*
 * gaudisim: PCI driver, DRM accel registration, module parameters.
 *
 * Probe order: enable the function, map the register BAR, set the DMA
 * mask, identify the device (resetting it first if a previous driver
 * left it running), reset it, mark it DIRTY, set up the external queues
 * and their MSI-X vectors, then register the accel node and the control
 * node. Remove undoes it in reverse, resetting the device before any
 * memory the device could still DMA into is freed.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>

#include "gaudisim_cb.h"
#include "gaudisim_coredump.h"
#include "gaudisim_cs.h"
#include "gaudisim_ctrl.h"
#include "gaudisim_ctx.h"
#include "gaudisim_debug.h"
#include "gaudisim_debugfs.h"
#include "gaudisim_drv.h"
#include "gaudisim_eq.h"
#include "gaudisim_fdinfo.h"
#include "gaudisim_hw.h"
#include "gaudisim_hwmon.h"
#include "gaudisim_info.h"
#include "gaudisim_irq.h"
#include "gaudisim_mem.h"
#include "gaudisim_mmu.h"
#include "gaudisim_nic.h"
#include "gaudisim_queue.h"
#include "gaudisim_reset.h"
#include "gaudisim_sysfs.h"

unsigned int gaudisim_timeout_locked = 30;
module_param_named(timeout_locked, gaudisim_timeout_locked, uint, 0444);
MODULE_PARM_DESC(timeout_locked,
		 "Command submission timeout in seconds, 0 for none (default 30)");

bool gaudisim_reset_on_lockup = true;
module_param_named(reset_on_lockup, gaudisim_reset_on_lockup, bool, 0444);
MODULE_PARM_DESC(reset_on_lockup,
		 "Hard-reset the device when a command submission times out (default true)");

static int gaudisim_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct drm_file *file = filp->private_data;

	return gaudisim_cb_mmap(file->driver_priv, vma);
}

/* DRM_ACCEL_FOPS with our own mmap (CBs, not GEM objects). */
static const struct file_operations gaudisim_fops = {
	.owner = THIS_MODULE,
	.open = accel_open,
	.release = drm_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = gaudisim_mmap,
	.show_fdinfo = drm_show_fdinfo,
	.fop_flags = FOP_UNSIGNED_OFFSET,
};

static const struct drm_ioctl_desc gaudisim_ioctls[] = {
	DRM_IOCTL_DEF_DRV(GAUDISIM_INFO, gaudisim_info_ioctl, 0),
	DRM_IOCTL_DEF_DRV(GAUDISIM_CB, gaudisim_cb_ioctl, 0),
	DRM_IOCTL_DEF_DRV(GAUDISIM_CS, gaudisim_cs_ioctl, 0),
	DRM_IOCTL_DEF_DRV(GAUDISIM_WAIT_CS, gaudisim_wait_cs_ioctl, 0),
	DRM_IOCTL_DEF_DRV(GAUDISIM_MEMORY, gaudisim_mem_ioctl, 0),
	DRM_IOCTL_DEF_DRV(GAUDISIM_DEBUG, gaudisim_debug_ioctl, 0),
};

static const struct drm_driver gaudisim_drm_driver = {
	.driver_features = DRIVER_COMPUTE_ACCEL,
	.open = gaudisim_open,
	.postclose = gaudisim_postclose,
	.ioctls = gaudisim_ioctls,
	.num_ioctls = ARRAY_SIZE(gaudisim_ioctls),
	.fops = &gaudisim_fops,
	.show_fdinfo = gaudisim_show_fdinfo,
	.name = GAUDISIM_DRIVER_NAME,
	.desc = GAUDISIM_DRIVER_DESC,
	.major = 0,
	.minor = 1,
	.patchlevel = 0,
};

static int gaudisim_check_bar(struct pci_dev *pdev, int bar, resource_size_t min_len)
{
	unsigned long flags = pci_resource_flags(pdev, bar);

	if (!(flags & IORESOURCE_MEM) || !(flags & IORESOURCE_MEM_64) ||
	    pci_resource_len(pdev, bar) < min_len) {
		dev_err(&pdev->dev, "BAR %d is not a 64-bit memory BAR of at least %llu bytes\n",
			bar, (unsigned long long)min_len);
		return -ENODEV;
	}
	return 0;
}

static int gaudisim_pci_init(struct gaudisim_device *gdev)
{
	struct pci_dev *pdev = gdev->pdev;
	int rc;

	rc = pcim_enable_device(pdev);
	if (rc)
		return rc;

	rc = gaudisim_check_bar(pdev, GAUDISIM_BAR_CFG, GAUDISIM_CFG_BAR_SIZE);
	if (!rc)
		rc = gaudisim_check_bar(pdev, GAUDISIM_BAR_MSIX, 1);
	if (!rc)
		rc = gaudisim_check_bar(pdev, GAUDISIM_BAR_HBM, 1);
	if (rc)
		return rc;

	gdev->regs = pcim_iomap_region(pdev, GAUDISIM_BAR_CFG, GAUDISIM_DRIVER_NAME);
	if (IS_ERR(gdev->regs))
		return PTR_ERR(gdev->regs);
	/* Claimed now; the HBM window is mapped by later work. */
	rc = pcim_request_region(pdev, GAUDISIM_BAR_HBM, GAUDISIM_DRIVER_NAME);
	if (rc)
		return rc;

	pci_set_master(pdev);

	rc = dma_set_mask_and_coherent(&pdev->dev,
				       DMA_BIT_MASK(GAUDISIM_HOST_ADDR_BITS));
	if (rc)
		dev_err(&pdev->dev, "no usable %u-bit DMA mask\n",
			GAUDISIM_HOST_ADDR_BITS);
	return rc;
}

static void gaudisim_hbm_mm_fini(struct drm_device *drm, void *arg)
{
	struct gaudisim_device *gdev = arg;

	drm_mm_takedown(&gdev->hbm_mm);
}

static int gaudisim_sw_init(struct gaudisim_device *gdev)
{
	int rc;

	rc = drmm_mutex_init(&gdev->drm, &gdev->submit_lock);
	gaudisim_sigwait_init(gdev);
	if (!rc)
		rc = drmm_mutex_init(&gdev->drm, &gdev->open_lock);
	if (!rc)
		rc = drmm_mutex_init(&gdev->drm, &gdev->hbm_lock);
	if (!rc)
		rc = drmm_mutex_init(&gdev->drm, &gdev->notifier_lock);
	if (!rc)
		rc = drmm_mutex_init(&gdev->drm, &gdev->nic_lock);
	if (rc)
		return rc;
	spin_lock_init(&gdev->err_lock);
	INIT_LIST_HEAD(&gdev->notifiers);
	spin_lock_init(&gdev->cs_linger_lock);
	INIT_LIST_HEAD(&gdev->cs_linger);

	drm_mm_init(&gdev->hbm_mm, GAUDISIM_HBM_USER_BASE, gaudisim_hbm_user_size(gdev));
	rc = drmm_add_action_or_reset(&gdev->drm, gaudisim_hbm_mm_fini, gdev);
	if (rc)
		return rc;

	INIT_WORK(&gdev->reset_work, gaudisim_reset_work);
	return 0;
}

static void gaudisim_print_summary(struct gaudisim_device *gdev)
{
	u64 hbm = gdev->hbm_size;
	bool gib = IS_ALIGNED(hbm, SZ_1G);

	dev_info(&gdev->pdev->dev, "accel%d: %s %s, %llu %s HBM, %u external and %u internal queues, driver %s\n",
		 gdev->drm.accel->index, GAUDISIM_DRIVER_NAME, GAUDISIM_CARD_NAME,
		 gib ? hbm >> 30 : hbm >> 20, gib ? "GiB" : "MiB",
		 gdev->num_ext_queues, gdev->num_int_queues, GAUDISIM_DRIVER_VERSION);
}

static int gaudisim_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct gaudisim_device *gdev;
	int rc;

	gdev = devm_drm_dev_alloc(&pdev->dev, &gaudisim_drm_driver,
				  struct gaudisim_device, drm);
	if (IS_ERR(gdev))
		return PTR_ERR(gdev);
	gdev->pdev = pdev;
	gdev->status = GAUDISIM_DEVICE_STATUS_IN_DEVICE_CREATION;
	gaudisim_coredump_init(gdev);
	pci_set_drvdata(pdev, gdev);

	rc = gaudisim_pci_init(gdev);
	if (rc)
		return rc;

	rc = gaudisim_hw_identify(gdev);
	if (rc)
		return rc;

	rc = gaudisim_sw_init(gdev);
	if (rc)
		return rc;

	rc = gaudisim_hw_reset(gdev);
	if (rc)
		return rc;
	gaudisim_hw_mark_dirty(gdev);

	gdev->wq = alloc_ordered_workqueue("gaudisim-%s", 0, pci_name(pdev));
	if (!gdev->wq) {
		rc = -ENOMEM;
		goto err_reset;
	}

	rc = gaudisim_queues_init(gdev);
	if (!rc)
		rc = gaudisim_eq_init(gdev);
	if (!rc)
		rc = gaudisim_mmu_init(gdev);
	if (!rc)
		rc = gaudisim_rights_init(gdev);
	if (rc)
		goto err_destroy_wq;
	gaudisim_queues_hw_init(gdev);
	gaudisim_eq_hw_init(gdev);
	gaudisim_mmu_hw_init(gdev);
	gaudisim_nic_hw_init(gdev);
	gaudisim_rights_hw_init(gdev);

	rc = gaudisim_irq_init(gdev);
	if (rc)
		goto err_destroy_wq;
	rc = gaudisim_eq_irq_init(gdev);
	if (rc)
		goto err_irq_fini;

	mutex_lock(&gdev->submit_lock);
	gaudisim_set_status(gdev, GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	mutex_unlock(&gdev->submit_lock);

	rc = gaudisim_hwmon_init(gdev);
	if (rc) {
		dev_err(&pdev->dev, "cannot register the hwmon device: %d\n", rc);
		goto err_irq_fini;
	}

	rc = drm_dev_register(&gdev->drm, 0);
	if (rc)
		goto err_irq_fini;

	rc = gaudisim_ctrl_init(gdev);
	if (rc) {
		dev_err(&pdev->dev, "cannot create the control node: %d\n", rc);
		goto err_unregister;
	}

	/* A developer aid: the device works without it. */
	if (gaudisim_debugfs_init(gdev))
		dev_warn(&pdev->dev, "no debugfs files\n");

	gaudisim_print_summary(gdev);
	return 0;

err_unregister:
	drm_dev_unregister(&gdev->drm);
err_irq_fini:
	gaudisim_eq_fini(gdev);
	gaudisim_irq_fini(gdev);
err_destroy_wq:
	destroy_workqueue(gdev->wq);
err_reset:
	gaudisim_hw_reset(gdev);
	return rc;
}

static void gaudisim_remove(struct pci_dev *pdev)
{
	struct gaudisim_device *gdev = pci_get_drvdata(pdev);

	gaudisim_debugfs_fini(gdev);
	/* No ioctl, reset work or control request touches the device after this. */
	drm_dev_unplug(&gdev->drm);
	gaudisim_ctrl_fini(gdev);
	gaudisim_eq_fini(gdev);
	gaudisim_device_stop(gdev);
	gaudisim_irq_fini(gdev);
	/* Nothing runs on the device any more: no timeout is left to fire. */
	gaudisim_cs_flush_lingering(gdev, NULL);
	destroy_workqueue(gdev->wq);
	gaudisim_coredump_fini(gdev);
	gaudisim_mmu_fini(gdev);
}

/* Leave no DMA running across a reboot or kexec. */
static void gaudisim_shutdown(struct pci_dev *pdev)
{
	struct gaudisim_device *gdev = pci_get_drvdata(pdev);
	int idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return;
	gaudisim_hw_reset(gdev);
	drm_dev_exit(idx);
}

static const struct pci_device_id gaudisim_pci_ids[] = {
	{ PCI_DEVICE(GAUDISIM_PCI_VENDOR_ID, GAUDISIM_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, gaudisim_pci_ids);

static struct pci_driver gaudisim_pci_driver = {
	.name = GAUDISIM_DRIVER_NAME,
	.id_table = gaudisim_pci_ids,
	.probe = gaudisim_probe,
	.remove = gaudisim_remove,
	.shutdown = gaudisim_shutdown,
	.dev_groups = gaudisim_dev_groups,
};

static int __init gaudisim_init(void)
{
	int rc;

	rc = gaudisim_ctrl_module_init();
	if (rc)
		return rc;

	gaudisim_debugfs_module_init();
	rc = pci_register_driver(&gaudisim_pci_driver);
	if (rc) {
		gaudisim_debugfs_module_exit();
		gaudisim_ctrl_module_exit();
	}
	return rc;
}

static void __exit gaudisim_exit(void)
{
	pci_unregister_driver(&gaudisim_pci_driver);
	gaudisim_debugfs_module_exit();
	gaudisim_ctrl_module_exit();
}

module_init(gaudisim_init);
module_exit(gaudisim_exit);

MODULE_DESCRIPTION(GAUDISIM_DRIVER_DESC);
MODULE_LICENSE("GPL");
MODULE_VERSION(GAUDISIM_DRIVER_VERSION);
