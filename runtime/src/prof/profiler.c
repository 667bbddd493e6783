// SPDX-License-Identifier: MIT
/*
 * The profiler: Chrome Trace Event JSON (opens in Perfetto or
 * chrome://tracing). Recipes loaded while a profile runs write the
 * device clock before and after every work on every engine queue, and
 * around the launch's host -> device copies; each launch copies those
 * timestamps back with its results, and they become "X" events on one
 * lane per engine (DMA 0 for the external copies, DMA 2, MME, TPC 0..7)
 * of the "device" process, plus a lane with each launch's span of engine
 * work, one with the ops that ran on the CPU and one with the collectives
 * (each call from its start to its end; a profile runs them one at a
 * time, so the span is the NIC transfers' and the reductions' own). Each
 * rank of a job writes its own profile. The host API calls are a
 * lane of the "host" process. Everything is on one clock, the host's:
 * the device clock is read (with the host's around it) when the profile
 * starts and when it stops, and device timestamps are mapped linearly
 * between the two readings. HLRT_PROFILE=FILE starts a profile when the
 * device is acquired; it is written at hlrt_profiler_stop() or
 * hlrt_device_release().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/profiler.h"
#include "device/device.h"

#define MAX_EVENTS	(1u << 20)	/* bounds the memory of a long run */

#define LANE_COUNT	(HLRT_LANE_COLL + 1)	/* the host API's lane */

struct prof_event {
	uint32_t name;		/* index into the name table */
	uint16_t lane;		/* enum hlrt_prof_lane, or LANE_COUNT for the host API */
	uint8_t cat;		/* enum hlrt_engine */
	bool device_clock;	/* ts on the device's clock, else the host's */
	uint64_t ts, dur;	/* ns */
};

/* A reading of the device clock and the host's around it. */
struct clock_pair {
	bool valid;
	uint64_t dev, host;
};

struct hlrt_profiler {
	char *path;
	struct prof_event *ev;
	uint32_t n_ev, cap_ev;
	uint64_t dropped;
	char **names;
	uint32_t n_names, cap_names;
	uint64_t host_t0;
	uint32_t module_id;
	struct clock_pair start, stop;
};

static uint32_t name_id(struct hlrt_profiler *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->n_names; i++)
		if (!strcmp(p->names[i], name))
			return i;
	if (p->n_names == p->cap_names) {
		uint32_t cap = p->cap_names ? 2 * p->cap_names : 64;
		char **n = realloc(p->names, sizeof(*n) * cap);

		if (!n)
			return 0;
		p->names = n;
		p->cap_names = cap;
	}
	p->names[p->n_names] = strdup(name);
	return p->names[p->n_names] ? p->n_names++ : 0;
}

static void add_event(struct hlrt_profiler *p, const char *name, uint32_t lane, uint32_t cat,
		      bool device_clock, uint64_t t0, uint64_t t1)
{
	struct prof_event *e;

	if (t1 < t0 || !t0)
		return;
	if (p->n_ev == MAX_EVENTS) {
		p->dropped++;
		return;
	}
	if (p->n_ev == p->cap_ev) {
		uint32_t cap = p->cap_ev ? 2 * p->cap_ev : 4096;
		struct prof_event *n = realloc(p->ev, sizeof(*n) * cap);

		if (!n) {
			p->dropped++;
			return;
		}
		p->ev = n;
		p->cap_ev = cap;
	}
	e = &p->ev[p->n_ev++];
	e->name = name_id(p, name);
	e->lane = (uint16_t)lane;
	e->cat = (uint8_t)cat;
	e->device_clock = device_clock;
	e->ts = t0;
	e->dur = t1 - t0;
}

static void read_clocks(hlrt_device *dev, struct clock_pair *c)
{
	uint64_t before, after;

	c->valid = false;
	if (!dev->be || !dev->be->ops->device_time)
		return;
	before = hlrt_now_ns();
	if (dev->be->ops->device_time(dev->be, &c->dev))
		return;
	after = hlrt_now_ns();
	/* The device read happened somewhere in between: take the middle. */
	c->host = before + (after - before) / 2;
	c->valid = true;
}

/* A device timestamp on the host's clock. */
static uint64_t to_host(const struct hlrt_profiler *p, uint64_t t)
{
	double rate = 1.0;

	if (!p->start.valid)
		return t;
	if (p->stop.valid && p->stop.dev > p->start.dev)
		rate = (double)(p->stop.host - p->start.host) / (double)(p->stop.dev - p->start.dev);
	return (uint64_t)((double)p->start.host + ((double)t - (double)p->start.dev) * rate);
}

hlrt_status hlrt_profiler_start(hlrt_device *device, const char *path)
{
	struct hlrt_profiler *p;
	FILE *f;

	if (!device || !path || !*path)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_profiler_start: bad argument");
	if (device->prof)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "a profile is already running");
	f = fopen(path, "w");	/* fail now, not at the end of a long run */
	if (!f)
		return hlrt_fail(HLRT_IO_ERROR, "cannot write the profile %s", path);
	fclose(f);
	p = calloc(1, sizeof(*p));
	if (!p || !(p->path = strdup(path))) {
		free(p);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "profiler");
	}
	p->host_t0 = hlrt_now_ns();
	p->module_id = device->module_id;
	read_clocks(device, &p->start);
	device->prof = p;
	return HLRT_SUCCESS;
}

void hlrt_profiler_host_event(hlrt_device *dev, const char *name, uint64_t t0_ns,
			      uint64_t t1_ns)
{
	if (dev && dev->prof)
		add_event(dev->prof, name, LANE_COUNT, ENG_CPU, false, t0_ns, t1_ns);
}

void hlrt_profiler_cpu_event(hlrt_device *dev, const char *name, uint64_t t0_ns,
			     uint64_t t1_ns)
{
	if (dev && dev->prof)
		add_event(dev->prof, name, HLRT_LANE_CPU, ENG_CPU, false, t0_ns, t1_ns);
}

void hlrt_profiler_coll_event(hlrt_device *dev, const char *name, uint64_t t0_ns,
			      uint64_t t1_ns)
{
	if (dev && dev->prof)
		add_event(dev->prof, name, HLRT_LANE_COLL, ENG_NONE, false, t0_ns, t1_ns);
}

uint32_t hlrt_profiler_slot_lane(uint32_t slot)
{
	if (slot == 0)
		return HLRT_LANE_MME;
	if (slot <= 8)
		return HLRT_LANE_TPC0 + slot - 1;
	return HLRT_LANE_DMA2;
}

void hlrt_profiler_device_event(hlrt_device *dev, const char *name, uint32_t lane,
				enum hlrt_engine engine, uint64_t t0, uint64_t t1)
{
	if (dev && dev->prof)
		add_event(dev->prof, name, lane, engine, true, t0, t1);
}

static const char *lane_name(uint32_t lane, char *buf, size_t len)
{
	if (lane == HLRT_LANE_DMA0)
		return "DMA 0 (PCI)";
	if (lane == HLRT_LANE_DMA2)
		return "DMA 2";
	if (lane == HLRT_LANE_MME)
		return "MME";
	if (lane == HLRT_LANE_LAUNCH)
		return "launch (engines)";
	if (lane == HLRT_LANE_CPU)
		return "CPU ops";
	if (lane == HLRT_LANE_COLL)
		return "Collectives";
	snprintf(buf, len, "TPC %u", lane - HLRT_LANE_TPC0);
	return buf;
}

/* JSON string contents: node names are the user's. */
static void put_json_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
}

/* An event's start on the host's clock, ns. */
static uint64_t event_start(const struct hlrt_profiler *p, const struct prof_event *e)
{
	return e->device_clock ? to_host(p, e->ts) : e->ts;
}

static hlrt_status write_trace(const struct hlrt_profiler *p)
{
	uint64_t t0 = p->host_t0;
	bool used[LANE_COUNT] = { false };
	char buf[16];
	uint32_t i;
	FILE *f = fopen(p->path, "w");

	if (!f)
		return hlrt_fail(HLRT_IO_ERROR, "cannot write the profile %s", p->path);
	/* Time 0 is the profile's start (or an earlier event, if mapping put one there). */
	for (i = 0; i < p->n_ev; i++) {
		if (event_start(p, &p->ev[i]) < t0)
			t0 = event_start(p, &p->ev[i]);
		if (p->ev[i].lane < LANE_COUNT)
			used[p->ev[i].lane] = true;
	}
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"dropped_events\":%llu,"
		"\"clock\":\"%s\"},\n\"traceEvents\":[\n", (unsigned long long)p->dropped,
		p->start.valid ? "host CLOCK_MONOTONIC; device timestamps mapped onto it" :
				 "host CLOCK_MONOTONIC; device lanes on the device clock");
	/* Named after the module, so the profiles of a job's ranks tell apart. */
	fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
		"\"args\":{\"name\":\"host (module %u)\"}},\n", p->module_id);
	fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
		"\"args\":{\"name\":\"host API\"}},\n");
	fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
		"\"args\":{\"name\":\"device (module %u)\"}}", p->module_id);
	/* Only the lanes that have events: an empty lane would say nothing ran there. */
	for (i = 0; i < LANE_COUNT; i++)
		if (used[i])
			fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
				"\"args\":{\"name\":\"%s\"}}", i, lane_name(i, buf, sizeof(buf)));
	for (i = 0; i < p->n_ev; i++) {
		const struct prof_event *e = &p->ev[i];
		bool host = e->lane == LANE_COUNT;
		uint64_t t = event_start(p, e) - t0;

		fprintf(f, ",\n{\"name\":\"");
		put_json_str(f, p->names[e->name]);
		fprintf(f, "\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,"
			"\"ts\":%.3f,\"dur\":%.3f}",
			host ? "host" : e->lane == HLRT_LANE_LAUNCH ? "launch" :
			e->lane == HLRT_LANE_COLL ? "collective" :
			hlrt_engine_name((enum hlrt_engine)e->cat), host ? 0 : 1,
			host ? 0 : e->lane, t / 1000.0, e->dur / 1000.0);
	}
	fprintf(f, "\n]}\n");
	if (fclose(f))
		return hlrt_fail(HLRT_IO_ERROR, "writing the profile %s failed", p->path);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_profiler_stop(hlrt_device *device)
{
	struct hlrt_profiler *p;
	hlrt_status st;
	uint32_t i;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_profiler_stop: NULL device");
	p = device->prof;
	if (!p)
		return HLRT_SUCCESS;
	hlrt_device_synchronize(device);	/* harvest what is in flight */
	read_clocks(device, &p->stop);
	st = write_trace(p);
	device->prof = NULL;
	for (i = 0; i < p->n_names; i++)
		free(p->names[i]);
	free(p->names);
	free(p->ev);
	free(p->path);
	free(p);
	return st;
}
