// SPDX-License-Identifier: MIT
/*
 * The environment, read here and nowhere else: one function per variable,
 * so each has one parser and one default. Every call reads the variable
 * anew, so a change between two calls takes effect.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hlrt_common.h"

/* A boolean ("1", "true", "yes", "on" or their opposites); dflt otherwise. */
static bool env_flag(const char *name, bool dflt)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return dflt;
	if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "on"))
		return true;
	if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "off"))
		return false;
	return dflt;
}

/* A decimal number; dflt when unset, malformed or (if !zero_ok) zero. */
static uint64_t env_u64(const char *name, uint64_t dflt, bool zero_ok)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return dflt;
	x = strtoull(v, &end, 10);
	return *end || (!x && !zero_ok) ? dflt : x;
}

bool hlrt_config_bf16(void)
{
	return env_flag("HLRT_BF16", false);
}

bool hlrt_config_lazy(void)
{
	return env_flag("HLRT_LAZY_MODE", true);
}

bool hlrt_config_log_placement(void)
{
	return env_flag("HLRT_LOG_DEVICE_PLACEMENT", false);
}

const char *hlrt_config_kernel_path(void)
{
	return getenv("HLRT_KERNEL_PATH");
}

const char *hlrt_config_profile(void)
{
	return getenv("HLRT_PROFILE");
}

const char *hlrt_config_visible_devices(void)
{
	return getenv("HABANA_VISIBLE_DEVICES");
}

const char *hlrt_config_visible_modules(void)
{
	return getenv("HABANA_VISIBLE_MODULES");
}

const char *hlrt_config_comm_dir(void)
{
	return getenv("HLRT_COMM_DIR");
}

uint64_t hlrt_config_comm_timeout_ms(void)
{
	return env_u64("HLRT_COMM_TIMEOUT_MS", 60000, false);
}

uint32_t hlrt_config_box_id(void)
{
	return (uint32_t)env_u64("HLRT_BOX_ID", 0, true);
}

/* "ring": every all-reduce takes the ring (for comparisons); else "auto". */
bool hlrt_config_coll_ring_only(void)
{
	const char *v = getenv("HLRT_COLL_ALGO");

	return v && !strcmp(v, "ring");
}

/* hlrt_set_log_placement() overrides HLRT_LOG_DEVICE_PLACEMENT. */
static int log_placement = -1;

void hlrt_set_log_placement(int enable)
{
	log_placement = enable ? 1 : 0;
}

bool hlrt_log_placement_enabled(void)
{
	if (log_placement < 0)
		return hlrt_config_log_placement();
	return log_placement != 0;
}
