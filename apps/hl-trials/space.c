// SPDX-License-Identifier: MIT
/* The search space (space.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "space.h"

static const char *const key_names[SPACE_KEYS] = { "lr", "batch", "seed" };

void space_init(struct space *s)
{
	memset(s, 0, sizeof(*s));
}

int space_key(const char *name)
{
	int k;

	for (k = 0; k < SPACE_KEYS; k++)
		if (!strcmp(name, key_names[k]))
			return k;
	return -1;
}

const char *space_key_name(enum space_key key)
{
	return key_names[key];
}

/* One value of key: lr in (0, 10] like hl-train, batch and seed integers. */
static int parse_value(struct space *s, enum space_key key, const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || end == text || *end || !isfinite(v))
		goto bad;
	if (key == SPACE_LR && (v <= 0 || v > 10))
		goto bad;
	if (key == SPACE_BATCH && (v < 1 || v > 65536 || v != floor(v)))
		goto bad;
	if (key == SPACE_SEED && (v < 0 || v > 4294967295.0 || v != floor(v)))
		goto bad;
	*out = v;
	return 0;
bad:
	snprintf(s->err, sizeof(s->err), "%s: '%.60s' is not a valid value (%s)", key_names[key],
		 text, key == SPACE_LR ? "a number in (0, 10]" :
		 key == SPACE_BATCH ? "an integer in 1..65536" : "an integer in 0..2^32-1");
	return -1;
}

int space_set(struct space *s, enum space_key key, const char *list)
{
	char buf[1024], *tok, *next;
	uint32_t n = 0;

	if (strlen(list) >= sizeof(buf)) {
		snprintf(s->err, sizeof(s->err), "%s: the list is too long", key_names[key]);
		return -1;
	}
	strcpy(buf, list);
	/* Every comma separates two values: "0.1,,0.2" has an empty one. */
	for (tok = buf; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		while (isspace((unsigned char)*tok))
			tok++;
		if (n == SPACE_MAX_VALUES) {
			snprintf(s->err, sizeof(s->err), "%s: more than %d values", key_names[key],
				 SPACE_MAX_VALUES);
			return -1;
		}
		if (parse_value(s, key, tok, &s->values[key][n]))
			return -1;
		n++;
	}
	if (!n) {
		snprintf(s->err, sizeof(s->err), "%s: no values", key_names[key]);
		return -1;
	}
	s->n[key] = n;
	return 0;
}

int space_load(struct space *s, const char *path)
{
	char line[1200], *colon, *name, *end;
	FILE *f = fopen(path, "r");
	int lineno = 0, k;

	if (!f) {
		snprintf(s->err, sizeof(s->err), "%.100s: %.50s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		for (name = line; isspace((unsigned char)*name); name++)
			;
		if (!*name)
			continue;
		colon = strchr(name, ':');
		if (!colon)
			goto bad_line;
		*colon = '\0';
		for (end = colon; end > name && isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		k = space_key(name);
		if (k < 0) {
			snprintf(s->err, sizeof(s->err),
				 "%.60s:%d: unknown key '%.32s' (lr, batch or seed)", path, lineno,
				 name);
			goto fail;
		}
		if (space_set(s, (enum space_key)k, colon + 1)) {
			char why[SPACE_ERR_LEN];

			snprintf(why, sizeof(why), "%s", s->err);
			snprintf(s->err, sizeof(s->err), "%.40s:%d: %.100s", path, lineno, why);
			goto fail;
		}
	}
	fclose(f);
	return 0;
bad_line:
	snprintf(s->err, sizeof(s->err), "%.100s:%d: expected 'key: value, value, ...'",
		 path, lineno);
fail:
	fclose(f);
	return -1;
}

int space_expand(const struct space *s, struct trial_config *out, size_t max)
{
	uint32_t idx[SPACE_KEYS] = { 0 };
	size_t total = 1, t;
	int k;

	for (k = 0; k < SPACE_KEYS; k++)
		total *= s->n[k] ? s->n[k] : 1;
	if (total > max)
		return -1;
	for (t = 0; t < total; t++) {
		for (k = 0; k < SPACE_KEYS; k++) {
			out[t].has[k] = s->n[k] > 0;
			out[t].value[k] = s->n[k] ? s->values[k][idx[k]] : 0;
		}
		/* Odometer: the last key turns fastest. */
		for (k = SPACE_KEYS - 1; k >= 0; k--) {
			if (s->n[k] && ++idx[k] < s->n[k])
				break;
			idx[k] = 0;
		}
	}
	return (int)total;
}
