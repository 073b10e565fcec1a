/* SPDX-License-Identifier: MIT */
/*
 * What the processes of a multi-process sample share: CHECK for ACL calls,
 * and a rendezvous directory where each drops small files for the other
 * (a real program would use a socket or its job launcher), as CANN's
 * multi-process samples exchange keys through files.
 */
#ifndef SAMPLES_COMMON_RENDEZVOUS_H
#define SAMPLES_COMMON_RENDEZVOUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"

#define CHECK(call)								\
	do {									\
		aclError e_ = (call);						\
		if (e_ != ACL_SUCCESS) {					\
			const char *m_ = aclGetRecentErrMsg();			\
			fprintf(stderr, "%s:%d: %s = %d (%s)\n", __FILE__, __LINE__, \
				#call, e_, m_ ? m_ : "");			\
			exit(1);						\
		}								\
	} while (0)

static void put_file(const char *dir, const char *name, const void *buf, size_t n)
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0 || rename(tmp, path) != 0) {
		perror(path);
		exit(1);
	}
}

/* Wait (up to 30 s) for the other process's file. */
static void get_file(const char *dir, const char *name, void *buf, size_t n)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; i < 3000; i++) {
		FILE *f = fopen(path, "rb");

		if (f) {
			size_t got = fread(buf, 1, n, f);

			fclose(f);
			if (got == n)
				return;
		}
		usleep(10000);
	}
	fprintf(stderr, "timed out waiting for %s\n", path);
	exit(1);
}

#endif /* SAMPLES_COMMON_RENDEZVOUS_H */
