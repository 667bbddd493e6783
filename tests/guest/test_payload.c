// SPDX-License-Identifier: MIT
/*
 * Monitor payloads are writes by the context that armed them: attacks by
 * one unprivileged user (uid 65533) on another (uid 65534) through the
 * payloads of monitors the attacker arms from its own CBs.
 *
 * Default driver (max_contexts=1): the attacker's payloads program and arm
 * monitor 200 (outside the user range, so close does not clear it) to
 * write into the HBM that the next user gets; then it closes and the
 * victim opens. Shared contexts (the driver reloaded with max_contexts=2,
 * and back to the defaults at the end): while the victim holds its
 * context, the attacker's payloads rewrite the address of its own monitor
 * so that it points at the victim's HBM, set the victim's SOB, and program
 * the MME and launch the MME and a TPC.
 *
 * Every attack CS fails (the device refuses the payload: WAIT_CS -EIO,
 * ABORTED), the victim's memory and SOB are intact, both users' later jobs
 * work, and the kernel log shows no warning.
 */
#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_mme.h"
#include "hw/gaudisim_hw_sync.h"
#include "hw/gaudisim_hw_tpc.h"

#define ATTACKER	65533
#define VICTIM		65534
#define BUF_SIZE	(64 * KiB)
#define EVIL_WORD	0xdeadbeefu
#define EVIL_OFF	0x100
#define FOREIGN_MON	GAUDISIM_SYNC_RESERVED_MON_FIRST	/* 200: close leaves it */
#define PARAM		"/sys/module/gaudisim/parameters/max_contexts"
#define RELOAD_SHARED	"rmmod gaudisim && modprobe gaudisim max_contexts=2"
#define RELOAD_DEFAULT	"rmmod gaudisim && modprobe gaudisim"
#define CFG_REG(off)	(GAUDISIM_CFG_BASE + (off))
#define SYNC_REG_ADDR(off) CFG_REG(GAUDISIM_BLOCK_SYNC_MNGR + (off))

/* What the two users tell each other (shared memory, set up before fork). */
struct board {
	uint64_t hbm;		/* victim's (or the attacker's) HBM buffer */
	uint32_t sob;		/* victim's SOB / the SOB the next user sets */
	volatile int attacked;	/* the attacker is done */
};

static struct board *board;

/* ---- plumbing --------------------------------------------------------------- */

static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	return geteuid() == uid ? 0 : -1;
}

/* Fork a child that runs fn(fd) as uid with its own context; its exit status. */
static pid_t spawn(uid_t uid, int (*fn)(int fd))
{
	pid_t pid = fork();
	int fd, rc;

	if (pid)
		return pid;
	if (become(uid))
		_exit(90);
	fd = hlthunk_open_by_index(test_device_index());
	if (fd < 0)
		_exit(91);
	rc = fn(fd);
	if (hlthunk_close(fd))
		_exit(92);
	_exit(rc);
}

static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void run_as_ok(uid_t uid, int (*fn)(int fd), const char *what)
{
	int rc = reap(spawn(uid, fn));

	ck_assert_msg(rc == 0, "%s: check %d failed", what, rc);
}

static uint32_t first_sob(int fd, uint32_t *mon)
{
	struct gaudisim_info_sync_manager sm;

	memset(&sm, 0, sizeof(sm));
	if (hlthunk_get_info_op(fd, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm)))
		return 0;
	*mon = sm.first_available_monitor;
	return sm.first_available_sync_object;
}

/* Submit the CB on QUEUE_H2D and wait; the WAIT_CS rc (0, -EIO, ...). */
static int run_cb(int fd, struct test_cb *cb, uint32_t *status)
{
	struct gaudisim_cs_chunk chunk = make_chunk(cb->handle, QUEUE_H2D, cb->w.used);
	uint64_t seq = 0;
	int rc;

	*status = ~0u;
	rc = submit_chunk(fd, &chunk, &seq);
	if (rc)
		return rc;
	return hlthunk_wait_for_cs(fd, seq, WAIT_US_SHORT, status);
}

/* Monitor m: when sob >= value, write data to addr. */
static void cbw_monitor(struct hlthunk_cb_writer *w, uint32_t m, uint32_t sob, uint32_t value,
			uint64_t addr, uint32_t data)
{
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRL(m), (uint32_t)addr);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRH(m), (uint32_t)(addr >> 32));
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_DATA(m), data);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_ARM(m), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, value));
}

/*
 * One attack CS: the attacker's monitor mon fires at once (its SOB is 0,
 * it waits for >= 0) with a payload of data to addr. 0 when the CS failed
 * as it must (ABORTED, the device operational again), else a reason.
 */
static int payload_refused(int fd, uint32_t sob, uint32_t mon, uint64_t addr, uint32_t data)
{
	struct test_cb cb;
	uint32_t status;
	int rc, i;

	cb_create_ok(fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor(&cb.w, mon, sob, 0, addr, data);
	rc = run_cb(fd, &cb, &status);
	cb_destroy_ok(fd, &cb);
	if (rc != -EIO || status != GAUDISIM_WAIT_CS_STATUS_ABORTED)
		return 1;
	for (i = 0; i < 300; i++) {
		if (!hlthunk_get_device_status(fd, &status) &&
		    status == GAUDISIM_DEVICE_STATUS_OPERATIONAL)
			return 0;
		sleep_ms(100);
	}
	return 2;
}

/* Host -> HBM -> host with a fresh pattern: the user's jobs work. */
static int roundtrip(int fd, uint32_t seed)
{
	struct host_buf a, b;
	struct hbm_buf h;
	int bad;

	host_buf_map_ok(fd, &a, BUF_SIZE);
	host_buf_map_ok(fd, &b, BUF_SIZE);
	hbm_alloc_ok(fd, &h, BUF_SIZE);
	fill_pattern(a.ptr, BUF_SIZE, seed);
	dma_ok(fd, a.va, h.addr, BUF_SIZE, QUEUE_H2D);
	dma_ok(fd, h.addr, b.va, BUF_SIZE, QUEUE_D2H);
	bad = first_difference(a.ptr, b.ptr, BUF_SIZE) != -1;
	hbm_free_ok(fd, &h);
	host_buf_release(fd, &a);
	host_buf_release(fd, &b);
	return bad;
}

/* The victim's HBM buffer still holds pattern seed. */
static int hbm_holds(int fd, uint64_t hbm, uint32_t seed)
{
	uint8_t expect[BUF_SIZE];
	struct host_buf back;
	int bad;

	fill_pattern(expect, BUF_SIZE, seed);
	host_buf_map_ok(fd, &back, BUF_SIZE);
	dma_ok(fd, hbm, back.va, BUF_SIZE, QUEUE_D2H);
	bad = first_difference(back.ptr, expect, BUF_SIZE) != -1;
	host_buf_release(fd, &back);
	return bad;
}

static void put_pattern(int fd, uint64_t hbm, uint32_t seed)
{
	struct host_buf src;

	host_buf_map_ok(fd, &src, BUF_SIZE);
	fill_pattern(src.ptr, BUF_SIZE, seed);
	dma_ok(fd, src.va, hbm, BUF_SIZE, QUEUE_H2D);
	host_buf_release(fd, &src);
}

/* A marker in the kernel log; the log after it must hold no warning. */
static void kmsg_mark_ok(const char *marker)
{
	FILE *f = fopen("/dev/kmsg", "w");

	ck_assert_msg(f != NULL, "/dev/kmsg: %s", strerror(errno));
	ck_assert_int_gt(fprintf(f, "%s\n", marker), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static void kernel_log_clean_ok(const char *marker)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "general protection",
	};
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *from;
	unsigned int i;
	int n;

	ck_assert_int_gt(len, 0);
	buf = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	from = strstr(buf, marker);
	ck_assert_msg(from != NULL, "kernel log lost the test's start marker");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!strstr(from, bad[i]), "kernel log reports \"%s\"", bad[i]);
	free(buf);
}

static void board_setup(void)
{
	board = mmap(NULL, sizeof(*board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	ck_assert(board != MAP_FAILED);
	memset((void *)board, 0, sizeof(*board));
}

static void board_teardown(void)
{
	munmap(board, sizeof(*board));
}

/* ---- max_contexts=1: a monitor outside the user range, for the next user ---- */

/*
 * The attacker's payloads program and arm monitor 200 (its CBs may not
 * write it): when the SOB the next user sets reaches 1, it writes into
 * the HBM that user will be given.
 */
static int attack_next_user(int fd)
{
	static const uint32_t regs[] = {
		GAUDISIM_SYNC_MON_PAY_ADDRL(FOREIGN_MON), GAUDISIM_SYNC_MON_PAY_ADDRH(FOREIGN_MON),
		GAUDISIM_SYNC_MON_PAY_DATA(FOREIGN_MON), GAUDISIM_SYNC_MON_ARM(FOREIGN_MON),
	};
	uint32_t mon = 0, sob = first_sob(fd, &mon), values[4], i;
	struct hbm_buf h;
	int rc;

	if (!sob)
		return 10;
	hbm_alloc_ok(fd, &h, BUF_SIZE);
	board->hbm = h.addr;
	board->sob = sob + 2 * GAUDISIM_SYNC_SOBS_PER_GROUP;
	values[0] = (uint32_t)(h.addr + EVIL_OFF);
	values[1] = (uint32_t)((h.addr + EVIL_OFF) >> 32);
	values[2] = EVIL_WORD;
	values[3] = GAUDISIM_SYNC_MON_ARM_SOB(board->sob, 0, 1);
	for (i = 0; i < 4; i++) {
		rc = payload_refused(fd, sob, mon + i, SYNC_REG_ADDR(regs[i]), values[i]);
		if (rc)
			return 20 + 2 * (int)i + rc - 1;
	}
	return 0;
}

/* The next user: its HBM at the same place, and it sets that SOB. */
static int next_user(int fd)
{
	struct test_cb cb;
	struct hbm_buf h;

	hbm_alloc_ok(fd, &h, BUF_SIZE);
	if (h.addr != board->hbm)
		return 10;	/* the attack aimed elsewhere: nothing shown */
	put_pattern(fd, h.addr, 77);
	cb_create_ok(fd, &cb, 4096);
	cbw_sob(&cb.w, board->sob, GAUDISIM_SYNC_SOB_SET(1), 0);
	run_cb_ok(fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(fd, &cb);
	sleep_ms(100);
	if (hbm_holds(fd, h.addr, 77))
		return 11;
	hbm_free_ok(fd, &h);
	return roundtrip(fd, 78) ? 12 : 0;
}

static int later_job(int fd)
{
	return roundtrip(fd, 5) ? 1 : 0;
}

START_TEST(foreign_monitor_through_payloads_is_refused)
{
	char marker[64];

	snprintf(marker, sizeof(marker), "gsim-test-payload: exclusive %d", (int)getpid());
	kmsg_mark_ok(marker);
	run_as_ok(ATTACKER, attack_next_user, "attacker");
	run_as_ok(VICTIM, next_user, "next user");
	run_as_ok(ATTACKER, later_job, "attacker's later job");
	kernel_log_clean_ok(marker);
}
END_TEST

/* ---- max_contexts=2: two contexts side by side ------------------------------ */

static int shared_attacks(int fd)
{
	const uint64_t mme = CFG_REG(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME));
	const uint64_t tpc = CFG_REG(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_TPC_0));
	uint32_t mon = 0, sob = first_sob(fd, &mon);
	struct test_cb cb;
	uint32_t status;
	int rc;

	if (!sob || sob == board->sob)
		return 10;
	/*
	 * Class 4: monitor mon+1 aims at the register window (all the parser
	 * lets a shared context name) with the low half of the victim's HBM;
	 * mon's payload then rewrites mon+1's high half, and mon+1 fires.
	 */
	cb_create_ok(fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_ADDRL(mon + 1), (uint32_t)(board->hbm + EVIL_OFF));
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_ADDRH(mon + 1),
		    (uint32_t)(GAUDISIM_CFG_BASE >> 32));
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_DATA(mon + 1), EVIL_WORD);
	cbw_monitor(&cb.w, mon, sob, 0, SYNC_REG_ADDR(GAUDISIM_SYNC_MON_PAY_ADDRH(mon + 1)),
		    (uint32_t)((board->hbm + EVIL_OFF) >> 32));
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_ARM(mon + 1), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 0));
	rc = run_cb(fd, &cb, &status);
	cb_destroy_ok(fd, &cb);
	if (rc != -EIO || status != GAUDISIM_WAIT_CS_STATUS_ABORTED)
		return 11;
	/* Wait for the reset that the failed CS brings. */
	if (payload_refused(fd, sob, mon, SYNC_REG_ADDR(GAUDISIM_SYNC_SOB_OBJ(board->sob)),
			    GAUDISIM_SYNC_SOB_SET(7)))
		return 12;
	/* Class 5: the MME's registers and COMMIT, a TPC's launch. */
	if (payload_refused(fd, sob, mon, mme + GAUDISIM_MME_A_ADDR_LO, (uint32_t)board->hbm))
		return 13;
	if (payload_refused(fd, sob, mon, mme + GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO))
		return 14;
	if (payload_refused(fd, sob, mon, tpc + GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO))
		return 15;
	/* Its own monitors still serve it: a payload to its own SOB lands. */
	cb_create_ok(fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor(&cb.w, mon, sob, 0, SYNC_REG_ADDR(GAUDISIM_SYNC_SOB_OBJ(sob + 1)),
		    GAUDISIM_SYNC_SOB_SET(1));
	rc = run_cb(fd, &cb, &status);
	cb_destroy_ok(fd, &cb);
	if (rc || status != GAUDISIM_WAIT_CS_STATUS_COMPLETED)
		return 16;
	return roundtrip(fd, 9) ? 17 : 0;
}

/*
 * Is SOB sob still 0? A monitor waiting for == 0 raises fence 1 of the
 * queue, where a FENCE waits: the CS completes only if it fired.
 */
static int sob_is_zero(int fd, uint32_t sob, uint32_t mon)
{
	struct test_cb cb;
	uint32_t status;
	int rc;

	cb_create_ok(fd, &cb, 4096);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_ADDRL(mon), (uint32_t)fence_rdata_addr(QUEUE_H2D, 1));
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_ADDRH(mon),
		    (uint32_t)(fence_rdata_addr(QUEUE_H2D, 1) >> 32));
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_DATA(mon), 1);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_ARM(mon), GAUDISIM_SYNC_MON_ARM_SOB(sob, 1, 0));
	ck_assert_int_eq(hlthunk_cbw_fence(&cb.w, 1, 1, 1, 0), 0);
	rc = run_cb(fd, &cb, &status);
	cb_destroy_ok(fd, &cb);
	return !rc && status == GAUDISIM_WAIT_CS_STATUS_COMPLETED;
}

static int victim(int fd)
{
	uint32_t mon = 0, sob = first_sob(fd, &mon);
	struct test_cb cb;
	struct hbm_buf h;
	int i;

	if (!sob)
		return 10;
	hbm_alloc_ok(fd, &h, BUF_SIZE);
	put_pattern(fd, h.addr, 1234);
	cb_create_ok(fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	run_cb_ok(fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(fd, &cb);
	board->sob = sob;
	board->hbm = h.addr;
	__sync_synchronize();
	for (i = 0; i < 6000 && !board->attacked; i++)
		sleep_ms(50);
	if (!board->attacked)
		return 11;
	if (hbm_holds(fd, h.addr, 1234))
		return 12;
	if (!sob_is_zero(fd, sob, mon))
		return 13;
	hbm_free_ok(fd, &h);
	return roundtrip(fd, 4321) ? 14 : 0;
}

START_TEST(shared_context_payloads_are_refused)
{
	char marker[64];
	pid_t v;
	int i, rc;

	snprintf(marker, sizeof(marker), "gsim-test-payload: shared %d", (int)getpid());
	kmsg_mark_ok(marker);
	v = spawn(VICTIM, victim);
	ck_assert_int_gt(v, 0);
	for (i = 0; i < 200 && !board->hbm; i++)
		sleep_ms(50);
	ck_assert_msg(board->hbm, "the victim did not set up");
	rc = reap(spawn(ATTACKER, shared_attacks));
	board->attacked = 1;
	ck_assert_int_eq(reap(v), 0);
	ck_assert_msg(rc == 0, "attacker: check %d failed", rc);
	run_as_ok(ATTACKER, later_job, "attacker's later job");
	kernel_log_clean_ok(marker);
}
END_TEST

/* ---- driver configuration ---------------------------------------------------- */

static long max_contexts(void)
{
	char buf[32] = "";
	FILE *f = fopen(PARAM, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtol(buf, NULL, 0);
}

/* Load the driver with cmd; the compute node open to every user meanwhile. */
static int reload(const char *cmd)
{
	char node[64];
	int i;

	if (system(cmd))
		return -1;
	snprintf(node, sizeof(node), "/dev/accel/accel%d", test_device_index());
	for (i = 0; i < 100; i++) {
		if (!chmod(node, 0666))
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

/* Runs in the runner, around the shared test case: tests see the result. */
static bool shared_loaded;

static void load_shared(void)
{
	shared_loaded = !reload(RELOAD_SHARED) && max_contexts() == 2;
}

static void load_default(void)
{
	if (reload(RELOAD_DEFAULT))
		printf("payload: could not reload the driver with its defaults\n");
}

static void shared_setup(void)
{
	ck_assert_msg(shared_loaded, "could not load the driver with max_contexts=2");
	board_setup();
}

int main(void)
{
	Suite *s = suite_create("payload");
	TCase *tc;
	int rc;

	if ((max_contexts() != 1 && reload(RELOAD_DEFAULT)) || reload("true")) {
		printf("payload: could not load the driver with its defaults\n0 passed, 1 failed\n");
		return EXIT_FAILURE;
	}
	tc = fixture_tcase("exclusive", board_setup, board_teardown, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, foreign_monitor_through_payloads_is_refused);
	suite_add_tcase(s, tc);
	tc = fixture_tcase("shared", shared_setup, board_teardown, TCASE_TIMEOUT_DMA);
	tcase_add_unchecked_fixture(tc, load_shared, load_default);
	tcase_add_test(tc, shared_context_payloads_are_refused);
	suite_add_tcase(s, tc);
	rc = run_suite(s);
	return max_contexts() == 1 ? rc : EXIT_FAILURE;
}
