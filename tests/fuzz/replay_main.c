// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Replays fuzz inputs through the harness without libFuzzer, so that the
 * corpus (the regress-* inputs above all) runs in every build's ctest,
 * gcc included: npu_fuzz_replay FILE|DIR... An input that crashes, leaks,
 * WARNs (the harness aborts) or runs past REPLAY_TIMEOUT_S fails the run.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As libFuzzer's -timeout: an input running longer than this is a hang. */
#define REPLAY_TIMEOUT_S 10

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* SIGALRM's default action ends the process: the test fails. */
	alarm(REPLAY_TIMEOUT_S);
	LLVMFuzzerTestOneInput(buf, n);
	alarm(0);
	return 0;
}

static int replay(const char *path, unsigned int *count)
{
	struct dirent **names;
	struct stat st;
	char sub[4096];
	int i, n, ret = 0;

	if (stat(path, &st)) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*count;
		return replay_file(path);
	}
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
			ret |= replay(sub, count);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	int i, ret = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		ret |= replay(argv[i], &count);
	printf("replayed %u inputs\n", count);
	return ret;
}
