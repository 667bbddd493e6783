/* Shape inference and naming for the layer stack of a model (model.h). */
#include <stdio.h>

#include <string.h>

#include "model.h"

bool model_activation_kind(const char *name, enum model_layer_kind *kind, bool *none)
{
	*none = strcmp(name, "linear") == 0;
	if (!strcmp(name, "relu"))
		*kind = MODEL_RELU;
	else if (!strcmp(name, "tanh"))
		*kind = MODEL_TANH;
	else if (!strcmp(name, "sigmoid"))
		*kind = MODEL_SIGMOID;
	else if (!strcmp(name, "softmax"))
		*kind = MODEL_SOFTMAX;
	else
		return *none;
	return true;
}

const char *model_optimizer_name(enum model_optimizer opt)
{
	switch (opt) {
	case MODEL_OPT_SGD:
		return "sgd";
	case MODEL_OPT_LAMB:
		return "lamb";
	case MODEL_OPT_ADAM:
		return "adam";
	case MODEL_OPT_ADAMW:
		return "adamw";
	case MODEL_OPT_ADAGRAD:
		return "adagrad";
	}
	return "?";
}

uint32_t model_optimizer_slots(const struct model_training *t, const char *const **suffix)
{
	static const char *const sgd[] = { "momentum" }, *const adam[] = { "m", "v" };
	static const char *const adagrad[] = { "accum" };

	switch (t->optimizer) {
	case MODEL_OPT_LAMB:
	case MODEL_OPT_ADAM:
	case MODEL_OPT_ADAMW:
		*suffix = adam;
		return 2;
	case MODEL_OPT_ADAGRAD:
		*suffix = adagrad;
		return 1;
	case MODEL_OPT_SGD:
		break;
	}
	*suffix = sgd;
	return t->momentum != 0.0f ? 1 : 0;
}

bool model_optimizer_counts_updates(const struct model_training *t)
{
	return t->optimizer == MODEL_OPT_LAMB || t->optimizer == MODEL_OPT_ADAM ||
	       t->optimizer == MODEL_OPT_ADAMW;
}

const char *model_layer_kind_name(enum model_layer_kind kind)
{
	/* Keras's default layer names. */
	switch (kind) {
	case MODEL_FLATTEN:
		return "flatten";
	case MODEL_DENSE:
		return "dense";
	case MODEL_RELU:
		return "re_lu";
	case MODEL_CONV2D:
		return "conv2d";
	case MODEL_MAXPOOL2D:
		return "max_pooling2d";
	case MODEL_LAMBDA:
		return "lambda";
	case MODEL_TANH:
		return "tanh";
	case MODEL_SIGMOID:
		return "sigmoid";
	case MODEL_SOFTMAX:
		return "softmax";
	case MODEL_DROPOUT:
		return "dropout";
	case MODEL_BATCHNORM:
		return "batch_normalization";
	}
	return "?";
}

uint32_t model_dropout_seed(const struct model *m, uint32_t layer)
{
	const struct model_layer *l = &m->layers[layer];
	uint64_t h = m->train.seed * 0x9e3779b97f4a7c15ull + layer + 1;

	return l->seed_given ? l->seed : (uint32_t)(h ^ (h >> 32));
}

bool model_has_layer(const struct model *m, enum model_layer_kind kind)
{
	for (uint32_t i = 0; i < m->nlayers; i++)
		if (m->layers[i].kind == kind)
			return true;
	return false;
}

uint32_t model_shape_size(const struct model_shape *s)
{
	return s->c * s->h * s->w;
}

/*
 * Output extent of a window of size K, stride S over N: "valid" takes
 * whole windows; "same" (TensorFlow's rule) gives ceil(N / S) with
 * max((out - 1) * S + K - N, 0) padding, the smaller half before.
 */
static int model_window(uint32_t n, uint32_t k, uint32_t s, bool same, uint32_t *out,
			uint32_t *before, uint32_t *after)
{
	uint32_t total;

	*before = *after = 0;
	if (!same) {
		if (n < k)
			return -1;
		*out = (n - k) / s + 1;
		return 0;
	}
	*out = (n + s - 1) / s;
	total = (*out - 1) * s + k > n ? (*out - 1) * s + k - n : 0;
	*before = total / 2;
	*after = total - *before;
	return 0;
}

int model_infer_shapes(struct model *m, uint32_t classes, struct train_err *err)
{
	struct model_shape cur = m->input;
	struct model_layer *last;
	bool vector = false;	/* after a Flatten or Dense */

	for (uint32_t i = 0; i < m->nlayers; i++) {
		struct model_layer *l = &m->layers[i];

		l->in = cur;
		if (vector && (l->kind == MODEL_CONV2D || l->kind == MODEL_MAXPOOL2D))
			return train_err_set(err, "layer %s: %s needs an image input, not a vector",
					     l->name, model_layer_kind_name(l->kind));
		vector |= l->kind == MODEL_FLATTEN || l->kind == MODEL_DENSE;
		switch (l->kind) {
		case MODEL_FLATTEN:
			cur = (struct model_shape){ .h = 1, .w = 1, .c = model_shape_size(&cur) };
			break;
		case MODEL_DENSE:
			if (cur.h != 1 || cur.w != 1)
				return train_err_set(err,
					"layer %s: Dense needs a vector input (got %ux%ux%u; add a Flatten)",
					l->name, cur.h, cur.w, cur.c);
			cur = (struct model_shape){ .h = 1, .w = 1, .c = l->units };
			break;
		case MODEL_RELU:
		case MODEL_TANH:
		case MODEL_SIGMOID:
		case MODEL_SOFTMAX:
		case MODEL_DROPOUT:
		case MODEL_BATCHNORM:
			break;
		case MODEL_LAMBDA:
			if (cur.h != 1 || cur.w != 1)
				return train_err_set(err,
					"layer %s: Lambda needs a vector input (got %ux%ux%u)",
					l->name, cur.h, cur.w, cur.c);
			break;
		case MODEL_CONV2D:
		case MODEL_MAXPOOL2D: {
			uint32_t oh, ow;

			/* the device's pooling walks one stride for both axes */
			if (l->kind == MODEL_MAXPOOL2D && l->stride[0] != l->stride[1])
				return train_err_set(err,
					"layer %s (MaxPooling2D): strides %ux%u must be equal",
					l->name, l->stride[0], l->stride[1]);
			if (model_window(cur.h, l->kernel[0], l->stride[0], l->same, &oh, &l->pad[0],
					 &l->pad_end[0]) ||
			    model_window(cur.w, l->kernel[1], l->stride[1], l->same, &ow, &l->pad[1],
					 &l->pad_end[1]))
				return train_err_set(err,
					"layer %s (%s): %ux%u window does not fit the %ux%u input",
					l->name, l->kind == MODEL_CONV2D ? "Conv2D" : "MaxPooling2D",
					l->kernel[0], l->kernel[1], cur.h, cur.w);
			cur = (struct model_shape){
				.h = oh, .w = ow,
				.c = l->kind == MODEL_CONV2D ? l->filters : cur.c,
			};
			break;
		}
		}
		l->out = cur;
		if ((uint64_t)cur.c * cur.h * cur.w > (1u << 24))
			return train_err_set(err, "layer %s: activation too large", l->name);
	}
	last = &m->layers[m->nlayers - 1];
	if (last->out.h != 1 || last->out.w != 1 || last->out.c != classes)
		return train_err_set(err,
			"the last layer (%s) yields %ux%ux%u values; the loss needs %u logits",
			last->name, last->out.h, last->out.w, last->out.c, classes);
	return 0;
}
