// SPDX-License-Identifier: MIT
/*
 * CPU fallback: host implementations of the ops the device cannot run
 * (INT64 outputs, ops without a kernel), and the switch of the placement
 * log that says where each op runs.
 */
#include <stdint.h>
#include <string.h>

#include "exec/exec.h"
#include "graph/ops.h"

hlrt_status hlrt_cpu_run(const struct hlrt_recipe *r, const struct rwork *w,
			 void *const *in, void *const *out)
{
	const struct op_def *op = hlrt_op_find(w->guid);

	if (!op || !op->cpu)
		return hlrt_fail(HLRT_INTERNAL, "%s has no host implementation", w->guid);
	return op->cpu(w, r, in, out);
}

/* out[r] = first index of the row maximum (NaN never wins, like the TPC kernel). */
hlrt_status hlrt_cpu_argmax(const struct rwork *w, const struct hlrt_recipe *r,
		       void *const *in, void *const *out)
{
	const float *x = in[0];
	bool i64 = strstr(w->guid, "i64") != NULL;
	uint64_t i, j;

	(void)r;
	for (i = 0; i < w->rows; i++) {
		const float *row = x + i * w->cols;
		uint64_t best = 0;

		for (j = 1; j < w->cols; j++)
			if (row[j] > row[best])
				best = j;
		if (i64)
			((int64_t *)out[0])[i] = (int64_t)best;
		else
			((int32_t *)out[0])[i] = (int32_t)best;
	}
	return HLRT_SUCCESS;
}

/* equal_{i32,i64}: c = a == b, the inputs read through the broadcast layout. */
hlrt_status hlrt_cpu_compare(const struct rwork *w, const struct hlrt_recipe *r,
			     void *const *in, void *const *out)
{
	struct hlrt_cpu_bcast b;
	bool i64 = strstr(w->guid, "i64") != NULL;
	uint32_t idx[HLRT_MAX_DIMS] = { 0 }, d;
	uint64_t off[2] = { 0, 0 }, i, n = 1;
	int32_t *c = out[0];

	(void)r;
	if (w->params_size != sizeof(b))
		return hlrt_fail(HLRT_INTERNAL, "%s: no broadcast layout", w->guid);
	memcpy(&b, w->params, sizeof(b));
	if (w->n_cin != 2 || w->n_cout != 1 || !b.ndims || b.ndims > HLRT_MAX_DIMS)
		return hlrt_fail(HLRT_BAD_FORMAT, "%s: malformed broadcast layout", w->guid);
	for (d = 0; d < b.ndims; d++)
		n *= b.dims[d];
	/* a recipe read from a file must not make the loop leave the buffers */
	for (i = 0; i < 2; i++) {
		uint64_t last = 0;

		for (d = 0; d < b.ndims; d++)
			last += (uint64_t)(b.dims[d] ? b.dims[d] - 1 : 0) * b.stride[i][d];
		if (!n || (last + 1) * (i64 ? 8 : 4) > w->cin_bytes[i] || n * 4 > w->cout_bytes[0])
			return hlrt_fail(HLRT_BAD_FORMAT, "%s: broadcast layout outside the operands",
					 w->guid);
	}
	for (i = 0; i < n; i++) {
		c[i] = i64 ? ((const int64_t *)in[0])[off[0]] == ((const int64_t *)in[1])[off[1]] :
			     ((const int32_t *)in[0])[off[0]] == ((const int32_t *)in[1])[off[1]];
		/* step the output coordinates, last dimension fastest */
		for (d = b.ndims; d-- > 0;) {
			off[0] += b.stride[0][d];
			off[1] += b.stride[1][d];
			if (++idx[d] < b.dims[d])
				break;
			off[0] -= (uint64_t)b.stride[0][d] * b.dims[d];
			off[1] -= (uint64_t)b.stride[1][d] * b.dims[d];
			idx[d] = 0;
		}
	}
	return HLRT_SUCCESS;
}

hlrt_status hlrt_cpu_cast(const struct rwork *w, const struct hlrt_recipe *r,
		     void *const *in, void *const *out)
{
	uint64_t i, n = w->rows * w->cols;

	(void)r;
	if (!strcmp(w->guid, "cast_i32_to_i64")) {
		const int32_t *a = in[0];
		int64_t *b = out[0];

		for (i = 0; i < n; i++)
			b[i] = a[i];
		return HLRT_SUCCESS;
	}
	if (!strcmp(w->guid, "cast_i64_to_i32")) {
		const int64_t *a = in[0];
		int32_t *b = out[0];

		for (i = 0; i < n; i++)
			b[i] = a[i] > INT32_MAX ? INT32_MAX : a[i] < INT32_MIN ? INT32_MIN :
			       (int32_t)a[i];
		return HLRT_SUCCESS;
	}
	return hlrt_fail(HLRT_INTERNAL, "%s: no host implementation", w->guid);
}
