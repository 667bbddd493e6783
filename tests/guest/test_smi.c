// SPDX-License-Identifier: MIT
/*
 * hl-smi in the guest: its output agrees with what INFO, sysfs and hwmon
 * report, it works while this process holds the device, its actions
 * (reset, power cap) take effect and need root, and bad usage exits with
 * status 2. The binary is $HL_SMI (default: hl-smi from PATH).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "sysfs_util.h"

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
	struct test_dram_usage u;
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

	ck_assert_int_eq(mem_alloc_rc(fd, 64 * MiB, &handle), 0);
	snprintf(args, sizeof(args), "-i %d -Q memory.used -f csv,noheader,nounits",
		 test_device_index());
	ck_assert_int_eq(run_smi(args, false), 0);
	ck_assert_str_eq(out, "64\n");

	snprintf(args, sizeof(args), "-q -i %d", test_device_index());
	ck_assert_int_eq(run_smi(args, false), 0);
	snprintf(pid_line, sizeof(pid_line), " : %d\n", (int)getpid());
	ck_assert_msg(strstr(out, pid_line) != NULL, "no PID %d in:\n%s", (int)getpid(), out);
	ck_assert_ptr_nonnull(strstr(out, "Active"));

	/* The table's process list: PID, name, HBM used. */
	ck_assert_int_eq(run_smi("", false), 0);
	snprintf(pid_line, sizeof(pid_line), " %d   gsim-test-smi ", (int)getpid());
	ck_assert_msg(strstr(out, pid_line) != NULL, "no '%s' in:\n%s", pid_line, out);
	ck_assert_msg(strstr(out, " 64MiB |\n") != NULL, "%s", out);
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
	{ "-l 1 2", 2 },
	{ "-Q temperature", 2 },
	{ "-Q pcie.rx,pcie.bogus", 2 },
	{ "-q -d PCIE,FAN", 2 },
	{ "-Q index -f csv,units", 2 },
	{ "-Q index -f xml", 2 },
	{ "-d MEMORY", 2 },
	{ "-q -d MEMORY,FAN", 2 },
	{ "-r", 2 },
	{ "-r -q -i 0", 2 },
	{ "--power-max=abc", 2 },
	{ "--power-max=-5", 2 },
	{ "--power-max=300 -l 1", 2 },
	{ "--format prometheus -Q index", 2 },
	{ "--fw-versions --power-max", 2 },
	{ "--bogus", 2 },
};

START_TEST(bad_usage_exit_status)
{
	int rc = run_smi(bad_usage[_i].args, true);

	ck_assert_msg(rc == bad_usage[_i].status, "hl-smi %s exited %d, want %d",
		      bad_usage[_i].args, rc, bad_usage[_i].status);
	ck_assert_msg(strstr(out, "hl-smi:") != NULL, "no message for %s", bad_usage[_i].args);
}
END_TEST

static const char *const loop_spellings[] = { "-l1", "-l 1", "--loop=1" };

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
		if (_i == 1)
			execlp(hl_smi(), "hl-smi", "-l", "1", "-Q", "index", "-f", "csv,noheader",
			       (char *)NULL);
		else
			execlp(hl_smi(), "hl-smi", loop_spellings[_i], "-Q", "index", "-f",
			       "csv,noheader", (char *)NULL);
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

/* CSV under -l has its header once, as nvidia-smi's. */
START_TEST(loop_csv_header_once)
{
	char want[32], buf[64] = "";
	size_t got = 0;
	int fds[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execlp(hl_smi(), "hl-smi", "-l", "1", "-Q", "index", "-f", "csv", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	snprintf(want, sizeof(want), "index\n%d\n%d\n", test_device_index(),
		 test_device_index());
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
}
END_TEST

/* ---- Telemetry, machine formats and actions -------------------------------- */

static long long attr_ok(const char *name)
{
	char path[PATH_LEN];

	dev_attr_path(path, sizeof(path), name);
	return read_number_ok(path);
}

static long long hwmon_ok(const char *chan)
{
	char dir[PATH_LEN], path[PATH_LEN + 32];

	hwmon_dir_ok(dir, sizeof(dir));
	join_path(path, sizeof(path), dir, chan);
	return read_number_ok(path);
}

START_TEST(csv_telemetry_matches_sysfs)
{
	long long temp, util, clk_cur, clk_lim, module, resets;
	char args[256], power_limit[32];
	int n;

	snprintf(args, sizeof(args), "-i %d -Q temperature.aip,power.limit,clocks.limit.soc,"
		 "clocks.current.soc,module_id,utilization.aip,reset_count.hard "
		 "-f csv,noheader,nounits", test_device_index());
	ck_assert_int_eq(run_smi(args, false), 0);
	n = sscanf(out, "%lld, %31[0-9.], %lld, %lld, %lld, %lld, %lld\n", &temp, power_limit,
		   &clk_lim, &clk_cur, &module, &util, &resets);
	ck_assert_msg(n == 7, "unexpected output: %s", out);
	/* The die warms or cools a little between the two reads. */
	ck_assert_int_le(llabs(temp * 1000 - hwmon_ok("temp1_input")), 2000);
	snprintf(args, sizeof(args), "%lld.%02lld", attr_ok("max_power") / 1000,
		 attr_ok("max_power") % 1000 / 10);
	ck_assert_str_eq(power_limit, args);
	ck_assert_int_eq(clk_lim, attr_ok("clk_max_freq_mhz"));
	ck_assert_int_le(clk_cur, clk_lim);
	ck_assert_int_eq(module, attr_ok("module_id"));
	ck_assert_int_eq(resets, attr_ok("hard_reset_cnt"));
	/* Nothing runs: the busiest engine was idle during the sample. */
	ck_assert_int_eq(util, 0);
}
END_TEST

START_TEST(csv_header_units)
{
	ck_assert_int_eq(run_smi("-i 0 -Q power.draw,temperature.aip,memory.used,utilization.aip,"
				 "clocks.current.soc,index,serial -f csv", false), 0);
	ck_assert_msg(!strncmp(out, "power.draw [W], temperature.aip [C], memory.used [MiB], "
			       "utilization.aip [%], clocks.current.soc [MHz], index, serial\n",
			       strlen("power.draw [W], temperature.aip [C], memory.used [MiB], "
				      "utilization.aip [%], clocks.current.soc [MHz], index, "
				      "serial\n")), "%s", out);
	/* Values carry their units; the serial is the board's (vm.sh, module 0). */
	ck_assert_msg(strstr(out, " W, ") && strstr(out, " C, ") && strstr(out, " MiB, ") &&
		      strstr(out, " %, ") && strstr(out, " MHz, 0, GS67736D0000\n"), "%s", out);
}
END_TEST

START_TEST(table_shows_sensors)
{
	char want[64];

	ck_assert_int_eq(run_smi("", false), 0);
	snprintf(want, sizeof(want), "/ %lldW ", (attr_ok("max_power") + 500) / 1000);
	ck_assert_msg(strstr(out, want) != NULL, "no '%s' in:\n%s", want, out);
	ck_assert_ptr_nonnull(strstr(out, "AIP-Util"));
	ck_assert_ptr_nonnull(strstr(out, "0% |"));
}
END_TEST

START_TEST(detail_sections)
{
	ck_assert_int_eq(run_smi("-q -d POWER,TEMPERATURE", false), 0);
	ck_assert_ptr_nonnull(strstr(out, "Power Readings"));
	ck_assert_ptr_nonnull(strstr(out, "AIP Current Temp"));
	ck_assert_ptr_null(strstr(out, "Memory Usage"));
	ck_assert_ptr_null(strstr(out, "ECC Errors"));
	ck_assert_int_eq(run_smi("-q", false), 0);
	ck_assert_ptr_nonnull(strstr(out, "Memory Usage"));
	ck_assert_ptr_nonnull(strstr(out, "ECC Errors"));
	ck_assert_ptr_nonnull(strstr(out, "Clocks Throttle Reasons"));
	ck_assert_ptr_nonnull(strstr(out, "Utilization"));
}
END_TEST

START_TEST(json_output)
{
	char want[64];

	ck_assert_int_eq(run_smi("-i 0 --format json -Q index,power.limit,serial,bus_id", false),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "\"hl_smi_version\": "));
	ck_assert_ptr_nonnull(strstr(out, "\"index\": 0,\n"));
	snprintf(want, sizeof(want), "\"power.limit\": %lld.%02lld,\n", attr_ok("max_power") / 1000,
		 attr_ok("max_power") % 1000 / 10);
	ck_assert_msg(strstr(out, want) != NULL, "no %s in:\n%s", want, out);
	ck_assert_ptr_nonnull(strstr(out, "\"serial\": \"GS67736D0000\",\n"));
	ck_assert_ptr_nonnull(strstr(out, "\"processes\": []"));
	ck_assert_int_eq(run_smi("--format json", false), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"temperature.aip\": "));
	ck_assert_ptr_nonnull(strstr(out, "\"ecc.errors.uncorrected.aggregate.total\": 0"));
}
END_TEST

START_TEST(prometheus_output)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN], want[160];

	bus_id(busid, sizeof(busid));
	ck_assert_int_eq(run_smi("--format prometheus", false), 0);
	ck_assert_ptr_nonnull(strstr(out, "# TYPE hlsmi_power_limit_watts gauge\n"));
	snprintf(want, sizeof(want), "hlsmi_power_limit_watts{aip=\"%d\",bus_id=\"%s\"} %lld\n",
		 test_device_index(), busid, attr_ok("max_power") / 1000);
	ck_assert_msg(strstr(out, want) != NULL, "no %s in:\n%s", want, out);
	snprintf(want, sizeof(want), "hlsmi_up{aip=\"%d\",bus_id=\"%s\"} 1\n",
		 test_device_index(), busid);
	ck_assert_msg(strstr(out, want) != NULL, "no %s in:\n%s", want, out);
	ck_assert_ptr_nonnull(strstr(out, "# TYPE hlsmi_energy_joules_total counter\n"));
}
END_TEST

START_TEST(fw_versions)
{
	char path[PATH_LEN], version[128], want[192];

	dev_attr_path(path, sizeof(path), "cpucp_ver");
	ck_assert_int_eq(read_text(path, version, sizeof(version)), 0);
	ck_assert_int_eq(run_smi("--fw-versions -i 0", false), 0);
	snprintf(want, sizeof(want), "Firmware [CPUCP] Version          : %s\n", version);
	ck_assert_msg(strstr(out, want) != NULL, "no '%s' in:\n%s", want, out);
	dev_attr_path(path, sizeof(path), "cpld_ver");
	ck_assert_int_eq(read_text(path, version, sizeof(version)), 0);
	snprintf(want, sizeof(want), "CPLD Version                      : %s\n", version);
	ck_assert_msg(strstr(out, want) != NULL, "no '%s' in:\n%s", want, out);
}
END_TEST

START_TEST(identity_fields)
{
	char path[PATH_LEN], uuid[64], want[160];

	dev_attr_path(path, sizeof(path), "uuid");
	ck_assert_int_eq(read_text(path, uuid, sizeof(uuid)), 0);
	ck_assert_int_eq(run_smi("-i 0 -Q serial,uuid -f csv,noheader", false), 0);
	snprintf(want, sizeof(want), "GS67736D0000, %s\n", uuid);
	ck_assert_str_eq(out, want);
	ck_assert_int_eq(run_smi("-q -i 0", false), 0);
	ck_assert_ptr_nonnull(strstr(out, "Serial Number                   : GS67736D0000\n"));
	snprintf(want, sizeof(want), "AIP UUID                        : %s\n", uuid);
	ck_assert_msg(strstr(out, want) != NULL, "no '%s' in:\n%s", want, out);
}
END_TEST

START_TEST(pcie_fields)
{
	unsigned long long rx, tx, replays;
	char busid[HLTHUNK_BUS_ID_MAX_LEN], want[160];

	ck_assert_int_eq(run_smi("-i 0 -Q pcie.rx,pcie.tx,pcie.replay_count -f csv", false), 0);
	ck_assert_msg(sscanf(out, "pcie.rx [KB/s], pcie.tx [KB/s], pcie.replay_count\n"
			     "%llu KB/s, %llu KB/s, %llu\n", &rx, &tx, &replays) == 3, "%s", out);
	ck_assert_uint_eq(replays, 0);
	ck_assert_int_eq(run_smi("-q -i 0 -d PCIE", false), 0);
	ck_assert_ptr_nonnull(strstr(out, "    PCIe\n"));
	ck_assert_ptr_nonnull(strstr(out, "Replay Count                : 0\n"));
	ck_assert_ptr_nonnull(strstr(out, "RX Throughput"));
	ck_assert_ptr_null(strstr(out, "Power Readings"));
	ck_assert_int_eq(run_smi("-i 0 --format json", false), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"pcie.replay_count\": 0"));
	ck_assert_ptr_nonnull(strstr(out, "\"pcie.rx\": "));
	bus_id(busid, sizeof(busid));
	ck_assert_int_eq(run_smi("--format prometheus", false), 0);
	snprintf(want, sizeof(want), "hlsmi_pcie_replays_total{aip=\"%d\",bus_id=\"%s\"} 0\n",
		 test_device_index(), busid);
	ck_assert_msg(strstr(out, want) != NULL, "no %s in:\n%s", want, out);
	ck_assert_ptr_nonnull(strstr(out, "# TYPE hlsmi_pcie_rx_bytes_per_second gauge\n"));
}
END_TEST

/* The process list comes from fdinfo: this process, its HBM and DMA time. */
START_TEST(process_engine_time)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN], want[192];
	unsigned long long dma_ns = 0;
	struct host_buf host;
	struct hbm_buf hbm;
	const char *p;
	int fd = open_compute_ok();

	host_buf_map_ok(fd, &host, 4 * MiB);
	hbm_alloc_ok(fd, &hbm, 4 * MiB);
	dma_ok(fd, host.va, hbm.addr, 4 * MiB, QUEUE_H2D);

	ck_assert_int_eq(run_smi("-i 0 --format json -Q index", false), 0);
	snprintf(want, sizeof(want), "{\"pid\": %d, \"name\": \"gsim-test-smi\", "
		 "\"memory.used\": 4, \"engine_ns\": {\"dma\": ", (int)getpid());
	p = strstr(out, want);
	ck_assert_msg(p != NULL, "no '%s' in:\n%s", want, out);
	ck_assert_int_eq(sscanf(p + strlen(want), "%llu", &dma_ns), 1);
	ck_assert_uint_gt(dma_ns, 0);

	/* The table gains an engine-time column (ms). */
	ck_assert_int_eq(run_smi("", false), 0);
	snprintf(want, sizeof(want), " %d   gsim-test-smi ", (int)getpid());
	p = strstr(out, want);
	ck_assert_msg(p != NULL, "no '%s' in:\n%s", want, out);
	ck_assert_msg(strstr(p, "ms ") != NULL && strstr(p, "ms ") < strchr(p, '\n'), "%s", out);

	bus_id(busid, sizeof(busid));
	ck_assert_int_eq(run_smi("--format prometheus", false), 0);
	snprintf(want, sizeof(want), "hlsmi_process_memory_used_bytes{aip=\"%d\",bus_id=\"%s\","
		 "pid=\"%d\"} 4194304\n", test_device_index(), busid, (int)getpid());
	ck_assert_msg(strstr(out, want) != NULL, "no %s in:\n%s", want, out);
	snprintf(want, sizeof(want), "hlsmi_process_engine_seconds_total{aip=\"%d\",bus_id=\"%s\","
		 "pid=\"%d\",engine=\"dma\"} ", test_device_index(), busid, (int)getpid());
	ck_assert_msg(strstr(out, want) != NULL, "no %s in:\n%s", want, out);

	hbm_free_ok(fd, &hbm);
	host_buf_release(fd, &host);
	hlthunk_close(fd);
}
END_TEST

START_TEST(power_max_set_and_refused)
{
	long long def = attr_ok("max_power");
	char args[64];

	ck_assert_int_eq(run_smi("-i 0 --power-max=287.5", false), 0);
	ck_assert_int_eq(attr_ok("max_power"), 287500);
	ck_assert_int_eq(hwmon_ok("power1_cap"), 287500000);
	ck_assert_int_eq(run_smi("-i 0 --power-max", false), 0);
	ck_assert_msg(strstr(out, "power cap 287.500 W") != NULL, "%s", out);
	/* Below idle power and above the card's limit: the driver refuses. */
	ck_assert_int_eq(run_smi("-i 0 --power-max=1", true), 1);
	ck_assert_msg(strstr(out, "outside the power range") != NULL, "%s", out);
	ck_assert_int_eq(run_smi("-i 0 --power-max=601", true), 1);
	ck_assert_int_eq(attr_ok("max_power"), 287500);
	snprintf(args, sizeof(args), "-i 0 --power-max=%lld.%03lld", def / 1000, def % 1000);
	ck_assert_int_eq(run_smi(args, false), 0);
	ck_assert_int_eq(attr_ok("max_power"), def);
}
END_TEST

START_TEST(reset_resets)
{
	long long before = attr_ok("hard_reset_cnt");
	char args[64];

	snprintf(args, sizeof(args), "-r -i %d", test_device_index());
	ck_assert_int_eq(run_smi(args, false), 0);
	ck_assert_ptr_nonnull(strstr(out, "Reset of AIP "));
	ck_assert_int_eq(attr_ok("hard_reset_cnt"), before + 1);
	device_works_ok();
}
END_TEST

/* Exit status of hl-smi args run as nobody; its output in out. */
static int run_smi_as_nobody(const char *args)
{
	char cmd[512];
	int status, fds[2];
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		if (setgid(65534) || setuid(65534))
			_exit(255);
		snprintf(cmd, sizeof(cmd), "%s %s", hl_smi(), args);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(actions_need_root)
{
	long long resets = attr_ok("hard_reset_cnt"), cap = attr_ok("max_power");

	ck_assert_int_eq(run_smi_as_nobody("-r -i 0"), 1);
	ck_assert_msg(strstr(out, "needs root") != NULL, "%s", out);
	ck_assert_int_eq(run_smi_as_nobody("-i 0 --power-max=300"), 1);
	ck_assert_int_eq(attr_ok("hard_reset_cnt"), resets);
	ck_assert_int_eq(attr_ok("max_power"), cap);
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
	tcase_add_loop_test(tc, loop_repeats, 0,
			    (int)(sizeof(loop_spellings) / sizeof(loop_spellings[0])));
	tcase_add_test(tc, loop_csv_header_once);
	tcase_add_test(tc, csv_telemetry_matches_sysfs);
	tcase_add_test(tc, csv_header_units);
	tcase_add_test(tc, table_shows_sensors);
	tcase_add_test(tc, detail_sections);
	tcase_add_test(tc, json_output);
	tcase_add_test(tc, prometheus_output);
	tcase_add_test(tc, fw_versions);
	tcase_add_test(tc, identity_fields);
	tcase_add_test(tc, pcie_fields);
	tcase_add_test(tc, process_engine_time);
	tcase_add_test(tc, power_max_set_and_refused);
	tcase_add_test(tc, reset_resets);
	tcase_add_test(tc, actions_need_root);
	tcase_add_loop_test(tc, bad_usage_exit_status, 0,
			    (int)(sizeof(bad_usage) / sizeof(bad_usage[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(smi_suite());
}
