// SPDX-License-Identifier: MIT
/*
 * Reading a profile (prof_lanes.c, what hl-prof-summary prints): a lane's
 * busy time is the union of its events' intervals, computed here from the
 * events themselves; lane names come from the metadata; ops add up; a
 * lane prefix finds the busiest matching lane.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "prof_lanes.h"
#include "suites.h"

static json_t *x_event(const char *name, const char *cat, int tid, double ts, double dur)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:f}", "name", name, "cat", cat,
			 "ph", "X", "pid", 1, "tid", tid, "ts", ts, "dur", dur);
}

static json_t *lane_name(int tid, const char *name)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M",
			 "pid", 1, "tid", tid, "args", "name", name);
}

/* The union of intervals, the slow way: 1 us cells of [0, 100). */
static double union_by_cells(const double (*iv)[2], unsigned n)
{
	double busy = 0;

	for (int c = 0; c < 100; c++) {
		for (unsigned i = 0; i < n; i++) {
			if (iv[i][0] <= c && c + 1 <= iv[i][1]) {
				busy += 1;
				break;
			}
		}
	}
	return busy;
}

START_TEST(lane_busy_is_the_union_of_its_events)
{
	/* Overlapping, nested, touching and apart, out of order. */
	static const double mme[][2] = { { 40, 50 }, { 0, 10 }, { 5, 15 }, { 6, 8 },
					 { 15, 20 }, { 60, 61 } };
	static const double tpc[][2] = { { 1, 2 }, { 3, 4 } };
	struct prof *p = calloc(1, sizeof(*p));
	json_t *ev = json_array();
	const struct prof_lane *l;
	unsigned i;

	ck_assert_ptr_nonnull(p);
	json_array_append_new(ev, lane_name(2, "MME"));
	json_array_append_new(ev, lane_name(3, "TPC 0"));
	json_array_append_new(ev, lane_name(11, "launch (engines)"));
	for (i = 0; i < sizeof(mme) / sizeof(mme[0]); i++)
		json_array_append_new(ev, x_event("g/matmul", "MME", 2, mme[i][0],
						  mme[i][1] - mme[i][0]));
	for (i = 0; i < sizeof(tpc) / sizeof(tpc[0]); i++)
		json_array_append_new(ev, x_event("g/relu", "TPC", 3, tpc[i][0],
						  tpc[i][1] - tpc[i][0]));
	json_array_append_new(ev, x_event("launch (engines)", "launch", 11, 0, 61));
	ck_assert_int_eq(prof_read(p, ev), 0);

	l = prof_find_lane(p, "MME");
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(l->events, 6);
	/* [0, 20) + [40, 50) + [60, 61) = 31 us, counted cell by cell */
	ck_assert_double_eq_tol(l->busy_us, union_by_cells(mme, 6), 1e-9);
	ck_assert_double_eq_tol(l->busy_us, 31, 1e-9);
	ck_assert_double_eq_tol(l->first_us, 0, 1e-9);
	ck_assert_double_eq_tol(l->last_us, 61, 1e-9);
	l = prof_find_lane(p, "TPC");
	ck_assert_ptr_nonnull(l);
	ck_assert_double_eq_tol(l->busy_us, union_by_cells(tpc, 2), 1e-9);
	l = prof_find_lane(p, "launch");
	ck_assert_ptr_nonnull(l);
	ck_assert_double_eq_tol(l->busy_us, 61, 1e-9);
	ck_assert_ptr_null(prof_find_lane(p, "DMA"));
	ck_assert_uint_eq(p->events, 9);
	/* Ops sum their durations (38 us of MME events), the largest first. */
	ck_assert_str_eq(p->op[0].name, "launch launch (engines)");
	ck_assert_str_eq(p->op[1].name, "MME matmul");
	ck_assert_double_eq_tol(p->op[1].busy_us, 38, 1e-9);
	ck_assert_uint_eq(p->op[1].events, 6);
	prof_free(p);
	free(p);
	json_decref(ev);
}
END_TEST

/* The profiler's Collectives lane (one per rank's profile) reads like any other. */
START_TEST(collectives_lane_busy_time)
{
	static const double coll[][2] = { { 10, 30 }, { 31, 32 }, { 40, 70 } };
	struct prof *p = calloc(1, sizeof(*p));
	json_t *ev = json_array();
	const struct prof_lane *l;
	unsigned i;

	ck_assert_ptr_nonnull(p);
	json_array_append_new(ev, lane_name(13, "Collectives"));
	json_array_append_new(ev, lane_name(2, "MME"));
	json_array_append_new(ev, x_event("g/matmul", "MME", 2, 0, 12));
	for (i = 0; i < 3; i++)
		json_array_append_new(ev, x_event(i == 1 ? "barrier (0 bytes)" :
						  "all_reduce (4096 bytes)", "collective", 13,
						  coll[i][0], coll[i][1] - coll[i][0]));
	ck_assert_int_eq(prof_read(p, ev), 0);
	l = prof_find_lane(p, "Collectives");
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(l->events, 3);
	ck_assert_double_eq_tol(l->busy_us, union_by_cells(coll, 3), 1e-9);
	ck_assert_double_eq_tol(l->busy_us, 51, 1e-9);
	ck_assert_str_eq(p->op[0].name, "collective all_reduce (4096 bytes)");
	ck_assert_double_eq_tol(p->op[0].busy_us, 50, 1e-9);
	prof_free(p);
	free(p);
	json_decref(ev);
}
END_TEST

Suite *prof_suite(void)
{
	Suite *s = suite_create("prof");
	TCase *tc = tcase_create("lanes");

	tcase_add_test(tc, lane_busy_is_the_union_of_its_events);
	tcase_add_test(tc, collectives_lane_busy_time);
	suite_add_tcase(s, tc);
	return s;
}
