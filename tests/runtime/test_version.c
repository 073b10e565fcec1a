// SPDX-License-Identifier: MIT
/*
 * Version and platform queries that need neither aclInit nor a device:
 * aclrtGetVersion, aclsysGetVersionStr/Num against version.info files of a
 * CANN root made here, aclrtGetRunMode and aclrtGetSocName.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_test.h"

/* aclrtGetVersion is deprecated, as upstream's; its behaviour is still tested here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static char g_root[64];

/* <root>/share/info/<pkg>/version.info with the given content. */
static void write_info(const char *pkg, const char *content)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/share", g_root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info", g_root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info/%s", g_root, pkg);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info/%s/version.info", g_root, pkg);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void test_version_and_run_mode_before_init(void **state)
{
	int32_t major = 0, minor = 0, patch = -1;
	aclrtRunMode mode = ACL_DEVICE;

	(void)state;
	ACL_OK(aclrtGetVersion(&major, &minor, &patch));
	assert_int_equal(major, ACL_MAJOR_VERSION);
	assert_int_equal(minor, ACL_MINOR_VERSION);
	assert_int_equal(patch, ACL_PATCH_VERSION);
	assert_int_equal(aclrtGetVersion(NULL, &minor, &patch), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtGetRunMode(&mode));
	assert_int_equal(mode, ACL_HOST);
	assert_int_equal(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
}

static void test_soc_name_before_init(void **state)
{
	const char *name;
	pid_t pid;
	int status;

	(void)state;
	/*
	 * NPU_SOC_NAME names another; a bad one is ignored. Children first:
	 * the name is read once per process, and they inherit what we read.
	 */
	pid = fork();
	if (pid == 0) {
		setenv("NPU_SOC_NAME", "Ascend310P3", 1);
		_exit(strcmp(aclrtGetSocName(), "Ascend310P3") != 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	pid = fork();
	if (pid == 0) {
		setenv("NPU_SOC_NAME", "bad name;", 1);
		_exit(strcmp(aclrtGetSocName(), "Ascend910B2") != 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	name = aclrtGetSocName();
	assert_non_null(name);
	assert_true(strlen(name) > 0);
	for (const char *p = name; *p; p++)
		assert_true(isalnum((unsigned char)*p) || *p == '_' || *p == '-');
	assert_ptr_equal(aclrtGetSocName(), name);	/* read once, cached */
}

static void test_package_versions(void **state)
{
	static const struct {
		const char *text;
		int32_t num;	/* 0: the number is 500000 */
	} rows[] = {
		{ "Version=9.0.0\n", 90000000 },
		{ "Version=9.0.0-rc.1\n", 89999901 },
		{ "Version=9.0.0-alpha.2\n", 89999702 },
		{ "Version=8.5.0.beta1\n", 80499801 },
		{ "Version=8.5.0RC2\n", 80499902 },
		{ "x=1\n  Version=7.1.0 \n", 70100000 },
		{ "Version=9.0\n", 0 },
		{ "Version=9.0.0-gamma\n", 0 },
		{ "Version=9.0.0-rc.1x\n", 0 },
	};
	char text[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "runtime", dashed[] = "ops-legacy", missing[] = "nothing";
	int32_t num = 0;

	(void)state;
	setenv("ASCEND_HOME_PATH", g_root, 1);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		write_info("runtime", rows[i].text);
		ACL_OK(aclsysGetVersionStr(pkg, text));
		assert_non_null(strstr(rows[i].text, text));
		if (rows[i].num) {
			ACL_OK(aclsysGetVersionNum(pkg, &num));
			assert_int_equal(num, rows[i].num);
		} else {
			assert_int_equal(aclsysGetVersionNum(pkg, &num), ACL_ERROR_INTERNAL_ERROR);
		}
	}
	/* ops-legacy is found as ops_legacy too. */
	write_info("ops_legacy", "Version=8.0.0\n");
	ACL_OK(aclsysGetVersionStr(dashed, text));
	assert_string_equal(text, "8.0.0");
	/* No file, no Version= line, no ASCEND_HOME_PATH: 100003. NULL: 100000. */
	assert_int_equal(aclsysGetVersionStr(missing, text), ACL_ERROR_INVALID_FILE);
	write_info("runtime", "Build=1\n");
	assert_int_equal(aclsysGetVersionNum(pkg, &num), ACL_ERROR_INVALID_FILE);
	unsetenv("ASCEND_HOME_PATH");
	assert_int_equal(aclsysGetVersionStr(pkg, text), ACL_ERROR_INVALID_FILE);
	assert_non_null(strstr(aclGetRecentErrMsg(), "ASCEND_HOME_PATH"));
	assert_int_equal(aclsysGetVersionStr(pkg, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclsysGetVersionStr(NULL, text), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclsysGetVersionNum(pkg, NULL), ACL_ERROR_INVALID_PARAM);
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(g_root, sizeof(g_root), "/tmp/npu-test-version-XXXXXX");
	return mkdtemp(g_root) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_root);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_and_run_mode_before_init),
		cmocka_unit_test(test_soc_name_before_init),
		cmocka_unit_test(test_package_versions),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
