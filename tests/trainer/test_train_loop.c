/*
 * Whole runs of the training loop on the CPU reference over a small
 * synthetic data set: output, loss dumps, max-steps, errors, and a
 * resumed run that continues exactly as an uninterrupted one.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "checkpoint.h"
#include "fixtures.h"
#include "suites.h"
#include "train_loop.h"

static char dir[256], model_path[512], out_path[512];

static const char model_json[] =
	"{\"name\": \"tiny\", \"input_shape\": [28, 28], \"layers\": ["
	" {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 16, \"activation\": \"relu\"},"
	" {\"type\": \"Dense\", \"units\": 10}],"
	" \"training\": {\"loss\": \"sparse_categorical_crossentropy\", \"from_logits\": true,"
	" \"optimizer\": {\"type\": \"sgd\", \"learning_rate\": 0.05, \"momentum\": 0.5},"
	" \"batch_size\": 24, \"epochs\": 3, \"seed\": 5}}";

static void setup(void)
{
	fx_tmpdir(dir, sizeof(dir));
	snprintf(model_path, sizeof(model_path), "%s/tiny.json", dir);
	snprintf(out_path, sizeof(out_path), "%s/stdout.txt", dir);
	fx_write(model_path, model_json, strlen(model_json));
	fx_synthetic_mnist(dir, 200, 50);
	/* Each test runs in its own process: keep its output in a file. */
	ck_assert_ptr_nonnull(freopen(out_path, "w", stdout));
}

static void teardown(void)
{
	fx_rmtree(dir);
}

static struct train_options base_options(void)
{
	struct train_options o = { .model_path = model_path, .data_name = "mnist",
				   .data_root = dir };
	return o;
}

/* The dump's lines of epochs >= from, joined. */
static char *dump_from(const char *path, unsigned from)
{
	char *text = fx_read_text(path), *out = calloc(1, strlen(text) + 1), *line, *save;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || (unsigned)atoi(line) < from)
			continue;
		strcat(out, line);
		strcat(out, "\n");
	}
	free(text);
	return out;
}

/* The "test accuracy: X" of a run's output is at least LO. */
static void acc_at_least(const char *text, double lo)
{
	const char *acc = strstr(text, "test accuracy: ");

	ck_assert_ptr_nonnull(acc);
	ck_assert_double_ge(atof(acc + strlen("test accuracy: ")), lo);
}

START_TEST(full_run_prints_keras_lines_and_learns)
{
	struct train_options o = base_options();
	char dump[600], *text, *acc;

	snprintf(dump, sizeof(dump), "%s/losses.txt", dir);
	o.dump_losses = dump;
	o.mllog = true;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	fflush(stdout);
	text = fx_read_text(out_path);
	ck_assert_ptr_nonnull(strstr(text, "Epoch 1/3\n9/9 [==============================] - "));
	ck_assert_ptr_nonnull(strstr(text, "Epoch 3/3\n"));
	ck_assert_ptr_nonnull(strstr(text, ":::MLLOG {\"namespace\": \"\", \"time_ms\": "));
	ck_assert_ptr_nonnull(strstr(text, "\"key\": \"run_start\""));
	ck_assert_ptr_nonnull(strstr(text, "\"key\": \"epoch_stop\""));
	ck_assert_ptr_nonnull(strstr(text, "\"key\": \"run_stop\", \"value\": null, "
					   "\"metadata\": {\"status\": \"success\"}"));
	ck_assert_ptr_nonnull(strstr(text, "600 samples in "));
	acc = strstr(text, "test accuracy: ");
	ck_assert_ptr_nonnull(acc);
	/* the synthetic classes are easy: nearly all right after 3 epochs */
	ck_assert_double_ge(atof(acc + strlen("test accuracy: ")), 0.9);
	free(text);
	text = dump_from(dump, 1);
	/* 3 epochs of ceil(200 / 24) = 9 steps, the last of 8 samples */
	ck_assert_int_eq((int)(strchr(text, '\0') - text) > 0, 1);
	ck_assert_ptr_nonnull(strstr(text, "\n3 9 "));
	ck_assert_ptr_nonnull(strstr(text, " 8\n"));
	free(text);
}
END_TEST

START_TEST(max_steps_stops_early)
{
	struct train_options o = base_options();
	char dump[600], *text;
	int lines = 0;

	snprintf(dump, sizeof(dump), "%s/losses.txt", dir);
	o.dump_losses = dump;
	o.max_steps = 5;
	o.no_eval = true;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	text = dump_from(dump, 1);
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 5);
	free(text);
}
END_TEST

START_TEST(resumed_run_continues_like_an_uninterrupted_one)
{
	struct train_options o = base_options();
	char a[600], c[600], ckpt[600], *full, *resumed;

	snprintf(a, sizeof(a), "%s/a.txt", dir);
	snprintf(c, sizeof(c), "%s/c.txt", dir);
	snprintf(ckpt, sizeof(ckpt), "%s/ck.safetensors", dir);
	o.dump_losses = a;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	o = base_options();
	o.epochs = 1;
	o.save = ckpt;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	o = base_options();
	o.resume = ckpt;
	o.dump_losses = c;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	full = dump_from(a, 2);
	resumed = dump_from(c, 1);
	ck_assert_str_eq(resumed, full);	/* momentum and order restored too */
	ck_assert_ptr_nonnull(strstr(full, "\n3 9 "));
	free(full);
	free(resumed);
}
END_TEST

/* The same with LAMB: its moments and update count come back from the checkpoint. */
START_TEST(resumed_lamb_run_continues_like_an_uninterrupted_one)
{
	static const char lamb_json[] =
		"{\"name\": \"tiny-lamb\", \"input_shape\": [28, 28], \"layers\": ["
		" {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 16, \"activation\": \"relu\"},"
		" {\"type\": \"Dense\", \"units\": 10}],"
		" \"training\": {\"loss\": \"sparse_categorical_crossentropy\", \"from_logits\": true,"
		" \"optimizer\": {\"type\": \"lamb\", \"learning_rate\": 0.02, \"weight_decay\": 0.01},"
		" \"batch_size\": 24, \"epochs\": 2, \"seed\": 5}}";
	struct train_options o = base_options();
	char a[600], c[600], ckpt[600], *full, *resumed, *text;

	fx_write(model_path, lamb_json, strlen(lamb_json));
	snprintf(a, sizeof(a), "%s/a.txt", dir);
	snprintf(c, sizeof(c), "%s/c.txt", dir);
	snprintf(ckpt, sizeof(ckpt), "%s/ck.safetensors", dir);
	o.dump_losses = a;
	o.mllog = true;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	fflush(stdout);
	text = fx_read_text(out_path);
	ck_assert_ptr_nonnull(strstr(text, "\"key\": \"opt_name\", \"value\": \"lamb\""));
	acc_at_least(text, 0.9);
	free(text);
	o = base_options();
	o.epochs = 1;
	o.save = ckpt;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	o = base_options();
	o.resume = ckpt;
	o.dump_losses = c;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	full = dump_from(a, 2);
	resumed = dump_from(c, 1);
	ck_assert_str_eq(resumed, full);
	ck_assert_ptr_nonnull(strstr(full, "\n2 9 "));
	free(full);
	free(resumed);
}
END_TEST

/*
 * --save to a folder that does not exist fails before training, naming the
 * path; --max-steps before an epoch ends writes no checkpoint and says so;
 * the steps of the cut epoch are printed when stdout is not a terminal;
 * MLLOG has the learning rate as written (0.05).
 */
START_TEST(save_max_steps_and_mllog_say_what_happened)
{
	struct train_options o = base_options();
	char bad[600], ckpt[600], err_path[600], want[700], *text;

	snprintf(err_path, sizeof(err_path), "%s/stderr.txt", dir);
	ck_assert_ptr_nonnull(freopen(err_path, "w", stderr));
	snprintf(bad, sizeof(bad), "%s/no-such-folder/ck.safetensors", dir);
	o.save = bad;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 1);
	fflush(stdout);
	fflush(stderr);
	text = fx_read_text(err_path);
	snprintf(want, sizeof(want), "--save %s: cannot write there: No such file", bad);
	ck_assert_msg(strstr(text, want), "stderr: %s", text);
	free(text);
	text = fx_read_text(out_path);
	ck_assert_ptr_null(strstr(text, "Epoch 1/"));
	free(text);

	o = base_options();
	snprintf(ckpt, sizeof(ckpt), "%s/ck.safetensors", dir);
	o.save = ckpt;
	o.max_steps = 3;
	o.no_eval = true;
	o.mllog = true;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	fflush(stdout);
	ck_assert_int_ne(access(ckpt, F_OK), 0);
	text = fx_read_text(out_path);
	snprintf(want, sizeof(want), "checkpoint: %s", ckpt);
	ck_assert_ptr_null(strstr(text, want));
	ck_assert_ptr_nonnull(strstr(text, "checkpoint: none written"));
	ck_assert_msg(strstr(text, "3/9 [==========>...................] - ") &&
		      strstr(text, " - loss: "), "stdout: %s", text);
	ck_assert_ptr_nonnull(strstr(text, "\"key\": \"opt_base_learning_rate\", "
					   "\"value\": 0.05, "));
	free(text);
}
END_TEST

START_TEST(errors_exit_1_with_a_message)
{
	struct train_options o = base_options();
	char bad[600];

	o.model_path = "/nonexistent.json";
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 1);
	o = base_options();
	o.data_root = "/nonexistent";
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 1);
	/* a checkpoint that is not one */
	snprintf(bad, sizeof(bad), "%s/bad.safetensors", dir);
	fx_write(bad, "garbage!garbage!", 16);
	o = base_options();
	o.resume = bad;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 1);
	/* resuming a finished run */
	o = base_options();
	o.epochs = 1;
	o.save = bad;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	o.save = NULL;
	o.resume = bad;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 1);
}
END_TEST

/*
 * The reference behind a queue of depth 4, as the device backend queues
 * its steps: the loop must give the same run with results taken late.
 */
static struct backend_step_result queued_results[4];
static uint32_t queued_n;

static int queued_step(void *ctx, uint32_t first, uint32_t count, float lr,
		       struct train_err *err)
{
	ck_assert_uint_lt(queued_n, 4);
	if (ref_trainer_ops.step(ctx, first, count, lr, err))
		return -1;
	return ref_trainer_ops.collect(ctx, &queued_results[queued_n++], 1, err);
}

static int queued_collect(void *ctx, struct backend_step_result *out, uint32_t n,
			  struct train_err *err)
{
	(void)ctx;
	(void)err;
	ck_assert_uint_eq(n, queued_n);
	memcpy(out, queued_results, n * sizeof(*out));
	queued_n = 0;
	return 0;
}

START_TEST(queued_steps_give_the_same_run)
{
	struct backend_ops queued = ref_trainer_ops;
	struct train_options o = base_options();
	char a[600], b[600], *direct, *late;

	queued.step = queued_step;
	queued.collect = queued_collect;
	queued.depth = 4;
	snprintf(a, sizeof(a), "%s/a.txt", dir);
	snprintf(b, sizeof(b), "%s/b.txt", dir);
	/* 9 steps an epoch: two full queues and one step; then a stop at 23 */
	o.max_steps = 23;
	o.dump_losses = a;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	o.dump_losses = b;
	ck_assert_int_eq(train_run(&o, &queued), 0);
	direct = dump_from(a, 1);
	late = dump_from(b, 1);
	ck_assert_str_eq(late, direct);
	ck_assert_ptr_nonnull(strstr(late, "\n3 5 "));
	ck_assert_ptr_null(strstr(late, "\n3 6 "));
	free(direct);
	free(late);
}
END_TEST

/*
 * steps_per_execution 3 behind a queue of depth 4: the loop queues whole
 * groups (6 steps), tells the backend the group size, and the run is
 * the direct one, the epoch's remainder included (9 steps: 6 + 3).
 */
static uint32_t grouped_spe, grouped_max;
static struct backend_step_result grouped_results[8];
static uint32_t grouped_n;

static int grouped_open(void **ctx, const struct backend_setup *setup, struct train_err *err)
{
	grouped_spe = setup->steps_per_execution;
	return ref_trainer_ops.open(ctx, setup, err);
}

static int grouped_step(void *ctx, uint32_t first, uint32_t count, float lr,
			struct train_err *err)
{
	ck_assert_uint_lt(grouped_n, 8);
	if (ref_trainer_ops.step(ctx, first, count, lr, err))
		return -1;
	return ref_trainer_ops.collect(ctx, &grouped_results[grouped_n++], 1, err);
}

static int grouped_collect(void *ctx, struct backend_step_result *out, uint32_t n,
			   struct train_err *err)
{
	(void)ctx;
	(void)err;
	ck_assert_uint_eq(n, grouped_n);
	if (n > grouped_max)
		grouped_max = n;
	memcpy(out, grouped_results, n * sizeof(*out));
	grouped_n = 0;
	return 0;
}

START_TEST(grouped_steps_give_the_same_run)
{
	struct backend_ops grouped = ref_trainer_ops;
	struct train_options o = base_options();
	char a[600], b[600], *direct, *late;

	grouped.open = grouped_open;
	grouped.step = grouped_step;
	grouped.collect = grouped_collect;
	grouped.depth = 4;
	snprintf(a, sizeof(a), "%s/a.txt", dir);
	snprintf(b, sizeof(b), "%s/b.txt", dir);
	o.dump_losses = a;
	ck_assert_int_eq(train_run(&o, &ref_trainer_ops), 0);
	o.dump_losses = b;
	o.steps_per_execution = 3;
	ck_assert_int_eq(train_run(&o, &grouped), 0);
	ck_assert_uint_eq(grouped_spe, 3);
	ck_assert_uint_eq(grouped_max, 6);
	direct = dump_from(a, 1);
	late = dump_from(b, 1);
	ck_assert_str_eq(late, direct);
	ck_assert_ptr_nonnull(strstr(late, "\n3 9 "));
	free(direct);
	free(late);
}
END_TEST

START_TEST(sigint_stops_cleanly_and_keeps_the_last_epoch)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	struct train_options o = base_options();
	struct checkpoint_state st;
	struct params p;
	struct model m;
	struct train_err err;
	char ckpt[600];
	struct dirent *e;
	int status;
	pid_t pid;
	DIR *d;

	snprintf(ckpt, sizeof(ckpt), "%s/ck.safetensors", dir);
	o.epochs = 10000;
	o.save = ckpt;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(train_run(&o, &ref_trainer_ops));
	/* Interrupt once an epoch has been saved (at most 30 s from now). */
	for (int i = 0; i < 3000 && access(ckpt, F_OK) != 0; i++)
		nanosleep(&pause, NULL);
	nanosleep(&pause, NULL);
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 130);
	/* the checkpoint is whole, of some finished epoch; no temporary left */
	ck_assert_int_eq(model_load(model_path, &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_int_eq(params_create(&m, &p, &err), 0);
	ck_assert_msg(checkpoint_load(ckpt, &m, &p, NULL, &st, &err) == 0, "%s", err.msg);
	ck_assert_uint_gt(st.epochs_done, 0);
	ck_assert_uint_lt(st.epochs_done, 10000);
	ck_assert_uint_eq(st.steps_done, st.epochs_done * 9ull);
	d = opendir(dir);
	while ((e = readdir(d)))
		ck_assert_msg(!strstr(e->d_name, ".tmp."), "left behind: %s", e->d_name);
	closedir(d);
	params_free(&p);
}
END_TEST

/* SIGTERM (a scheduler's stop) stops the same way, with status 128 + 15. */
START_TEST(sigterm_exits_143)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	struct train_options o = base_options();
	char ckpt[600];
	int status;
	pid_t pid;

	snprintf(ckpt, sizeof(ckpt), "%s/term.safetensors", dir);
	o.epochs = 10000;
	o.save = ckpt;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(train_run(&o, &ref_trainer_ops));
	for (int i = 0; i < 3000 && access(ckpt, F_OK) != 0; i++)
		nanosleep(&pause, NULL);
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 143);
}
END_TEST

Suite *train_loop_suite(void)
{
	Suite *s = suite_create("train_loop");
	TCase *tc = tcase_create("train_loop");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, full_run_prints_keras_lines_and_learns);
	tcase_add_test(tc, max_steps_stops_early);
	tcase_add_test(tc, resumed_run_continues_like_an_uninterrupted_one);
	tcase_add_test(tc, resumed_lamb_run_continues_like_an_uninterrupted_one);
	tcase_add_test(tc, errors_exit_1_with_a_message);
	tcase_add_test(tc, queued_steps_give_the_same_run);
	tcase_add_test(tc, grouped_steps_give_the_same_run);
	tcase_add_test(tc, sigint_stops_cleanly_and_keeps_the_last_epoch);
	tcase_add_test(tc, sigterm_exits_143);
	tcase_add_test(tc, save_max_steps_and_mllog_say_what_happened);
	suite_add_tcase(s, tc);
	return s;
}
