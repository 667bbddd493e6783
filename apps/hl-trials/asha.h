/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous successive halving (ASHA), the scheduler of Ray Tune's
 * AsyncHyperBand: rungs at grace * eta^k epochs below max_t; a trial that
 * reaches a rung is stopped when its metric is worse than the (1 - 1/eta)
 * quantile of the metrics earlier trials recorded there, so about the top
 * 1/eta of each rung goes on. Decisions never wait for other trials.
 */
#ifndef HL_TRIALS_ASHA_H
#define HL_TRIALS_ASHA_H

#include <stdbool.h>
#include <stdint.h>

#define ASHA_MAX_RUNGS	16

enum asha_decision { ASHA_CONTINUE, ASHA_STOP };

struct asha_rung {
	uint32_t milestone;	/* epochs */
	double *values;		/* metrics recorded here, oriented: higher is better */
	uint32_t n, cap;
};

struct asha {
	uint32_t max_t, grace, eta;
	bool higher_better;
	uint32_t n_rungs;	/* ascending milestones */
	struct asha_rung rung[ASHA_MAX_RUNGS];
};

/*
 * max_t >= 1, 1 <= grace, eta >= 2. Returns 0, or -EINVAL for bad
 * parameters (and the reason in *why when why is not NULL).
 */
int asha_init(struct asha *a, uint32_t max_t, uint32_t grace, uint32_t eta,
	      bool higher_better, const char **why);
void asha_free(struct asha *a);

/*
 * A trial's metric after epoch t (each trial reports epochs in order).
 * At a rung the decision is made against what is recorded there and the
 * metric is recorded; elsewhere the trial continues. A NaN metric counts
 * as the worst possible. -ENOMEM is not a decision: on allocation failure
 * the trial continues unrecorded.
 */
enum asha_decision asha_report(struct asha *a, uint32_t t, double metric);

/*
 * The cutoff at rung k for the next arrival (oriented: higher is better),
 * false when nothing is recorded there yet.
 */
bool asha_cutoff(const struct asha *a, uint32_t k, double *cutoff);

#endif /* HL_TRIALS_ASHA_H */
