// SPDX-License-Identifier: MIT
/*
 * hl-trials without a device: the ASHA scheduler (rungs, the quantile
 * cutoff, stop decisions in arrival order, NaN and loss orientation, bad
 * parameters), reading hl-train's output, the search-space grid and file,
 * and the runner on a stand-in trainer script (a scheduler STOP reaches
 * the trial as SIGINT, a crash and a failure are reported, the other
 * trials finish, cards are reused), and the default trials at once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asha.h"
#include "progress.h"
#include "runner.h"
#include "space.h"
#include "suites.h"

START_TEST(asha_rungs)
{
	struct asha a;
	const char *why = NULL;

	ck_assert_int_eq(asha_init(&a, 27, 1, 3, true, NULL), 0);
	ck_assert_uint_eq(a.n_rungs, 3);
	ck_assert_uint_eq(a.rung[0].milestone, 1);
	ck_assert_uint_eq(a.rung[1].milestone, 3);
	ck_assert_uint_eq(a.rung[2].milestone, 9);
	asha_free(&a);
	ck_assert_int_eq(asha_init(&a, 10, 2, 2, true, NULL), 0);
	ck_assert_uint_eq(a.n_rungs, 3);	/* 2, 4, 8 */
	ck_assert_uint_eq(a.rung[2].milestone, 8);
	asha_free(&a);
	ck_assert_int_eq(asha_init(&a, 1, 1, 3, true, NULL), 0);
	ck_assert_uint_eq(a.n_rungs, 0);
	ck_assert_int_eq(asha_report(&a, 1, 0.0), ASHA_CONTINUE);
	asha_free(&a);
	ck_assert_int_lt(asha_init(&a, 5, 0, 3, true, &why), 0);
	ck_assert_ptr_nonnull(strstr(why, "grace"));
	ck_assert_int_lt(asha_init(&a, 5, 6, 3, true, &why), 0);
	ck_assert_int_lt(asha_init(&a, 5, 1, 1, true, &why), 0);
	ck_assert_ptr_nonnull(strstr(why, "reduction"));
	ck_assert_int_lt(asha_init(&a, 0, 1, 3, true, &why), 0);
}
END_TEST

START_TEST(asha_cutoff_is_the_quantile)
{
	struct asha a;
	double c;

	ck_assert_int_eq(asha_init(&a, 9, 1, 3, true, NULL), 0);
	ck_assert(!asha_cutoff(&a, 0, &c));
	/* First arrival always goes on, and is recorded. */
	ck_assert_int_eq(asha_report(&a, 1, 0.5), ASHA_CONTINUE);
	ck_assert(asha_cutoff(&a, 0, &c));
	ck_assert_double_eq_tol(c, 0.5, 1e-12);
	ck_assert_int_eq(asha_report(&a, 1, 0.2), ASHA_STOP);
	ck_assert_int_eq(asha_report(&a, 1, 0.8), ASHA_CONTINUE);
	/* {0.2, 0.5, 0.8}: the 2/3 quantile, pos 4/3 -> 0.5 + 0.3/3 = 0.6 */
	ck_assert(asha_cutoff(&a, 0, &c));
	ck_assert_double_eq_tol(c, 0.6, 1e-12);
	ck_assert_int_eq(asha_report(&a, 1, 0.59), ASHA_STOP);
	/* {0.2, 0.5, 0.59, 0.8}: pos 2 -> 0.59 */
	ck_assert_int_eq(asha_report(&a, 1, 0.59), ASHA_CONTINUE);
	/* Epochs between rungs never stop a trial; rung 3 has its own record. */
	ck_assert_int_eq(asha_report(&a, 2, 0.0), ASHA_CONTINUE);
	ck_assert_int_eq(asha_report(&a, 3, 0.1), ASHA_CONTINUE);
	ck_assert_int_eq(asha_report(&a, 3, 0.05), ASHA_STOP);
	/* max_t is not a rung. */
	ck_assert_int_eq(asha_report(&a, 9, 0.0), ASHA_CONTINUE);
	asha_free(&a);
}
END_TEST

START_TEST(asha_keeps_about_one_in_eta)
{
	struct asha a;
	int kept = 0, i;

	/* Metrics arriving in increasing order are never stopped... */
	ck_assert_int_eq(asha_init(&a, 4, 1, 4, true, NULL), 0);
	for (i = 0; i < 20; i++)
		kept += asha_report(&a, 1, i) == ASHA_CONTINUE;
	ck_assert_int_eq(kept, 20);
	asha_free(&a);
	/* ...decreasing ones all are but the first; shuffled ones keep about 1/eta. */
	ck_assert_int_eq(asha_init(&a, 4, 1, 4, true, NULL), 0);
	for (i = 0, kept = 0; i < 20; i++)
		kept += asha_report(&a, 1, 20 - i) == ASHA_CONTINUE;
	ck_assert_int_eq(kept, 1);
	asha_free(&a);
	ck_assert_int_eq(asha_init(&a, 4, 1, 4, true, NULL), 0);
	for (i = 0, kept = 0; i < 400; i++)
		kept += asha_report(&a, 1, (double)((i * 7919) % 400)) == ASHA_CONTINUE;
	ck_assert_int_ge(kept, 90);
	ck_assert_int_le(kept, 130);
	asha_free(&a);
}
END_TEST

START_TEST(asha_loss_and_nan)
{
	struct asha a;

	ck_assert_int_eq(asha_init(&a, 9, 1, 2, false, NULL), 0);
	ck_assert_int_eq(asha_report(&a, 1, 1.0), ASHA_CONTINUE);
	ck_assert_int_eq(asha_report(&a, 1, 2.0), ASHA_STOP);	/* higher loss: worse */
	ck_assert_int_eq(asha_report(&a, 1, 0.5), ASHA_CONTINUE);
	ck_assert_int_eq(asha_report(&a, 1, NAN), ASHA_STOP);
	asha_free(&a);
}
END_TEST

START_TEST(progress_reads_hl_train_output)
{
	struct progress p;

	progress_init(&p);
	ck_assert_int_eq(progress_line(&p, "model seed: 7850 parameters, mnist on HPU:0, batch 128"),
			 PROGRESS_NONE);
	/* A bar before any "Epoch" line is not an epoch. */
	ck_assert_int_eq(progress_line(&p, "469/469 [===] - 0.6s - loss: 1.0 - accuracy: 0.5"),
			 PROGRESS_NONE);
	ck_assert_int_eq(progress_line(&p, "Epoch 1/3"), PROGRESS_NONE);
	ck_assert_uint_eq(p.epoch, 1);
	/* A terminal's redraws: half a bar, then the whole one after a CR. */
	ck_assert_int_eq(progress_line(&p, "200/469 [=====>....] - 0.3s - loss: 1.5 - accuracy: 0.6"),
			 PROGRESS_NONE);
	ck_assert_int_eq(progress_line(&p, "\r300/469 [..] - 0.4s - loss: 1.4 - accuracy: 0.6\r"
				       "469/469 [==============================] - 0.6s - "
				       "loss: 1.2769 - accuracy: 0.7017"), PROGRESS_EPOCH_END);
	ck_assert_uint_eq(p.epochs_done, 1);
	ck_assert_double_eq_tol(p.loss, 1.2769, 1e-9);
	ck_assert_double_eq_tol(p.accuracy, 0.7017, 1e-9);
	/* The same epoch's bar again does not count twice. */
	ck_assert_int_eq(progress_line(&p, "469/469 [====] - 0.6s - loss: 1.0 - accuracy: 0.9"),
			 PROGRESS_NONE);
	ck_assert_double_eq_tol(p.accuracy, 0.7017, 1e-9);
	ck_assert_int_eq(progress_line(&p, "Epoch 2/3"), PROGRESS_NONE);
	ck_assert_int_eq(progress_line(&p, "469/469 [====] - 0.5s - loss: 0.7139 - accuracy: 0.8433"),
			 PROGRESS_EPOCH_END);
	ck_assert_uint_eq(p.epochs_done, 2);
	ck_assert_int_eq(progress_line(&p, "test loss: 0.6012 - test accuracy: 0.8650"),
			 PROGRESS_TEST);
	ck_assert(p.has_test);
	ck_assert_double_eq_tol(p.test_accuracy, 0.865, 1e-9);
	progress_line(&p, "120000 samples in 1.14 s: 104842 samples/s");
	ck_assert_double_eq_tol(p.samples_per_s, 104842, 1e-6);
	progress_line(&p, "hl-train: mnist: no such file");
	ck_assert_str_eq(p.last, "hl-train: mnist: no such file");
	progress_line(&p, "");
	ck_assert_str_eq(p.last, "hl-train: mnist: no such file");
}
END_TEST

START_TEST(space_grid_and_lists)
{
	static struct trial_config t[SPACE_MAX_TRIALS];
	struct space s;

	space_init(&s);
	ck_assert_int_eq(space_expand(&s, t, SPACE_MAX_TRIALS), 1);	/* defaults only */
	ck_assert(!t[0].has[SPACE_LR]);
	ck_assert_int_eq(space_set(&s, SPACE_LR, "0.1, 0.01,0.001"), 0);
	ck_assert_int_eq(space_set(&s, SPACE_BATCH, "64,128"), 0);
	ck_assert_int_eq(space_expand(&s, t, SPACE_MAX_TRIALS), 6);
	ck_assert_double_eq(t[0].value[SPACE_LR], 0.1);
	ck_assert_double_eq(t[0].value[SPACE_BATCH], 64);
	ck_assert_double_eq(t[1].value[SPACE_BATCH], 128);
	ck_assert_double_eq(t[5].value[SPACE_LR], 0.001);
	ck_assert(!t[5].has[SPACE_SEED]);
	ck_assert_int_eq(space_expand(&s, t, 5), -1);
	ck_assert_int_eq(space_set(&s, SPACE_LR, "0.1,,0.2"), -1);
	ck_assert_ptr_nonnull(strstr(s.err, "lr"));
	ck_assert_int_eq(space_set(&s, SPACE_LR, "0"), -1);
	ck_assert_int_eq(space_set(&s, SPACE_LR, "11"), -1);
	ck_assert_int_eq(space_set(&s, SPACE_BATCH, "1.5"), -1);
	ck_assert_int_eq(space_set(&s, SPACE_SEED, "-1"), -1);
	ck_assert_int_eq(space_set(&s, SPACE_SEED, ""), -1);
	ck_assert_int_eq(space_key("batch"), SPACE_BATCH);
	ck_assert_int_eq(space_key("momentum"), -1);
}
END_TEST

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
}

START_TEST(space_file)
{
	static struct trial_config t[SPACE_MAX_TRIALS];
	char dir[] = "/tmp/trials-space.XXXXXX", path[64];
	struct space s;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/space", dir);
	write_file(path, "# the seed's sweep\nlr: 0.1, 0.05  # two\n\n  seed : 1,2,3\n", 0644);
	space_init(&s);
	ck_assert_int_eq(space_load(&s, path), 0);
	ck_assert_int_eq(space_expand(&s, t, SPACE_MAX_TRIALS), 6);
	ck_assert_double_eq(t[4].value[SPACE_LR], 0.05);
	ck_assert_double_eq(t[4].value[SPACE_SEED], 2);
	write_file(path, "lr: 0.1\nmomentum: 0.9\n", 0644);
	ck_assert_int_eq(space_load(&s, path), -1);
	ck_assert_ptr_nonnull(strstr(s.err, ":2: unknown key 'momentum'"));
	write_file(path, "lr 0.1\n", 0644);
	ck_assert_int_eq(space_load(&s, path), -1);
	ck_assert_ptr_nonnull(strstr(s.err, ":1: expected"));
	write_file(path, "batch: 0\n", 0644);
	ck_assert_int_eq(space_load(&s, path), -1);
	ck_assert_ptr_nonnull(strstr(s.err, "batch"));
	unlink(path);
	ck_assert_int_eq(space_load(&s, path), -1);
	ck_assert_ptr_nonnull(strstr(s.err, "No such file"));
	rmdir(dir);
}
END_TEST

/*
 * A stand-in with hl-train's CLI and output: accuracy lr * epoch / 10 per
 * epoch, a clean stop on SIGINT (status 130), a crash for lr 0.666 and a
 * failure for lr 0.777; it records the card it was given.
 */
static const char fake_trainer[] =
	"#!/bin/sh\n"
	"lr=1; epochs=1\n"
	"while [ $# -gt 0 ]; do case \"$1\" in --lr) lr=$2; shift 2;;"
	" --epochs) epochs=$2; shift 2;; *) shift;; esac; done\n"
	"echo \"$HABANA_VISIBLE_MODULES\" >> \"$(dirname \"$0\")/modules.$lr\"\n"
	"trap 'echo interrupted >&2; exit 130' INT\n"
	"[ \"$lr\" = 0.666 ] && { echo Epoch 1/$epochs; kill -SEGV $$; }\n"
	"[ \"$lr\" = 0.777 ] && { echo 'hl-train: bad model' >&2; exit 1; }\n"
	"[ \"$lr\" = 0.555 ] && trap '' INT\n"
	"e=1\n"
	"while [ $e -le $epochs ]; do\n"
	"  echo \"Epoch $e/$epochs\"\n"
	"  acc=$(awk \"BEGIN{print $lr*$e/10}\")\n"
	"  echo \"10/10 [======] - 0.1s - loss: 1.0 - accuracy: $acc\"\n"
	"  sleep 0.05\n"
	"  e=$((e+1))\n"
	"done\n"
	"echo \"test loss: 0.5 - test accuracy: $acc\"\n";

static void runner_setup(struct runner_options *o, char *dir, char *trainer, size_t len)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(trainer, len, "%s/fake-train", dir);
	write_file(trainer, fake_trainer, 0755);
	memset(o, 0, sizeof(*o));
	o->trainer = trainer;
	o->model = "model.json";
	o->quiet = true;
}

static void remove_dir(const char *dir)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void set_trials(struct trial *t, const double *lr, uint32_t n)
{
	uint32_t i;

	memset(t, 0, n * sizeof(*t));
	for (i = 0; i < n; i++) {
		t[i].id = i;
		t[i].cfg.has[SPACE_LR] = true;
		t[i].cfg.value[SPACE_LR] = lr[i];
	}
}

START_TEST(runner_stops_reports_and_goes_on)
{
	/* In turn on one card: the decisions follow the list's order. */
	static const double lr[] = { 0.5, 0.1, 0.9, 0.666, 0.2, 0.777, 0.8 };
	struct trial t[7];
	struct runner_options o;
	struct asha a;
	char dir[] = "/tmp/trials-run.XXXXXX", trainer[64];

	runner_setup(&o, dir, trainer, sizeof(trainer));
	o.epochs = 4;
	o.modules[0] = 5;
	o.n_modules = 1;
	o.parallel = 1;
	ck_assert_int_eq(asha_init(&a, 4, 1, 2, true, NULL), 0);
	o.asha = &a;
	set_trials(t, lr, 7);
	ck_assert_int_eq(runner_run(&o, t, 7), 0);
	ck_assert_int_eq(t[0].state, TRIAL_DONE);
	ck_assert_uint_eq(t[0].prog.epochs_done, 4);
	ck_assert(t[0].prog.has_test);
	/* 0.01 < 0.05 at rung 1: stopped there by SIGINT, the stand-in exits 130. */
	ck_assert_int_eq(t[1].state, TRIAL_STOPPED);
	ck_assert_uint_eq(t[1].stopped_at, 1);
	ck_assert_int_eq(t[1].exit_status, 130);
	ck_assert_uint_le(t[1].prog.epochs_done, 2);
	ck_assert_int_eq(t[2].state, TRIAL_DONE);
	ck_assert_int_eq(t[3].state, TRIAL_CRASHED);
	ck_assert_int_eq(t[3].exit_status, 11);
	ck_assert_int_eq(t[4].state, TRIAL_STOPPED);
	ck_assert_int_eq(t[5].state, TRIAL_FAILED);
	ck_assert_int_eq(t[5].exit_status, 1);
	ck_assert_str_eq(t[5].prog.last, "hl-train: bad model");
	/* Rung 2 holds 0.1 and 0.18: 0.16 is in the top half. */
	ck_assert_int_eq(t[6].state, TRIAL_DONE);
	ck_assert_int_eq(t[6].module, 5);
	ck_assert_double_eq_tol(trial_metric(&t[6], METRIC_ACCURACY), 0.32, 1e-9);
	ck_assert(isnan(trial_metric(&t[5], METRIC_ACCURACY)));
	asha_free(&a);
	remove_dir(dir);
}
END_TEST

START_TEST(runner_parallel_on_disjoint_cards)
{
	static const double lr[] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 };
	struct trial t[6];
	struct runner_options o;
	char dir[] = "/tmp/trials-par.XXXXXX", trainer[64], path[96], line[16];
	uint32_t i;

	runner_setup(&o, dir, trainer, sizeof(trainer));
	o.epochs = 3;
	o.modules[0] = 2;
	o.modules[1] = 7;
	o.modules[2] = 4;
	o.n_modules = 3;
	o.parallel = 3;
	set_trials(t, lr, 6);
	ck_assert_int_eq(runner_run(&o, t, 6), 0);
	for (i = 0; i < 6; i++) {
		FILE *f;

		ck_assert_int_eq(t[i].state, TRIAL_DONE);
		ck_assert_uint_eq(t[i].prog.epochs_done, 3);
		ck_assert(t[i].module == 2 || t[i].module == 7 || t[i].module == 4);
		/* The trial saw exactly its own card in HABANA_VISIBLE_MODULES. */
		snprintf(path, sizeof(path), "%s/modules.%g", dir, lr[i]);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
		fclose(f);
		ck_assert_int_eq(atoi(line), t[i].module);
	}
	/* The first three start together on the three cards. */
	ck_assert_int_ne(t[0].module, t[1].module);
	ck_assert_int_ne(t[1].module, t[2].module);
	ck_assert_int_ne(t[0].module, t[2].module);
	remove_dir(dir);
}
END_TEST

/* The default trials at once: one per card, as many as the CPUs hold. */
START_TEST(runner_default_parallel_fits_the_cpus)
{
	ck_assert_uint_eq(runner_default_parallel(8, 2), 2);	/* the 2-CPU VM of 8 cards */
	ck_assert_uint_eq(runner_default_parallel(8, 3), 3);
	ck_assert_uint_eq(runner_default_parallel(8, 4), 4);
	ck_assert_uint_eq(runner_default_parallel(8, 6), 6);
	ck_assert_uint_eq(runner_default_parallel(8, 16), 8);
	ck_assert_uint_eq(runner_default_parallel(8, 64), 8);	/* never more than the cards */
	ck_assert_uint_eq(runner_default_parallel(4, 8), 4);
	ck_assert_uint_eq(runner_default_parallel(1, 1), 1);	/* always at least one */
	ck_assert_uint_eq(runner_default_parallel(3, 0), 1);	/* CPUs unknown */
	ck_assert_uint_eq(runner_default_parallel(3, -1), 1);
}
END_TEST

/*
 * SIGINT to hl-trials: no more trials start, the running ones get the
 * signal and stop (the one that ignores it is killed after the grace
 * period), their epochs so far are kept, and the signal is reported.
 */
START_TEST(runner_interrupted_keeps_results)
{
	static const double lr[] = { 0.1, 0.555, 0.3, 0.4 };
	struct trial t[4];
	struct runner_options o;
	char dir[] = "/tmp/trials-int.XXXXXX", trainer[64];
	pid_t helper;

	runner_setup(&o, dir, trainer, sizeof(trainer));
	o.epochs = 400;
	o.modules[0] = 0;
	o.modules[1] = 1;
	o.n_modules = 2;
	o.parallel = 2;
	set_trials(t, lr, 4);
	ck_assert_int_eq(runner_catch_signals(), 0);
	ck_assert_int_eq(runner_interrupted(), 0);
	helper = fork();
	ck_assert_int_ge(helper, 0);
	if (helper == 0) {
		usleep(800 * 1000);
		kill(getppid(), SIGINT);
		_exit(0);
	}
	ck_assert_int_eq(runner_run(&o, t, 4), 0);
	waitpid(helper, NULL, 0);
	ck_assert_int_eq(runner_interrupted(), SIGINT);
	/* The stand-in stops cleanly: status 130, its epochs counted. */
	ck_assert_int_eq(t[0].state, TRIAL_INTERRUPTED);
	ck_assert_int_eq(t[0].exit_status, 130);
	ck_assert_uint_gt(t[0].prog.epochs_done, 0);
	ck_assert_uint_lt(t[0].prog.epochs_done, 400);
	/* The one that ignores SIGINT is killed once the grace period is over. */
	ck_assert_int_eq(t[1].state, TRIAL_INTERRUPTED);
	ck_assert_int_eq(t[1].exit_status, SIGKILL);
	ck_assert_double_ge(t[1].t_end - t[0].t_end, 3.0);
	/* Nothing more started. */
	ck_assert_int_eq(t[2].state, TRIAL_PENDING);
	ck_assert_int_eq(t[3].state, TRIAL_PENDING);
	ck_assert_str_eq(trial_state_name(TRIAL_INTERRUPTED), "interrupted");
	remove_dir(dir);
}
END_TEST

Suite *trials_suite(void)
{
	Suite *s = suite_create("trials");
	TCase *tc = tcase_create("asha");

	tcase_add_test(tc, asha_rungs);
	tcase_add_test(tc, asha_cutoff_is_the_quantile);
	tcase_add_test(tc, asha_keeps_about_one_in_eta);
	tcase_add_test(tc, asha_loss_and_nan);
	suite_add_tcase(s, tc);
	tc = tcase_create("parsing");
	tcase_add_test(tc, progress_reads_hl_train_output);
	tcase_add_test(tc, space_grid_and_lists);
	tcase_add_test(tc, space_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("runner");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, runner_stops_reports_and_goes_on);
	tcase_add_test(tc, runner_parallel_on_disjoint_cards);
	tcase_add_test(tc, runner_default_parallel_fits_the_cpus);
	tcase_add_test(tc, runner_interrupted_keeps_results);
	suite_add_tcase(s, tc);
	return s;
}
