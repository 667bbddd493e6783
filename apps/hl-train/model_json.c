/*
 * Model files: the JSON description of a model (layers and training
 * block) parsed with jansson into struct model. Every key is checked, so a
 * misspelt one is an error rather than a silently ignored default.
 *
 *   { "name": "seed", "input_shape": [28, 28],
 *     "layers": [ { "type": "Flatten" }, { "type": "Dense", "units": 10 } ],
 *     "training": { "loss": "sparse_categorical_crossentropy", "from_logits": true,
 *                   "optimizer": { "type": "sgd", "learning_rate": 0.01 },
 *                   "batch_size": 128, "epochs": 5, "seed": 1,
 *                   "steps_per_execution": 8 } }
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

struct model_json_ctx {
	const char *source;
	struct train_err *err;
};

static int model_json_fail(struct model_json_ctx *cx, const char *where,
			   const char *what)
{
	return train_err_set(cx->err, "%s: %s: %s", cx->source, where, what);
}

/* Reject keys outside ALLOWED (a NULL-terminated list). */
static int model_json_keys(struct model_json_ctx *cx, json_t *obj,
			   const char *where, const char *const *allowed)
{
	const char *key;
	json_t *val;
	char msg[160];

	json_object_foreach(obj, key, val) {
		size_t i;

		for (i = 0; allowed[i]; i++)
			if (strcmp(key, allowed[i]) == 0)
				break;
		if (!allowed[i]) {
			snprintf(msg, sizeof(msg), "unknown key \"%s\"", key);
			return model_json_fail(cx, where, msg);
		}
	}
	return 0;
}

/* An optional positive integer no larger than MAX; DEF when absent. */
static int model_json_uint(struct model_json_ctx *cx, json_t *obj,
			   const char *key, const char *where, uint32_t def,
			   uint32_t max, uint32_t *out)
{
	json_t *v = json_object_get(obj, key);
	char path[128], msg[96];

	*out = def;
	if (!v) {
		if (def)
			return 0;
		snprintf(msg, sizeof(msg), "missing \"%s\"", key);
		return model_json_fail(cx, where, msg);
	}
	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > max) {
		snprintf(msg, sizeof(msg), "must be an integer in 1..%u", max);
		return model_json_fail(cx, path, msg);
	}
	*out = (uint32_t)json_integer_value(v);
	return 0;
}

/* An integer or a pair [a, b] (kernel sizes, strides); DEF when absent. */
static int model_json_pair(struct model_json_ctx *cx, json_t *obj,
			   const char *key, const char *where, uint32_t def,
			   uint32_t out[2])
{
	json_t *v = json_object_get(obj, key);
	char path[128];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!v) {
		if (!def)
			return model_json_fail(cx, path, "missing");
		out[0] = out[1] = def;
		return 0;
	}
	if (json_is_integer(v)) {
		json_int_t x = json_integer_value(v);

		if (x < 1 || x > 64)
			return model_json_fail(cx, path, "must be in 1..64");
		out[0] = out[1] = (uint32_t)x;
		return 0;
	}
	if (json_is_array(v) && json_array_size(v) == 2) {
		for (size_t i = 0; i < 2; i++) {
			json_t *e = json_array_get(v, i);

			if (!json_is_integer(e) || json_integer_value(e) < 1 ||
			    json_integer_value(e) > 64)
				return model_json_fail(cx, path,
					"must be an integer or [h, w], each in 1..64");
			out[i] = (uint32_t)json_integer_value(e);
		}
		return 0;
	}
	return model_json_fail(cx, path, "must be an integer or [h, w]");
}

static int model_json_number(struct model_json_ctx *cx, json_t *obj,
			     const char *key, const char *where, double def,
			     double lo, double hi, float *out)
{
	json_t *v = json_object_get(obj, key);
	char path[128], msg[96];
	double x;

	*out = (float)def;
	if (!v)
		return 0;
	snprintf(path, sizeof(path), "%s.%s", where, key);
	x = json_number_value(v);
	if (!json_is_number(v) || !isfinite(x) || x < lo || x > hi) {
		snprintf(msg, sizeof(msg), "must be a number in [%g, %g]", lo, hi);
		return model_json_fail(cx, path, msg);
	}
	*out = (float)x;
	return 0;
}

static int model_json_bool(struct model_json_ctx *cx, json_t *obj,
			   const char *key, const char *where, bool *out)
{
	json_t *v = json_object_get(obj, key);
	char path[128];

	if (!v)
		return 0;
	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!json_is_boolean(v))
		return model_json_fail(cx, path, "must be true or false");
	*out = json_is_true(v);
	return 0;
}

static int model_json_add_layer(struct model_json_ctx *cx, struct model *m,
				enum model_layer_kind kind, const char *name,
				const char *where, struct model_layer **out)
{
	struct model_layer *l;
	unsigned int same = 0;

	if (m->nlayers == MODEL_MAX_LAYERS)
		return model_json_fail(cx, where, "too many layers");
	l = &m->layers[m->nlayers++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	if (name) {
		snprintf(l->name, sizeof(l->name), "%.*s", MODEL_NAME_LEN - 1, name);
	} else {
		/* Keras's automatic names: dense, dense_1, ... */
		for (uint32_t i = 0; i + 1 < m->nlayers; i++)
			same += m->layers[i].kind == kind;
		if (same)
			snprintf(l->name, sizeof(l->name), "%s_%u",
				 model_layer_kind_name(kind), same);
		else
			snprintf(l->name, sizeof(l->name), "%s",
				 model_layer_kind_name(kind));
	}
	*out = l;
	return 0;
}

/* "activation": "relu" appends a ReLU layer, as Keras applies it after. */
static int model_json_activation(struct model_json_ctx *cx, struct model *m,
				 json_t *obj, const char *where,
				 const char *layer_name)
{
	json_t *v = json_object_get(obj, "activation");
	struct model_layer *relu;
	char path[128], name[MODEL_NAME_LEN + 8];
	enum model_layer_kind kind;
	bool none;
	const char *s;

	if (!v)
		return 0;
	snprintf(path, sizeof(path), "%s.activation", where);
	s = json_string_value(v);
	if (!s)
		return model_json_fail(cx, path, "must be a string");
	if (!model_activation_kind(s, &kind, &none))
		return model_json_fail(cx, path,
				       "must be \"relu\", \"tanh\", \"sigmoid\", \"softmax\" or \"linear\"");
	if (none)
		return 0;
	snprintf(name, sizeof(name), "%.*s/%s", MODEL_NAME_LEN - 9, layer_name, s);
	return model_json_add_layer(cx, m, kind, name, path, &relu);
}

/*
 * Keras's Activation layer: "relu" is a ReLU layer, "linear" the identity
 * (no layer); its only keys are "type", "name" and "activation".
 */
static int model_json_activation_layer(struct model_json_ctx *cx, struct model *m,
				       json_t *obj, const char *where, const char *label)
{
	static const char *const keys[] = { "type", "name", "activation", NULL };
	json_t *name = json_object_get(obj, "name");
	const char *act, *n = NULL;
	enum model_layer_kind kind;
	struct model_layer *l;
	char path[96];
	bool none;

	if (model_json_keys(cx, obj, label, keys))
		return -1;
	snprintf(path, sizeof(path), "%s.activation", where);
	act = json_string_value(json_object_get(obj, "activation"));
	if (!act)
		return model_json_fail(cx, path, "missing, or not a string");
	if (name) {
		n = json_string_value(name);
		if (!n || !*n || strlen(n) >= MODEL_NAME_LEN || strpbrk(n, "\"\\/"))
			return model_json_fail(cx, where,
				"\"name\" must be a non-empty string of at most 47 characters without '\"', '\\' or '/'");
	}
	if (!model_activation_kind(act, &kind, &none))
		return model_json_fail(cx, path,
				       "must be \"relu\", \"tanh\", \"sigmoid\", \"softmax\" or \"linear\"");
	if (none)
		return 0;
	return model_json_add_layer(cx, m, kind, n, where, &l);
}

/* "padding": "valid" (the default) or "same" (the amounts follow from the input's size). */
static int model_json_padding(struct model_json_ctx *cx, json_t *obj, const char *label,
			      struct model_layer *l)
{
	json_t *v = json_object_get(obj, "padding");
	const char *padding = json_string_value(v);

	if (v && (!padding || (strcmp(padding, "valid") && strcmp(padding, "same"))))
		return model_json_fail(cx, label, "\"padding\" must be \"valid\" or \"same\"");
	l->same = padding && strcmp(padding, "same") == 0;
	return 0;
}

static int model_json_layer(struct model_json_ctx *cx, struct model *m,
			    json_t *obj, size_t index)
{
	static const char *const keys[] = {
		"type", "name", "units", "activation", "filters", "kernel_size",
		"strides", "padding", "pool_size", "function", "use_bias", "axis", "rate", "seed",
		"momentum", "epsilon", "center", "scale", NULL
	};
	static const struct {
		const char *type;
		enum model_layer_kind kind;
	} types[] = {
		{ "Flatten", MODEL_FLATTEN }, { "Dense", MODEL_DENSE },
		{ "ReLU", MODEL_RELU }, { "Conv2D", MODEL_CONV2D },
		{ "MaxPool2D", MODEL_MAXPOOL2D }, { "MaxPooling2D", MODEL_MAXPOOL2D },
		{ "Lambda", MODEL_LAMBDA }, { "Softmax", MODEL_SOFTMAX },
		{ "Dropout", MODEL_DROPOUT }, { "BatchNormalization", MODEL_BATCHNORM },
	};
	char where[64], label[112], msg[160];
	const char *type, *name = NULL;
	struct model_layer *l = NULL;
	size_t t;

	snprintf(where, sizeof(where), "layers[%zu]", index);
	if (!json_is_object(obj))
		return model_json_fail(cx, where, "must be an object");
	type = json_string_value(json_object_get(obj, "type"));
	/* key errors name the layer's type too: layers[3] (Dense): unknown key "rate" */
	snprintf(label, sizeof(label), "%s (%.40s)", where, type ? type : "no type");
	if (type && strcmp(type, "Activation") == 0)
		return model_json_activation_layer(cx, m, obj, where, label);
	if (model_json_keys(cx, obj, label, keys))
		return -1;
	if (!type)
		return model_json_fail(cx, where, "needs a \"type\" string");
	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		if (strcmp(type, types[t].type) == 0)
			break;
	if (t == sizeof(types) / sizeof(types[0])) {
		snprintf(msg, sizeof(msg),
			 "unknown layer type \"%s\" (Flatten, Dense, ReLU, Activation, Conv2D, "
			 "MaxPool2D, MaxPooling2D, Lambda, Softmax, Dropout, BatchNormalization)",
			 type);
		return model_json_fail(cx, where, msg);
	}
	if (json_object_get(obj, "name")) {
		name = json_string_value(json_object_get(obj, "name"));
		if (!name || !*name || strlen(name) >= MODEL_NAME_LEN ||
		    strpbrk(name, "\"\\/"))
			return model_json_fail(cx, where,
				"\"name\" must be a non-empty string of at most 47 characters without '\"', '\\' or '/'");
	}
	if (model_json_add_layer(cx, m, types[t].kind, name, where, &l))
		return -1;
	switch (l->kind) {
	case MODEL_DENSE:
		if (model_json_uint(cx, obj, "units", where, 0, 1u << 16, &l->units))
			return -1;
		break;
	case MODEL_CONV2D:
		if (model_json_uint(cx, obj, "filters", where, 0, 1024, &l->filters) ||
		    model_json_pair(cx, obj, "kernel_size", where, 0, l->kernel) ||
		    model_json_pair(cx, obj, "strides", where, 1, l->stride))
			return -1;
		if (model_json_padding(cx, obj, label, l))
			return -1;
		break;
	case MODEL_MAXPOOL2D:
		if (model_json_pair(cx, obj, "pool_size", where, 2, l->kernel) ||
		    model_json_pair(cx, obj, "strides", where, l->kernel[0], l->stride) ||
		    model_json_padding(cx, obj, label, l))
			return -1;
		if (!json_object_get(obj, "strides")) {	/* Keras: strides = pool_size */
			l->stride[0] = l->kernel[0];
			l->stride[1] = l->kernel[1];
		}
		break;
	case MODEL_LAMBDA: {
		const char *fn = json_string_value(json_object_get(obj, "function"));
		char path[96], why[128];

		snprintf(path, sizeof(path), "%s.function", where);
		if (!fn)
			return model_json_fail(cx, path, "missing, or not a string");
		if (lambda_parse(fn, &l->expr, why, sizeof(why)))
			return model_json_fail(cx, path, why);
		break;
	}
	case MODEL_SOFTMAX: {
		/* Keras's default; the device's softmax_fwd_f32 works on the last axis */
		json_t *axis = json_object_get(obj, "axis");

		if (axis && (!json_is_integer(axis) || json_integer_value(axis) != -1))
			return model_json_fail(cx, where, "\"axis\" must be -1 (the last axis)");
		break;
	}
	case MODEL_DROPOUT: {
		json_t *rate = json_object_get(obj, "rate"), *seed = json_object_get(obj, "seed");

		if (!rate)
			return model_json_fail(cx, label, "missing \"rate\"");
		if (model_json_number(cx, obj, "rate", label, 0.0, 0.0, 0.999, &l->rate))
			return -1;
		if (seed && (!json_is_integer(seed) || json_integer_value(seed) < 0 ||
			     json_integer_value(seed) > UINT32_MAX))
			return model_json_fail(cx, label,
					       "\"seed\" must be an integer in 0..4294967295");
		l->seed_given = seed != NULL;
		l->seed = seed ? (uint32_t)json_integer_value(seed) : 0;
		break;
	}
	case MODEL_BATCHNORM: {
		json_t *axis = json_object_get(obj, "axis");

		/* Keras's defaults */
		l->center = l->scale = true;
		if (axis && (!json_is_integer(axis) || json_integer_value(axis) != -1))
			return model_json_fail(cx, label,
					       "\"axis\" must be -1 (the channels, the last axis)");
		if (model_json_number(cx, obj, "momentum", label, 0.99, 0.0, 1.0, &l->momentum) ||
		    model_json_number(cx, obj, "epsilon", label, 0.001, 1e-12, 1.0, &l->epsilon) ||
		    model_json_bool(cx, obj, "center", label, &l->center) ||
		    model_json_bool(cx, obj, "scale", label, &l->scale))
			return -1;
		break;
	}
	case MODEL_FLATTEN:
	case MODEL_RELU:
	case MODEL_TANH:
	case MODEL_SIGMOID:
		break;
	}
	/* Keys that belong to another layer type are mistakes, not options. */
	for (size_t k = 2; keys[k]; k++) {
		static const char *const own[][8] = {
			[MODEL_FLATTEN] = { NULL },
			[MODEL_DENSE] = { "units", "activation", "use_bias", NULL },
			[MODEL_RELU] = { NULL },
			[MODEL_CONV2D] = { "filters", "kernel_size", "strides",
					   "padding", "activation", "use_bias", NULL },
			[MODEL_MAXPOOL2D] = { "pool_size", "strides", "padding", NULL },
			[MODEL_LAMBDA] = { "function", NULL },
			[MODEL_TANH] = { NULL },
			[MODEL_SIGMOID] = { NULL },
			[MODEL_SOFTMAX] = { "axis", NULL },
			[MODEL_DROPOUT] = { "rate", "seed", NULL },
			[MODEL_BATCHNORM] = { "axis", "momentum", "epsilon", "center", "scale",
					      NULL },
		};
		bool ok = false;

		if (!json_object_get(obj, keys[k]))
			continue;
		for (size_t j = 0; own[l->kind][j]; j++)
			ok |= strcmp(own[l->kind][j], keys[k]) == 0;
		if (!ok) {
			snprintf(msg, sizeof(msg), "\"%s\" does not apply to %s",
				 keys[k], type);
			return model_json_fail(cx, label, msg);
		}
	}
	if (json_object_get(obj, "use_bias")) {
		bool use_bias = true;

		if (model_json_bool(cx, obj, "use_bias", where, &use_bias))
			return -1;
		l->no_bias = !use_bias;
	}
	return model_json_activation(cx, m, obj, where, l->name);
}

static int model_json_optimizer(struct model_json_ctx *cx, json_t *obj,
				struct model_training *t)
{
	static const char *const keys[] = {
		"type", "learning_rate", "momentum", "nesterov", "weight_decay",
		"beta_1", "beta_2", "epsilon", NULL
	};
	/*
	 * Per type: its own keys (the others are refused, not silently
	 * ignored) and Keras's defaults (LAMB: FusedLamb's).
	 */
	static const struct {
		const char *type;
		enum model_optimizer opt;
		const char *own[4];
		double lr, eps, wd;
	} types[] = {
		{ "sgd", MODEL_OPT_SGD, { "momentum", "nesterov" }, 0.01, 1e-7, 0.0 },
		{ "lamb", MODEL_OPT_LAMB, { "beta_1", "beta_2", "epsilon" }, 0.01, 1e-6, 0.0 },
		{ "adam", MODEL_OPT_ADAM, { "beta_1", "beta_2", "epsilon" }, 0.001, 1e-7, 0.0 },
		{ "adamw", MODEL_OPT_ADAMW, { "beta_1", "beta_2", "epsilon" }, 0.001, 1e-7, 0.004 },
		{ "adagrad", MODEL_OPT_ADAGRAD, { "epsilon" }, 0.001, 1e-7, 0.0 },
	};
	static const char *const specific[] = {
		"momentum", "nesterov", "beta_1", "beta_2", "epsilon", NULL
	};
	const char *where = "training.optimizer", *type;
	char path[128], msg[96];
	size_t k, n;

	if (!json_is_object(obj))
		return model_json_fail(cx, where, "must be an object");
	if (model_json_keys(cx, obj, where, keys))
		return -1;
	type = json_string_value(json_object_get(obj, "type"));
	for (n = 0; type && n < sizeof(types) / sizeof(types[0]); n++)
		if (strcmp(type, types[n].type) == 0)
			break;
	if (!type || n == sizeof(types) / sizeof(types[0]))
		return model_json_fail(cx, where, "\"type\" must be \"sgd\", \"adam\", "
				       "\"adamw\", \"adagrad\" or \"lamb\"");
	t->optimizer = types[n].opt;
	for (k = 0; specific[k]; k++) {
		bool own = false;

		for (size_t j = 0; j < 4 && types[n].own[j]; j++)
			own |= strcmp(types[n].own[j], specific[k]) == 0;
		if (!own && json_object_get(obj, specific[k])) {
			snprintf(path, sizeof(path), "%s.%s", where, specific[k]);
			snprintf(msg, sizeof(msg), "does not apply to \"%s\"", type);
			return model_json_fail(cx, path, msg);
		}
	}
	/* beta < 1 keeps 1 - beta^t > 0 */
	return model_json_number(cx, obj, "learning_rate", where, types[n].lr, 1e-9, 10.0,
				 &t->learning_rate) ||
	       model_json_number(cx, obj, "momentum", where, 0.0, 0.0, 0.999,
				 &t->momentum) ||
	       model_json_number(cx, obj, "weight_decay", where, types[n].wd, 0.0, 1.0,
				 &t->weight_decay) ||
	       model_json_number(cx, obj, "beta_1", where, 0.9, 0.0, 0.9999, &t->beta1) ||
	       model_json_number(cx, obj, "beta_2", where, 0.999, 0.0, 0.99999, &t->beta2) ||
	       model_json_number(cx, obj, "epsilon", where, types[n].eps, 1e-12, 1.0,
				 &t->epsilon) ||
	       model_json_bool(cx, obj, "nesterov", where, &t->nesterov) ? -1 : 0;
}

static int model_json_training(struct model_json_ctx *cx, json_t *obj, struct model *m)
{
	struct model_training *t = &m->train;
	static const char *const keys[] = {
		"loss", "from_logits", "optimizer", "batch_size", "epochs", "seed",
		"precision", "steps_per_execution", NULL
	};
	const char *where = "training", *loss, *prec;
	bool from_logits = false;
	json_t *seed;
	uint32_t epochs;

	if (!json_is_object(obj))
		return model_json_fail(cx, where, "must be an object");
	if (model_json_keys(cx, obj, where, keys))
		return -1;
	loss = json_string_value(json_object_get(obj, "loss"));
	if (loss && strcmp(loss, "sparse_categorical_crossentropy") == 0)
		t->loss = MODEL_LOSS_SPARSE_CCE;
	else if (loss && strcmp(loss, "categorical_crossentropy") == 0)
		t->loss = MODEL_LOSS_CCE;	/* the labels' one-hot rows: the same loss */
	else if (loss && (!strcmp(loss, "mse") || !strcmp(loss, "mean_squared_error")))
		t->loss = MODEL_LOSS_MSE;
	else
		return model_json_fail(cx, where,
			"\"loss\" must be \"sparse_categorical_crossentropy\", "
			"\"categorical_crossentropy\" or \"mse\"");
	if (t->loss == MODEL_LOSS_MSE && json_object_get(obj, "from_logits"))
		return model_json_fail(cx, where, "\"from_logits\" does not apply to mse");
	from_logits = t->loss == MODEL_LOSS_MSE;	/* mse: on the last layer's outputs */
	if (model_json_bool(cx, obj, "from_logits", where, &from_logits))
		return -1;
	/*
	 * Probabilities from a final Softmax: like Keras, the loss takes the
	 * Softmax's input as logits (the layer is dropped; argmax is unchanged).
	 */
	if (!from_logits) {
		if (m->layers[m->nlayers - 1].kind != MODEL_SOFTMAX || m->nlayers < 2)
			return model_json_fail(cx, where,
				"\"from_logits\": false needs a final softmax (Softmax, or "
				"\"activation\": \"softmax\") after another layer");
		m->nlayers--;
		t->softmax_folded = true;
	}
	if (!json_object_get(obj, "optimizer"))
		return model_json_fail(cx, where, "missing \"optimizer\"");
	if (model_json_optimizer(cx, json_object_get(obj, "optimizer"), t) ||
	    model_json_uint(cx, obj, "batch_size", where, 32, 65536, &t->batch_size) ||
	    model_json_uint(cx, obj, "epochs", where, 1, 10000, &epochs))
		return -1;
	t->epochs = epochs;
	seed = json_object_get(obj, "seed");
	if (seed && (!json_is_integer(seed) || json_integer_value(seed) < 0))
		return model_json_fail(cx, "training.seed",
				       "must be a non-negative integer");
	t->seed = seed ? (uint64_t)json_integer_value(seed) : 0;
	prec = json_string_value(json_object_get(obj, "precision"));
	if (json_object_get(obj, "precision") &&
	    (!prec || (strcmp(prec, "fp32") && strcmp(prec, "bf16"))))
		return model_json_fail(cx, "training.precision",
				       "must be \"fp32\" or \"bf16\"");
	t->bf16 = prec && strcmp(prec, "bf16") == 0;
	return model_json_uint(cx, obj, "steps_per_execution", where, 1,
			       MODEL_MAX_STEPS_PER_EXECUTION, &t->steps_per_execution);
}

/* "input_shape": [h, w] or [h, w, c] (Keras's channels-last spelling). */
static int model_json_input(struct model_json_ctx *cx, json_t *v,
			    struct model_shape *s)
{
	uint32_t d[3] = { 1, 1, 1 };
	size_t n = json_array_size(v);

	if (!json_is_array(v) || n < 2 || n > 3)
		return model_json_fail(cx, "input_shape", "must be [h, w] or [h, w, c]");
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(v, i);

		if (!json_is_integer(e) || json_integer_value(e) < 1 ||
		    json_integer_value(e) > 4096)
			return model_json_fail(cx, "input_shape",
					       "each dimension must be an integer in 1..4096");
		d[i] = (uint32_t)json_integer_value(e);
	}
	s->h = d[0];
	s->w = d[1];
	s->c = d[2];
	return 0;
}

static int model_json_root(struct model_json_ctx *cx, json_t *root,
			   struct model *m)
{
	static const char *const keys[] = {
		"name", "input_shape", "layers", "training", "description", NULL
	};
	json_t *layers, *name;
	size_t i;

	if (!json_is_object(root))
		return model_json_fail(cx, "top level", "must be an object");
	if (model_json_keys(cx, root, "top level", keys))
		return -1;
	name = json_object_get(root, "name");
	if (name && (!json_is_string(name) ||
		     json_string_length(name) >= MODEL_NAME_LEN))
		return model_json_fail(cx, "name", "must be a string of at most 47 characters");
	snprintf(m->name, sizeof(m->name), "%s", name ? json_string_value(name) : "model");
	if (!json_object_get(root, "input_shape"))
		return model_json_fail(cx, "top level", "missing \"input_shape\"");
	if (model_json_input(cx, json_object_get(root, "input_shape"), &m->input))
		return -1;
	layers = json_object_get(root, "layers");
	if (!json_is_array(layers) || json_array_size(layers) == 0)
		return model_json_fail(cx, "layers", "must be a non-empty array");
	for (i = 0; i < json_array_size(layers); i++)
		if (model_json_layer(cx, m, json_array_get(layers, i), i))
			return -1;
	if (!json_object_get(root, "training"))
		return model_json_fail(cx, "top level", "missing \"training\"");
	return model_json_training(cx, json_object_get(root, "training"), m);
}

static int model_json_finish(struct model_json_ctx *cx, json_t *root,
			     const json_error_t *jerr, struct model *m)
{
	int ret;

	if (!root)
		return train_err_set(cx->err, "%s:%d:%d: %s", cx->source,
				     jerr->line, jerr->column, jerr->text);
	memset(m, 0, sizeof(*m));
	ret = model_json_root(cx, root, m);
	json_decref(root);
	return ret;
}

int model_parse(const char *text, const char *source, struct model *m,
		struct train_err *err)
{
	struct model_json_ctx cx = { source, err };
	json_error_t jerr;

	return model_json_finish(&cx, json_loads(text, JSON_REJECT_DUPLICATES, &jerr),
				 &jerr, m);
}

int model_load(const char *path, struct model *m, struct train_err *err)
{
	struct model_json_ctx cx = { path, err };
	json_error_t jerr;
	FILE *f = fopen(path, "r");
	json_t *root;

	if (!f)
		return train_err_set(err, "%s: %s", path, strerror(errno));
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	return model_json_finish(&cx, root, &jerr, m);
}
