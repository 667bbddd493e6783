/* The command line of hl-train and hl-train-ref, validated flag by flag. */
#ifndef CLI_H
#define CLI_H

#include "train_loop.h"

/*
 * Parse argv into opt. DEVICE says whether the device-only flags
 * (--bf16, --eager, --profile, --devices) are accepted. Returns 0 to run, 1 after
 * printing an error (exit status 2), 2 after printing the help (exit 0).
 */
int cli_parse(int argc, char **argv, int device, struct train_options *opt);
/* A trainer's main: parse, then train on OPS; returns the exit status. */
int cli_main(int argc, char **argv, int device, const struct backend_ops *ops);

#endif
