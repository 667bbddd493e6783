// SPDX-License-Identifier: MIT
/*
 * Shared devices: the driver loaded with max_contexts=4 (this program
 * reloads it so, and back to the defaults when done). Four processes hold
 * the compute node, the fifth gets EBUSY; each has its own HBM quota, its
 * own slice of the sync manager and its own address space, and none can
 * read or write another's memory: a process's CSs that name another's
 * host VA, HBM, sync objects or monitors are refused, and the victim's
 * data stays intact; both keep working. HBM a context frees reaches the
 * next one zeroed, also when the FREE races a CS of the freeing context
 * that is still being built (run as two unprivileged users). A CS timeout
 * is reported to the context whose CS it was, not to the others; each
 * context has user interrupts of its own, and may neither raise nor wait
 * on another's. A context registers for NIC peers only its own HBM and
 * SOBs, within its share of the registrations. Signals a context reserved
 * end when it closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_sync.h"

#define MAX_CONTEXTS	4
#define QUOTA_MB	64
#define PARAM_DIR	"/sys/module/gaudisim/parameters/"
#define SECRET_SIZE	(64 * KiB)
#define RELOAD_SHARED	"rmmod gaudisim && modprobe gaudisim max_contexts=4 ctx_hbm_quota_mb=64"
#define RELOAD_DEFAULT	"rmmod gaudisim && modprobe gaudisim"

static long read_param(const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtol(buf, NULL, 0);
}

/* Wait up to 10 s for the compute node to come back after a reload. */
static int wait_for_node(void)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/dev/accel/accel%d", test_device_index());
	for (i = 0; i < 100; i++) {
		if (!access(path, R_OK | W_OK))
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

static int reload(const char *cmd)
{
	if (system(cmd))
		return -1;
	return wait_for_node();
}

static uint32_t first_sob(int fd, uint32_t *mon)
{
	struct gaudisim_info_sync_manager sm;

	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(fd, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm)), 0);
	*mon = sm.first_available_monitor;
	return sm.first_available_sync_object;
}

/* Submit one LIN_DMA (or memset) on fd; returns the submit rc, waits on success. */
static int try_dma(int fd, uint64_t src, uint64_t dst, uint32_t size, uint32_t extra_ctl)
{
	struct gaudisim_cs_chunk chunk;
	struct test_cb cb;
	uint64_t seq;
	int rc;

	cb_create_ok(fd, &cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, src, dst, size, extra_ctl, 0), 0);
	chunk = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);
	rc = submit_chunk(fd, &chunk, &seq);
	if (!rc)
		wait_completed_ok(fd, seq, WAIT_US_DMA);
	cb_destroy_ok(fd, &cb);
	return rc;
}

/* Submit a CB of one MSG_SHORT on fd; returns the submit rc. */
static int try_msg_short(int fd, uint32_t base, uint32_t offset, uint32_t value)
{
	struct test_cb cb;
	int rc;

	cb_create_ok(fd, &cb, 4096);
	cbw_msg_short(&cb.w, base, offset, value, 0);
	rc = submit_cb(fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(fd, &cb);
	return rc;
}

static void roundtrip_ok(int fd, const struct host_buf *host, const struct hbm_buf *hbm,
			 uint32_t seed)
{
	struct host_buf back;

	host_buf_map_ok(fd, &back, SECRET_SIZE);
	fill_pattern(host->ptr, SECRET_SIZE, seed);
	dma_ok(fd, host->va, hbm->addr, SECRET_SIZE, QUEUE_H2D);
	dma_ok(fd, hbm->addr, back.va, SECRET_SIZE, QUEUE_D2H);
	ck_assert_int_eq(first_difference(back.ptr, host->ptr, SECRET_SIZE), -1);
	host_buf_release(fd, &back);
}

/* ---- Opening ---------------------------------------------------------------- */

START_TEST(four_share_fifth_is_ebusy)
{
	int fds[MAX_CONTEXTS], status, i;
	pid_t pid;

	ck_assert_int_eq(read_param("max_contexts"), MAX_CONTEXTS);
	fds[0] = dev_fd;
	for (i = 1; i < MAX_CONTEXTS; i++)
		fds[i] = open_compute_ok();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(hlthunk_open_by_index(test_device_index()) == -EBUSY ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* A freed place is taken again. */
	ck_assert_int_eq(hlthunk_close(fds[2]), 0);
	fds[2] = open_compute_ok();
	ck_assert_int_eq(hlthunk_open_by_index(test_device_index()), -EBUSY);
	for (i = 1; i < MAX_CONTEXTS; i++)
		ck_assert_int_eq(hlthunk_close(fds[i]), 0);
}
END_TEST

/* Each context its own slice of the user SOBs and monitors. */
START_TEST(sync_manager_slices_differ)
{
	int other = open_compute_ok();
	uint32_t mon_a, mon_b, sob_a, sob_b;

	sob_a = first_sob(dev_fd, &mon_a);
	sob_b = first_sob(other, &mon_b);
	ck_assert_uint_ge(sob_a, GAUDISIM_SYNC_FIRST_USER_SOB);
	ck_assert_uint_ge(sob_b, GAUDISIM_SYNC_FIRST_USER_SOB);
	ck_assert_uint_ne(sob_a, sob_b);
	ck_assert_uint_ne(mon_a, mon_b);
	ck_assert(mon_a > GAUDISIM_SYNC_RESERVED_MON_LAST && mon_b > GAUDISIM_SYNC_RESERVED_MON_LAST);
	/* Its own slice works; the other's is refused. */
	ck_assert_int_eq(try_msg_short(dev_fd, 1, 4 * sob_a, GAUDISIM_SYNC_SOB_SET(1)), 0);
	ck_assert_int_eq(try_msg_short(dev_fd, 1, 4 * sob_b, GAUDISIM_SYNC_SOB_SET(1)), -EPERM);
	ck_assert_int_eq(try_msg_short(other, 1, 4 * sob_a, GAUDISIM_SYNC_SOB_SET(1)), -EPERM);
	ck_assert_int_eq(hlthunk_close(other), 0);
}
END_TEST

/*
 * NIC peers may write only what a context registered, and a context may
 * register only its own allocations and its own slice of SOBs; contexts
 * share the registration table evenly (32 / 4 each).
 */
START_TEST(nic_register_own_only)
{
	int other = open_compute_ok();
	uint32_t mon, sob_a = first_sob(dev_fd, &mon), sob_b = first_sob(other, &mon);
	struct hbm_buf a, b;
	uint64_t h[GAUDISIM_NIC_RX_NUM_MR], hb;
	int i, rc = 0;

	hbm_alloc_ok(dev_fd, &a, 2 * MiB);
	hbm_alloc_ok(other, &b, 2 * MiB);
	ck_assert_int_eq(hlthunk_nic_register(dev_fd, b.addr, 4096, 0, 0, &h[0]), -EPERM);
	ck_assert_int_eq(hlthunk_nic_register(dev_fd, a.addr + 2 * MiB - 4096, 8192, 0, 0,
					      &h[0]), -EPERM);
	ck_assert_int_eq(hlthunk_nic_register(dev_fd, 0, 0, sob_b, 1, &h[0]), -EPERM);
	ck_assert_int_eq(hlthunk_nic_register(dev_fd, a.addr, 2 * MiB, sob_a, 8, &h[0]), 0);
	/* Another context's handle is not ours to drop. */
	ck_assert_int_eq(hlthunk_nic_deregister(other, h[0]), -EINVAL);
	for (i = 1; i < GAUDISIM_NIC_RX_NUM_MR; i++) {
		rc = hlthunk_nic_register(dev_fd, a.addr, 4096, 0, 0, &h[i]);
		if (rc)
			break;
	}
	ck_assert_int_eq(rc, -ENOSPC);
	ck_assert_int_eq(i, GAUDISIM_NIC_RX_NUM_MR / MAX_CONTEXTS);
	/* Our share is used up, not the other's. */
	ck_assert_int_eq(hlthunk_nic_register(other, b.addr, 4096, sob_b, 1, &hb), 0);
	ck_assert_int_eq(hlthunk_nic_deregister(other, hb), 0);
	/* FREE drops every registration over the allocation. */
	hbm_free_ok(dev_fd, &a);
	ck_assert_int_eq(hlthunk_nic_deregister(dev_fd, h[0]), -EINVAL);
	ck_assert_int_eq(hlthunk_nic_deregister(dev_fd, h[1]), -EINVAL);
	hbm_free_ok(other, &b);
	ck_assert_int_eq(hlthunk_close(other), 0);
}
END_TEST

/* ---- HBM quota and scrubbing ---------------------------------------------- */

START_TEST(hbm_quota_per_context)
{
	int other = open_compute_ok();
	struct test_dram_usage mine, theirs;
	uint64_t h, h2, h3;

	ck_assert_int_eq(mem_alloc_rc(dev_fd, QUOTA_MB * MiB, &h), 0);
	ck_assert_int_eq(mem_alloc_rc(dev_fd, 2 * MiB, &h2), -ENOMEM);
	/* The other context's quota is its own. */
	ck_assert_int_eq(mem_alloc_rc(other, QUOTA_MB * MiB - 2 * MiB, &h3), 0);
	dram_usage_ok(dev_fd, &mine);
	dram_usage_ok(other, &theirs);
	ck_assert_uint_eq(mine.ctx_dram_mem, QUOTA_MB * MiB);
	ck_assert_uint_eq(theirs.ctx_dram_mem, QUOTA_MB * MiB - 2 * MiB);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, h), 0);
	ck_assert_int_eq(mem_alloc_rc(dev_fd, 2 * MiB, &h2), 0);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, h2), 0);
	ck_assert_int_eq(hlthunk_device_memory_free(other, h3), 0);
	ck_assert_int_eq(hlthunk_close(other), 0);
}
END_TEST

/* HBM one context wrote and freed is zero when the next one gets it. */
START_TEST(freed_hbm_reaches_the_next_context_zeroed)
{
	struct host_buf host, back;
	struct hbm_buf a, b;
	uint64_t freed;
	int other;

	host_buf_map_ok(dev_fd, &host, SECRET_SIZE);
	hbm_alloc_ok(dev_fd, &a, 2 * MiB);
	fill_pattern(host.ptr, SECRET_SIZE, 7);
	dma_ok(dev_fd, host.va, a.addr, SECRET_SIZE, QUEUE_H2D);
	freed = a.addr;
	hbm_free_ok(dev_fd, &a);

	other = open_compute_ok();
	hbm_alloc_ok(other, &b, 2 * MiB);
	/* The allocator hands the same place out again: the test means something. */
	ck_assert_uint_eq(b.addr, freed);
	host_buf_map_ok(other, &back, SECRET_SIZE);
	memset(back.ptr, 0xa5, SECRET_SIZE);
	dma_ok(other, b.addr, back.va, SECRET_SIZE, QUEUE_D2H);
	ck_assert_int_eq(first_byte_not(back.ptr, SECRET_SIZE, 0), -1);
	hbm_free_ok(other, &b);
	host_buf_release(other, &back);
	ck_assert_int_eq(hlthunk_close(other), 0);
	host_buf_release(dev_fd, &host);
}
END_TEST

/*
 * FREE while the context's jobs still run is EBUSY (the memory may still
 * be in use and is scrubbed before others get it); the allocation stays.
 * The job waits on a fence its own monitor raises, which shared contexts
 * may arm (payload into a register).
 */
START_TEST(free_while_jobs_run_is_ebusy)
{
	struct test_cb arm, gated, open_cb;
	struct gaudisim_cs_chunk chunk;
	struct hbm_buf hbm;
	uint32_t sob, mon;
	uint64_t seq;

	sob = first_sob(dev_fd, &mon);
	hbm_alloc_ok(dev_fd, &hbm, 2 * MiB);
	cb_create_ok(dev_fd, &arm, 4096);
	cbw_sob(&arm.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor_to_fence(&arm.w, mon, sob, QUEUE_H2D);
	run_cb_ok(dev_fd, &arm, QUEUE_D2H, WAIT_US_SHORT);

	cb_create_ok(dev_fd, &gated, 4096);
	ck_assert_int_eq(hlthunk_cbw_fence(&gated.w, 0, 1, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&gated.w, 0), 0);
	chunk = make_chunk(gated.handle, QUEUE_H2D, gated.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);

	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, hbm.handle), -EBUSY);

	cb_create_ok(dev_fd, &open_cb, 4096);
	cbw_sob(&open_cb.w, sob, GAUDISIM_SYNC_SOB_ADD(1), 0);
	run_cb_ok(dev_fd, &open_cb, QUEUE_D2H, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, hbm.handle), 0);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, hbm.handle), -EINVAL);
	cb_destroy_ok(dev_fd, &open_cb);
	cb_destroy_ok(dev_fd, &gated);
	cb_destroy_ok(dev_fd, &arm);
}
END_TEST

/*
 * FREE racing a CS that is being built. The attacker (uid 65534) submits
 * a CS whose first chunk copies its HBM allocation X to its host buffer
 * and whose other chunks are long runs of NOPs, so that the driver is
 * still checking chunks when another thread frees X. The victim (uid
 * 65533) takes X as soon as the FREE returns and writes its secret
 * there. The copy must read the attacker's own data: the FREE waits for
 * the CS (retrying while it answers EBUSY), the victim's secret is never
 * read.
 */
#define RACE_SIZE	(2 * MiB)
#define RACE_NOP_CB	(2 * MiB - 4096)
#define RACE_NOP_CHUNKS	48
#define RACE_MINE	0xaa
#define RACE_SECRET	0x5e
#define RACE_FREE_DELAY_MS 20
#define ATTACKER_UID	65534
#define VICTIM_UID	65533

static void become(uid_t id)
{
	ck_assert_int_eq(setgroups(0, NULL), 0);
	ck_assert_int_eq(setresgid(id, id, id), 0);
	ck_assert_int_eq(setresuid(id, id, id), 0);
}

struct race_free {
	int fd, go, to_victim;
	struct hbm_buf *x;
};

/* The attacker's second thread: FREE X shortly after the submission began. */
static void *race_free_thread(void *arg)
{
	struct race_free *r = arg;
	uint64_t addr = 0;
	char c;
	int rc, i;

	if (read(r->go, &c, 1) != 1)
		return NULL;
	sleep_ms(RACE_FREE_DELAY_MS);
	for (i = 0; i < 60; i++) {
		rc = hlthunk_device_memory_free(r->fd, r->x->handle);
		if (rc != -EBUSY)
			break;
	}
	if (!rc)
		addr = r->x->addr;
	if (write(r->to_victim, &addr, sizeof(addr)) != sizeof(addr))
		return NULL;
	return NULL;
}

/* The attacker; 0 when its copy read its own data only. */
static int race_attacker(int to_victim)
{
	static struct gaudisim_cs_chunk chunks[1 + RACE_NOP_CHUNKS];
	struct test_cb copy, nops;
	struct race_free r;
	struct host_buf h;
	struct hbm_buf x;
	pthread_t t;
	uint64_t seq;
	int go[2], rc, i;

	become(ATTACKER_UID);
	dev_fd = open_compute_ok();
	hbm_alloc_ok(dev_fd, &x, RACE_SIZE);
	memset_ok(dev_fd, x.addr, RACE_MINE, RACE_SIZE, QUEUE_H2D);
	host_buf_map_ok(dev_fd, &h, SECRET_SIZE);
	memset(h.ptr, 0, SECRET_SIZE);
	cb_create_ok(dev_fd, &copy, 4096);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&copy.w, x.addr, h.va, SECRET_SIZE, 0, 0), 0);
	cb_create_ok(dev_fd, &nops, RACE_NOP_CB);
	while (nops.w.used < RACE_NOP_CB)
		ck_assert_int_eq(hlthunk_cbw_nop(&nops.w, 0), 0);
	chunks[0] = make_chunk(copy.handle, QUEUE_D2H, copy.w.used);
	for (i = 1; i <= RACE_NOP_CHUNKS; i++)
		chunks[i] = make_chunk(nops.handle, QUEUE_H2D, nops.w.used);

	ck_assert_int_eq(pipe(go), 0);
	r = (struct race_free){ .fd = dev_fd, .go = go[0], .to_victim = to_victim, .x = &x };
	ck_assert_int_eq(pthread_create(&t, NULL, race_free_thread, &r), 0);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	rc = submit_chunks(chunks, 1 + RACE_NOP_CHUNKS, 60, &seq);
	ck_assert_int_eq(rc, 0);
	wait_completed_ok(dev_fd, seq, WAIT_US_DMA);
	ck_assert_int_eq(pthread_join(t, NULL), 0);

	if (memchr(h.ptr, RACE_SECRET, SECRET_SIZE))
		return 1;	/* the victim's secret was read */
	if (first_byte_not(h.ptr, SECRET_SIZE, RACE_MINE) != -1)
		return 2;	/* the copy did not read X as it was when approved */
	return 0;
}

/* The victim: takes X once freed, writes its secret, holds it until told. */
static int race_victim(int from_attacker, int hold)
{
	struct hbm_buf x;
	uint64_t addr;
	char c;

	become(VICTIM_UID);
	dev_fd = open_compute_ok();
	if (read(from_attacker, &addr, sizeof(addr)) != sizeof(addr) || !addr)
		return 3;	/* the attacker's FREE never went through */
	hbm_alloc_ok(dev_fd, &x, RACE_SIZE);
	if (x.addr != addr)
		return 4;	/* not the freed place: the test proves nothing */
	memset_ok(dev_fd, x.addr, RACE_SECRET, RACE_SIZE, QUEUE_H2D);
	if (read(hold, &c, 1) != 1)
		return 5;
	hlthunk_close(dev_fd);
	return 0;
}

/* A memset on fd completes. */
static void device_works_ok_on(int fd)
{
	struct hbm_buf b;

	hbm_alloc_ok(fd, &b, 2 * MiB);
	memset_ok(fd, b.addr, 0x42, 4096, QUEUE_H2D);
	hbm_free_ok(fd, &b);
}

static int child_status(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

START_TEST(free_racing_a_cs_being_built)
{
	char node[64];
	int a2v[2], hold[2], rc;
	pid_t attacker, victim;
	struct stat st;

	snprintf(node, sizeof(node), "/dev/accel/accel%d", test_device_index());
	ck_assert_int_eq(stat(node, &st), 0);
	ck_assert_int_eq(chmod(node, 0666), 0);
	ck_assert_int_eq(pipe(a2v), 0);
	ck_assert_int_eq(pipe(hold), 0);
	fflush(NULL);
	victim = fork();
	ck_assert_int_ge(victim, 0);
	if (!victim)
		_exit(race_victim(a2v[0], hold[0]));
	attacker = fork();
	ck_assert_int_ge(attacker, 0);
	if (!attacker)
		_exit(race_attacker(a2v[1]));
	rc = child_status(attacker);
	ck_assert_int_eq(write(hold[1], "h", 1), 1);
	ck_assert_msg(rc == 0, "attacker: check %d failed (1: it read the victim's secret)", rc);
	ck_assert_int_eq(child_status(victim), 0);
	chmod(node, st.st_mode & 07777);
}
END_TEST

/*
 * A CS timeout is reported to its own context only: the attacker (uid
 * 65534) lets a CS hang on a fence until its 1 s timeout and finds it in
 * CS_TIMEOUT_EVENT; the victim (uid 65533), open meanwhile, finds none.
 */
static int timeout_owner(int to_victim)
{
	struct hlthunk_reset_count_info before, now;
	struct gaudisim_info_cs_timeout_event ev;
	struct gaudisim_cs_chunk chunk;
	struct test_cb hang;
	uint32_t status;
	uint64_t seq;
	int rc, i;

	become(ATTACKER_UID);
	dev_fd = open_compute_ok();
	ck_assert_int_eq(hlthunk_get_reset_count_info(dev_fd, &before), 0);
	cb_create_ok(dev_fd, &hang, 4096);
	ck_assert_int_eq(hlthunk_cbw_fence(&hang.w, 0, 1, 1, 0), 0);
	chunk = make_chunk(hang.handle, QUEUE_H2D, hang.w.used);
	ck_assert_int_eq(submit_chunks(&chunk, 1, 1, &seq), 0);
	rc = hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_SHORT, &status);
	ck_assert_msg(rc == -ETIMEDOUT, "hung CS: rc %d status %u", rc, status);
	memset(&ev, 0, sizeof(ev));
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_CS_TIMEOUT, &ev), 0);
	if (!ev.timestamp || ev.seq != seq)
		return 1;	/* its own timeout is not reported to it */
	/* The timeout resets the device: let that end before the other works. */
	for (i = 0; i < 300; i++) {
		ck_assert_int_eq(hlthunk_get_reset_count_info(dev_fd, &now), 0);
		if (now.hard_reset_count > before.hard_reset_count)
			break;
		sleep_ms(100);
	}
	wait_operational_ok(dev_fd);
	if (write(to_victim, "t", 1) != 1)
		return 2;
	hlthunk_close(dev_fd);
	return 0;
}

static int timeout_bystander(int from_owner)
{
	struct gaudisim_info_cs_timeout_event ev;
	char c;

	become(VICTIM_UID);
	dev_fd = open_compute_ok();
	if (read(from_owner, &c, 1) != 1)
		return 3;
	memset(&ev, 0xff, sizeof(ev));
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_CS_TIMEOUT, &ev), 0);
	if (ev.timestamp || ev.seq)
		return 4;	/* another context's timeout was shown to it */
	wait_operational_ok(dev_fd);
	device_works_ok_on(dev_fd);
	hlthunk_close(dev_fd);
	return 0;
}

START_TEST(cs_timeout_reported_to_its_context_only)
{
	char node[64];
	int pipefd[2], rc;
	pid_t owner, bystander;
	struct stat st;

	snprintf(node, sizeof(node), "/dev/accel/accel%d", test_device_index());
	ck_assert_int_eq(stat(node, &st), 0);
	ck_assert_int_eq(chmod(node, 0666), 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	fflush(NULL);
	bystander = fork();
	ck_assert_int_ge(bystander, 0);
	if (!bystander)
		_exit(timeout_bystander(pipefd[0]));
	owner = fork();
	ck_assert_int_ge(owner, 0);
	if (!owner)
		_exit(timeout_owner(pipefd[1]));
	rc = child_status(owner);
	ck_assert_msg(rc == 0, "owner: check %d failed", rc);
	rc = child_status(bystander);
	ck_assert_msg(rc == 0, "bystander: check %d failed (4: it saw the other's timeout)", rc);
	chmod(node, st.st_mode & 07777);
}
END_TEST

/* The user interrupts HW_IP_INFO gives fd's context. */
static void uirq_range_ok(int fd, uint32_t *first, uint32_t *count)
{
	struct hlthunk_hw_ip_info hw;

	hw_ip_ok(fd, &hw);
	*first = hw.first_available_interrupt_id;
	*count = hw.number_of_user_interrupts;
	ck_assert_uint_ge(*first, GAUDISIM_MSIX_VEC_USER_FIRST);
	ck_assert_uint_le(*first + *count, GAUDISIM_MSIX_VEC_USER_FIRST + GAUDISIM_MSIX_NUM_USER);
	ck_assert_uint_eq(*count, GAUDISIM_MSIX_NUM_USER / MAX_CONTEXTS);
}

/* Submit a CB that sets *counter (a host VA) to 1 and raises id; the rc. */
static int raise_uirq(int fd, uint64_t counter_va, uint32_t id)
{
	struct test_cb cb;
	int rc;

	cb_create_ok(fd, &cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, counter_va, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_user_interrupt(&cb.w, id), 0);
	rc = submit_cb(fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(fd, &cb);
	return rc;
}

/* The owner (uid 65533): its interrupts work, their IDs go to the other. */
static int uirq_owner(int to_other, int from_other)
{
	uint32_t first, count, status = ~0u;
	struct host_buf counter;
	char c;

	become(VICTIM_UID);
	dev_fd = open_compute_ok();
	uirq_range_ok(dev_fd, &first, &count);
	if (write(to_other, &first, sizeof(first)) != sizeof(first) ||
	    read(from_other, &c, 1) != 1)
		return 1;
	host_buf_map_ok(dev_fd, &counter, 4096);
	memset(counter.ptr, 0, 8);
	if (raise_uirq(dev_fd, counter.va, first + count - 1))
		return 2;
	if (hlthunk_wait_for_interrupt(dev_fd, counter.ptr, 1, first + count - 1, WAIT_US_SHORT,
				       &status) || status != GAUDISIM_WAIT_CS_STATUS_COMPLETED)
		return 3;
	if (hlthunk_wait_for_interrupt(dev_fd, counter.ptr, 1, UINT32_MAX, 0, &status) ||
	    status != GAUDISIM_WAIT_CS_STATUS_COMPLETED)
		return 4;
	host_buf_release(dev_fd, &counter);
	hlthunk_close(dev_fd);
	return 0;
}

/* The other (uid 65534): disjoint IDs; the owner's it may not raise or wait on. */
static int uirq_other(int from_owner, int to_owner)
{
	uint32_t first, count, theirs, status;
	struct host_buf counter;

	become(ATTACKER_UID);
	dev_fd = open_compute_ok();
	uirq_range_ok(dev_fd, &first, &count);
	if (read(from_owner, &theirs, sizeof(theirs)) != sizeof(theirs))
		return 10;
	if (theirs < first + count && first < theirs + count)
		return 11;	/* the two contexts' interrupts overlap */
	host_buf_map_ok(dev_fd, &counter, 4096);
	memset(counter.ptr, 0, 8);
	if (raise_uirq(dev_fd, counter.va, theirs) != -EPERM)
		return 12;	/* it raised the other's interrupt */
	if (hlthunk_wait_for_interrupt(dev_fd, counter.ptr, 1, theirs, 0, &status) != -EINVAL)
		return 13;	/* it could wait on the other's interrupt */
	if (raise_uirq(dev_fd, counter.va, first) ||
	    hlthunk_wait_for_interrupt(dev_fd, counter.ptr, 1, first, WAIT_US_SHORT, &status) ||
	    status != GAUDISIM_WAIT_CS_STATUS_COMPLETED)
		return 14;	/* its own do not work */
	if (write(to_owner, "d", 1) != 1)
		return 15;
	host_buf_release(dev_fd, &counter);
	hlthunk_close(dev_fd);
	return 0;
}

START_TEST(user_interrupts_per_context)
{
	char node[64];
	int o2a[2], a2o[2], rc;
	pid_t owner, other;
	struct stat st;

	snprintf(node, sizeof(node), "/dev/accel/accel%d", test_device_index());
	ck_assert_int_eq(stat(node, &st), 0);
	ck_assert_int_eq(chmod(node, 0666), 0);
	ck_assert_int_eq(pipe(o2a), 0);
	ck_assert_int_eq(pipe(a2o), 0);
	fflush(NULL);
	owner = fork();
	ck_assert_int_ge(owner, 0);
	if (!owner)
		_exit(uirq_owner(o2a[1], a2o[0]));
	other = fork();
	ck_assert_int_ge(other, 0);
	if (!other)
		_exit(uirq_other(o2a[0], a2o[1]));
	rc = child_status(other);
	if (rc)
		kill(owner, SIGKILL);
	ck_assert_msg(rc == 0, "other: check %d failed", rc);
	rc = child_status(owner);
	ck_assert_msg(rc == 0, "owner: check %d failed", rc);
	chmod(node, st.st_mode & 07777);
}
END_TEST

/* ---- Isolation ---------------------------------------------------------------- */

/*
 * The attacker, in a process of its own, knows the victim's addresses.
 * Returns 0 when every attempt was refused and its own work succeeded,
 * else the number of the check that failed.
 */
static int attack(uint64_t victim_va, uint64_t victim_hbm, uint32_t victim_sob,
		  uint32_t victim_mon)
{
	struct host_buf host;
	struct hbm_buf hbm;
	uint32_t mon, sob;
	uint64_t payload_lo = victim_hbm;
	int fd;

	fd = hlthunk_open_by_index(test_device_index());
	if (fd < 0)
		return 1;
	/* Before it maps anything, the victim's VA is nothing in its space. */
	if (mem_alloc_rc(fd, SECRET_SIZE, &hbm.handle) ||
	    mem_map_rc(fd, hbm.handle, &hbm.addr))
		return 2;
	if (try_dma(fd, victim_va, hbm.addr, SECRET_SIZE, 0) != -EINVAL)
		return 3;
	if (try_dma(fd, hbm.addr, victim_va, SECRET_SIZE, 0) != -EINVAL)
		return 4;
	/* The victim's HBM: no read, no write, no memset. */
	if (try_dma(fd, victim_hbm, hbm.addr, SECRET_SIZE, 0) != -EPERM)
		return 5;
	if (try_dma(fd, hbm.addr, victim_hbm, SECRET_SIZE, 0) != -EPERM)
		return 6;
	if (try_dma(fd, 0, victim_hbm, SECRET_SIZE, GAUDISIM_LIN_DMA_CTL_MEMSET) != -EPERM)
		return 7;
	/* A range that starts in its own allocation and runs into another's. */
	if (try_dma(fd, hbm.addr, hbm.addr + SECRET_SIZE, 2 * MiB, 0) != -EPERM)
		return 8;
	/* SRAM is not partitioned. */
	if (try_dma(fd, hbm.addr, GAUDISIM_SRAM_BASE, 4096, 0) != -EPERM)
		return 9;
	/* The victim's sync objects and monitors, and watching its SOBs. */
	sob = first_sob(fd, &mon);
	if (try_msg_short(fd, 1, 4 * victim_sob, GAUDISIM_SYNC_SOB_ADD(1)) != -EPERM)
		return 10;
	if (try_msg_short(fd, 0, GAUDISIM_SYNC_MON_ARM(victim_mon) - GAUDISIM_SYNC_MON_BASE_OFFSET,
			  GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 1)) != -EPERM)
		return 11;
	if (try_msg_short(fd, 0, GAUDISIM_SYNC_MON_ARM(mon) - GAUDISIM_SYNC_MON_BASE_OFFSET,
			  GAUDISIM_SYNC_MON_ARM_SOB(victim_sob, 0, 1)) != -EPERM)
		return 12;
	/* A monitor payload into HBM (high half 0) is refused; low half alone is fine. */
	if (try_msg_short(fd, 0, GAUDISIM_SYNC_MON_PAY_ADDRH(mon) - GAUDISIM_SYNC_MON_BASE_OFFSET,
			  0) != -EPERM)
		return 13;
	if (try_msg_short(fd, 0, GAUDISIM_SYNC_MON_PAY_ADDRL(mon) - GAUDISIM_SYNC_MON_BASE_OFFSET,
			  (uint32_t)payload_lo) != 0)
		return 14;
	/* Internal queues run CBs in place from HBM: refused. */
	{
		struct gaudisim_cs_chunk chunk = make_chunk(hbm.addr, GAUDISIM_QUEUE_ID_DMA_2_0, 8);

		if (submit_chunk(fd, &chunk, NULL) != -EPERM)
			return 15;
	}
	/* Its own memory works. */
	host_buf_alloc_ok(&host, SECRET_SIZE);
	if (host_map_rc(fd, host.ptr, host.size, &host.va))
		return 16;
	memset(host.ptr, 0x3c, SECRET_SIZE);
	if (try_dma(fd, host.va, hbm.addr, SECRET_SIZE, 0))
		return 17;
	memset(host.ptr, 0, SECRET_SIZE);
	if (try_dma(fd, hbm.addr, host.va, SECRET_SIZE, 0) ||
	    first_byte_not(host.ptr, SECRET_SIZE, 0x3c) != -1)
		return 18;
	if (hlthunk_close(fd))
		return 19;
	return 0;
}

START_TEST(another_process_cannot_reach_my_memory)
{
	struct host_buf secret, back;
	struct hbm_buf hbm;
	uint32_t sob, mon;
	int status;
	pid_t pid;

	host_buf_map_ok(dev_fd, &secret, SECRET_SIZE);
	hbm_alloc_ok(dev_fd, &hbm, SECRET_SIZE);
	fill_pattern(secret.ptr, SECRET_SIZE, 1234);
	dma_ok(dev_fd, secret.va, hbm.addr, SECRET_SIZE, QUEUE_H2D);
	sob = first_sob(dev_fd, &mon);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(attack(secret.va, hbm.addr, sob, mon));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "attacker check %d failed", WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	/* The victim's host buffer and HBM are intact, and it keeps working. */
	{
		uint8_t expect[SECRET_SIZE];

		fill_pattern(expect, SECRET_SIZE, 1234);
		ck_assert_int_eq(first_difference(secret.ptr, expect, SECRET_SIZE), -1);
		host_buf_map_ok(dev_fd, &back, SECRET_SIZE);
		dma_ok(dev_fd, hbm.addr, back.va, SECRET_SIZE, QUEUE_D2H);
		ck_assert_int_eq(first_difference(back.ptr, expect, SECRET_SIZE), -1);
		host_buf_release(dev_fd, &back);
	}
	roundtrip_ok(dev_fd, &secret, &hbm, 99);
	ck_assert_int_eq(try_msg_short(dev_fd, 1, 4 * sob, GAUDISIM_SYNC_SOB_SET(0)), 0);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &secret);
}
END_TEST

/* Two contexts work at once, each with its own data. */
START_TEST(two_contexts_work_side_by_side)
{
	int other = open_compute_ok();
	struct host_buf ha, hb;
	struct hbm_buf ma, mb;

	host_buf_map_ok(dev_fd, &ha, SECRET_SIZE);
	host_buf_map_ok(other, &hb, SECRET_SIZE);
	/* Both address spaces hand out VAs from the same base. */
	ck_assert_uint_eq(ha.va, hb.va);
	hbm_alloc_ok(dev_fd, &ma, SECRET_SIZE);
	hbm_alloc_ok(other, &mb, SECRET_SIZE);
	ck_assert_uint_ne(ma.addr, mb.addr);
	roundtrip_ok(dev_fd, &ha, &ma, 11);
	roundtrip_ok(other, &hb, &mb, 22);
	hbm_free_ok(other, &mb);
	hbm_free_ok(dev_fd, &ma);
	host_buf_release(other, &hb);
	host_buf_release(dev_fd, &ha);
	ck_assert_int_eq(hlthunk_close(other), 0);
}
END_TEST

static int wait_for_signals(int fd, uint32_t queue, uint64_t *seqs, uint32_t n, uint64_t *seq)
{
	struct hlthunk_wait_for_signal_data data = {
		.signal_seq_arr = seqs, .signal_seq_nr = n, .queue_index = queue,
	};
	struct hlthunk_wait_in in = { .hlthunk_wait_for_signal = (uint64_t *)&data,
				      .num_wait_for_signal = 1 };
	struct hlthunk_wait_out out = { 0 };
	int rc = hlthunk_wait_for_signal(fd, &in, &out);

	*seq = out.seq;
	return rc;
}

/*
 * SIGNAL/WAIT in two contexts on the same queues: each waits on its own
 * signals; a seq of the other context is none of its signals.
 */
START_TEST(signal_wait_in_two_contexts)
{
	int other = open_compute_ok();
	struct hlthunk_signal_in sin = { .queue_index = QUEUE_H2D };
	struct hlthunk_signal_out sa, sb;
	uint64_t wa, wb;

	ck_assert_int_eq(hlthunk_signal_submission(dev_fd, &sin, &sa), 0);
	ck_assert_int_eq(hlthunk_signal_submission(dev_fd, &sin, &sa), 0);
	/* The other context has no CS sa.seq (it has submitted one CS at most). */
	ck_assert_int_eq(wait_for_signals(other, QUEUE_D2H, &sa.seq, 1, &wb), -EINVAL);
	ck_assert_int_eq(hlthunk_signal_submission(other, &sin, &sb), 0);
	ck_assert_uint_lt(sb.seq, sa.seq);
	ck_assert_int_eq(wait_for_signals(dev_fd, QUEUE_D2H, &sa.seq, 1, &wa), 0);
	ck_assert_int_eq(wait_for_signals(other, QUEUE_D2H, &sb.seq, 1, &wb), 0);
	if (wa != ULLONG_MAX)
		wait_completed_ok(dev_fd, wa, WAIT_US_SHORT);
	if (wb != ULLONG_MAX)
		wait_completed_ok(other, wb, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, sa.seq, WAIT_US_SHORT);
	wait_completed_ok(other, sb.seq, WAIT_US_SHORT);
	ck_assert_int_eq(hlthunk_close(other), 0);
}
END_TEST

/* RESERVE_SIGNALS_ONLY: count signals of queue's sync object. */
static int reserve_signals(int fd, uint32_t queue, uint32_t count, struct gaudisim_cs_out *out)
{
	union gaudisim_cs_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.encaps_signals_q_idx = queue;
	a.in.encaps_signals_count = count;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = GAUDISIM_CS_FLAGS_RESERVE_SIGNALS_ONLY;
	rc = hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CS, &a);
	if (!rc)
		*out = a.out;
	return rc;
}

static void write_sob_max(const char *value)
{
	FILE *f = fopen(PARAM_DIR "signal_sob_max", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(value, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * Reserved signals end with the context that reserved them, while others
 * keep the device (whose sync manager a shared context's close leaves
 * alone). With signal_sob_max 4, the other context's reservation of 4
 * holds its SOB: after 4 signals on the queue's other SOB, the move back
 * is refused (EBUSY) until the reserving context closes.
 */
START_TEST(reserved_signals_end_with_their_context)
{
	int other = open_compute_ok();
	struct hlthunk_signal_in sin = { .queue_index = QUEUE_H2D };
	struct hlthunk_signal_out sout;
	struct gaudisim_cs_out res;
	int i;

	write_sob_max("4");
	ck_assert_int_eq(reserve_signals(other, QUEUE_H2D, 4, &res), 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(hlthunk_signal_submission(dev_fd, &sin, &sout), 0);
		ck_assert_uint_ne(sout.sob_base_addr_offset, res.sob_base_addr_offset);
	}
	wait_completed_ok(dev_fd, sout.seq, WAIT_US_SHORT);
	ck_assert_int_eq(hlthunk_signal_submission(dev_fd, &sin, &sout), -EBUSY);
	ck_assert_int_eq(hlthunk_close(other), 0);
	ck_assert_int_eq(hlthunk_signal_submission(dev_fd, &sin, &sout), 0);
	ck_assert_uint_eq(sout.sob_base_addr_offset, res.sob_base_addr_offset);
	ck_assert_uint_eq(sout.sob_count_before_submission, 0);
	wait_completed_ok(dev_fd, sout.seq, WAIT_US_SHORT);
	write_sob_max("32767");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("contexts");
	TCase *open_tc = compute_tcase("open", TCASE_TIMEOUT_SHORT);
	TCase *mem = compute_tcase("memory", TCASE_TIMEOUT_DMA);
	TCase *iso = compute_tcase("isolation", TCASE_TIMEOUT_DMA);
	/* Its tests open the device themselves, as two unprivileged users. */
	TCase *users = fixture_tcase("users", NULL, NULL, TCASE_TIMEOUT_DMA);
	bool reloaded = false;
	int rc;

	if (read_param("max_contexts") != MAX_CONTEXTS ||
	    read_param("ctx_hbm_quota_mb") != QUOTA_MB) {
		if (reload(RELOAD_SHARED)) {
			printf("contexts: could not load the driver with max_contexts=%d\n",
			       MAX_CONTEXTS);
			printf("0 passed, 1 failed\n");
			return EXIT_FAILURE;
		}
		reloaded = true;
	}

	tcase_add_test(open_tc, four_share_fifth_is_ebusy);
	tcase_add_test(open_tc, sync_manager_slices_differ);
	tcase_add_test(open_tc, nic_register_own_only);
	suite_add_tcase(s, open_tc);
	tcase_add_test(mem, hbm_quota_per_context);
	tcase_add_test(mem, freed_hbm_reaches_the_next_context_zeroed);
	tcase_add_test(mem, free_while_jobs_run_is_ebusy);
	suite_add_tcase(s, mem);
	tcase_add_test(users, free_racing_a_cs_being_built);
	tcase_add_test(users, cs_timeout_reported_to_its_context_only);
	tcase_add_test(users, user_interrupts_per_context);
	suite_add_tcase(s, users);
	tcase_add_test(iso, another_process_cannot_reach_my_memory);
	tcase_add_test(iso, two_contexts_work_side_by_side);
	tcase_add_test(iso, signal_wait_in_two_contexts);
	tcase_add_test(iso, reserved_signals_end_with_their_context);
	suite_add_tcase(s, iso);
	rc = run_suite(s);

	if (reloaded && reload(RELOAD_DEFAULT)) {
		printf("contexts: could not reload the driver with its defaults\n");
		return EXIT_FAILURE;
	}
	return rc;
}
