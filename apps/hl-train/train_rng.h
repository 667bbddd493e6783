/*
 * The trainers' one source of randomness: a SplitMix64 generator, uniform
 * floats and integers drawn from it, and the Fisher-Yates shuffle. The
 * device trainer and the CPU reference both draw their initial weights
 * and their per-epoch sample order from here, so the same seed gives the
 * same run on both.
 */
#ifndef TRAIN_RNG_H
#define TRAIN_RNG_H

#include <stdint.h>

struct train_rng {
	uint64_t state;
};

/* Independent streams derived from the model's seed. */
enum train_rng_stream {
	TRAIN_RNG_INIT = 1,	/* weight initialisation */
	TRAIN_RNG_SHUFFLE = 2,	/* sample order; the epoch number is mixed in */
};

void train_rng_seed(struct train_rng *rng, uint64_t seed);
/* The generator for one stream (and epoch, for the shuffle) of a seed. */
void train_rng_stream(struct train_rng *rng, uint64_t seed,
		      enum train_rng_stream stream, uint64_t epoch);
uint64_t train_rng_next(struct train_rng *rng);
/* Uniform in [0, 1), 24 random bits: every value is an exact float. */
float train_rng_uniform(struct train_rng *rng);
/* Uniform in [0, bound), without modulo bias; bound > 0. */
uint32_t train_rng_below(struct train_rng *rng, uint32_t bound);
/* Fisher-Yates: a uniformly random permutation of idx[0..n). */
void train_rng_shuffle(struct train_rng *rng, uint32_t *idx, uint32_t n);
/* idx = 0..n-1 shuffled for one epoch of a seed (stateless per epoch,
 * so a run resumed at an epoch sees the order an uninterrupted one does). */
void train_rng_epoch_order(uint64_t seed, uint64_t epoch, uint32_t *idx,
			   uint32_t n);

#endif
