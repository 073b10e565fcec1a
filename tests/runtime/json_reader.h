/* SPDX-License-Identifier: MIT */
/*
 * A minimal JSON reader for the tests that parse the runtime's trace files
 * (test_trace, test_prof): no library needed. Failures fail the cmocka test.
 */
#ifndef NPU_TESTS_RUNTIME_JSON_READER_H
#define NPU_TESTS_RUNTIME_JSON_READER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype t;
	double num;
	int b;
	char *str;
	struct jval *items; /* J_ARR, J_OBJ: n values */
	char **keys;	    /* J_OBJ: n keys */
	size_t n;
};

struct jparser {
	const char *p;
	const char *end;
	int bad;
};

static inline void jskip(struct jparser *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

static inline int jeat(struct jparser *j, char c)
{
	jskip(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return 1;
	}
	return 0;
}

static inline char *jstring(struct jparser *j)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);

	if (!jeat(j, '"')) {
		j->bad = 1;
		return s;
	}
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;

		if ((unsigned char)c < 0x20) {
			j->bad = 1;
			break;
		}
		if (c == '\\') {
			if (j->p >= j->end) {
				j->bad = 1;
				break;
			}
			c = *j->p++;
			if (c == 'u') {
				/* Only control characters are escaped this way here. */
				if (j->end - j->p < 4) {
					j->bad = 1;
					break;
				}
				c = (char)strtol((char[]){ j->p[0], j->p[1], j->p[2], j->p[3], 0 },
						 NULL, 16);
				j->p += 4;
			} else if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			} else if (c != '"' && c != '\\' && c != '/') {
				j->bad = 1;
				break;
			}
		}
		if (len + 2 > cap)
			s = realloc(s, cap *= 2);
		s[len++] = c;
	}
	if (!jeat(j, '"'))
		j->bad = 1;
	s[len] = 0;
	return s;
}

static inline void jvalue(struct jparser *j, struct jval *v)
{
	memset(v, 0, sizeof(*v));
	jskip(j);
	if (j->p >= j->end) {
		j->bad = 1;
		return;
	}
	if (*j->p == '{' || *j->p == '[') {
		const int obj = *j->p == '{';
		const char close = obj ? '}' : ']';
		size_t cap = 0;

		j->p++;
		v->t = obj ? J_OBJ : J_ARR;
		if (jeat(j, close))
			return;
		do {
			if (v->n == cap) {
				cap = cap ? cap * 2 : 8;
				v->items = realloc(v->items, cap * sizeof(*v->items));
				if (obj)
					v->keys = realloc(v->keys, cap * sizeof(*v->keys));
			}
			if (obj) {
				v->keys[v->n] = jstring(j);
				if (!jeat(j, ':'))
					j->bad = 1;
			}
			jvalue(j, &v->items[v->n++]);
		} while (!j->bad && jeat(j, ','));
		if (!jeat(j, close))
			j->bad = 1;
	} else if (*j->p == '"') {
		v->t = J_STR;
		v->str = jstring(j);
	} else if (j->end - j->p >= 4 && strncmp(j->p, "null", 4) == 0) {
		v->t = J_NULL;
		j->p += 4;
	} else if (j->end - j->p >= 4 && strncmp(j->p, "true", 4) == 0) {
		v->t = J_BOOL;
		v->b = 1;
		j->p += 4;
	} else if (j->end - j->p >= 5 && strncmp(j->p, "false", 5) == 0) {
		v->t = J_BOOL;
		j->p += 5;
	} else {
		char *e = NULL;

		v->t = J_NUM;
		v->num = strtod(j->p, &e);
		if (e == j->p)
			j->bad = 1;
		j->p = e;
	}
}

static inline void jfree(struct jval *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

static inline const struct jval *jget(const struct jval *o, const char *key)
{
	if (o == NULL || o->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return &o->items[i];
	return NULL;
}

static inline const char *jstr(const struct jval *o, const char *key)
{
	const struct jval *v = jget(o, key);

	return v != NULL && v->t == J_STR ? v->str : NULL;
}

/* The number at key; fails the test when there is none. */
static inline double jnum(const struct jval *o, const char *key)
{
	const struct jval *v = jget(o, key);

	if (v == NULL || v->t != J_NUM)
		fail_msg("no number \"%s\" in a trace event", key);
	return v->num;
}

/* Reads and parses the whole file; fails the test unless it is valid JSON. */
static inline void read_trace(const char *path, struct jval *root)
{
	FILE *f = fopen(path, "r");
	struct jparser j;
	char *buf;
	long len;

	if (f == NULL)
		fail_msg("the trace %s was not written", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	buf = malloc((size_t)len);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	j.p = buf;
	j.end = buf + len;
	j.bad = 0;
	jvalue(&j, root);
	jskip(&j);
	if (j.bad || j.p != j.end)
		fail_msg("%s is not valid JSON (at byte %ld)", path, (long)(j.p - buf));
	free(buf);
	assert_int_equal(root->t, J_OBJ);
}

#endif /* NPU_TESTS_RUNTIME_JSON_READER_H */
