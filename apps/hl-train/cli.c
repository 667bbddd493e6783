/* Command-line parsing for the trainers (cli.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dataset.h"

/* Where the data sets are when GAUDISIM_DATA does not say: the host share. */
#define CLI_DEFAULT_DATA_ROOT "/mnt/host/data"
/* Ranks of one data-parallel run: the modules of a box. */
#define CLI_MAX_DEVICES 8

static void cli_usage(FILE *f, const char *prog, int device)
{
	fprintf(f,
		"usage: %s --model FILE [--data mnist|fashion-mnist] [options]\n"
		"  --model FILE        model description (JSON)\n"
		"  --data NAME         mnist (default) or fashion-mnist\n"
		"  --data-dir DIR      folder holding NAME/ (default $GAUDISIM_DATA or %s)\n"
		"  --epochs N          epochs in total (default: the model's)\n"
		"  --batch N           batch size (default: the model's)\n"
		"  --lr X              learning rate (default: the model's)\n"
		"  --seed N            initialisation and shuffling seed (default: the model's)\n"
		"  --save CKPT         write a safetensors checkpoint after every epoch\n"
		"  --resume CKPT       continue from a checkpoint\n"
		"  --mllog             print MLPerf-style :::MLLOG lines\n"
		"  --dump-losses FILE  write every step's loss to FILE\n"
		"  --max-steps N       stop after N training steps\n"
		"  --steps-per-execution N\n"
		"                      training steps per device submission, 1..32\n"
		"                      (default: the model's, else 1; the CPU runs one each)\n"
		"  --no-eval           skip the test-set evaluation\n",
		prog, CLI_DEFAULT_DATA_ROOT);
	if (device)
		fprintf(f,
			"  --bf16              BF16 mixed precision (GEMM/conv inputs)\n"
			"  --eager             run op by op instead of one recipe per step\n"
			"  --profile FILE      write a Chrome trace of the run to FILE\n"
			"  --devices N         data parallel on modules 0..N-1, a process each\n"
			"                      (default 1); --batch is the global batch\n");
}

static int cli_u64(const char *flag, const char *s, uint64_t lo, uint64_t hi,
		   uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '-' || *s == '\0')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	fprintf(stderr, "hl-train: %s: '%s' is not an integer in %llu..%llu\n", flag, s,
		(unsigned long long)lo, (unsigned long long)hi);
	return -1;
}

static int cli_u32(const char *flag, const char *s, uint32_t lo, uint32_t hi,
		   uint32_t *out)
{
	uint64_t v;

	if (cli_u64(flag, s, lo, hi, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int cli_lr(const char *s, float *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || *s == '\0' || !isfinite(v) || v <= 0 || v > 10) {
		fprintf(stderr, "hl-train: --lr: '%s' is not a number in (0, 10]\n", s);
		return -1;
	}
	*out = (float)v;
	return 0;
}

enum {
	CLI_DATA_DIR = 256, CLI_EPOCHS, CLI_BATCH, CLI_LR, CLI_SEED, CLI_BF16,
	CLI_EAGER, CLI_SAVE, CLI_RESUME, CLI_MLLOG, CLI_DUMP, CLI_PROFILE,
	CLI_MAX_STEPS, CLI_NO_EVAL, CLI_MODEL, CLI_DATA, CLI_HELP, CLI_DEVICES, CLI_SPE,
};

static const struct option cli_options[] = {
	{ "model", required_argument, NULL, CLI_MODEL },
	{ "data", required_argument, NULL, CLI_DATA },
	{ "data-dir", required_argument, NULL, CLI_DATA_DIR },
	{ "epochs", required_argument, NULL, CLI_EPOCHS },
	{ "batch", required_argument, NULL, CLI_BATCH },
	{ "lr", required_argument, NULL, CLI_LR },
	{ "seed", required_argument, NULL, CLI_SEED },
	{ "bf16", no_argument, NULL, CLI_BF16 },
	{ "eager", no_argument, NULL, CLI_EAGER },
	{ "save", required_argument, NULL, CLI_SAVE },
	{ "resume", required_argument, NULL, CLI_RESUME },
	{ "mllog", no_argument, NULL, CLI_MLLOG },
	{ "dump-losses", required_argument, NULL, CLI_DUMP },
	{ "profile", required_argument, NULL, CLI_PROFILE },
	{ "max-steps", required_argument, NULL, CLI_MAX_STEPS },
	{ "no-eval", no_argument, NULL, CLI_NO_EVAL },
	{ "devices", required_argument, NULL, CLI_DEVICES },
	{ "steps-per-execution", required_argument, NULL, CLI_SPE },
	{ "help", no_argument, NULL, CLI_HELP },
	{ NULL, 0, NULL, 0 },
};

static int cli_path(const char *flag, const char *s, const char **out)
{
	if (!*s) {
		fprintf(stderr, "hl-train: %s needs a file name\n", flag);
		return -1;
	}
	*out = s;
	return 0;
}

int cli_parse(int argc, char **argv, int device, struct train_options *opt)
{
	const char *prog = argv[0] ? argv[0] : "hl-train";
	int c, bad = 0;

	memset(opt, 0, sizeof(*opt));
	opt->data_name = "mnist";
	opt->data_root = getenv("GAUDISIM_DATA");
	if (!opt->data_root || !*opt->data_root)
		opt->data_root = CLI_DEFAULT_DATA_ROOT;
	opterr = 0;
	while (!bad && (c = getopt_long(argc, argv, ":", cli_options, NULL)) != -1) {
		switch (c) {
		case CLI_MODEL:
			bad = cli_path("--model", optarg, &opt->model_path);
			break;
		case CLI_DATA:
			opt->data_name = optarg;
			if (!dataset_known(optarg)) {
				fprintf(stderr, "hl-train: --data: unknown data set '%s' "
					"(mnist, fashion-mnist)\n", optarg);
				bad = -1;
			}
			break;
		case CLI_DATA_DIR:
			bad = cli_path("--data-dir", optarg, &opt->data_root);
			break;
		case CLI_EPOCHS:
			bad = cli_u32("--epochs", optarg, 1, 10000, &opt->epochs);
			break;
		case CLI_BATCH:
			bad = cli_u32("--batch", optarg, 1, 65536, &opt->batch);
			break;
		case CLI_LR:
			bad = cli_lr(optarg, &opt->lr);
			break;
		case CLI_SEED:
			bad = cli_u64("--seed", optarg, 0, INT64_MAX, &opt->seed);
			opt->has_seed = true;
			break;
		case CLI_SAVE:
			bad = cli_path("--save", optarg, &opt->save);
			break;
		case CLI_RESUME:
			bad = cli_path("--resume", optarg, &opt->resume);
			break;
		case CLI_DUMP:
			bad = cli_path("--dump-losses", optarg, &opt->dump_losses);
			break;
		case CLI_PROFILE:
			bad = cli_path("--profile", optarg, &opt->profile);
			break;
		case CLI_MAX_STEPS:
			bad = cli_u64("--max-steps", optarg, 1, UINT32_MAX, &opt->max_steps);
			break;
		case CLI_SPE:
			bad = cli_u32("--steps-per-execution", optarg, 1,
				      MODEL_MAX_STEPS_PER_EXECUTION, &opt->steps_per_execution);
			break;
		case CLI_MLLOG:
			opt->mllog = true;
			break;
		case CLI_NO_EVAL:
			opt->no_eval = true;
			break;
		case CLI_BF16:
			opt->bf16 = true;
			break;
		case CLI_EAGER:
			opt->eager = true;
			break;
		case CLI_DEVICES:
			bad = cli_u32("--devices", optarg, 1, CLI_MAX_DEVICES, &opt->devices);
			break;
		case CLI_HELP:
			cli_usage(stdout, prog, device);
			return 2;
		case ':':
			fprintf(stderr, "hl-train: %s needs a value\n", argv[optind - 1]);
			bad = -1;
			break;
		default:
			fprintf(stderr, "hl-train: unknown option '%s'\n", argv[optind - 1]);
			bad = -1;
			break;
		}
	}
	if (bad)
		goto usage;
	if (optind < argc) {
		fprintf(stderr, "hl-train: unexpected argument '%s'\n", argv[optind]);
		goto usage;
	}
	if (!opt->model_path) {
		fprintf(stderr, "hl-train: --model FILE is required\n");
		goto usage;
	}
	if (!device && (opt->bf16 || opt->eager || opt->profile || opt->devices)) {
		fprintf(stderr, "hl-train: --bf16, --eager, --profile and --devices need the "
			"device (the CPU reference runs FP32, op by op)\n");
		goto usage;
	}
	if (opt->save && opt->resume && strcmp(opt->save, opt->resume) == 0)
		fprintf(stderr, "hl-train: note: --save replaces the --resume file after each epoch\n");
	return 0;
usage:
	fprintf(stderr, "try '%s --help'\n", prog);
	return 1;
}

int cli_main(int argc, char **argv, int device, const struct backend_ops *ops)
{
	struct train_options opt;

	switch (cli_parse(argc, argv, device, &opt)) {
	case 0:
		return train_run(&opt, ops);
	case 2:
		return 0;
	default:
		return 2;
	}
}
