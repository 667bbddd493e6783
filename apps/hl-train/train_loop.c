/* The training run shared by hl-train and hl-train-ref (train_loop.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "report.h"
#include "train_loop.h"
#include "train_rng.h"

static volatile sig_atomic_t train_loop_stop_signal;

static void train_loop_on_signal(int sig)
{
	train_loop_stop_signal = sig;
}

/* Ctrl-C or SIGTERM ends the run between two steps, not inside one. */
static void train_loop_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = train_loop_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

struct train_run_state {
	const struct train_options *opt;
	const struct backend_ops *ops;
	struct model model;
	struct dataset data;
	struct params params, state;	/* state: the optimizer's (params_create_state) */
	bool has_state;
	bool saved;			/* --save written at least once */
	struct checkpoint_state ckpt;
	struct report report;
	FILE *losses;
	void *backend;
	uint32_t *order;
	uint64_t samples;
	double train_seconds;
};

static int train_loop_fail(const char *what, const struct train_err *err)
{
	fprintf(stderr, "hl-train: %s%s%s\n", what, *what ? ": " : "", err->msg);
	return 1;
}

/* Model, data, parameters: everything before the backend opens. */
static int train_loop_prepare(struct train_run_state *s, struct train_err *err)
{
	const struct train_options *o = s->opt;
	struct model *m = &s->model;

	if (model_load(o->model_path, m, err))
		return -1;
	if (o->epochs)
		m->train.epochs = o->epochs;
	if (o->batch)
		m->train.batch_size = o->batch;
	if (o->lr > 0)
		m->train.learning_rate = o->lr;
	if (o->has_seed)
		m->train.seed = o->seed;
	if (o->steps_per_execution)
		m->train.steps_per_execution = o->steps_per_execution;
	m->train.bf16 |= o->bf16;
	if (model_infer_shapes(m, DATASET_CLASSES, err))
		return -1;
	if (dataset_load(o->data_root, o->data_name, &s->data, err))
		return -1;
	if (model_shape_size(&m->input) != s->data.rows * s->data.cols)
		return train_err_set(err, "%s: input_shape is not the %ux%u images of %s",
				     o->model_path, s->data.rows, s->data.cols, o->data_name);
	s->order = malloc(sizeof(uint32_t) * s->data.train.count);
	if (!s->order)
		return train_err_set(err, "out of memory");
	if (o->save && checkpoint_check_writable(o->save, err))
		return -1;
	if (o->dump_losses) {
		s->losses = fopen(o->dump_losses, "w");
		if (!s->losses)
			return train_err_set(err, "%s: %s", o->dump_losses, strerror(errno));
		fprintf(s->losses, "# epoch step loss correct count\n");
	}
	return 0;
}

/* Initial parameters, or the resumed ones; after the backend opened, so
 * that a model too large for it fails there before host memory is spent. */
static int train_loop_params(struct train_run_state *s, struct train_err *err)
{
	const struct train_options *o = s->opt;
	struct model *m = &s->model;

	if (params_create(m, &s->params, err))
		return -1;
	if (params_create_state(m, &s->state, err))
		return -1;
	s->has_state = s->state.count > 0;
	s->ckpt.seed = m->train.seed;
	if (!o->resume) {
		params_init_glorot(m, &s->params);
		return 0;
	}
	if (checkpoint_load(o->resume, m, &s->params,
			    s->has_state ? &s->state : NULL, &s->ckpt, err))
		return -1;
	if (s->ckpt.seed != m->train.seed)
		return train_err_set(err, "%s: saved with seed %llu, the run uses %llu",
				     o->resume, (unsigned long long)s->ckpt.seed,
				     (unsigned long long)m->train.seed);
	if (s->ckpt.epochs_done >= m->train.epochs)
		return train_err_set(err, "%s: all %u epochs already trained (--epochs %u)",
				     o->resume, s->ckpt.epochs_done, m->train.epochs);
	return 0;
}

static void train_loop_mllog_start(struct train_run_state *s)
{
	const struct model_training *t = &s->model.train;
	char v[64];

	report_mllog(&s->report, "INTERVAL_START", "run_start", "null", NULL);
	snprintf(v, sizeof(v), "%u", t->batch_size);
	report_mllog(&s->report, "POINT_IN_TIME", "global_batch_size", v, NULL);
	snprintf(v, sizeof(v), "\"%s\"", model_optimizer_name(t->optimizer));
	report_mllog(&s->report, "POINT_IN_TIME", "opt_name", v, NULL);
	report_float(v, sizeof(v), t->learning_rate);
	report_mllog(&s->report, "POINT_IN_TIME", "opt_base_learning_rate", v, NULL);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)t->seed);
	report_mllog(&s->report, "POINT_IN_TIME", "seed", v, NULL);
}

/* Epoch accounting of the steps whose results came back. */
struct train_epoch {
	uint32_t epoch, done, correct, seen;
	uint64_t first_step;	/* steps done before the epoch began */
	double loss_sum;
};

/* Take the results of the N queued steps, in order. */
static int train_loop_collect(struct train_run_state *s, struct train_epoch *e,
			      uint32_t n, struct train_err *err)
{
	struct backend_step_result res[64];

	if (!n)
		return 0;
	if (n > sizeof(res) / sizeof(res[0]))
		return train_err_set(err, "backend queues %u steps (at most 64)", n);
	if (s->ops->collect(s->backend, res, n, err))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t count = res[i].count;

		e->done++;
		e->loss_sum += (double)res[i].loss * count;
		e->correct += res[i].correct;
		e->seen += count;
		if (s->losses)
			fprintf(s->losses, "%u %u %.9g %u %u\n", e->epoch, e->done,
				res[i].loss, res[i].correct, count);
		report_step(&s->report, e->done, e->loss_sum / e->seen,
			    (double)e->correct / e->seen);
	}
	return 0;
}

/*
 * Steps queued before their results are taken: the backend's depth, in
 * whole groups of steps_per_execution when it runs several per
 * submission (at most 32: the groups' own limit).
 */
static uint32_t train_loop_depth(const struct train_run_state *s)
{
	uint32_t d = s->ops->depth, k = s->model.train.steps_per_execution;

	if (d <= 1 || k <= 1)
		return d;
	return (d + k - 1) / k * k;
}

/*
 * One epoch; returns 0, -1 on a failed step, 1 when a signal or
 * --max-steps stopped it. Steps are queued up to the backend's depth
 * before their results are taken, so the device can run one step while
 * the host queues the next.
 */
static int train_loop_epoch(struct train_run_state *s, uint32_t epoch,
			    struct train_err *err)
{
	const struct model_training *t = &s->model.train;
	uint32_t n = s->data.train.count, b = t->batch_size;
	uint32_t steps = (n + b - 1) / b, queued = 0, depth = train_loop_depth(s);
	struct train_epoch e = { .epoch = epoch, .first_step = s->ckpt.steps_done };
	double t0 = report_now();
	int ret = 0;

	train_rng_epoch_order(t->seed, epoch, s->order, n);
	if (s->ops->begin_epoch(s->backend, s->order, err))
		return -1;
	report_epoch_begin(&s->report, epoch, t->epochs, steps);
	for (uint32_t step = 0; step < steps; step++) {
		uint32_t first = step * b, count = n - first < b ? n - first : b;

		if (train_loop_stop_signal ||
		    (s->opt->max_steps && s->ckpt.steps_done >= s->opt->max_steps)) {
			ret = 1;
			break;
		}
		if (s->ops->step(s->backend, first, count, t->learning_rate, err))
			return -1;
		s->ckpt.steps_done++;
		s->samples += count;
		if (++queued == depth) {
			if (train_loop_collect(s, &e, queued, err))
				return -1;
			queued = 0;
		}
	}
	/* The queued steps run in any case: account for them. */
	if (train_loop_collect(s, &e, queued, err))
		return -1;
	s->train_seconds += report_now() - t0;
	if (ret) {
		/* The steps of the unfinished epoch, in either kind of output. */
		if (e.seen)
			report_epoch_partial(&s->report, s->ckpt.steps_done - e.first_step,
					     e.loss_sum / e.seen, (double)e.correct / e.seen);
		else if (s->report.tty)
			fputc('\n', s->report.out);
		return 1;
	}
	report_epoch_end(&s->report, epoch, e.loss_sum / e.seen, (double)e.correct / e.seen);
	return 0;
}

static int train_loop_save(struct train_run_state *s, struct train_err *err)
{
	if (s->ops->store_params(s->backend, &s->params,
				 s->has_state ? &s->state : NULL, err))
		return -1;
	return checkpoint_save(s->opt->save, &s->model, &s->params,
			       s->has_state ? &s->state : NULL, &s->ckpt, err);
}

static int train_loop_evaluate(struct train_run_state *s, uint32_t epoch,
			       struct train_err *err)
{
	struct backend_eval_result ev;
	char v[32], meta[64];
	double acc;

	if (s->ops->evaluate(s->backend, &ev, err))
		return -1;
	acc = (double)ev.correct / ev.count;
	printf("test loss: %.4f - test accuracy: %.4f\n", ev.loss_sum / ev.count, acc);
	snprintf(v, sizeof(v), "%.6f", acc);
	snprintf(meta, sizeof(meta), "{\"epoch_num\": %u}", epoch);
	report_mllog(&s->report, "POINT_IN_TIME", "eval_accuracy", v, meta);
	return 0;
}

static int train_loop_body(struct train_run_state *s, struct train_err *err)
{
	const struct model_training *t = &s->model.train;
	struct backend_setup setup = {
		.model = &s->model, .data = &s->data, .batch = t->batch_size,
		.bf16 = t->bf16, .eager = s->opt->eager, .profile = s->opt->profile,
		.steps_per_execution = t->steps_per_execution,
		.rank = s->opt->rank, .nranks = s->opt->nranks, .comm_id = s->opt->comm_id,
	};
	uint32_t epoch;
	int stopped = 0;

	if (s->ops->open(&s->backend, &setup, err) || train_loop_params(s, err))
		return -1;
	epoch = s->ckpt.epochs_done;
	if (s->ops->load_params(s->backend, &s->params,
				s->has_state ? &s->state : NULL, err))
		return -1;
	printf("model %s: %zu parameters, %s on %s, batch %u, lr %g, %u epochs%s\n",
	       s->model.name, s->params.total, s->data.name, s->ops->name,
	       t->batch_size, t->learning_rate, t->epochs, t->bf16 ? ", bf16" : "");
	if (epoch)
		printf("resumed from %s after epoch %u\n", s->opt->resume, epoch);
	train_loop_mllog_start(s);
	while (epoch < t->epochs && !stopped &&
	       !(s->opt->max_steps && s->ckpt.steps_done >= s->opt->max_steps)) {
		stopped = train_loop_epoch(s, epoch + 1, err);
		if (stopped < 0)
			return -1;
		if (stopped)
			break;
		epoch++;
		s->ckpt.epochs_done = epoch;
		if (s->opt->save && train_loop_save(s, err))
			return -1;
		s->saved = s->opt->save != NULL;
	}
	if (train_loop_stop_signal) {
		fprintf(stderr, "hl-train: interrupted in epoch %u after %llu steps; "
			"the checkpoint keeps the last whole epoch\n", epoch + 1,
			(unsigned long long)s->ckpt.steps_done);
		return 1;
	}
	if (!s->opt->no_eval && train_loop_evaluate(s, epoch, err))
		return -1;
	if (s->train_seconds > 0)
		printf("%llu samples in %.2f s: %.0f samples/s\n",
		       (unsigned long long)s->samples, s->train_seconds,
		       s->samples / s->train_seconds);
	if (s->saved)
		printf("checkpoint: %s\n", s->opt->save);
	else if (s->opt->save)
		printf("checkpoint: none written (no epoch finished; --max-steps %llu)\n",
		       (unsigned long long)s->opt->max_steps);
	return 0;
}

int train_run(const struct train_options *opt, const struct backend_ops *ops)
{
	struct train_run_state *s = calloc(1, sizeof(*s));
	struct train_err err = { "" };
	int ret, status = 1;

	if (!s) {
		fprintf(stderr, "hl-train: out of memory\n");
		return 1;
	}
	s->opt = opt;
	s->ops = ops;
	report_init(&s->report, stdout, opt->mllog);
	train_loop_catch_signals();
	ret = train_loop_prepare(s, &err);
	if (!ret)
		ret = train_loop_body(s, &err);
	if (ret < 0)
		train_loop_fail("", &err);
	/* Closing the backend releases the device, also after a failure. */
	if (s->backend)
		ops->close(s->backend);
	if (ret == 0) {
		report_mllog(&s->report, "INTERVAL_END", "run_stop", "null",
			     "{\"status\": \"success\"}");
		status = 0;
	} else {
		report_mllog(&s->report, "INTERVAL_END", "run_stop", "null",
			     "{\"status\": \"aborted\"}");
		status = train_loop_stop_signal ? 128 + train_loop_stop_signal : 1;
	}
	if (s->losses && fclose(s->losses)) {
		fprintf(stderr, "hl-train: %s: %s\n", opt->dump_losses, strerror(errno));
		status = status ? status : 1;
	}
	/* The profile is written when the device is released. */
	if (ret == 0 && opt->profile && access(opt->profile, R_OK) == 0) {
		if (opt->nranks > 1)
			printf("profile: %s (ranks 1..%u: %s.rankR)\n", opt->profile,
			       opt->nranks - 1, opt->profile);
		else
			printf("profile: %s\n", opt->profile);
	}
	free(s->order);
	params_free(&s->params);
	params_free(&s->state);
	dataset_free(&s->data);
	free(s);
	return status;
}
