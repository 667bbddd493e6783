/* Checkpoints of a training run in safetensors form (checkpoint.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "safetensors.h"

#define CHECKPOINT_FORMAT "hl-train 1"

static void checkpoint_describe(const struct params_tensor *pt,
				struct safetensors_tensor *t, const char *name,
				const float *data)
{
	t->name = name;
	t->ndims = pt->ndims;
	for (uint32_t d = 0; d < pt->ndims; d++)
		t->dims[d] = pt->dims[d];
	t->data = data;
}

int checkpoint_save(const char *path, const struct model *m, const struct params *p,
		    const struct params *state, const struct checkpoint_state *st,
		    struct train_err *err)
{
	struct safetensors_tensor t[PARAMS_MAX + PARAMS_STATE_MAX];
	char epochs[24], steps[24], seed[24], updates[24];
	struct safetensors_meta meta[] = {
		{ "format", CHECKPOINT_FORMAT }, { "model", m->name },
		{ "epochs_done", epochs }, { "steps_done", steps }, { "seed", seed },
		{ "optimizer_updates", updates },
	};
	size_t n = 0, n_meta = sizeof(meta) / sizeof(meta[0]);

	snprintf(epochs, sizeof(epochs), "%" PRIu32, st->epochs_done);
	snprintf(steps, sizeof(steps), "%" PRIu64, st->steps_done);
	snprintf(seed, sizeof(seed), "%" PRIu64, st->seed);
	/* LAMB's and Adam's bias correction counts the updates the moments have seen */
	if (model_optimizer_counts_updates(&m->train) && state)
		snprintf(updates, sizeof(updates), "%" PRIu64, state->updates);
	else
		n_meta--;
	for (uint32_t i = 0; i < p->count; i++)
		checkpoint_describe(&p->t[i], &t[n++], p->t[i].name, p->t[i].data);
	for (uint32_t i = 0; state && i < state->count; i++)
		checkpoint_describe(&state->t[i], &t[n++], state->t[i].name, state->t[i].data);
	return safetensors_write(path, t, n, meta, n_meta, err);
}

int checkpoint_check_writable(const char *path, struct train_err *err)
{
	char tmp[4096];
	int fd;

	/* The same temporary name checkpoint_save() will write, made and removed. */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return train_err_set(err, "--save %s: cannot write there: %s", path,
				     strerror(errno));
	close(fd);
	unlink(tmp);
	return 0;
}

static int checkpoint_get(const struct safetensors_file *f, const char *name,
			  struct params_tensor *pt, struct train_err *err)
{
	uint64_t dims[PARAMS_MAX_DIMS];

	for (uint32_t d = 0; d < pt->ndims; d++)
		dims[d] = pt->dims[d];
	return safetensors_get(f, name, pt->ndims, dims, pt->data, err);
}

/* A decimal metadata value. */
static int checkpoint_meta_u64(const struct safetensors_file *f, const char *key,
			       uint64_t *out, struct train_err *err)
{
	const char *s = safetensors_meta_get(f, key);
	char *end;

	if (!s || !*s)
		return train_err_set(err, "%s: metadata \"%s\" missing", f->path, key);
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end)
		return train_err_set(err, "%s: metadata \"%s\" is not a number", f->path, key);
	return 0;
}

int checkpoint_load(const char *path, const struct model *m, struct params *p,
		    struct params *state, struct checkpoint_state *st,
		    struct train_err *err)
{
	struct safetensors_file f;
	const char *format, *model;
	uint64_t epochs;
	int ret = -1;

	if (safetensors_read(path, &f, err))
		return -1;
	format = safetensors_meta_get(&f, "format");
	model = safetensors_meta_get(&f, "model");
	if (!format || strcmp(format, CHECKPOINT_FORMAT) != 0) {
		train_err_set(err, "%s: not an hl-train checkpoint (metadata \"format\")", path);
		goto out;
	}
	if (!model || strcmp(model, m->name) != 0) {
		train_err_set(err, "%s: a checkpoint of model \"%s\", not \"%s\"", path,
			      model ? model : "?", m->name);
		goto out;
	}
	if (checkpoint_meta_u64(&f, "epochs_done", &epochs, err) ||
	    checkpoint_meta_u64(&f, "steps_done", &st->steps_done, err) ||
	    checkpoint_meta_u64(&f, "seed", &st->seed, err))
		goto out;
	st->epochs_done = (uint32_t)epochs;
	for (uint32_t i = 0; i < p->count; i++)
		if (checkpoint_get(&f, p->t[i].name, &p->t[i], err))
			goto out;
	for (uint32_t i = 0; state && i < state->count; i++)
		if (checkpoint_get(&f, state->t[i].name, &state->t[i], err))
			goto out;
	if (state && model_optimizer_counts_updates(&m->train) &&
	    checkpoint_meta_u64(&f, "optimizer_updates", &state->updates, err))
		goto out;
	ret = 0;
out:
	safetensors_close(&f);
	return ret;
}
