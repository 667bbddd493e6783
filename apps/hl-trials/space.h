/* SPDX-License-Identifier: MIT */
/*
 * The search space: a grid over hl-train's learning rate, batch size and
 * seed, from flags (--lr 0.1,0.03) or a file of "key: v1, v2" lines
 * ("#" starts a comment). Every combination is one trial.
 */
#ifndef HL_TRIALS_SPACE_H
#define HL_TRIALS_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPACE_MAX_VALUES	64
#define SPACE_MAX_TRIALS	256
#define SPACE_ERR_LEN		160

enum space_key { SPACE_LR, SPACE_BATCH, SPACE_SEED, SPACE_KEYS };

struct space {
	double values[SPACE_KEYS][SPACE_MAX_VALUES];
	uint32_t n[SPACE_KEYS];	/* 0: hl-train's default (the model's) */
	char err[SPACE_ERR_LEN];
};

/* A trial's configuration; has[key] false leaves that flag out. */
struct trial_config {
	double value[SPACE_KEYS];
	bool has[SPACE_KEYS];
};

void space_init(struct space *s);
/* Key name ("lr", "batch", "seed") or -1. */
int space_key(const char *name);
const char *space_key_name(enum space_key key);
/* Set key's values from "v1,v2,..." (replacing earlier ones); 0 or -1 with s->err. */
int space_set(struct space *s, enum space_key key, const char *list);
/* Read a search-space file; 0 or -1 with s->err naming the line. */
int space_load(struct space *s, const char *path);
/* The trials of the grid, in order (lr slowest... seed fastest); count or -1. */
int space_expand(const struct space *s, struct trial_config *out, size_t max);

#endif /* HL_TRIALS_SPACE_H */
