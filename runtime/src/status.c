// SPDX-License-Identifier: MIT
/*
 * Status codes, the per-thread last-error message, data-type helpers and
 * environment flags.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "hlrt_common.h"

static _Thread_local char last_error[512];

const char *hlrt_status_name(hlrt_status status)
{
	static const char *const names[] = {
		[HLRT_SUCCESS] = "HLRT_SUCCESS",
		[HLRT_INVALID_ARGUMENT] = "HLRT_INVALID_ARGUMENT",
		[HLRT_NO_DEVICE] = "HLRT_NO_DEVICE",
		[HLRT_DEVICE_BUSY] = "HLRT_DEVICE_BUSY",
		[HLRT_OUT_OF_DEVICE_MEMORY] = "HLRT_OUT_OF_DEVICE_MEMORY",
		[HLRT_OUT_OF_HOST_MEMORY] = "HLRT_OUT_OF_HOST_MEMORY",
		[HLRT_UNSUPPORTED] = "HLRT_UNSUPPORTED",
		[HLRT_NOT_READY] = "HLRT_NOT_READY",
		[HLRT_TIMEOUT] = "HLRT_TIMEOUT",
		[HLRT_DEVICE_ERROR] = "HLRT_DEVICE_ERROR",
		[HLRT_NOT_FOUND] = "HLRT_NOT_FOUND",
		[HLRT_IO_ERROR] = "HLRT_IO_ERROR",
		[HLRT_BAD_FORMAT] = "HLRT_BAD_FORMAT",
		[HLRT_INTERNAL] = "HLRT_INTERNAL",
	};

	if ((unsigned int)status < sizeof(names) / sizeof(names[0]) && names[status])
		return names[status];
	return "HLRT_UNKNOWN_STATUS";
}

const char *hlrt_last_error(void)
{
	return last_error;
}

const char *hlrt_version(void)
{
	return "0.1";
}

hlrt_status hlrt_fail(hlrt_status status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return status;
}

hlrt_status hlrt_fail_errno(int neg_errno, const char *what)
{
	int e = -neg_errno;
	hlrt_status st;

	switch (e) {
	case EBUSY:
		st = HLRT_DEVICE_BUSY;
		break;
	case ENOMEM:
	case ENOSPC:
		st = HLRT_OUT_OF_DEVICE_MEMORY;
		break;
	case ENODEV:
	case ENOENT:
	case ENXIO:
		st = HLRT_NO_DEVICE;
		break;
	case ETIMEDOUT:
		st = HLRT_TIMEOUT;
		break;
	case EIO:
		st = HLRT_DEVICE_ERROR;
		break;
	case EINVAL:
		st = HLRT_INVALID_ARGUMENT;
		break;
	default:
		st = HLRT_IO_ERROR;
		break;
	}
	return hlrt_fail(st, "%s: %s", what, strerror(e));
}

size_t hlrt_dtype_size(hlrt_dtype dtype)
{
	switch (dtype) {
	case HLRT_FP32:
	case HLRT_INT32:
	case HLRT_UINT32:
		return 4;
	case HLRT_BF16:
	case HLRT_INT16:
	case HLRT_UINT16:
		return 2;
	case HLRT_INT8:
	case HLRT_UINT8:
		return 1;
	case HLRT_INT64:
		return 8;
	}
	return 0;
}

const char *hlrt_dtype_suffix(hlrt_dtype dtype)
{
	switch (dtype) {
	case HLRT_FP32:
		return "f32";
	case HLRT_BF16:
		return "bf16";
	case HLRT_INT32:
		return "i32";
	case HLRT_UINT32:
		return "u32";
	case HLRT_INT8:
		return "i8";
	case HLRT_UINT8:
		return "u8";
	case HLRT_INT16:
		return "i16";
	case HLRT_UINT16:
		return "u16";
	case HLRT_INT64:
		return "i64";
	}
	return NULL;
}

const char *hlrt_engine_name(enum hlrt_engine e)
{
	switch (e) {
	case ENG_MME:
		return "MME";
	case ENG_TPC:
		return "TPC";
	case ENG_DMA:
		return "DMA";
	case ENG_CPU:
		return "CPU";
	default:
		return "view";
	}
}

uint64_t hlrt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
