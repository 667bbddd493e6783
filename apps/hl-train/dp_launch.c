/*
 * Data-parallel launch of hl-train (dp_launch.h). `--devices N` makes
 * this process a launcher: it creates the communicator's id, starts N
 * copies of the program, rank r seeing only module r, and waits for all
 * of them. A process started with HLRT_RANK, HLRT_NRANKS and HLRT_COMM_ID
 * (by this launcher or by another, mpirun say) trains as that rank; rank
 * 0 prints the report and writes the files, the others stay quiet.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dp_launch.h"
#include "hlrt.h"

/* An environment variable as an integer in lo..hi; -1 if not set. */
static int dp_env_u32(const char *name, uint32_t lo, uint32_t hi, uint32_t *out)
{
	const char *s = getenv(name);
	unsigned long v;
	char *end;

	if (!s)
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || errno || *end || v < lo || v > hi) {
		fprintf(stderr, "hl-train: %s='%s' is not an integer in %u..%u\n", name, s,
			lo, hi);
		return -2;
	}
	*out = (uint32_t)v;
	return 0;
}

/* This process is one rank of a job another process launched. */
static int dp_rank(struct train_options *opt, const struct backend_ops *ops)
{
	static struct backend_ops dp_ops;
	static char name[32];
	uint32_t nranks, rank;
	const char *id = getenv("HLRT_COMM_ID");

	if (dp_env_u32("HLRT_NRANKS", 1, DP_MAX_RANKS, &nranks) ||
	    dp_env_u32("HLRT_RANK", 0, nranks - 1, &rank))
		goto bad;
	if (!id || !*id) {
		fprintf(stderr, "hl-train: HLRT_RANK is set but HLRT_COMM_ID is not\n");
		return 1;
	}
	if (opt->devices && opt->devices != nranks) {
		fprintf(stderr, "hl-train: --devices %u, but HLRT_NRANKS is %u\n",
			opt->devices, nranks);
		return 1;
	}
	if (opt->batch && opt->batch < nranks) {
		fprintf(stderr, "hl-train: --batch %u is smaller than the %u ranks\n",
			opt->batch, nranks);
		return 1;
	}
	if (nranks == 1)
		return train_run(opt, ops);
	opt->rank = rank;
	opt->nranks = nranks;
	opt->comm_id = id;
	if (rank) {
		/* One report and one set of files: rank 0's. */
		if (!freopen("/dev/null", "w", stdout)) {
			fprintf(stderr, "hl-train: rank %u: /dev/null: %s\n", rank,
				strerror(errno));
			return 1;
		}
		opt->mllog = false;
		opt->save = NULL;
		opt->dump_losses = NULL;
		opt->profile = NULL;
		opt->no_eval = true;
	}
	dp_ops = *ops;
	snprintf(name, sizeof(name), "%u HPUs", nranks);
	dp_ops.name = name;
	return train_run(opt, &dp_ops);
bad:
	fprintf(stderr, "hl-train: HLRT_RANK needs HLRT_NRANKS (1..%d) and HLRT_COMM_ID\n",
		DP_MAX_RANKS);
	return 1;
}

/* Stop the ranks still running: one failed, the others would wait for it. */
static void dp_kill(const pid_t *pid, uint32_t n)
{
	for (uint32_t r = 0; r < n; r++)
		if (pid[r] > 0)
			kill(pid[r], SIGKILL);
}

static int dp_wait(pid_t *pid, uint32_t n)
{
	uint32_t left = n;
	int ret = 0;

	while (left) {
		int status;
		pid_t p = waitpid(-1, &status, 0);
		uint32_t r;

		if (p < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "hl-train: waiting for the ranks: %s\n", strerror(errno));
			dp_kill(pid, n);
			return 1;
		}
		for (r = 0; r < n && pid[r] != p; r++)
			;
		if (r == n)
			continue;
		pid[r] = 0;
		left--;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (!ret) {
			if (WIFEXITED(status))
				fprintf(stderr, "hl-train: rank %u failed (exit status %d); "
					"stopping the others\n", r, WEXITSTATUS(status));
			else
				fprintf(stderr, "hl-train: rank %u killed by signal %d; "
					"stopping the others\n", r, WTERMSIG(status));
			ret = WIFEXITED(status) && WEXITSTATUS(status) == 130 ? 130 : 1;
			dp_kill(pid, n);
		}
	}
	return ret;
}

/* Start N ranks of this program, rank r on module r, and wait for them. */
static int dp_launch(char **argv, const struct train_options *opt)
{
	static const char *const masks[] = { "HABANA_VISIBLE_MODULES", "HABANA_VISIBLE_DEVICES" };
	uint32_t n = opt->devices, count;
	pid_t pid[DP_MAX_RANKS] = { 0 };
	hlrt_comm_id id;
	hlrt_status st;
	char num[16];

	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		const char *m = getenv(masks[i]);

		if (m && *m && strcmp(m, "all") != 0) {
			fprintf(stderr, "hl-train: --devices %u runs on modules 0..%u; it does not "
				"take %s=%s (start the ranks with HLRT_RANK instead)\n", n, n - 1,
				masks[i], m);
			return 1;
		}
	}
	st = hlrt_device_count(&count);
	if (st) {
		fprintf(stderr, "hl-train: counting the devices: %s (%s)\n", hlrt_last_error(),
			hlrt_status_name(st));
		return 1;
	}
	if (n > count) {
		fprintf(stderr, "hl-train: --devices %u: only %u device%s visible\n", n, count,
			count == 1 ? " is" : "s are");
		return 1;
	}
	if (opt->batch && opt->batch < n) {
		fprintf(stderr, "hl-train: --batch %u is smaller than --devices %u\n",
			opt->batch, n);
		return 1;
	}
	st = hlrt_comm_get_unique_id(&id);
	if (st) {
		fprintf(stderr, "hl-train: a communicator id: %s (%s)\n", hlrt_last_error(),
			hlrt_status_name(st));
		return 1;
	}
	fflush(NULL);
	for (uint32_t r = 0; r < n; r++) {
		pid[r] = fork();
		if (pid[r] < 0) {
			fprintf(stderr, "hl-train: starting rank %u: %s\n", r, strerror(errno));
			dp_kill(pid, r);
			dp_wait(pid, r);
			return 1;
		}
		if (pid[r] == 0) {
			snprintf(num, sizeof(num), "%u", r);
			setenv("HABANA_VISIBLE_MODULES", num, 1);
			setenv("HLRT_RANK", num, 1);
			snprintf(num, sizeof(num), "%u", n);
			setenv("HLRT_NRANKS", num, 1);
			setenv("HLRT_COMM_ID", id.text, 1);
			execv("/proc/self/exe", argv);
			fprintf(stderr, "hl-train: rank %u: running %s: %s\n", r, argv[0],
				strerror(errno));
			_exit(127);
		}
	}
	/* Ctrl-C reaches the ranks, which stop between steps; wait for them. */
	signal(SIGINT, SIG_IGN);
	return dp_wait(pid, n);
}

int dp_main(char **argv, struct train_options *opt, const struct backend_ops *ops)
{
	if (getenv("HLRT_RANK"))
		return dp_rank(opt, ops);
	if (opt->devices > 1)
		return dp_launch(argv, opt);
	return train_run(opt, ops);
}
