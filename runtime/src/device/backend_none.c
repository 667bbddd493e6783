// SPDX-License-Identifier: MIT
/*
 * The default device provider of the runtime core without the driver
 * backend (the host tests' build): no devices until a test installs its
 * own provider with hlrt_set_backend_provider().
 */
#include <errno.h>

#include "device/device.h"

static int none_count(uint32_t *module_ids, uint32_t max)
{
	(void)module_ids;
	(void)max;
	return 0;
}

static int none_open(uint32_t index, struct hlrt_backend **be)
{
	(void)index;
	(void)be;
	return -ENODEV;
}

static const struct hlrt_backend_provider none_provider = {
	.count = none_count,
	.open = none_open,
};

const struct hlrt_backend_provider *hlrt_default_provider(void)
{
	return &none_provider;
}
