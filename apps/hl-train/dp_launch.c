/*
 * Data-parallel launch of hl-train (dp_launch.h). `--devices N` makes
 * this process a launcher: it creates the communicator's id, starts N
 * copies of the program, rank r seeing only module r, and waits for all
 * of them. A process started with HLRT_RANK, HLRT_NRANKS and HLRT_COMM_ID
 * (by this launcher or by another, mpirun say) trains as that rank; rank
 * 0 prints the report and writes the files, the others stay quiet.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
	static char name[32], profile[4096];
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
	/* hl-smi and ps show which rank this is (15 characters at most). */
	snprintf(name, sizeof(name), "hl-train r%u", rank);
	prctl(PR_SET_NAME, name, 0, 0, 0);
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
		opt->no_eval = true;
		/* Every rank profiles its own device: FILE.rankR next to rank 0's FILE. */
		if (opt->profile) {
			snprintf(profile, sizeof(profile), "%s.rank%u", opt->profile, rank);
			opt->profile = profile;
		}
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

/* Seconds the ranks get to stop between two steps before they are killed. */
#define DP_STOP_GRACE_S	5

/* The signal the launcher got (SIGINT, SIGTERM), and the grace period's end. */
static volatile sig_atomic_t dp_signal, dp_alarm;

static void dp_on_signal(int sig)
{
	if (sig == SIGALRM)
		dp_alarm = 1;
	else if (sig != SIGCHLD && !dp_signal)
		dp_signal = sig;
}

/*
 * Handlers for SIGINT, SIGTERM, SIGALRM and SIGCHLD (which only wakes the
 * wait); the caller keeps them blocked, and dp_wait() takes them in
 * sigsuspend(), so none arrives between a check and the sleep.
 */
static void dp_catch_signals(sigset_t *set)
{
	struct sigaction sa;

	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGALRM);
	sigaddset(set, SIGCHLD);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = dp_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
}

/* Signal every rank still running (they share one process group). */
static void dp_signal_ranks(pid_t group, const pid_t *pid, uint32_t n, int sig)
{
	if (group > 0 && kill(-group, sig) == 0)
		return;
	for (uint32_t r = 0; r < n; r++)
		if (pid[r] > 0)
			kill(pid[r], sig);
}

/*
 * Wait for the ranks. One failing stops the others (they would wait for
 * it); a SIGINT or SIGTERM to the launcher goes to every rank, which stop
 * between steps, and those still running after DP_STOP_GRACE_S are killed
 * (one may wait in a collective for a rank that already stopped). Called
 * with dp_catch_signals()' signals blocked; unblocked is the mask to sleep
 * with. Returns the exit status: 0, 1, or 128 + the signal.
 */
static int dp_wait(pid_t group, pid_t *pid, uint32_t n, const sigset_t *unblocked)
{
	uint32_t left = n;
	bool forwarded = false, killed = false;
	int ret = 0;

	while (left) {
		int status;
		pid_t p;
		uint32_t r;

		if (dp_signal && !forwarded) {
			forwarded = true;
			fprintf(stderr, "hl-train: %s: stopping the %u ranks\n",
				strsignal(dp_signal), left);
			dp_signal_ranks(group, pid, n, dp_signal);
			alarm(DP_STOP_GRACE_S);
		}
		if (dp_alarm && !killed) {
			killed = true;
			fprintf(stderr, "hl-train: %u ranks still running after %d s; killing them\n",
				left, DP_STOP_GRACE_S);
			dp_signal_ranks(group, pid, n, SIGKILL);
		}
		p = waitpid(-1, &status, WNOHANG);
		if (p == 0) {
			sigsuspend(unblocked);	/* a rank ended, or a signal came */
			continue;
		}
		if (p < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "hl-train: waiting for the ranks: %s\n", strerror(errno));
			dp_signal_ranks(group, pid, n, SIGKILL);
			return 1;
		}
		for (r = 0; r < n && pid[r] != p; r++)
			;
		if (r == n)
			continue;
		pid[r] = 0;
		left--;
		if ((WIFEXITED(status) && WEXITSTATUS(status) == 0) || forwarded)
			continue;
		if (!ret) {
			if (WIFEXITED(status))
				fprintf(stderr, "hl-train: rank %u failed (exit status %d); "
					"stopping the others\n", r, WEXITSTATUS(status));
			else
				fprintf(stderr, "hl-train: rank %u killed by signal %d; "
					"stopping the others\n", r, WTERMSIG(status));
			ret = WIFEXITED(status) && WEXITSTATUS(status) == 130 ? 130 : 1;
			dp_signal_ranks(group, pid, n, SIGKILL);
		}
	}
	alarm(0);
	return forwarded ? 128 + dp_signal : ret;
}

/* In a rank, before exec: its own group's member, dying with the launcher. */
static void dp_rank_setup(pid_t group, pid_t launcher, const sigset_t *old)
{
	/* The first rank leads the group the launcher signals; the rest join it. */
	setpgid(0, group);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/* The launcher may have died before the line above. */
	if (getppid() != launcher)
		_exit(1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* Start N ranks of this program, rank r on module r, and wait for them. */
static int dp_launch(char **argv, const struct train_options *opt)
{
	static const char *const masks[] = { "HABANA_VISIBLE_MODULES", "HABANA_VISIBLE_DEVICES" };
	uint32_t n = opt->devices, count;
	pid_t pid[DP_MAX_RANKS] = { 0 }, group = 0, launcher = getpid();
	char num[16], exe[PATH_MAX];
	sigset_t block, old, unblocked;
	hlrt_comm_id id;
	hlrt_status st;
	ssize_t len;
	int rc;

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
	/* The program itself, not /proc/self/exe: ranks are named hl-train, not exe. */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0) {
		fprintf(stderr, "hl-train: /proc/self/exe: %s\n", len ? strerror(errno) : "empty");
		return 1;
	}
	exe[len] = '\0';
	/* Blocked from here: a signal before the handlers waits for them. */
	dp_catch_signals(&block);
	sigprocmask(SIG_BLOCK, &block, &old);
	unblocked = old;
	sigdelset(&unblocked, SIGINT);
	sigdelset(&unblocked, SIGTERM);
	sigdelset(&unblocked, SIGALRM);
	sigdelset(&unblocked, SIGCHLD);
	fflush(NULL);
	for (uint32_t r = 0; r < n; r++) {
		pid[r] = fork();
		if (pid[r] < 0) {
			fprintf(stderr, "hl-train: starting rank %u: %s\n", r, strerror(errno));
			dp_signal_ranks(group, pid, r, SIGKILL);
			dp_wait(group, pid, r, &unblocked);
			sigprocmask(SIG_SETMASK, &old, NULL);
			return 1;
		}
		if (pid[r] == 0) {
			dp_rank_setup(group, launcher, &old);
			snprintf(num, sizeof(num), "%u", r);
			setenv("HABANA_VISIBLE_MODULES", num, 1);
			setenv("HLRT_RANK", num, 1);
			snprintf(num, sizeof(num), "%u", n);
			setenv("HLRT_NRANKS", num, 1);
			setenv("HLRT_COMM_ID", id.text, 1);
			execv(exe, argv);
			fprintf(stderr, "hl-train: rank %u: running %s: %s\n", r, exe,
				strerror(errno));
			_exit(127);
		}
		/* Both sides set the group, so neither races the other. */
		setpgid(pid[r], group ? group : pid[r]);
		if (!group)
			group = pid[r];
	}
	rc = dp_wait(group, pid, n, &unblocked);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int dp_main(char **argv, struct train_options *opt, const struct backend_ops *ops)
{
	if (getenv("HLRT_RANK"))
		return dp_rank(opt, ops);
	if (opt->devices > 1)
		return dp_launch(argv, opt);
	return train_run(opt, ops);
}
