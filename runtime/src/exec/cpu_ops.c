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

hlrt_status hlrt_cpu_equal(const struct rwork *w, const struct hlrt_recipe *r,
		      void *const *in, void *const *out)
{
	int32_t *c = out[0];
	uint64_t i, n = w->rows * w->cols;

	(void)r;
	if (strstr(w->guid, "i64")) {
		const int64_t *a = in[0], *b = in[1];

		for (i = 0; i < n; i++)
			c[i] = a[i] == b[i];
	} else {
		const int32_t *a = in[0], *b = in[1];

		for (i = 0; i < n; i++)
			c[i] = a[i] == b[i];
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
