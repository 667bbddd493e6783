// SPDX-License-Identifier: MIT
/*
 * hl-trials: a hyper-parameter search with hl-train, one trial per device
 * and all of them at once (Ray Tune's "one HPU per trial" pattern), with
 * asynchronous successive halving stopping the poor ones early; a results
 * table and the best configuration at the end.
 * Exit status: 0 a best configuration was found, 1 no trial ran to the
 * end (or the search broke), 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "asha.h"
#include "hlthunk.h"
#include "runner.h"
#include "space.h"

#define EXIT_USAGE	2

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hl-trials --model FILE --epochs N [search space] [options]\n"
		"Search space (every combination is a trial):\n"
		"  --space FILE       lines 'lr: 0.1, 0.01', 'batch: 64, 128', 'seed: 1, 2'\n"
		"  --lr LIST          learning rates (comma separated)\n"
		"  --batch LIST       batch sizes\n"
		"  --seed LIST        seeds\n"
		"Training (passed to every trial):\n"
		"  --model FILE       model description; --data NAME, --data-dir DIR as hl-train's\n"
		"  --epochs N         epochs of a trial that is not stopped (ASHA's max_t)\n"
		"  --no-eval          skip the test-set evaluation\n"
		"Scheduling:\n"
		"  --modules LIST     cards to use, e.g. 0-3 or 0,2 (default: every device)\n"
		"  --parallel N       trials at once (default: one per card, as many as the CPUs\n"
		"                     hold: one each; 1 runs them in turn)\n"
		"  --grace N          first rung, in epochs (default 1)\n"
		"  --eta N            reduction factor: the top 1/N of a rung goes on (default 3)\n"
		"  --metric NAME      accuracy (default, higher is better) or loss\n"
		"  --no-asha          run every trial to the end\n"
		"Output:\n"
		"  --log-dir DIR      keep each trial's output in DIR/trial-N.log\n"
		"  --trainer PROG     the trainer to run (default hl-train)\n"
		"  --quiet            no per-epoch lines\n");
}

static int parse_u32(const char *flag, const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi) {
		fprintf(stderr, "hl-trials: %s: '%s' is not an integer in %u..%u\n", flag, s, lo,
			hi);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* "0,2,4-7" into o->modules, each card once. */
static int parse_modules(const char *list, struct runner_options *o)
{
	const char *p = list;
	bool seen[RUNNER_MAX_MODULES] = { false };

	o->n_modules = 0;
	while (*p) {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			goto bad;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			b = strtoul(end + 1, &end, 10);
		}
		if (b < a || b >= RUNNER_MAX_MODULES)
			goto bad;
		for (; a <= b; a++) {
			if (seen[a]) {
				fprintf(stderr, "hl-trials: --modules: card %lu given twice\n", a);
				return -1;
			}
			seen[a] = true;
			o->modules[o->n_modules++] = (int)a;
		}
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (o->n_modules)
		return 0;
bad:
	fprintf(stderr, "hl-trials: --modules: '%s' is not a list of cards 0..%d such as 0-3 or 0,2\n",
		list, RUNNER_MAX_MODULES - 1);
	return -1;
}

static void print_config(const struct trial_config *c)
{
	int k;
	bool any = false;

	for (k = 0; k < SPACE_KEYS; k++) {
		if (!c->has[k])
			continue;
		printf("%s%s=%g", any ? " " : "", space_key_name((enum space_key)k), c->value[k]);
		any = true;
	}
	if (!any)
		printf("(the model's defaults)");
}

static void print_table(const struct trial *t, uint32_t n, int best)
{
	uint32_t i;

	printf("\n%-5s %-6s %-10s %-6s %-6s %-8s %6s %8s %8s %8s %8s\n", "trial", "module", "lr",
	       "batch", "seed", "state", "epochs", "loss", "accuracy", "test-acc", "seconds");
	for (i = 0; i < n; i++) {
		char lr[16] = "-", batch[16] = "-", seed[16] = "-", test[16] = "-";
		char loss[16] = "-", acc[16] = "-";

		if (t[i].cfg.has[SPACE_LR])
			snprintf(lr, sizeof(lr), "%g", t[i].cfg.value[SPACE_LR]);
		if (t[i].cfg.has[SPACE_BATCH])
			snprintf(batch, sizeof(batch), "%.0f", t[i].cfg.value[SPACE_BATCH]);
		if (t[i].cfg.has[SPACE_SEED])
			snprintf(seed, sizeof(seed), "%.0f", t[i].cfg.value[SPACE_SEED]);
		if (t[i].prog.epochs_done) {
			snprintf(loss, sizeof(loss), "%.4f", t[i].prog.loss);
			snprintf(acc, sizeof(acc), "%.4f", t[i].prog.accuracy);
		}
		if (t[i].prog.has_test)
			snprintf(test, sizeof(test), "%.4f", t[i].prog.test_accuracy);
		printf("%-5u %-6d %-10s %-6s %-6s %-8s %6u %8s %8s %8s %8.1f%s\n", t[i].id,
		       t[i].module, lr, batch, seed, trial_state_name(t[i].state),
		       t[i].prog.epochs_done, loss, acc, test, t[i].t_end - t[i].t_start,
		       (int)i == best ? "  <- best" : "");
	}
}

/* The trial that ran every epoch with the best metric, or -1. */
static int best_trial(const struct trial *t, uint32_t n, enum trial_metric m)
{
	int best = -1;
	uint32_t i;

	for (i = 0; i < n; i++) {
		double v = trial_metric(&t[i], m), b;

		if (t[i].state != TRIAL_DONE || isnan(v))
			continue;
		if (best < 0) {
			best = (int)i;
			continue;
		}
		b = trial_metric(&t[best], m);
		if (m == METRIC_LOSS ? v < b : v > b)
			best = (int)i;
	}
	return best;
}

enum {
	OPT_SPACE = 256, OPT_LR, OPT_BATCH, OPT_SEED, OPT_MODEL, OPT_DATA, OPT_DATA_DIR,
	OPT_EPOCHS, OPT_NO_EVAL, OPT_MODULES, OPT_PARALLEL, OPT_GRACE, OPT_ETA, OPT_METRIC,
	OPT_NO_ASHA, OPT_LOG_DIR, OPT_TRAINER, OPT_QUIET,
};

static const struct option long_opts[] = {
	{ "space", required_argument, NULL, OPT_SPACE },
	{ "lr", required_argument, NULL, OPT_LR },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "data", required_argument, NULL, OPT_DATA },
	{ "data-dir", required_argument, NULL, OPT_DATA_DIR },
	{ "epochs", required_argument, NULL, OPT_EPOCHS },
	{ "no-eval", no_argument, NULL, OPT_NO_EVAL },
	{ "modules", required_argument, NULL, OPT_MODULES },
	{ "parallel", required_argument, NULL, OPT_PARALLEL },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "eta", required_argument, NULL, OPT_ETA },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "no-asha", no_argument, NULL, OPT_NO_ASHA },
	{ "log-dir", required_argument, NULL, OPT_LOG_DIR },
	{ "trainer", required_argument, NULL, OPT_TRAINER },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	static struct trial_config configs[SPACE_MAX_TRIALS];
	struct runner_options o = { .trainer = "hl-train" };
	uint32_t grace = 1, eta = 3, i;
	const char *modules = NULL, *why = NULL;
	bool use_asha = true;
	struct space space;
	struct trial *trials;
	struct asha asha;
	int c, n, best, rc, sig;
	long cpus;
	struct timespec a, b;

	/* A line as it happens, also into a log file or a pipe (a script watching it). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	space_init(&space);
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_SPACE:
			if (space_load(&space, optarg))
				goto bad_space;
			break;
		case OPT_LR:
		case OPT_BATCH:
		case OPT_SEED:
			if (space_set(&space, (enum space_key)(c - OPT_LR), optarg))
				goto bad_space;
			break;
		case OPT_MODEL: o.model = optarg; break;
		case OPT_DATA: o.data = optarg; break;
		case OPT_DATA_DIR: o.data_dir = optarg; break;
		case OPT_EPOCHS:
			if (parse_u32("--epochs", optarg, 1, 1000, &o.epochs))
				return EXIT_USAGE;
			break;
		case OPT_NO_EVAL: o.no_eval = true; break;
		case OPT_MODULES: modules = optarg; break;
		case OPT_PARALLEL:
			if (parse_u32("--parallel", optarg, 1, RUNNER_MAX_MODULES, &o.parallel))
				return EXIT_USAGE;
			break;
		case OPT_GRACE:
			if (parse_u32("--grace", optarg, 1, 1000, &grace))
				return EXIT_USAGE;
			break;
		case OPT_ETA:
			if (parse_u32("--eta", optarg, 2, 100, &eta))
				return EXIT_USAGE;
			break;
		case OPT_METRIC:
			if (!strcmp(optarg, "accuracy")) {
				o.metric = METRIC_ACCURACY;
			} else if (!strcmp(optarg, "loss")) {
				o.metric = METRIC_LOSS;
			} else {
				fprintf(stderr, "hl-trials: --metric: '%s' is not accuracy or loss\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_NO_ASHA: use_asha = false; break;
		case OPT_LOG_DIR: o.log_dir = optarg; break;
		case OPT_TRAINER: o.trainer = optarg; break;
		case OPT_QUIET: o.quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hl-trials: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!o.model || !o.epochs) {
		fprintf(stderr, "hl-trials: --model and --epochs are required (--help)\n");
		return EXIT_USAGE;
	}
	if (modules) {
		if (parse_modules(modules, &o))
			return EXIT_USAGE;
	} else {
		int count = hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE);

		if (count <= 0) {
			fprintf(stderr, "hl-trials: no gaudisim device found\n");
			return 1;
		}
		for (c = 0; c < count && c < RUNNER_MAX_MODULES; c++)
			o.modules[o.n_modules++] = c;
	}
	/*
	 * By default as many trials at once as the CPUs hold, the others
	 * queue: more would make each slower than running them in turn.
	 */
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!o.parallel) {
		o.parallel = runner_default_parallel(o.n_modules, cpus);
		if (o.parallel < o.n_modules)
			printf("hl-trials: %u cards but %ld CPUs: %u trial%s at once, the others "
			       "queue (a trial keeps about %u CPU%s busy; --parallel N to choose)\n",
			       o.n_modules, cpus, o.parallel, o.parallel == 1 ? "" : "s",
			       RUNNER_CPUS_PER_TRIAL, RUNNER_CPUS_PER_TRIAL == 1 ? "" : "s");
	} else if (o.parallel > o.n_modules) {
		o.parallel = o.n_modules;
	}
	if (o.parallel > runner_default_parallel(o.n_modules, cpus))
		printf("hl-trials: %u trials at once on %ld CPUs: they share the CPUs and may "
		       "run slower than in turn\n", o.parallel, cpus);
	if (o.log_dir && mkdir(o.log_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "hl-trials: --log-dir %s: %s\n", o.log_dir, strerror(errno));
		return EXIT_USAGE;
	}
	n = space_expand(&space, configs, SPACE_MAX_TRIALS);
	if (n < 0) {
		fprintf(stderr, "hl-trials: the search space has more than %d trials\n",
			SPACE_MAX_TRIALS);
		return EXIT_USAGE;
	}
	if (use_asha) {
		if (asha_init(&asha, o.epochs, grace, eta, o.metric == METRIC_ACCURACY, &why)) {
			fprintf(stderr, "hl-trials: %s\n", why);
			return EXIT_USAGE;
		}
		o.asha = &asha;
	}
	trials = calloc((size_t)n, sizeof(*trials));
	if (!trials) {
		fprintf(stderr, "hl-trials: out of memory\n");
		return 1;
	}
	for (c = 0; c < n; c++) {
		trials[c].id = (uint32_t)c;
		trials[c].cfg = configs[c];
	}
	printf("hl-trials: %d trials of %s, %u epochs each, %u at once on %u cards, ", n,
	       o.model, o.epochs, o.parallel, o.n_modules);
	if (use_asha) {
		printf("ASHA (grace %u, eta %u, rungs", grace, eta);
		for (i = 0; i < asha.n_rungs; i++)
			printf(" %u", asha.rung[i].milestone);
		printf(")\n");
	} else {
		printf("no early stopping\n");
	}
	if (runner_catch_signals()) {
		fprintf(stderr, "hl-trials: installing the signal handlers: %s\n", strerror(errno));
		free(trials);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = runner_run(&o, trials, (uint32_t)n);
	clock_gettime(CLOCK_MONOTONIC, &b);
	sig = runner_interrupted();
	if (sig)
		printf("\nhl-trials: interrupted by %s: the results so far\n", strsignal(sig));
	best = best_trial(trials, (uint32_t)n, o.metric);
	print_table(trials, (uint32_t)n, best);
	printf("\n%d trials in %.2f s\n", n,
	       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9);
	for (c = 0; c < n; c++)
		if (trials[c].state == TRIAL_FAILED || trials[c].state == TRIAL_CRASHED)
			printf("trial %d %s: %s\n", c, trial_state_name(trials[c].state),
			       trials[c].prog.last);
	if (best >= 0) {
		printf("best: trial %d: ", best);
		print_config(&trials[best].cfg);
		printf(" %s %.4f", o.metric == METRIC_LOSS ? "loss" : "accuracy",
		       trial_metric(&trials[best], o.metric));
		if (trials[best].prog.has_test)
			printf(" test accuracy %.4f", trials[best].prog.test_accuracy);
		printf("\n");
	} else {
		printf("no trial ran to the end: no best configuration\n");
	}
	if (use_asha)
		asha_free(&asha);
	free(trials);
	if (sig)
		return 128 + sig;
	return rc || best < 0 ? 1 : 0;

bad_space:
	fprintf(stderr, "hl-trials: %s\n", space.err);
	return EXIT_USAGE;
}
