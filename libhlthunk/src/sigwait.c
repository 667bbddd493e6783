// SPDX-License-Identifier: MIT
/* SIGNAL, WAIT and encapsulated-signal submissions: hl-thunk's entry points. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hlthunk_internal.h"

static int hlthunk_cs_one_chunk(int fd, const struct gaudisim_cs_chunk *chunk,
				void *chunks_restore, uint32_t num_chunks_restore,
				uint32_t flags, uint32_t timeout, union gaudisim_cs_args *args)
{
	memset(args, 0, sizeof(*args));
	args->in.chunks_restore = hlthunk_ptr_to_u64(chunks_restore);
	args->in.num_chunks_restore = num_chunks_restore;
	args->in.chunks_execute = hlthunk_ptr_to_u64(chunk);
	args->in.num_chunks_execute = 1;
	args->in.cs_flags = flags;
	if (timeout) {
		args->in.cs_flags |= GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT;
		args->in.timeout = timeout;
	}
	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CS, args);
}

int hlthunk_signal_submission_timeout(int fd, struct hlthunk_signal_in *in,
				      struct hlthunk_signal_out *out, uint32_t timeout)
{
	struct gaudisim_cs_chunk chunk;
	union gaudisim_cs_args args;
	int rc;

	if (!in || !out)
		return -EINVAL;
	memset(&chunk, 0, sizeof(chunk));
	chunk.queue_index = in->queue_index;
	rc = hlthunk_cs_one_chunk(fd, &chunk, in->chunks_restore, in->num_chunks_restore,
				  in->flags | GAUDISIM_CS_FLAGS_SIGNAL, timeout, &args);
	if (rc)
		return rc;
	if (args.out.status != GAUDISIM_CS_STATUS_SUCCESS)
		return -EINVAL;
	out->seq = args.out.seq;
	out->status = args.out.status;
	out->sob_base_addr_offset = args.out.sob_base_addr_offset;
	out->sob_count_before_submission = args.out.sob_count_before_submission;
	return 0;
}

int hlthunk_signal_submission(int fd, struct hlthunk_signal_in *in,
			      struct hlthunk_signal_out *out)
{
	return hlthunk_signal_submission_timeout(fd, in, out, 0);
}

static int hlthunk_wait_common(int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out,
			       uint32_t timeout, bool encaps)
{
	const struct hlthunk_wait_for_signal_data *data;
	struct gaudisim_cs_chunk chunk;
	union gaudisim_cs_args args;
	int rc;

	if (!in || !out || !in->hlthunk_wait_for_signal)
		return -EINVAL;
	/* One waiting queue per WAIT CS, as in hl-thunk. */
	if (in->num_wait_for_signal != 1)
		return -EINVAL;
	data = (const struct hlthunk_wait_for_signal_data *)in->hlthunk_wait_for_signal;
	memset(&chunk, 0, sizeof(chunk));
	chunk.queue_index = data->queue_index;
	if (encaps) {
		chunk.encaps_signal_seq = data->encaps_signal_seq;
		chunk.encaps_signal_offset = data->encaps_signal_offset;
	} else {
		chunk.signal_seq_arr = hlthunk_ptr_to_u64(data->signal_seq_arr);
		chunk.num_signal_seq_arr = data->signal_seq_nr;
	}
	rc = hlthunk_cs_one_chunk(fd, &chunk, in->chunks_restore, in->num_chunks_restore,
				  in->flags | GAUDISIM_CS_FLAGS_WAIT |
				  (encaps ? GAUDISIM_CS_FLAGS_ENCAP_SIGNALS : 0),
				  timeout, &args);
	if (rc)
		return rc;
	if (args.out.status != GAUDISIM_CS_STATUS_SUCCESS)
		return -EINVAL;
	out->seq = args.out.seq;
	out->status = args.out.status;
	return 0;
}

int hlthunk_wait_for_signal_timeout(int fd, struct hlthunk_wait_in *in,
				    struct hlthunk_wait_out *out, uint32_t timeout)
{
	return hlthunk_wait_common(fd, in, out, timeout, false);
}

int hlthunk_wait_for_signal(int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out)
{
	return hlthunk_wait_common(fd, in, out, 0, false);
}

int hlthunk_wait_for_reserved_encaps_signals(int fd, struct hlthunk_wait_in *in,
					     struct hlthunk_wait_out *out)
{
	return hlthunk_wait_common(fd, in, out, 0, true);
}

int hlthunk_reserve_encaps_signals(int fd, struct hlthunk_sig_res_in *in,
				   struct hlthunk_sig_res_out *out)
{
	union gaudisim_cs_args args;
	int rc;

	if (!in || !out)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.encaps_signals_q_idx = in->queue_index;
	args.in.encaps_signals_count = in->count;
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = GAUDISIM_CS_FLAGS_RESERVE_SIGNALS_ONLY;
	rc = hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CS, &args);
	if (rc)
		return rc;
	if (args.out.status != GAUDISIM_CS_STATUS_SUCCESS)
		return -EINVAL;
	out->handle.id = args.out.handle_id;
	out->handle.sob_base_addr_offset = args.out.sob_base_addr_offset;
	out->handle.count = args.out.count;
	out->status = args.out.status;
	return 0;
}

int hlthunk_unreserve_encaps_signals(int fd, struct reserve_sig_handle *handle,
				     uint32_t *status)
{
	union gaudisim_cs_args args;
	int rc;

	if (!handle || !status)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.encaps_sig_handle_id = handle->id;
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = GAUDISIM_CS_FLAGS_UNRESERVE_SIGNALS_ONLY;
	rc = hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CS, &args);
	if (rc)
		return rc;
	*status = args.out.status;
	return 0;
}
