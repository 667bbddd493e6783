// SPDX-License-Identifier: MIT
/*
 * Recovery from a hang, end to end: a CS that FENCEs on a fence nobody
 * raises times out (TIMEDOUT), the CSs in flight behind it and on other
 * queues end ABORTED, the device resets, the reset counters and the CS
 * counters move, the registered eventfd reports CS_TIMEOUT and
 * DEVICE_RESET, a KOBJ_CHANGE uevent names the cause, a devcoredump with
 * the device's state appears and is freed by a write, and the next job
 * completes. The negative matrix: work that completes, and a reset asked
 * for through sysfs, leave no dump.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "recovery_util.h"
#include "sysfs_util.h"

#define DUMP_LEN	(64 * 1024 + 1)
#define CAUSE_TIMEOUT	"command submission timed out"

static char dump[DUMP_LEN], dump2[DUMP_LEN];

static uint32_t hard_resets(void)
{
	struct hlthunk_reset_count_info rc;

	ck_assert_int_eq(hlthunk_get_reset_count_info(dev_fd, &rc), 0);
	return rc.hard_reset_count;
}

static uint32_t soft_resets(void)
{
	struct hlthunk_reset_count_info rc;

	ck_assert_int_eq(hlthunk_get_reset_count_info(dev_fd, &rc), 0);
	return rc.soft_reset_count;
}

/*
 * The timed-out wait returns as soon as the CS is marked TIMEDOUT; the
 * reset it triggers runs after that, so wait for the count before the
 * device status means anything.
 */
static void wait_hard_resets(uint32_t target)
{
	int i;

	for (i = 0; i < 300 && hard_resets() < target; i++)
		sleep_ms(100);
	ck_assert_uint_eq(hard_resets(), target);
	wait_operational_ok(dev_fd);
}

/* A CB whose only packet waits for fence 0 of its stream to reach 1. */
static void write_hang(struct test_cb *cb)
{
	cb_reset(cb);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb->w, 0, 1, 1, 0), 0);
}

static uint64_t submit_timeout(const struct gaudisim_cs_chunk *chunk, uint32_t timeout_s)
{
	uint64_t seq = 0;

	ck_assert_int_eq(submit_chunks(chunk, 1, timeout_s, &seq), 0);
	return seq;
}

static void expect_in_dump(const char *what)
{
	ck_assert_msg(strstr(dump, what), "\"%s\" missing from the dump:\n%.2000s", what, dump);
}

START_TEST(hang_times_out_resets_and_recovers)
{
	struct test_cb hang, other, nop;
	struct gaudisim_cs_chunk c_hang, c_behind, c_other;
	struct cs_counts before, after;
	char env[UEVENT_LEN], dir[PATH_MAX], text[256];
	uint64_t seq_hang, seq_behind, seq_other, events, cnt, seen = 0;
	uint32_t status = ~0u, resets, soft;
	int sock, notifier, rc, i;
	const char *queue_line;
	long len, again;

	coredump_discard_ok();
	sock = uevent_open_ok();
	notifier = hlthunk_notifier_create(dev_fd);
	ck_assert_int_ge(notifier, 0);
	resets = hard_resets();
	soft = soft_resets();
	cs_counts_ok(dev_fd, &before);

	cb_create_ok(dev_fd, &hang, 4096);
	cb_create_ok(dev_fd, &other, 4096);
	cb_create_ok(dev_fd, &nop, 4096);
	write_hang(&hang);
	write_hang(&other);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	c_hang = make_chunk(hang.handle, QUEUE_H2D, hang.w.used);
	c_behind = make_chunk(nop.handle, QUEUE_H2D, nop.w.used);
	c_other = make_chunk(other.handle, QUEUE_D2H, other.w.used);

	/* The one on the other queue would wait 60 s: the reset must end it. */
	seq_other = submit_timeout(&c_other, 60);
	seq_hang = submit_timeout(&c_hang, 1);
	seq_behind = submit_timeout(&c_behind, 60);

	rc = hlthunk_wait_for_cs(dev_fd, seq_hang, WAIT_US_SHORT, &status);
	ck_assert_msg(rc == -ETIMEDOUT && status == GAUDISIM_WAIT_CS_STATUS_TIMEDOUT,
		      "hung CS: rc %d status %u", rc, status);
	rc = hlthunk_wait_for_cs(dev_fd, seq_behind, WAIT_US_SHORT, &status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "CS behind it: rc %d status %u", rc, status);
	rc = hlthunk_wait_for_cs(dev_fd, seq_other, WAIT_US_SHORT, &status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "CS on the other queue: rc %d status %u", rc, status);
	wait_hard_resets(resets + 1);

	/*
	 * Counters: one reset, one timeout, two aborted. The reset is a hard
	 * one, as habanalabs' on Gaudi, which has no compute (soft) reset.
	 */
	ck_assert_uint_eq(hard_resets(), resets + 1);
	ck_assert_uint_eq(soft_resets(), soft);
	cs_counts_ok(dev_fd, &after);
	ck_assert_uint_eq(after.timed_out, before.timed_out + 1);
	ck_assert_uint_eq(after.errors, before.errors + 2);
	dev_attr_path(dir, sizeof(dir), "hard_reset_cnt");
	ck_assert_int_eq(read_number_ok(dir), resets + 1);

	/* The eventfd: the timeout, then the reset. */
	for (i = 0; i < 50 && (~seen & (GAUDISIM_NOTIFIER_EVENT_CS_TIMEOUT |
					 GAUDISIM_NOTIFIER_EVENT_DEVICE_RESET)); i++) {
		ck_assert_int_eq(hlthunk_notifier_recv(dev_fd, notifier, &events, &cnt, 0, 100), 0);
		seen |= events;
	}
	ck_assert_msg(seen & GAUDISIM_NOTIFIER_EVENT_CS_TIMEOUT, "events 0x%llx",
		      (unsigned long long)seen);
	ck_assert_msg(seen & GAUDISIM_NOTIFIER_EVENT_DEVICE_RESET, "events 0x%llx",
		      (unsigned long long)seen);
	ck_assert_msg(!(seen & GAUDISIM_NOTIFIER_EVENT_DEVICE_UNAVAILABLE), "events 0x%llx",
		      (unsigned long long)seen);
	ck_assert_int_eq(hlthunk_notifier_release(dev_fd, notifier), 0);

	/* The uevent names the cause, the result and the new count. */
	ck_assert_int_eq(uevent_wait(sock, "GAUDISIM_EVENT=RESET", env, sizeof(env), 10000), 0);
	ck_assert_msg(strstr(env, "ACTION=change\n"), "uevent:\n%s", env);
	ck_assert_msg(strstr(env, "RESET_CAUSE=" CAUSE_TIMEOUT "\n"), "uevent:\n%s", env);
	ck_assert_msg(strstr(env, "RESET_RESULT=ok\n"), "uevent:\n%s", env);
	snprintf(text, sizeof(text), "HARD_RESET_COUNT=%u\n", resets + 1);
	ck_assert_msg(strstr(env, text), "uevent:\n%s", env);
	close(sock);

	/* The dump: cause, the hung CS and its CB, every engine, the events. */
	for (i = 0; i < 100 && coredump_find(dir, sizeof(dir)); i++)
		sleep_ms(50);
	ck_assert_int_eq(coredump_find(dir, sizeof(dir)), 0);
	len = coredump_read_ok(dir, dump, sizeof(dump));
	ck_assert_int_gt(len, 1000);
	ck_assert_int_lt(len, DUMP_LEN - 1);
	expect_in_dump("gaudisim devcoredump v1\n");
	expect_in_dump("cause: " CAUSE_TIMEOUT "\n");
	snprintf(text, sizeof(text), "resets: hard %u soft 0\n", resets);
	expect_in_dump(text);
	snprintf(text, sizeof(text), "\n[hung-cs]\nseq %llu pid %d timeout-s 1 jobs 1\n",
		 (unsigned long long)seq_hang, (int)getpid());
	expect_in_dump(text);
	snprintf(text, sizeof(text), "job 0 queue %u cb 0x", QUEUE_H2D);
	expect_in_dump(text);
	/* The first bytes of the kernel CB are the user's FENCE packet. */
	snprintf(text, sizeof(text), "cb+00: %02x %02x %02x %02x %02x %02x %02x %02x", hang.ptr[0],
		 hang.ptr[1], hang.ptr[2], hang.ptr[3], hang.ptr[4], hang.ptr[5], hang.ptr[6],
		 hang.ptr[7]);
	expect_in_dump(text);
	expect_in_dump("\n[engines]\nDMA0 GLBL_CFG0 0x");
	expect_in_dump("\nDMA1 GLBL_CFG0 0x");
	expect_in_dump("\nMME0 GLBL_CFG0 0x");
	expect_in_dump("\nTPC7 GLBL_CFG0 0x");
	expect_in_dump(" ENG_STATUS 0x");
	expect_in_dump("  s0 CP_STS 0x");
	expect_in_dump(" FENCE_CNT ");
	expect_in_dump("\n[queues]\nqueue 0 driver-pi ");
	expect_in_dump("\n[events]\nrecorded ");
	expect_in_dump("\nend\n");
	/* At the dump the hung job and the one behind it were still on their queue. */
	snprintf(text, sizeof(text), "\nqueue %u driver-pi ", QUEUE_H2D);
	queue_line = strstr(dump, text);
	ck_assert_ptr_nonnull(queue_line);
	ck_assert_msg(!strncmp(strchr(queue_line + 1, '\n') - 12, " in-flight 2", 12),
		      "queue %u should hold 2 jobs:\n%.200s", QUEUE_H2D, queue_line);

	/* A second read gives the same text; a write frees it. */
	again = coredump_read_ok(dir, dump2, sizeof(dump2));
	ck_assert_int_eq(again, len);
	ck_assert_int_eq(memcmp(dump, dump2, (size_t)len), 0);
	coredump_discard_ok();

	/* The same file and queues work again. */
	run_cb_ok(dev_fd, &nop, QUEUE_H2D, WAIT_US_SHORT);
	run_cb_ok(dev_fd, &nop, QUEUE_D2H, WAIT_US_SHORT);
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
	cb_destroy_ok(dev_fd, &hang);
	cb_destroy_ok(dev_fd, &other);
	cb_destroy_ok(dev_fd, &nop);
}
END_TEST

START_TEST(completed_work_leaves_no_dump)
{
	struct test_cb nop;
	char env[UEVENT_LEN], dir[PATH_MAX];
	uint32_t resets = hard_resets();
	int sock;

	coredump_discard_ok();
	sock = uevent_open_ok();
	cb_create_ok(dev_fd, &nop, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	run_cb_ok(dev_fd, &nop, QUEUE_H2D, WAIT_US_SHORT);
	ck_assert_int_eq(uevent_wait(sock, "GAUDISIM_EVENT=RESET", env, sizeof(env), 1500),
			 -ETIMEDOUT);
	ck_assert_int_eq(coredump_find(dir, sizeof(dir)), -ENOENT);
	ck_assert_uint_eq(hard_resets(), resets);
	cb_destroy_ok(dev_fd, &nop);
	close(sock);
}
END_TEST

START_TEST(sysfs_reset_has_uevent_but_no_dump)
{
	char env[UEVENT_LEN], dir[PATH_MAX], path[PATH_MAX];
	uint32_t resets = hard_resets();
	struct test_cb nop;
	int sock;

	coredump_discard_ok();
	sock = uevent_open_ok();
	dev_attr_path(path, sizeof(path), "hard_reset");
	ck_assert_int_eq(write_text(path, "1"), 0);
	ck_assert_int_eq(uevent_wait(sock, "GAUDISIM_EVENT=RESET", env, sizeof(env), 10000), 0);
	ck_assert_msg(strstr(env, "RESET_CAUSE=hard reset requested through sysfs\n"),
		      "uevent:\n%s", env);
	ck_assert_msg(strstr(env, "RESET_RESULT=ok\n"), "uevent:\n%s", env);
	wait_operational_ok(dev_fd);
	ck_assert_uint_eq(hard_resets(), resets + 1);
	/* Asked for, not a fault: nothing to debug. */
	ck_assert_int_eq(coredump_find(dir, sizeof(dir)), -ENOENT);
	cb_create_ok(dev_fd, &nop, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	run_cb_ok(dev_fd, &nop, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &nop);
	close(sock);
}
END_TEST

START_TEST(unread_dump_is_kept_over_a_second_hang)
{
	struct test_cb hang;
	struct gaudisim_cs_chunk c;
	char dir[PATH_MAX], dir2[PATH_MAX];
	uint32_t status = ~0u, resets = hard_resets();
	uint64_t seq1, seq2;
	int i;

	coredump_discard_ok();
	cb_create_ok(dev_fd, &hang, 4096);
	write_hang(&hang);
	c = make_chunk(hang.handle, QUEUE_H2D, hang.w.used);

	seq1 = submit_timeout(&c, 1);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq1, WAIT_US_SHORT, &status), -ETIMEDOUT);
	wait_hard_resets(resets + 1);
	for (i = 0; i < 100 && coredump_find(dir, sizeof(dir)); i++)
		sleep_ms(50);
	ck_assert_int_eq(coredump_find(dir, sizeof(dir)), 0);

	/* The second hang recovers the same way; the first dump stays. */
	seq2 = submit_timeout(&c, 1);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq2, WAIT_US_SHORT, &status), -ETIMEDOUT);
	wait_hard_resets(resets + 2);
	ck_assert_int_eq(coredump_find(dir2, sizeof(dir2)), 0);
	ck_assert_str_eq(dir, dir2);
	coredump_read_ok(dir, dump, sizeof(dump));
	snprintf(dir2, sizeof(dir2), "\nseq %llu ", (unsigned long long)seq1);
	expect_in_dump(dir2);
	coredump_discard_ok();
	cb_destroy_ok(dev_fd, &hang);
}
END_TEST

static Suite *recovery_suite(void)
{
	Suite *s = suite_create("recovery");
	TCase *hang = compute_tcase("hang", TCASE_TIMEOUT_SHORT);
	TCase *neg = compute_tcase("no_fault", TCASE_TIMEOUT_SHORT);

	tcase_add_test(hang, hang_times_out_resets_and_recovers);
	tcase_add_test(hang, unread_dump_is_kept_over_a_second_hang);
	suite_add_tcase(s, hang);
	tcase_add_test(neg, completed_work_leaves_no_dump);
	tcase_add_test(neg, sysfs_reset_has_uevent_but_no_dump);
	suite_add_tcase(s, neg);
	return s;
}

int main(void)
{
	return run_suite(recovery_suite());
}
