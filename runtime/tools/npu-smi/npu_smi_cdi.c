// SPDX-License-Identifier: MIT
/*
 * npu-smi cdi generate [--output DIR]: a Container Device Interface spec
 * (kind NPU_CDI_KIND) for the devices of the backend NPU_DEVICE selects,
 * one CDI device per device ("0", "1", ...) and "all". podman, containerd
 * and CRI-O then give a container a device with `--device npu.local/npu=0`.
 *
 *   CUSE or the kernel module (character devices): the device nodes, and
 *   NPU_DEVICE naming the node.
 *   FUSE (npud --fuse DIR): the parent directory of DIR bind-mounted with
 *   slave propagation, so that a restarted npud's new mount reaches the
 *   container, and NPU_DEVICE naming the file. A FUSE mount cannot be cut
 *   per device: a container given one device can open the others too.
 *
 * Without --output the spec goes to stdout; with it, to DIR/NPU_CDI_FILE.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npu/hal.h"

#include "npu_smi.h"

#define NPU_CDI_KIND	"npu.local/npu"
#define NPU_CDI_FILE	"npu.local-npu.json"
#define NPU_CDI_VERSION	"0.3.0"
#define NPU_CDI_MAX	64

/* A JSON string: the paths are the user's, so escape what JSON needs. */
static void cdi_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int cdi_path(uint32_t d, char *buf, size_t len)
{
	return npu_smi_device_file(d, buf, len);
}

/* The edits of one CDI device: devices [first, last]. */
static void cdi_edits(FILE *f, bool fuse, const char *share, uint32_t first, uint32_t last)
{
	char path[PATH_MAX];
	uint32_t d;

	cdi_path(first, path, sizeof(path));
	fprintf(f, "\"containerEdits\": {\"env\": [");
	{
		char env[PATH_MAX + 16];

		snprintf(env, sizeof(env), "NPU_DEVICE=%s", path);
		cdi_str(f, env);
	}
	fprintf(f, "]");
	if (fuse) {
		fprintf(f, ", \"mounts\": [{\"hostPath\": ");
		cdi_str(f, share);
		fprintf(f, ", \"containerPath\": ");
		cdi_str(f, share);
		fprintf(f, ", \"options\": [\"rbind\", \"rslave\"]}]");
	} else {
		fprintf(f, ", \"deviceNodes\": [");
		for (d = first; d <= last; d++) {
			cdi_path(d, path, sizeof(path));
			fprintf(f, "%s{\"path\": ", d == first ? "" : ", ");
			cdi_str(f, path);
			fprintf(f, "}");
		}
		fprintf(f, "]");
	}
	fprintf(f, "}");
}

static int cdi_write(FILE *f, uint32_t count, bool fuse, const char *share)
{
	uint32_t d;

	fprintf(f, "{\n  \"cdiVersion\": \"%s\",\n  \"kind\": \"%s\",\n  \"devices\": [\n",
		NPU_CDI_VERSION, NPU_CDI_KIND);
	for (d = 0; d < count; d++) {
		fprintf(f, "    {\"name\": \"%u\", ", d);
		cdi_edits(f, fuse, share, d, d);
		fprintf(f, "},\n");
	}
	fprintf(f, "    {\"name\": \"all\", ");
	cdi_edits(f, fuse, share, 0, count - 1);
	fprintf(f, "}\n  ]\n}\n");
	return ferror(f) ? -EIO : 0;
}

static void cdi_usage(FILE *f)
{
	fprintf(f, "usage: npu-smi cdi generate [--output DIR]\n"
		   "  a CDI spec (kind " NPU_CDI_KIND ") of the devices NPU_DEVICE selects:\n"
		   "  one CDI device per device and \"all\"; on stdout, or in\n"
		   "  DIR/" NPU_CDI_FILE " (e.g. /etc/cdi or /var/run/cdi)\n");
}

/**
 * npu_smi_cdi() - `npu-smi cdi ...`
 * @argc: arguments after "cdi"
 * @argv: them
 *
 * Return: the exit status (0, 1 on failure, 2 on bad usage).
 */
int npu_smi_cdi(int argc, char **argv)
{
	char path[PATH_MAX], dir[PATH_MAX], share[PATH_MAX], out[PATH_MAX];
	const char *output = NULL;
	uint32_t count = 0, d;
	struct stat st;
	bool fuse = false;
	FILE *f;
	int i, ret;

	if (argc < 1 || strcmp(argv[0], "generate")) {
		cdi_usage(stderr);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--output") && i + 1 < argc) {
			output = argv[++i];
		} else if (!strncmp(argv[i], "--output=", 9) && argv[i][9]) {
			output = argv[i] + 9;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cdi_usage(stdout);
			return 0;
		} else {
			cdi_usage(stderr);
			return 2;
		}
	}
	if (npuHalBackendIsInproc()) {
		fprintf(stderr, "npu-smi: cdi: the backend is the in-process device, which no "
				"container can share: set NPU_DEVICE to npud's file or node (e.g. "
				"/run/npu/dev/npu0 or /dev/npu0)\n");
		return 1;
	}
	if (npuHalGetDeviceCount(&count) < 0 || count == 0) {
		fprintf(stderr, "npu-smi: cdi: no device at %s\n", npuHalBackendName());
		return 1;
	}
	if (count > NPU_CDI_MAX)
		count = NPU_CDI_MAX;
	for (d = 0; d < count; d++) {
		if (cdi_path(d, path, sizeof(path)) || stat(path, &st)) {
			fprintf(stderr, "npu-smi: cdi: device %u: no file\n", d);
			return 1;
		}
		if (!S_ISCHR(st.st_mode) && !S_ISREG(st.st_mode)) {
			fprintf(stderr, "npu-smi: cdi: %s is neither a device node nor an npud file\n",
				path);
			return 1;
		}
		if (d == 0)
			fuse = S_ISREG(st.st_mode);
	}
	/* FUSE: DIR/npuN; the shared directory is DIR's parent. */
	cdi_path(0, path, sizeof(path));
	if (!realpath(path, dir)) {
		fprintf(stderr, "npu-smi: cdi: %s: %s\n", path, strerror(errno));
		return 1;
	}
	snprintf(share, sizeof(share), "%s", dirname(dirname(dir)));
	if (fuse && !strcmp(share, "/")) {
		fprintf(stderr, "npu-smi: cdi: npud's directory %s has no parent to share\n", path);
		return 1;
	}
	if (!output)
		return cdi_write(stdout, count, fuse, share) ? 1 : 0;
	if (snprintf(out, sizeof(out), "%s/%s", output, NPU_CDI_FILE) >= (int)sizeof(out)) {
		fprintf(stderr, "npu-smi: cdi: %s: name too long\n", output);
		return 1;
	}
	f = fopen(out, "we");
	if (!f) {
		fprintf(stderr, "npu-smi: cdi: cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	ret = cdi_write(f, count, fuse, share);
	if (fclose(f) || ret) {
		fprintf(stderr, "npu-smi: cdi: writing %s failed\n", out);
		return 1;
	}
	printf("npu-smi: wrote %s (%u device(s), %s)\n", out, count, fuse ? "FUSE" : "device nodes");
	return 0;
}
