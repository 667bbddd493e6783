/* LAMB on the CPU in the device's operation order (ref_lamb.h). */
#include <math.h>

#include "ref_lamb.h"

#define REF_LAMB_CHUNK 4096u	/* elements per TPC member (lamb_sumsq_f32) */
#define REF_LAMB_LANES 64u	/* FP32 lanes of a TPC vector */

float ref_lamb_sumsq(const float *x, size_t n)
{
	float total = 0.0f;

	for (size_t c = 0; c < n; c += REF_LAMB_CHUNK) {
		size_t end = n - c < REF_LAMB_CHUNK ? n : c + REF_LAMB_CHUNK;
		float lane[REF_LAMB_LANES] = { 0 };

		for (size_t t = c; t < end; t += REF_LAMB_LANES)
			for (size_t j = 0; j < REF_LAMB_LANES && t + j < end; j++)
				lane[j] += x[t + j] * x[t + j];
		/* rsum: lane i += lane i + w, w = 32, 16, .., 1 */
		for (size_t w = REF_LAMB_LANES / 2; w; w /= 2)
			for (size_t i = 0; i < w; i++)
				lane[i] += lane[i + w];
		total += lane[0];
	}
	return total;
}

/* b^t as the kernel computes it: exp(t log b). */
static float ref_lamb_pow(float b, float t)
{
	return expf(logf(b) * t);
}

float ref_lamb_update(const struct ref_lamb_params *p, float lr, uint64_t updates,
		      float *w, const float *g, float *m, float *v, float *u, size_t count)
{
	float t = (float)(int32_t)(updates + 1);
	float c1 = 1.0f / (1.0f - ref_lamb_pow(p->beta1, t));
	float c2 = 1.0f / (1.0f - ref_lamb_pow(p->beta2, t));
	float omb1 = 1.0f - p->beta1, omb2 = 1.0f - p->beta2;
	float wnorm, unorm, ratio, step;

	/* lamb_moments_f32 */
	for (size_t i = 0; i < count; i++) {
		float mi = m[i] * p->beta1 + g[i] * omb1;
		float vi = v[i] * p->beta2 + g[i] * g[i] * omb2;
		float d = 1.0f / (sqrtf(vi * c2) + p->epsilon);

		m[i] = mi;
		v[i] = vi;
		u[i] = mi * c1 * d + w[i] * p->weight_decay;
	}
	/* lamb_sumsq_f32 and lamb_apply_f32 */
	wnorm = sqrtf(ref_lamb_sumsq(w, count));
	unorm = sqrtf(ref_lamb_sumsq(u, count));
	ratio = wnorm > 0.0f && unorm > 0.0f ? wnorm * (1.0f / unorm) : 1.0f;
	step = ratio * lr;
	for (size_t i = 0; i < count; i++)
		w[i] = w[i] - u[i] * step;
	return ratio;
}
