// SPDX-License-Identifier: GPL-2.0
/*
 * Control node /dev/accel/accel_controlDN: any number of processes may
 * open it, also while a compute user holds the device, and it serves the
 * INFO ioctl only. N is the index of the device's accel node.
 *
 * The node is a plain char device of our own region and class; the class
 * puts it next to the accel nodes in /dev/accel. It holds a reference on
 * the DRM device for as long as it exists, so an open control file can
 * outlive the PCI device and get ENODEV.
 */

#include <linux/cdev.h>
#include <linux/compat.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>

#include "gaudisim_ctrl.h"
#include "gaudisim_drv.h"
#include "gaudisim_info.h"
#include "gaudisim_sysfs.h"

#define GAUDISIM_CTRL_MAX_MINORS	ACCEL_MAX_MINORS

/**
 * struct gaudisim_ctrl - the control node of one device
 * @dev: its device in the gaudisim class
 * @cdev: its char device
 * @gdev: the gaudisim device (a reference on its DRM device)
 */
struct gaudisim_ctrl {
	struct device dev;
	struct cdev cdev;
	struct gaudisim_device *gdev;
};

static dev_t gaudisim_ctrl_devt;

static char *gaudisim_ctrl_devnode(const struct device *dev, umode_t *mode)
{
	/*
	 * Telemetry is not for every user: root and the group a udev rule
	 * names (scripts/udev), like the compute node.
	 */
	if (mode)
		*mode = 0660;
	return kasprintf(GFP_KERNEL, "accel/%s", dev_name(dev));
}

static const struct class gaudisim_ctrl_class = {
	.name = "gaudisim",
	.devnode = gaudisim_ctrl_devnode,
};

static int gaudisim_ctrl_open(struct inode *inode, struct file *filp)
{
	struct gaudisim_ctrl *ctrl = container_of(inode->i_cdev, struct gaudisim_ctrl, cdev);

	if (drm_dev_is_unplugged(&ctrl->gdev->drm))
		return -ENODEV;
	filp->private_data = ctrl->gdev;
	return nonseekable_open(inode, filp);
}

static long gaudisim_ctrl_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct gaudisim_device *gdev = filp->private_data;
	struct gaudisim_info_args args;
	int rc, idx;

	if (cmd != DRM_IOCTL_GAUDISIM_INFO)
		return -ENOTTY;
	if (copy_from_user(&args, (void __user *)arg, sizeof(args)))
		return -EFAULT;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	rc = gaudisim_info_query(gdev, NULL, &args);
	drm_dev_exit(idx);
	/* INFO is read-write: ENGINE_STATUS returns the bytes it wrote. */
	if (!rc && copy_to_user((void __user *)arg, &args, sizeof(args)))
		rc = -EFAULT;
	return rc;
}

static const struct file_operations gaudisim_ctrl_fops = {
	.owner = THIS_MODULE,
	.open = gaudisim_ctrl_open,
	.unlocked_ioctl = gaudisim_ctrl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static void gaudisim_ctrl_release(struct device *dev)
{
	struct gaudisim_ctrl *ctrl = container_of(dev, struct gaudisim_ctrl, dev);

	drm_dev_put(&ctrl->gdev->drm);
	kfree(ctrl);
}

/* Create the control node of @gdev; its accel node must be registered. */
int gaudisim_ctrl_init(struct gaudisim_device *gdev)
{
	int index = gdev->drm.accel->index;
	struct gaudisim_ctrl *ctrl;
	int rc;

	if (index >= GAUDISIM_CTRL_MAX_MINORS)
		return -ENOSPC;

	rc = gaudisim_sysfs_accel_node_init(gdev);
	if (rc)
		return rc;

	ctrl = kzalloc(sizeof(*ctrl), GFP_KERNEL);
	if (!ctrl)
		return -ENOMEM;

	drm_dev_get(&gdev->drm);
	ctrl->gdev = gdev;
	device_initialize(&ctrl->dev);
	ctrl->dev.devt = MKDEV(MAJOR(gaudisim_ctrl_devt), index);
	ctrl->dev.class = &gaudisim_ctrl_class;
	ctrl->dev.parent = gdev->drm.dev;
	ctrl->dev.release = gaudisim_ctrl_release;
	ctrl->dev.groups = gaudisim_node_groups;
	rc = dev_set_name(&ctrl->dev, "accel_controlD%d", index);
	if (rc)
		goto err_put;

	cdev_init(&ctrl->cdev, &gaudisim_ctrl_fops);
	ctrl->cdev.owner = THIS_MODULE;
	rc = cdev_device_add(&ctrl->cdev, &ctrl->dev);
	if (rc)
		goto err_put;

	gdev->ctrl = ctrl;
	return 0;

err_put:
	put_device(&ctrl->dev);
	return rc;
}

void gaudisim_ctrl_fini(struct gaudisim_device *gdev)
{
	struct gaudisim_ctrl *ctrl = gdev->ctrl;

	if (!ctrl)
		return;
	gdev->ctrl = NULL;
	cdev_device_del(&ctrl->cdev, &ctrl->dev);
	put_device(&ctrl->dev);
}

int gaudisim_ctrl_module_init(void)
{
	int rc;

	rc = alloc_chrdev_region(&gaudisim_ctrl_devt, 0, GAUDISIM_CTRL_MAX_MINORS,
				 "gaudisim_ctrl");
	if (rc)
		return rc;

	rc = class_register(&gaudisim_ctrl_class);
	if (rc) {
		unregister_chrdev_region(gaudisim_ctrl_devt, GAUDISIM_CTRL_MAX_MINORS);
		return rc;
	}
	return 0;
}

void gaudisim_ctrl_module_exit(void)
{
	class_unregister(&gaudisim_ctrl_class);
	unregister_chrdev_region(gaudisim_ctrl_devt, GAUDISIM_CTRL_MAX_MINORS);
}
