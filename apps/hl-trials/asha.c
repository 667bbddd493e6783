// SPDX-License-Identifier: MIT
/* Asynchronous successive halving (asha.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asha.h"

int asha_init(struct asha *a, uint32_t max_t, uint32_t grace, uint32_t eta,
	      bool higher_better, const char **why)
{
	uint64_t m;
	const char *reason = NULL;

	memset(a, 0, sizeof(*a));
	if (max_t < 1)
		reason = "max_t must be at least 1";
	else if (grace < 1 || grace > max_t)
		reason = "the grace period must be in 1..max_t";
	else if (eta < 2)
		reason = "the reduction factor must be at least 2";
	if (reason) {
		if (why)
			*why = reason;
		return -EINVAL;
	}
	a->max_t = max_t;
	a->grace = grace;
	a->eta = eta;
	a->higher_better = higher_better;
	/* A rung at max_t would judge finished trials: the last rung is below it. */
	for (m = grace; m < max_t && a->n_rungs < ASHA_MAX_RUNGS; m *= eta)
		a->rung[a->n_rungs++].milestone = (uint32_t)m;
	return 0;
}

void asha_free(struct asha *a)
{
	uint32_t k;

	for (k = 0; k < a->n_rungs; k++)
		free(a->rung[k].values);
	memset(a, 0, sizeof(*a));
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

bool asha_cutoff(const struct asha *a, uint32_t k, double *cutoff)
{
	const struct asha_rung *r;
	double *sorted, pos, frac;
	size_t lo;

	if (k >= a->n_rungs || !a->rung[k].n)
		return false;
	r = &a->rung[k];
	sorted = malloc(r->n * sizeof(*sorted));
	if (!sorted)
		return false;
	memcpy(sorted, r->values, r->n * sizeof(*sorted));
	qsort(sorted, r->n, sizeof(*sorted), cmp_double);
	/* The (1 - 1/eta) quantile, interpolated linearly between ranks. */
	pos = (1.0 - 1.0 / a->eta) * (r->n - 1);
	lo = (size_t)pos;
	frac = pos - (double)lo;
	*cutoff = lo + 1 < r->n ? sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
	free(sorted);
	return true;
}

enum asha_decision asha_report(struct asha *a, uint32_t t, double metric)
{
	double v = a->higher_better ? metric : -metric, cutoff;
	enum asha_decision d = ASHA_CONTINUE;
	struct asha_rung *r = NULL;
	uint32_t k;

	for (k = 0; k < a->n_rungs; k++)
		if (a->rung[k].milestone == t)
			r = &a->rung[k];
	if (!r)
		return ASHA_CONTINUE;
	k = (uint32_t)(r - a->rung);
	if (isnan(v))
		v = -INFINITY;
	if (asha_cutoff(a, k, &cutoff) && v < cutoff)
		d = ASHA_STOP;
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? 2 * r->cap : 8;
		double *nv = realloc(r->values, cap * sizeof(*nv));

		if (!nv)
			return d;
		r->values = nv;
		r->cap = cap;
	}
	r->values[r->n++] = v;
	return d;
}
