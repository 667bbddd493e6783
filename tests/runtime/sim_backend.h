/* SPDX-License-Identifier: MIT */
/*
 * The in-process device for the runtime's host tests (sim_backend.c):
 * sim_install() makes libhlrt find one device that runs on the device
 * core linked into the test.
 */
#ifndef SIM_BACKEND_H
#define SIM_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "hlrt.h"

/* Device VAs the in-process backend hands out for pinned host memory. */
#define GAUDISIM_MMU_VA_BASE_FOR_SIM	0x2000000000000ull

struct sim_stats {
	uint64_t submissions, jobs, copy_bytes, hbm_allocs;
	uint64_t host_waits;		/* wait() calls: the host waiting for a CS */
	uint32_t hangs, device_errors;
};

void sim_install(void);
/*
 * n devices (modules 0..n-1) on one in-process NIC fabric; devices opened
 * from then on attach to it. Uninstall once every device is released.
 */
int sim_install_fabric(uint32_t n);
void sim_uninstall_fabric(void);
/* Cut (up false) or restore the link of a port of a module. */
int sim_fabric_set_link(uint32_t module, uint32_t port, bool up);
/* HBM of the device, for checks that look at device memory directly. */
uint8_t *sim_hbm(hlrt_device *dev);
/* Valid NIC receive registrations on dev's device. */
uint32_t sim_nic_registrations(hlrt_device *dev);
const struct sim_stats *sim_get_stats(void);

#endif /* SIM_BACKEND_H */
