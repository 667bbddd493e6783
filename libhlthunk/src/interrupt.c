// SPDX-License-Identifier: MIT
/* WAIT_CS on a user interrupt: hl-thunk's hlthunk_wait_for_interrupt*(). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hlthunk_internal.h"

int hlthunk_wait_for_interrupt_with_timestamp(int fd, void *addr, uint64_t target_value,
					      uint32_t interrupt_id, uint64_t timeout_us,
					      uint32_t *status, uint64_t *timestamp)
{
	const uint32_t shift = __builtin_ctz(GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_MASK);
	union gaudisim_wait_cs_args args;
	int rc;

	if (!addr || !status)
		return -EINVAL;
	/* An ID wider than the flag field must not alias a valid one. */
	if (interrupt_id != UINT32_MAX &&
	    interrupt_id > GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_MASK >> shift)
		return -EINVAL;

	memset(&args, 0, sizeof(args));
	args.in.addr = hlthunk_ptr_to_u64(addr);
	args.in.target = target_value;
	args.in.interrupt_timeout_us = timeout_us;
	args.in.flags = GAUDISIM_WAIT_CS_FLAGS_INTERRUPT;
	if (interrupt_id == UINT32_MAX)
		args.in.flags |= GAUDISIM_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT;
	else
		args.in.flags |= interrupt_id << shift;

	rc = hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &args);
	/*
	 * out shares its bytes with in: only an abort (EIO on reset, EINTR on
	 * a signal) comes with an answer; other failures leave in's bytes.
	 */
	if (rc && rc != -EIO && rc != -EINTR) {
		if (timestamp)
			*timestamp = 0;
		return rc;
	}
	*status = args.out.status;
	if (timestamp)
		*timestamp = (args.out.flags & GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD) ?
			     (uint64_t)args.out.timestamp_nsec : 0;
	return rc;
}

int hlthunk_wait_for_interrupt(int fd, void *addr, uint64_t target_value,
			       uint32_t interrupt_id, uint64_t timeout_us, uint32_t *status)
{
	return hlthunk_wait_for_interrupt_with_timestamp(fd, addr, target_value, interrupt_id,
							 timeout_us, status, NULL);
}
