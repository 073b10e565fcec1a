// SPDX-License-Identifier: MIT
/*
 * fork(): a child starts afresh. What the parent registered or made
 * process-wide is not seen in a forked child (docs/runtime-locks.md,
 * section 4): a stream config handle and an allocator descriptor of the
 * parent are refused there, the parent's device-state and exception
 * callbacks do not run there, and the parent's stream handle is unknown.
 * Each child check is one step; the child exits with the number of the
 * step that failed (0: all passed).
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl.h"
#include "npu/hal.h"
#include "rt_test.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define N 4096

/* Counted in whichever process runs the callback. */
static int g_device_state_calls;
static int g_exception_calls;

static void on_device_state(int32_t deviceId, aclrtDeviceState state, void *args) {
    (void)deviceId;
    (void)state;
    (void)args;
    g_device_state_calls++;
}

static void on_exception(aclrtExceptionInfo *info) {
    (void)info;
    g_exception_calls++;
}

struct parent_state {
    aclrtStreamConfigHandle *config;
    aclrtAllocatorDesc allocator;
    aclrtStream stream;
};

/*
 * A task fails on a stream of the child's own (a copy to a freed device
 * address): the wait reports it, and no callback of the parent runs.
 */
static int child_task_failure_reaches_no_parent_callback(void) {
    aclrtStream s = NULL;
    void *dev = NULL, *freed = NULL;

    if (aclrtCreateStream(&s) != ACL_SUCCESS ||
        aclrtMalloc(&dev, N, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
        aclrtMalloc(&freed, N, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
        aclrtFree(freed) != ACL_SUCCESS)
        return 1;
    if (aclrtMemcpyAsync(freed, N, dev, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s) != ACL_SUCCESS)
        return 2;
    if (aclrtSynchronizeStream(s) == ACL_SUCCESS)
        return 3;
    if (g_exception_calls != 0)
        return 4;
    if (aclrtFree(dev) != ACL_SUCCESS || aclrtDestroyStream(s) != ACL_SUCCESS)
        return 5;
    return 0;
}

static int fork_child_checks(const struct parent_state *p) {
    if (aclrtDestroyStreamConfigHandle(p->config) != ACL_ERROR_INVALID_PARAM)
        return 10;
    if (aclrtAllocatorDestroyDesc(p->allocator) != ACL_ERROR_INVALID_PARAM)
        return 11;
    if (aclrtDestroyStream(p->stream) == ACL_SUCCESS)
        return 12;
    /*
     * The in-process device is the parent's: the child may not open it,
     * and then there is no device to try the callbacks on.
     */
    if (npuHalBackendIsInproc()) {
        (void)aclrtSetDevice(0);
        return g_device_state_calls == 0 ? 0 : 13;
    }
    if (aclrtSetDevice(0) != ACL_SUCCESS)
        return 14;
    if (g_device_state_calls != 0)
        return 15;
    int step = child_task_failure_reaches_no_parent_callback();
    if (step != 0)
        return 20 + step;
    if (aclrtResetDevice(0) != ACL_SUCCESS)
        return 16;
    return 0;
}

static void test_child_does_not_see_parent_registrations(void **state) {
    struct parent_state p = {0};
    int status = 0;
    pid_t pid;

    (void)state;
    p.config = aclrtCreateStreamConfigHandle();
    assert_non_null(p.config);
    p.allocator = aclrtAllocatorCreateDesc();
    assert_non_null(p.allocator);
    ACL_OK(aclrtRegDeviceStateCallback("fork", on_device_state, NULL));
    ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
    ACL_OK(aclrtSetExceptionInfoCallback(on_exception));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtCreateStream(&p.stream));
    g_device_state_calls = 0;

    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fork_child_checks(&p));
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    /* The parent still has all of it. */
    ACL_OK(aclrtDestroyStream(p.stream));
    ACL_OK(aclrtResetDevice(0));
    assert_true(g_device_state_calls > 0);
    ACL_OK(aclrtDestroyStreamConfigHandle(p.config));
    ACL_OK(aclrtAllocatorDestroyDesc(p.allocator));
    ACL_OK(aclrtRegDeviceStateCallback("fork", NULL, NULL));
    ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception));
    ACL_OK(aclrtSetExceptionInfoCallback(NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_does_not_see_parent_registrations),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
