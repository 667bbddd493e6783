/*
 * Data-parallel hl-train: `--devices N` launches N ranks, one process per
 * device; a process given HLRT_RANK, HLRT_NRANKS and HLRT_COMM_ID is one
 * of the ranks (whoever launched it). Without either, one device.
 */
#ifndef DP_LAUNCH_H
#define DP_LAUNCH_H

#include "backend.h"
#include "train_loop.h"

/* Ranks of one job: the modules of a box. */
#define DP_MAX_RANKS 8

/* Run the training OPT asks for (ARGV: to start the ranks); the exit status. */
int dp_main(char **argv, struct train_options *opt, const struct backend_ops *ops);

#endif
