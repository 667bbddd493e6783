/* Parameter layout and initialisation (params.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "train_rng.h"

static void params_add(struct params *p, uint32_t layer, const char *lname,
		       const char *what, uint32_t ndims, const uint32_t *dims)
{
	struct params_tensor *t = &p->t[p->count++];

	snprintf(t->name, sizeof(t->name), "%s/%s", lname, what);
	t->layer = layer;
	t->ndims = ndims;
	t->count = 1;
	for (uint32_t i = 0; i < ndims; i++) {
		t->dims[i] = dims[i];
		t->count *= dims[i];
	}
	p->total += t->count;
}

/* BatchNormalization's tensors: gamma and beta (pass 0), the moving statistics (pass 1). */
static void params_add_bn(struct params *p, uint32_t i, const struct model_layer *l, int pass)
{
	if (pass == 0 && l->scale)
		params_add(p, i, l->name, "gamma", 1, &l->in.c);
	if (pass == 0 && l->center)
		params_add(p, i, l->name, "beta", 1, &l->in.c);
	if (pass == 1) {
		params_add(p, i, l->name, "moving_mean", 1, &l->in.c);
		params_add(p, i, l->name, "moving_variance", 1, &l->in.c);
	}
}

int params_layout(const struct model *m, struct params *p, struct train_err *err)
{
	memset(p, 0, sizeof(*p));
	for (uint32_t i = 0; i < m->nlayers; i++) {
		if (m->layers[i].kind == MODEL_BATCHNORM)
			params_add_bn(p, i, &m->layers[i], 0);
		const struct model_layer *l = &m->layers[i];

		if (l->kind == MODEL_DENSE) {
			uint32_t kdims[2] = { model_shape_size(&l->in), l->units };

			params_add(p, i, l->name, "kernel", 2, kdims);
			if (!l->no_bias)
				params_add(p, i, l->name, "bias", 1, &l->units);
		} else if (l->kind == MODEL_CONV2D) {
			uint32_t kdims[4] = { l->kernel[0], l->kernel[1], l->in.c, l->filters };

			params_add(p, i, l->name, "kernel", 4, kdims);
			if (!l->no_bias)
				params_add(p, i, l->name, "bias", 1, &l->filters);
		}
	}
	p->trainable = p->count;
	p->trainable_total = p->total;
	for (uint32_t i = 0; i < m->nlayers; i++)
		if (m->layers[i].kind == MODEL_BATCHNORM)
			params_add_bn(p, i, &m->layers[i], 1);
	if (p->trainable == 0)
		return train_err_set(err, "the model has no trainable layer");
	return 0;
}

int params_create(const struct model *m, struct params *p, struct train_err *err)
{
	float *at;

	if (params_layout(m, p, err))
		return -1;
	p->storage = calloc(p->total, sizeof(float));
	if (!p->storage)
		return train_err_set(err, "out of memory for %zu parameters", p->total);
	at = p->storage;
	for (uint32_t i = 0; i < p->count; i++) {
		p->t[i].data = at;
		at += p->t[i].count;
	}
	return 0;
}

int params_create_state(const struct model *m, struct params *s, struct train_err *err)
{
	const char *const *suffix;
	uint32_t slots = model_optimizer_slots(&m->train, &suffix);
	struct params layout;
	float *at;

	memset(s, 0, sizeof(*s));
	if (slots == 0)
		return 0;
	if (params_layout(m, &layout, err))
		return -1;
	for (uint32_t k = 0; k < slots; k++)
		for (uint32_t i = 0; i < layout.trainable; i++) {
			struct params_tensor *t = &s->t[s->count++];

			*t = layout.t[i];
			snprintf(t->name, sizeof(t->name), "%.55s/%s", layout.t[i].name, suffix[k]);
			s->total += t->count;
		}
	s->storage = calloc(s->total, sizeof(float));
	if (!s->storage)
		return train_err_set(err, "out of memory for %zu optimizer state values", s->total);
	at = s->storage;
	for (uint32_t i = 0; i < s->count; i++) {
		s->t[i].data = at;
		at += s->t[i].count;
	}
	return 0;
}

void params_init_glorot(const struct model *m, struct params *p)
{
	struct train_rng rng;

	train_rng_stream(&rng, m->train.seed, TRAIN_RNG_INIT, 0);
	for (uint32_t i = 0; i < p->count; i++) {
		struct params_tensor *t = &p->t[i];
		float fan_in, fan_out, limit;

		if (t->ndims == 1) {
			size_t n = strlen(t->name);
			bool one = (n > 6 && !strcmp(t->name + n - 6, "/gamma")) ||
				   (n > 16 && !strcmp(t->name + n - 16, "/moving_variance"));

			for (size_t j = 0; j < t->count; j++)
				t->data[j] = one ? 1.0f : 0.0f;
			continue;
		}
		if (t->ndims == 2) {
			fan_in = (float)t->dims[0];
			fan_out = (float)t->dims[1];
		} else {
			/* Keras: fans scale by the receptive field. */
			float rf = (float)t->dims[0] * (float)t->dims[1];

			fan_in = (float)t->dims[2] * rf;
			fan_out = (float)t->dims[3] * rf;
		}
		limit = sqrtf(6.0f / (fan_in + fan_out));
		for (size_t j = 0; j < t->count; j++)
			t->data[j] = (2.0f * train_rng_uniform(&rng) - 1.0f) * limit;
	}
}

struct params_tensor *params_find(struct params *p, uint32_t layer, int bias)
{
	for (uint32_t i = 0; i < p->count; i++)
		if (p->t[i].layer == layer && (p->t[i].ndims == 1) == !!bias)
			return &p->t[i];
	return NULL;
}

struct params_tensor *params_find_named(struct params *p, uint32_t layer, const char *what)
{
	for (uint32_t i = 0; i < p->count; i++) {
		const char *slash = strrchr(p->t[i].name, '/');

		if (p->t[i].layer == layer && slash && !strcmp(slash + 1, what))
			return &p->t[i];
	}
	return NULL;
}

void params_copy(struct params *dst, const struct params *src)
{
	memcpy(dst->storage, src->storage, src->total * sizeof(float));
	dst->updates = src->updates;
}

void params_free(struct params *p)
{
	free(p->storage);
	memset(p, 0, sizeof(*p));
}
