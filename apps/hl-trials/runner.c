// SPDX-License-Identifier: MIT
/* Running trials as hl-train processes (runner.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

#define MAX_ARGS	24

uint32_t runner_default_parallel(uint32_t n_modules, long cpus)
{
	uint32_t fit = cpus > 0 ? (uint32_t)((unsigned long)cpus / RUNNER_CPUS_PER_TRIAL) : 1;

	if (fit < 1)
		fit = 1;
	return n_modules < fit ? n_modules : fit;
}

const char *trial_state_name(enum trial_state s)
{
	static const char *const names[] = {
		"pending", "running", "done", "stopped", "failed", "crashed", "interrupted",
	};

	return names[s];
}

double trial_metric(const struct trial *t, enum trial_metric m)
{
	if (!t->prog.epochs_done)
		return NAN;
	return m == METRIC_LOSS ? t->prog.loss : t->prog.accuracy;
}

/* Seconds interrupted trials get to stop between two steps before they are killed. */
#define RUNNER_STOP_GRACE_S	5.0

static volatile sig_atomic_t runner_signal;
/*
 * Once the handlers are in: SIGINT and SIGTERM stay blocked except inside
 * ppoll(), so none arrives between the check and the wait; trials start
 * with the mask hl-trials had.
 */
static bool runner_blocking;
static sigset_t runner_old_mask, runner_wait_mask;

static void runner_on_signal(int sig)
{
	if (!runner_signal)
		runner_signal = sig;
}

int runner_catch_signals(void)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = runner_on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -1;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &runner_old_mask))
		return -1;
	runner_wait_mask = runner_old_mask;
	sigdelset(&runner_wait_mask, SIGINT);
	sigdelset(&runner_wait_mask, SIGTERM);
	runner_blocking = true;
	return 0;
}

int runner_interrupted(void)
{
	return runner_signal;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* In the child: become the trial's hl-train on its card. Never returns. */
static void exec_trial(const struct runner_options *o, const struct trial *t, int out_fd,
		       pid_t parent)
{
	char *argv[MAX_ARGS], num[SPACE_KEYS][32], epochs[16], module[16];
	int a = 0, k;

	/* A trial does not outlive hl-trials, even killed outright. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(127);
	/* SIGINT is how the scheduler stops a trial: never inherit it ignored. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (runner_blocking)
		sigprocmask(SIG_SETMASK, &runner_old_mask, NULL);
	snprintf(module, sizeof(module), "%d", t->module);
	setenv("HABANA_VISIBLE_MODULES", module, 1);
	unsetenv("HABANA_VISIBLE_DEVICES");
	if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(out_fd, STDERR_FILENO) < 0)
		_exit(127);
	close(out_fd);
	argv[a++] = (char *)o->trainer;
	argv[a++] = "--model";
	argv[a++] = (char *)o->model;
	if (o->data) {
		argv[a++] = "--data";
		argv[a++] = (char *)o->data;
	}
	if (o->data_dir) {
		argv[a++] = "--data-dir";
		argv[a++] = (char *)o->data_dir;
	}
	snprintf(epochs, sizeof(epochs), "%u", o->epochs);
	argv[a++] = "--epochs";
	argv[a++] = epochs;
	for (k = 0; k < SPACE_KEYS; k++) {
		if (!t->cfg.has[k])
			continue;
		snprintf(num[k], sizeof(num[k]), k == SPACE_LR ? "%.9g" : "%.0f", t->cfg.value[k]);
		argv[a++] = k == SPACE_LR ? "--lr" : k == SPACE_BATCH ? "--batch" : "--seed";
		argv[a++] = num[k];
	}
	if (o->no_eval)
		argv[a++] = "--no-eval";
	argv[a] = NULL;
	execvp(o->trainer, argv);
	fprintf(stderr, "hl-trials: cannot run %s: %s\n", o->trainer, strerror(errno));
	_exit(127);
}

static int start_trial(const struct runner_options *o, struct trial *t, int module, double t0)
{
	pid_t parent = getpid();
	char path[512];
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	t->module = module;
	if (o->log_dir) {
		snprintf(path, sizeof(path), "%s/trial-%u.log", o->log_dir, t->id);
		t->log = fopen(path, "w");
		if (!t->log)
			fprintf(stderr, "hl-trials: %s: %s (no log for trial %u)\n", path,
				strerror(errno), t->id);
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (t->pid == 0) {
		close(p[0]);
		exec_trial(o, t, p[1], parent);
	}
	close(p[1]);
	t->fd = p[0];
	t->state = TRIAL_RUNNING;
	t->t_start = now_s() - t0;
	printf("trial %u: started on module %d\n", t->id, module);
	return 0;
}

/* A whole line of trial output: metrics, and the scheduler's say at a rung. */
static void trial_line(const struct runner_options *o, struct trial *t, const char *line)
{
	enum progress_event ev = progress_line(&t->prog, line);
	uint32_t e = t->prog.epochs_done;

	if (t->log)
		fprintf(t->log, "%s\n", line);
	if (ev != PROGRESS_EPOCH_END)
		return;
	if (!o->quiet)
		printf("trial %u: epoch %u loss %.4f accuracy %.4f\n", t->id, e, t->prog.loss,
		       t->prog.accuracy);
	if (!o->asha || t->stop_sent || e >= o->epochs)
		return;
	if (asha_report(o->asha, e, trial_metric(t, o->metric)) == ASHA_STOP) {
		printf("trial %u: stopped by the scheduler at epoch %u\n", t->id, e);
		t->stop_sent = true;
		t->stopped_at = e;
		kill(t->pid, SIGINT);
	}
}

/* Read what the trial wrote; returns false at end of file. */
static bool trial_read(const struct runner_options *o, struct trial *t)
{
	ssize_t r = read(t->fd, t->buf + t->used, sizeof(t->buf) - 1 - t->used);
	char *start, *nl;

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (r <= 0) {
		if (t->used) {
			t->buf[t->used] = '\0';
			trial_line(o, t, t->buf);
			t->used = 0;
		}
		return false;
	}
	t->used += (size_t)r;
	t->buf[t->used] = '\0';
	start = t->buf;
	while ((nl = strchr(start, '\n'))) {
		*nl = '\0';
		trial_line(o, t, start);
		start = nl + 1;
	}
	t->used -= (size_t)(start - t->buf);
	memmove(t->buf, start, t->used);
	/* A line longer than the buffer is cut where the buffer ends. */
	if (t->used == sizeof(t->buf) - 1) {
		t->buf[t->used] = '\0';
		trial_line(o, t, t->buf);
		t->used = 0;
	}
	return true;
}

static void trial_finish(struct trial *t, double t0)
{
	int status = 0;

	if (!t->prog.last[0])
		snprintf(t->prog.last, sizeof(t->prog.last), "(no output)");
	close(t->fd);
	t->fd = -1;
	while (waitpid(t->pid, &status, 0) < 0 && errno == EINTR)
		;
	t->t_end = now_s() - t0;
	if (t->log) {
		fclose(t->log);
		t->log = NULL;
	}
	if (WIFSIGNALED(status) && t->interrupted) {
		t->state = TRIAL_INTERRUPTED;
		t->exit_status = WTERMSIG(status);
		printf("trial %u: killed after %u epochs (did not stop in time)\n", t->id,
		       t->prog.epochs_done);
		return;
	}
	if (WIFSIGNALED(status)) {
		t->state = TRIAL_CRASHED;
		t->exit_status = WTERMSIG(status);
		printf("trial %u: crashed (signal %d, %s) after %u epochs: %s\n", t->id,
		       t->exit_status, strsignal(t->exit_status), t->prog.epochs_done,
		       t->prog.last);
		return;
	}
	t->exit_status = WEXITSTATUS(status);
	if (t->interrupted)
		t->state = TRIAL_INTERRUPTED;
	else if (t->stop_sent && (t->exit_status == 130 || t->exit_status == 0))
		t->state = TRIAL_STOPPED;
	else if (t->exit_status == 0)
		t->state = TRIAL_DONE;
	else
		t->state = TRIAL_FAILED;
	if (t->state == TRIAL_FAILED)
		printf("trial %u: failed (exit status %d): %s\n", t->id, t->exit_status,
		       t->prog.last);
	else
		printf("trial %u: %s after %u epochs\n", t->id, trial_state_name(t->state),
		       t->prog.epochs_done);
}

int runner_run(const struct runner_options *o, struct trial *trials, uint32_t n)
{
	bool busy[RUNNER_MAX_MODULES] = { false };
	struct pollfd pfd[RUNNER_MAX_MODULES];
	struct trial *polled[RUNNER_MAX_MODULES];
	uint32_t next = 0, running = 0, i, m;
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	double t0 = now_s(), deadline = 0;
	bool forwarded = false, killed = false;
	int rc = 0;

	for (i = 0; i < n; i++) {
		trials[i].state = TRIAL_PENDING;
		trials[i].module = -1;
		trials[i].fd = -1;
		progress_init(&trials[i].prog);
	}
	while (next < n || running) {
		uint32_t np = 0;

		/*
		 * SIGINT or SIGTERM: start nothing more, pass it on to the running
		 * trials (they stop between steps), kill what still runs after
		 * the grace period; their results so far are kept.
		 */
		if (runner_signal && !forwarded) {
			forwarded = true;
			next = n;
			deadline = now_s() + RUNNER_STOP_GRACE_S;
			printf("hl-trials: %s: stopping %u running trial%s\n",
			       strsignal(runner_signal), running, running == 1 ? "" : "s");
			for (i = 0; i < n; i++) {
				if (trials[i].state != TRIAL_RUNNING)
					continue;
				trials[i].interrupted = true;
				kill(trials[i].pid, runner_signal);
			}
		}
		if (forwarded && !killed && now_s() >= deadline) {
			killed = true;
			for (i = 0; i < n; i++)
				if (trials[i].state == TRIAL_RUNNING)
					kill(trials[i].pid, SIGKILL);
		}

		/* Free cards take the next trials, in order. */
		for (m = 0; m < o->n_modules && next < n && running < o->parallel && !rc; m++) {
			if (busy[m])
				continue;
			if (start_trial(o, &trials[next], o->modules[m], t0)) {
				fprintf(stderr, "hl-trials: cannot start trial %u: %s\n",
					trials[next].id, strerror(errno));
				rc = -1;
				break;
			}
			busy[m] = true;
			next++;
			running++;
		}
		if (rc)
			next = n;	/* start nothing more; let the running ones end */
		for (i = 0; i < n; i++) {
			if (trials[i].state != TRIAL_RUNNING)
				continue;
			pfd[np].fd = trials[i].fd;
			pfd[np].events = POLLIN;
			polled[np++] = &trials[i];
		}
		if (!np)
			break;
		if (ppoll(pfd, np, forwarded && !killed ? &tick : NULL,
			  runner_blocking ? &runner_wait_mask : NULL) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (i = 0; i < np; i++) {
			struct trial *t = polled[i];

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (trial_read(o, t))
				continue;
			trial_finish(t, t0);
			for (m = 0; m < o->n_modules; m++)
				if (o->modules[m] == t->module)
					busy[m] = false;
			running--;
		}
	}
	return rc;
}
