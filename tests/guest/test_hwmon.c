// SPDX-License-Identifier: MIT
/*
 * hwmon channels: standard names and units, values that agree with the
 * telemetry registers (read through debugfs) and the sysfs power cap, a
 * writable cap that refuses bad values, and `sensors` printing the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_telemetry.h"
#include "sysfs_util.h"

static char hwmon[PATH_LEN], path[PATH_LEN + 64], text[TEXT_LEN];

static void hwmon_setup(void)
{
	hwmon_dir_ok(hwmon, sizeof(hwmon));
}

static const char *chan(const char *name)
{
	join_path(path, sizeof(path), hwmon, name);
	return path;
}

static long long chan_ok(const char *name)
{
	return read_number_ok(chan(name));
}

/* A telemetry register, read through debugfs' addr + data32. */
static long long tel_reg_ok(uint32_t offset)
{
	char dir[PATH_LEN], p[PATH_LEN + 16], addr[32];

	debugfs_dir_ok(dir, sizeof(dir));
	join_path(p, sizeof(p), dir, "addr");
	snprintf(addr, sizeof(addr), "0x%llx",
		 (unsigned long long)(GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_TELEMETRY + offset));
	ck_assert_int_eq(write_text(p, addr), 0);
	join_path(p, sizeof(p), dir, "data32");
	return read_number_ok(p);
}

START_TEST(names_and_labels)
{
	ck_assert_int_eq(read_text(chan("name"), text, sizeof(text)), 0);
	ck_assert_str_eq(text, "gaudisim");
	ck_assert_int_eq(read_text(chan("temp1_label"), text, sizeof(text)), 0);
	ck_assert_str_eq(text, "die");
	ck_assert_int_eq(read_text(chan("temp2_label"), text, sizeof(text)), 0);
	ck_assert_str_eq(text, "inlet");
	ck_assert_int_eq(read_text(chan("power1_label"), text, sizeof(text)), 0);
	ck_assert_str_eq(text, "card");
	/* The model has no voltage or current sensors. */
	ck_assert_int_eq(read_text(chan("in0_input"), text, sizeof(text)), -ENOENT);
	ck_assert_int_eq(read_text(chan("curr1_input"), text, sizeof(text)), -ENOENT);
}
END_TEST

START_TEST(temperatures)
{
	long long die = chan_ok("temp1_input"), inlet = chan_ok("temp2_input");
	long long max = chan_ok("temp1_max"), crit = chan_ok("temp1_crit");

	ck_assert_int_eq(max, tel_reg_ok(GAUDISIM_TEL_TEMP_THROTTLE_MC));
	ck_assert_int_eq(crit, tel_reg_ok(GAUDISIM_TEL_TEMP_CRIT_MC));
	ck_assert_int_eq(inlet, tel_reg_ok(GAUDISIM_TEL_TEMP_AMBIENT_MC));
	ck_assert_int_lt(max, crit);
	/* An idle die sits between its inlet air and the throttle point. */
	ck_assert_int_ge(die, inlet - 1000);
	ck_assert_int_lt(die, max);
	ck_assert_int_ge(chan_ok("temp1_highest"), inlet - 1000);
	/* Idle: no throttling, far from critical (THROTTLE register agrees). */
	ck_assert_int_eq(tel_reg_ok(GAUDISIM_TEL_THROTTLE), 0);
	ck_assert_int_eq(chan_ok("temp1_max_alarm"), 0);
	ck_assert_int_eq(chan_ok("temp1_crit_alarm"), 0);
	ck_assert_int_eq(chan_ok("power1_cap_alarm"), 0);
}
END_TEST

START_TEST(power_and_energy)
{
	long long idle = chan_ok("power1_cap_min"), input = chan_ok("power1_input");
	long long e0, e1;

	ck_assert_int_eq(idle, tel_reg_ok(GAUDISIM_TEL_POWER_IDLE_MW) * 1000);
	ck_assert_int_eq(chan_ok("power1_cap_max"), GAUDISIM_TEL_POWER_MAX_LIMIT_MW * 1000LL);
	ck_assert_int_eq(chan_ok("power1_average_interval"),
			 (tel_reg_ok(GAUDISIM_TEL_POWER_WINDOW_US) + 500) / 1000);
	ck_assert_int_gt(idle, 0);
	ck_assert_int_ge(input, idle * 99 / 100);
	ck_assert_int_le(input, chan_ok("power1_cap_max"));
	ck_assert_int_ge(chan_ok("power1_input_highest"), input * 99 / 100);

	/* Energy grows by at least idle power times the time slept. */
	e0 = chan_ok("energy1_input");
	sleep_ms(500);
	e1 = chan_ok("energy1_input");
	ck_assert_int_ge(e1 - e0, idle / 2 * 9 / 10);
}
END_TEST

START_TEST(power_cap_rw)
{
	char max_power[PATH_LEN];
	long long def = chan_ok("power1_cap");

	dev_attr_path(max_power, sizeof(max_power), "max_power");
	ck_assert_int_eq(def, GAUDISIM_TEL_POWER_MAX_DEFAULT_MW * 1000LL);
	write_number_ok(chan("power1_cap"), 250000000);
	ck_assert_int_eq(read_number_ok(max_power), 250000);
	ck_assert_int_eq(tel_reg_ok(GAUDISIM_TEL_POWER_MAX_MW), 250000);
	write_number_ok(chan("power1_cap"), def);
}
END_TEST

static const struct {
	const char *chan, *value;
	int err;
} bad_writes[] = {
	{ "power1_cap", "1", -ERANGE },
	{ "power1_cap", "600001000", -ERANGE },
	{ "power1_cap", "watts", -EINVAL },
	{ "temp1_reset_history", "2", -EINVAL },
	{ "power1_reset_history", "0", -EINVAL },
	{ "temp1_input", "1", -EACCES },
	{ "temp1_crit", "1", -EACCES },
	{ "energy1_input", "0", -EACCES },
	{ "temp1_max_alarm", "1", -EACCES },
};

START_TEST(bad_write_refused)
{
	long long cap = chan_ok("power1_cap");
	int rc = write_text(chan(bad_writes[_i].chan), bad_writes[_i].value);

	ck_assert_msg(rc == bad_writes[_i].err, "write '%s' to %s: %d, want %d",
		      bad_writes[_i].value, bad_writes[_i].chan, rc, bad_writes[_i].err);
	ck_assert_int_eq(chan_ok("power1_cap"), cap);
	device_works_ok();
}
END_TEST

START_TEST(reset_history)
{
	ck_assert_int_eq(write_text(chan("temp1_reset_history"), "1"), 0);
	ck_assert_int_eq(write_text(chan("power1_reset_history"), "1"), 0);
	/* The peaks restart from the present values. */
	ck_assert_int_le(chan_ok("temp1_highest"), chan_ok("temp1_input") + 1000);
}
END_TEST

/* DMA work raises the power above idle, and the peak channel saw it. */
START_TEST(power_follows_work)
{
	long long idle = chan_ok("power1_cap_min"), e0, e1, peak;
	int fd = open_compute_ok(), i;
	struct hbm_buf hbm;

	hbm_alloc_ok(fd, &hbm, 64 * MiB);
	ck_assert_int_eq(write_text(chan("power1_reset_history"), "1"), 0);
	e0 = chan_ok("energy1_input");
	for (i = 0; i < 8; i++)
		memset_ok(fd, hbm.addr, (uint8_t)i, 64 * MiB, QUEUE_H2D);
	e1 = chan_ok("energy1_input");
	peak = chan_ok("power1_input_highest");
	hbm_free_ok(fd, &hbm);
	hlthunk_close(fd);
	ck_assert_msg(peak > idle, "peak %lld uW, idle %lld uW", peak, idle);
	ck_assert_int_gt(e1, e0);
}
END_TEST

START_TEST(unprivileged_access)
{
	ck_assert_int_eq(open_errno_as_nobody(chan("temp1_input"), O_RDONLY), 0);
	ck_assert_int_eq(open_errno_as_nobody(chan("power1_cap"), O_RDONLY), 0);
	ck_assert_int_eq(open_errno_as_nobody(chan("power1_cap"), O_WRONLY), EACCES);
	ck_assert_int_eq(open_errno_as_nobody(chan("temp1_reset_history"), O_WRONLY), EACCES);
}
END_TEST

/* `sensors gaudisim-*` output, captured into text. */
static void run_sensors(void)
{
	size_t n;
	FILE *p = popen("sensors -A 'gaudisim-*' 2>&1", "r");
	int status;

	ck_assert_ptr_nonnull(p);
	n = fread(text, 1, sizeof(text) - 1, p);
	text[n] = '\0';
	status = pclose(p);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "sensors failed:\n%s", text);
}

/* The number after "label:" on its line of the sensors output. */
static double sensors_value(const char *label)
{
	const char *line = strstr(text, label);
	char *end;
	double v;

	ck_assert_msg(line != NULL, "no '%s' in sensors output:\n%s", label, text);
	line += strlen(label);
	line += strspn(line, " \t+");
	v = strtod(line, &end);
	ck_assert_msg(end != line, "no value after '%s':\n%s", label, text);
	return v;
}

START_TEST(sensors_agrees)
{
	double die, inlet, power, energy_j;

	run_sensors();
	ck_assert_ptr_nonnull(strstr(text, "crit = +"));
	ck_assert_ptr_nonnull(strstr(text, "high = +"));
	die = sensors_value("die:");
	inlet = sensors_value("inlet:");
	power = sensors_value("card:");
	energy_j = sensors_value("energy1:");
	/* Read again after: the values move a little between the reads. */
	ck_assert_msg(die * 1000 > chan_ok("temp1_input") - 2000 &&
		      die * 1000 < chan_ok("temp1_input") + 2000, "die %.1f", die);
	ck_assert_msg(inlet * 1000 > chan_ok("temp2_input") - 1000 &&
		      inlet * 1000 < chan_ok("temp2_input") + 1000, "inlet %.1f", inlet);
	ck_assert_msg(power * 1e6 > chan_ok("power1_input") * 0.8 &&
		      power * 1e6 < chan_ok("power1_input") * 1.25, "power %.2f W", power);
	ck_assert_msg(energy_j > 0, "energy %.3f", energy_j);
}
END_TEST

static Suite *hwmon_suite(void)
{
	Suite *s = suite_create("hwmon");
	TCase *tc = fixture_tcase("channels", hwmon_setup, NULL, TCASE_TIMEOUT_DMA);

	tcase_add_test(tc, names_and_labels);
	tcase_add_test(tc, temperatures);
	tcase_add_test(tc, power_and_energy);
	tcase_add_test(tc, power_cap_rw);
	tcase_add_loop_test(tc, bad_write_refused, 0,
			    (int)(sizeof(bad_writes) / sizeof(bad_writes[0])));
	tcase_add_test(tc, reset_history);
	tcase_add_test(tc, power_follows_work);
	tcase_add_test(tc, unprivileged_access);
	tcase_add_test(tc, sensors_agrees);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(hwmon_suite());
}
