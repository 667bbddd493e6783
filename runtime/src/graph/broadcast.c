// SPDX-License-Identifier: MIT
/*
 * NumPy broadcasting for the elementwise ops: the shape several operands
 * broadcast to (dimensions aligned at the end, each pair equal or one of
 * them 1), and how an operand is read at the result's coordinates (stride
 * 0 along the dimensions it is repeated in). Shape rules, lowering, the
 * CPU fallback and the gradients (which sum over those dimensions) share it.
 */
#include "graph/graph_internal.h"

bool hlrt_bcast_shape(const hlrt_tensor *const *t, uint32_t n, uint32_t *nd, uint64_t *dims)
{
	uint32_t i, d, k = 0;

	for (i = 0; i < n; i++)
		k = t[i]->ndims > k ? t[i]->ndims : k;
	for (d = 0; d < k; d++)
		dims[d] = 1;
	for (i = 0; i < n; i++) {
		uint32_t lead = k - t[i]->ndims;

		for (d = 0; d < t[i]->ndims; d++) {
			uint64_t v = t[i]->dims[d], *o = &dims[lead + d];

			if (v == *o || v == 1)
				continue;
			if (*o != 1)
				return false;
			*o = v;
		}
	}
	*nd = k;
	return true;
}

void hlrt_bcast_strides(const hlrt_tensor *in, uint32_t out_nd, const uint64_t *out_dims,
			uint64_t *stride)
{
	uint32_t lead = out_nd - in->ndims, d;
	uint64_t s = 1;

	for (d = out_nd; d-- > 0;) {
		uint64_t v = d < lead ? 1 : in->dims[d - lead];

		stride[d] = v == 1 && out_dims[d] != 1 ? 0 : s;
		s *= v;
	}
}

bool hlrt_bcast_is_plain(const hlrt_tensor *in, const hlrt_tensor *out)
{
	uint32_t i;

	if (in->ndims != out->ndims)
		return false;
	for (i = 0; i < in->ndims; i++)
		if (in->dims[i] != out->dims[i])
			return false;
	return true;
}
