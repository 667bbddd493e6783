// SPDX-License-Identifier: MIT
/*
 * Cross-stream waits on the device: a stream waiting for another's event
 * gets a CS that fences on a monitor of the event's sync object, with no
 * host wait in between; the work after it sees the other stream's
 * results; a count the event never reaches leaves the queue on its fence
 * (the in-process device reports the hang), which shows the wait is the
 * sync manager's and not the host's. Built with RT_ON_DRIVER (the guest's
 * gsim-test-hlrt) the ordering test runs through the driver, where the
 * two streams' queues really run concurrently.
 */
#include <string.h>

#include "exec/exec.h"
#include "rt_test.h"
#ifndef RT_ON_DRIVER
#include "sim_backend.h"
#endif

#define N 4096

START_TEST(wait_event_orders_streams_on_the_device)
{
	hlrt_stream *a, *b;
	hlrt_event *e;
	uint64_t x = rt_upload(NULL, N), y = rt_upload(NULL, N);
	int64_t subs;
	uint8_t back[N], want[N];
	uint32_t round;

	HLRT_OK(hlrt_stream_create(rt_dev, &a));
	HLRT_OK(hlrt_stream_create(rt_dev, &b));
	HLRT_OK(hlrt_event_create(rt_dev, &e));
	for (round = 0; round < 3; round++) {	/* re-recorded: the count goes on */
		HLRT_OK(hlrt_memset_async(a, x, (uint8_t)(0x11 + round), N));
		HLRT_OK(hlrt_event_record(e, a));
		ck_assert_uint_eq(e->records, round + 1);
#ifndef RT_ON_DRIVER
		uint64_t waits = sim_get_stats()->host_waits;
#endif

		subs = rt_submissions();
		HLRT_OK(hlrt_stream_wait_event(b, e));
		ck_assert_uint_eq(b->n_waits, 1);
		HLRT_OK(hlrt_memcpy_d2d_async(b, y, x, N));
		if (subs >= 0)	/* the wait's CS, then the copy */
			ck_assert_int_eq(rt_submissions(), subs + 2);
#ifndef RT_ON_DRIVER
		ck_assert_uint_eq(sim_get_stats()->host_waits, waits);	/* no host wait */
#endif
		ck_assert_uint_eq(b->n_waits, 0);
		HLRT_OK(hlrt_stream_synchronize(b));
		rt_download(back, y, N);
		memset(want, 0x11 + round, N);
		ck_assert(!memcmp(back, want, N));
	}
	/* waiting for an event of the same stream, or one never recorded: nothing */
	HLRT_OK(hlrt_stream_wait_event(a, e));
	ck_assert_uint_eq(a->n_waits, 0);
	ck_assert_int_eq(hlrt_stream_wait_event(NULL, e), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_stream_wait_event(b, NULL), HLRT_INVALID_ARGUMENT);
	HLRT_OK(hlrt_event_destroy(e));
	HLRT_OK(hlrt_stream_destroy(a));
	HLRT_OK(hlrt_stream_destroy(b));
}
END_TEST

#ifndef RT_ON_DRIVER
START_TEST(wait_for_an_unreached_count_holds_the_queue)
{
	hlrt_stream *a, *b;
	hlrt_event *e;
	uint64_t x = rt_upload(NULL, N), y = rt_upload(NULL, N);
	uint32_t hangs = sim_get_stats()->hangs;

	HLRT_OK(hlrt_stream_create(rt_dev, &a));
	HLRT_OK(hlrt_stream_create(rt_dev, &b));
	HLRT_OK(hlrt_event_create(rt_dev, &e));
	HLRT_OK(hlrt_event_record(e, a));
	e->records++;		/* a record the device never saw */
	e->done = false;
	HLRT_OK(hlrt_stream_wait_event(b, e));
	HLRT_OK(hlrt_memcpy_d2d_async(b, y, x, N));
	ck_assert_uint_eq(sim_get_stats()->hangs, hangs + 1);	/* the wait CS's fence */
}
END_TEST
#endif

Suite *stream_wait_suite(void)
{
	Suite *s = suite_create("stream_wait");
	TCase *tc = tcase_create("stream_wait");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, wait_event_orders_streams_on_the_device);
#ifndef RT_ON_DRIVER
	tcase_add_test(tc, wait_for_an_unreached_count_holds_the_queue);
#endif
	suite_add_tcase(s, tc);
	return s;
}
