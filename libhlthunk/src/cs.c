// SPDX-License-Identifier: MIT
/* CS and WAIT_CS ioctls: submitting jobs and waiting for them. */
#include <errno.h>
#include <stdint.h>

#include "hlthunk_internal.h"

static int cs_submit(int fd, const struct hlthunk_cs_in *in, struct hlthunk_cs_out *out,
		     uint32_t flags, uint32_t timeout)
{
	union gaudisim_cs_args args = { 0 };
	int rc;

	if (!in || !out)
		return -EINVAL;
	args.in.chunks_restore = hlthunk_ptr_to_u64(in->chunks_restore);
	args.in.chunks_execute = hlthunk_ptr_to_u64(in->chunks_execute);
	args.in.num_chunks_restore = in->num_chunks_restore;
	args.in.num_chunks_execute = in->num_chunks_execute;
	args.in.cs_flags = flags;
	args.in.timeout = timeout;
	rc = hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CS, &args);
	if (rc)
		return rc;
	out->seq = args.out.seq;
	out->status = args.out.status;
	out->sob_count_before_submission = args.out.sob_count_before_submission;
	return 0;
}

int hlthunk_command_submission(int fd, struct hlthunk_cs_in *in,
			       struct hlthunk_cs_out *out)
{
	if (!in)
		return -EINVAL;
	return cs_submit(fd, in, out, in->flags, in->timeout_s);
}

int hlthunk_command_submission_timeout(int fd, struct hlthunk_cs_in *in,
				       struct hlthunk_cs_out *out, uint32_t timeout)
{
	uint32_t flags;

	if (!in)
		return -EINVAL;
	flags = in->flags & ~GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT;
	if (timeout)
		flags |= GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT;
	return cs_submit(fd, in, out, flags, timeout);
}

int hlthunk_wait_for_cs_with_flags(int fd, uint64_t seq, uint64_t timeout_us,
				   uint32_t *status, uint32_t *flags, int64_t *timestamp_nsec)
{
	union gaudisim_wait_cs_args args = { 0 };
	int rc;

	args.in.seq = seq;
	args.in.timeout_us = timeout_us;
	rc = hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &args);
	/* TIMEDOUT and ABORTED come with an error rc but still carry a status. */
	if (rc && rc != -ETIMEDOUT && rc != -EIO)
		return rc;
	if (status)
		*status = args.out.status;
	if (flags)
		*flags = args.out.flags;
	if (timestamp_nsec)
		*timestamp_nsec = args.out.timestamp_nsec;
	return rc;
}

int hlthunk_wait_for_cs(int fd, uint64_t seq, uint64_t timeout_us, uint32_t *status)
{
	return hlthunk_wait_for_cs_with_flags(fd, seq, timeout_us, status, NULL, NULL);
}

int hlthunk_wait_for_cs_with_timestamp(int fd, uint64_t seq, uint64_t timeout_us,
				       uint32_t *status, uint64_t *timestamp)
{
	uint32_t flags = 0;
	int64_t ns = 0;
	int rc;

	if (!timestamp)
		return -EINVAL;
	rc = hlthunk_wait_for_cs_with_flags(fd, seq, timeout_us, status, &flags, &ns);
	*timestamp = (flags & GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD) ? (uint64_t)ns : 0;
	return rc;
}

static int hlthunk_wait_multi_cs_common(int fd, const struct hlthunk_wait_multi_cs_in *in,
					struct hlthunk_wait_multi_cs_out *out,
					union gaudisim_wait_cs_args *args)
{
	int rc;

	if (!in || !out)
		return -EINVAL;
	/* The ioctl's length is a byte: a larger one must not wrap into a valid one. */
	if (in->seq_len > UINT8_MAX)
		return -EINVAL;
	args->in.seq = hlthunk_ptr_to_u64(in->seq);
	args->in.timeout_us = in->timeout_us;
	args->in.seq_arr_len = (uint8_t)in->seq_len;
	args->in.flags = GAUDISIM_WAIT_CS_FLAGS_MULTI_CS;
	rc = hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_WAIT_CS, args);
	out->status = args->out.status;
	out->seq_set = rc ? 0 : args->out.cs_completion_map;
	out->completed = (uint8_t)__builtin_popcount(out->seq_set);
	return rc;
}

int hlthunk_wait_for_multi_cs(int fd, struct hlthunk_wait_multi_cs_in *in,
			      struct hlthunk_wait_multi_cs_out *out)
{
	union gaudisim_wait_cs_args args = { 0 };

	return hlthunk_wait_multi_cs_common(fd, in, out, &args);
}

int hlthunk_wait_for_multi_cs_with_timestamp(int fd, struct hlthunk_wait_multi_cs_in *in,
					     struct hlthunk_wait_multi_cs_out *out,
					     uint64_t *timestamp)
{
	union gaudisim_wait_cs_args args = { 0 };
	int rc;

	if (!timestamp)
		return -EINVAL;
	*timestamp = 0;
	rc = hlthunk_wait_multi_cs_common(fd, in, out, &args);
	if (!rc && (args.out.flags & GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD))
		*timestamp = (uint64_t)args.out.timestamp_nsec;
	return rc;
}
