/* SPDX-License-Identifier: MIT */
/*
 * Replay runner: a main() for the fuzz harnesses where libFuzzer is not
 * used. Runs LLVMFuzzerTestOneInput() on every file named on the command
 * line (directories: every regular file in them, sorted), each in its own
 * child process so a crash or failed invariant counts as one failure, and
 * prints "N passed, N failed". An input that runs longer than the timeout
 * (-t seconds, default 25, as libFuzzer's -timeout) is killed and fails.
 *
 *   replay_cb [-q] [-t SECONDS] FILE|DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned int passed, failed;
static int quiet;
static unsigned int timeout_s = 25;

static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return -1;
	for (;;) {
		if (len == cap) {
			uint8_t *nbuf;

			cap = cap ? 2 * cap : 4096;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	*data = buf;
	*size = len;
	return 0;
}

static void run_one(const char *path)
{
	uint8_t *data;
	size_t size;
	pid_t pid;
	int status;

	if (read_file(path, &data, &size)) {
		fprintf(stderr, "FAIL %s: cannot read: %s\n", path, strerror(errno));
		failed++;
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* The default action of SIGALRM ends the child: a hang fails. */
		signal(SIGALRM, SIG_DFL);
		alarm(timeout_s);
		LLVMFuzzerTestOneInput(data, size);
		/* exit(), not _exit(): LeakSanitizer checks at exit. stdio was
		 * flushed before the fork, so nothing is written twice. */
		exit(0);
	}
	free(data);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		fprintf(stderr, "FAIL %s: cannot run: %s\n", path, strerror(errno));
		failed++;
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (!quiet)
			printf("PASS %s\n", path);
		passed++;
	} else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		printf("FAIL %s (timeout: still running after %u s)\n", path, timeout_s);
		failed++;
	} else if (WIFSIGNALED(status)) {
		printf("FAIL %s (signal %d)\n", path, WTERMSIG(status));
		failed++;
	} else {
		printf("FAIL %s (exit %d)\n", path, WEXITSTATUS(status));
		failed++;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	DIR *d;

	if (stat(path, &st)) {
		fprintf(stderr, "FAIL %s: %s\n", path, strerror(errno));
		failed++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		run_one(path);
		return;
	}
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "FAIL %s: %s\n", path, strerror(errno));
		failed++;
		return;
	}
	while ((de = readdir(d))) {
		char *full;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn;

			cap = cap ? 2 * cap : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				break;
			names = nn;
		}
		full = malloc(strlen(path) + strlen(de->d_name) + 2);
		if (!full)
			break;
		sprintf(full, "%s/%s", path, de->d_name);
		names[n++] = full;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (!stat(names[i], &st) && S_ISREG(st.st_mode))
			run_one(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		char *end;

		if (!strcmp(argv[i], "-q")) {
			quiet = 1;
			continue;
		}
		if (strcmp(argv[i], "-t") || i + 1 >= argc)
			break;
		errno = 0;
		timeout_s = (unsigned int)strtoul(argv[++i], &end, 10);
		if (errno || *end || !timeout_s) {
			fprintf(stderr, "%s: -t wants a positive number of seconds\n", argv[0]);
			return 2;
		}
	}
	if (i >= argc || argv[i][0] == '-') {
		fprintf(stderr, "usage: %s [-q] [-t SECONDS] FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (; i < argc; i++)
		run_path(argv[i]);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
