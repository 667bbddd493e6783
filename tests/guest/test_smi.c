// SPDX-License-Identifier: MIT
/*
 * hl-smi in the guest: its output agrees with what INFO reports, it works
 * while this process holds the device, and bad usage exits with status 2.
 * The binary is $HL_SMI (default: hl-smi from PATH).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define OUT_MAX (64 * 1024)

static char out[OUT_MAX];

static const char *hl_smi(void)
{
	const char *env = getenv("HL_SMI");

	return env && *env ? env : "hl-smi";
}

/* Run hl-smi with args (stdout into out, stderr into err if given); returns the exit status. */
static int run_smi(const char *args, bool capture_stderr)
{
	char cmd[512];
	size_t n;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "%s %s%s", hl_smi(), args,
		 capture_stderr ? " 2>&1" : " 2>/dev/null");
	p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "popen(%s): %s", cmd, strerror(errno));
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	status = pclose(p);
	ck_assert_msg(WIFEXITED(status), "%s did not exit normally", cmd);
	return WEXITSTATUS(status);
}

static void bus_id(char *buf, size_t len)
{
	int fd = open_control_ok();

	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fd, buf, len), 0);
	hlthunk_close(fd);
}

START_TEST(table)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN];
	const char *line;
	int rc = run_smi("", false);

	ck_assert_msg(rc == 0, "hl-smi exited %d", rc);
	bus_id(busid, sizeof(busid));
	ck_assert_ptr_nonnull(strstr(out, "HL-SMI Version:"));
	ck_assert_ptr_nonnull(strstr(out, busid));
	ck_assert_ptr_nonnull(strstr(out, "Operational"));
	for (line = out; *line;) {
		size_t len = strcspn(line, "\n");

		ck_assert_msg(len == 0 || len == 79, "line of %zu columns: %.*s", len, (int)len,
			      line);
		line += len + (line[len] == '\n');
	}
}
END_TEST

START_TEST(csv_matches_info)
{
	struct gaudisim_info_dram_usage u;
	char busid[HLTHUNK_BUS_ID_MAX_LEN], args[128], want[256];
	int fd = open_control_ok();

	dram_usage_ok(fd, &u);
	hlthunk_close(fd);
	bus_id(busid, sizeof(busid));
	snprintf(args, sizeof(args), "-i %d -Q index,bus_id,memory.total,status -f csv,noheader,nounits",
		 test_device_index());
	ck_assert_int_eq(run_smi(args, false), 0);
	snprintf(want, sizeof(want), "%d, %s, %llu, Operational\n", test_device_index(), busid,
		 (unsigned long long)(u.dram_total_mem >> 20));
	ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(works_while_device_is_held)
{
	char args[64], pid_line[64];
	int fd = open_compute_ok();
	uint64_t handle;

	ck_assert_int_eq(hlthunk_device_memory_alloc(fd, 64 * MiB, &handle), 0);
	snprintf(args, sizeof(args), "-i %d -Q memory.used -f csv,noheader,nounits",
		 test_device_index());
	ck_assert_int_eq(run_smi(args, false), 0);
	ck_assert_str_eq(out, "64\n");

	snprintf(args, sizeof(args), "-q -i %d", test_device_index());
	ck_assert_int_eq(run_smi(args, false), 0);
	snprintf(pid_line, sizeof(pid_line), " : %d\n", (int)getpid());
	ck_assert_msg(strstr(out, pid_line) != NULL, "no PID %d in:\n%s", (int)getpid(), out);
	ck_assert_ptr_nonnull(strstr(out, "Active"));
	hlthunk_close(fd);
}
END_TEST

START_TEST(select_by_bus_id)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN], args[128], want[16];

	bus_id(busid, sizeof(busid));
	snprintf(args, sizeof(args), "-i %s -Q index -f csv,noheader", busid);
	ck_assert_int_eq(run_smi(args, false), 0);
	snprintf(want, sizeof(want), "%d\n", test_device_index());
	ck_assert_str_eq(out, want);
}
END_TEST

static const struct {
	const char *args;
	int status;
} bad_usage[] = {
	{ "-Q bogus", 2 },
	{ "-Q index -f xml", 2 },
	{ "-x", 2 },
	{ "-f csv", 2 },
	{ "-q -Q index", 2 },
	{ "-i not-a-device", 2 },
	{ "-i 250", 1 },
	{ "-i 00:1f.7", 1 },
	{ "-l0", 2 },
	{ "--loop=x", 2 },
};

START_TEST(bad_usage_exit_status)
{
	int rc = run_smi(bad_usage[_i].args, true);

	ck_assert_msg(rc == bad_usage[_i].status, "hl-smi %s exited %d, want %d",
		      bad_usage[_i].args, rc, bad_usage[_i].status);
	ck_assert_msg(strstr(out, "hl-smi:") != NULL, "no message for %s", bad_usage[_i].args);
}
END_TEST

START_TEST(loop_repeats)
{
	char want[16], buf[64] = "";
	size_t got = 0;
	int fds[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execlp(hl_smi(), "hl-smi", "-l1", "-Q", "index", "-f", "csv,noheader", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	/* Two reports a second apart; the test case's timeout bounds the wait. */
	snprintf(want, sizeof(want), "%d\n%d\n", test_device_index(), test_device_index());
	while (got < strlen(want)) {
		ssize_t n = read(fds[0], buf + got, sizeof(buf) - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	close(fds[0]);
	ck_assert_str_eq(buf, want);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}
END_TEST

static Suite *smi_suite(void)
{
	Suite *s = suite_create("hl-smi");
	TCase *tc = tcase_create("guest");

	tcase_set_timeout(tc, TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, table);
	tcase_add_test(tc, csv_matches_info);
	tcase_add_test(tc, works_while_device_is_held);
	tcase_add_test(tc, select_by_bus_id);
	tcase_add_test(tc, loop_repeats);
	tcase_add_loop_test(tc, bad_usage_exit_status, 0,
			    (int)(sizeof(bad_usage) / sizeof(bad_usage[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(smi_suite());
}
