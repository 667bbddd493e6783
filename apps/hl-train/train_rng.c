/*
 * SplitMix64 (Steele, Lea, Flood 2014) and the draws built on it; see
 * train_rng.h for why both trainers share it.
 */
#include "train_rng.h"

void train_rng_seed(struct train_rng *rng, uint64_t seed)
{
	rng->state = seed;
}

uint64_t train_rng_next(struct train_rng *rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void train_rng_stream(struct train_rng *rng, uint64_t seed,
		      enum train_rng_stream stream, uint64_t epoch)
{
	/* Hash (seed, stream, epoch) into a starting state, so nearby seeds
	 * and epochs give unrelated sequences. */
	struct train_rng mix = { seed };
	uint64_t s = train_rng_next(&mix);

	mix.state = s ^ ((uint64_t)stream << 56) ^ epoch;
	train_rng_seed(rng, train_rng_next(&mix));
}

float train_rng_uniform(struct train_rng *rng)
{
	return (float)(train_rng_next(rng) >> 40) * (1.0f / 16777216.0f);
}

uint32_t train_rng_below(struct train_rng *rng, uint32_t bound)
{
	/* Reject the top partial copy of [0, bound) in the 32-bit range. */
	uint32_t limit = UINT32_MAX - UINT32_MAX % bound;
	uint32_t x;

	do
		x = (uint32_t)(train_rng_next(rng) >> 32);
	while (x >= limit);
	return x % bound;
}

void train_rng_shuffle(struct train_rng *rng, uint32_t *idx, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = train_rng_below(rng, i);
		uint32_t t = idx[i - 1];

		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}

void train_rng_epoch_order(uint64_t seed, uint64_t epoch, uint32_t *idx,
			   uint32_t n)
{
	struct train_rng rng;

	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	train_rng_stream(&rng, seed, TRAIN_RNG_SHUFFLE, epoch);
	train_rng_shuffle(&rng, idx, n);
}
