/* SPDX-License-Identifier: MIT */
/*
 * The profiler: host events and device timestamps into a trace.
 */
#ifndef HLRT_PROFILER_H
#define HLRT_PROFILER_H

#include "hlrt_common.h"

/* ---- profiler (profiler.c) ----------------------------------------------- */

struct hlrt_profiler;
/* A host API call, on the host's clock (hlrt_now_ns()). */
void hlrt_profiler_host_event(hlrt_device *dev, const char *name, uint64_t t0_ns,
			      uint64_t t1_ns);
/*
 * The device lanes of the trace: DMA 0 for the external copies, DMA 2,
 * MME, TPC 0..7, the span of each launch's engine work, the ops that ran
 * on the CPU, and the collectives (NIC transfers and their reductions).
 */
enum hlrt_prof_lane {
	HLRT_LANE_DMA0, HLRT_LANE_DMA2, HLRT_LANE_MME, HLRT_LANE_TPC0,
	HLRT_LANE_LAUNCH = HLRT_LANE_TPC0 + 8, HLRT_LANE_CPU, HLRT_LANE_COLL,
};
/* An op run on the CPU (a fallback), on the host's clock. */
void hlrt_profiler_cpu_event(hlrt_device *dev, const char *name, uint64_t t0_ns,
			     uint64_t t1_ns);
/* A collective, from its start on the device to its end, on the host's clock. */
void hlrt_profiler_coll_event(hlrt_device *dev, const char *name, uint64_t t0_ns,
			      uint64_t t1_ns);
/* The lane of a timestamp queue slot (0 MME, 1..8 TPC, else DMA 2). */
uint32_t hlrt_profiler_slot_lane(uint32_t slot);
/* A device-clock event, if a profile runs (t0 == 0 or t1 < t0: none). */
void hlrt_profiler_device_event(hlrt_device *dev, const char *name, uint32_t lane,
				enum hlrt_engine engine, uint64_t t0, uint64_t t1);

#endif /* HLRT_PROFILER_H */
