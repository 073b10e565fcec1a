// SPDX-License-Identifier: MIT
/*
 * The external allocator of acl_rt_allocator.h: descriptors, their setters,
 * registration per stream (a copy of the descriptor, last registration
 * wins), the read-back of aclrtAllocatorGetByStream, unregistration, every
 * bad-input row, hostile descriptor handles and concurrent registrations.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "rt_test.h"
#include "acl/acl_rt_allocator.h"

/* The callbacks are never called by the runtime; they only need addresses. */
static void *alloc_a(aclrtAllocator allocator, size_t size)
{
	(void)allocator;
	(void)size;
	return NULL;
}

static void *alloc_b(aclrtAllocator allocator, size_t size)
{
	(void)allocator;
	(void)size;
	return (void *)1;
}

static void free_a(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
	(void)allocator;
	(void)block;
}

static void *advise_a(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
	(void)allocator;
	(void)size;
	return addr;
}

static void *get_addr_a(aclrtAllocatorBlock block)
{
	return block;
}

static int g_obj_a, g_obj_b;	/* allocator objects: their addresses */

/* The message of the last failure names api. */
static void assert_msg_names(const char *api)
{
	const char *m = aclGetRecentErrMsg();

	assert_non_null(m);
	if (strstr(m, api) == NULL)
		fail_msg("message \"%s\" does not name %s", m, api);
}

/* A descriptor with the four required fields set (no alloc-advise). */
static aclrtAllocatorDesc full_desc(void)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	assert_non_null(d);
	ACL_OK(aclrtAllocatorSetObjToDesc(d, &g_obj_a));
	ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_a));
	ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, free_a));
	ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, get_addr_a));
	return d;
}

static void test_create_gives_distinct_descriptors(void **state)
{
	(void)state;
	aclrtAllocatorDesc a = aclrtAllocatorCreateDesc();
	aclrtAllocatorDesc b = aclrtAllocatorCreateDesc();

	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	ACL_OK(aclrtAllocatorDestroyDesc(a));
	ACL_OK(aclrtAllocatorDestroyDesc(b));
}

static void test_destroy_rejects_null_dead_and_foreign(void **state)
{
	(void)state;
	int not_a_desc;
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	assert_int_equal(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM);
	assert_msg_names("aclrtAllocatorDestroyDesc");
	assert_int_equal(aclrtAllocatorDestroyDesc(&not_a_desc), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtAllocatorDestroyDesc(d));
	/* A double destroy is refused, not a double free. */
	assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_ERROR_INVALID_PARAM);
	/* ACL-layer rejections are not the thread's last error. */
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

/* Each setter: NULL descriptor, NULL value, destroyed descriptor -> 100000. */
static void test_setters_reject_null_and_dead_descriptors(void **state)
{
	(void)state;
	aclrtAllocatorDesc dead = aclrtAllocatorCreateDesc();
	int foreign;

	ACL_OK(aclrtAllocatorDestroyDesc(dead));
	aclrtAllocatorDesc bad[] = { NULL, dead, &foreign };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(aclrtAllocatorSetObjToDesc(bad[i], &g_obj_a),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(bad[i], alloc_a),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(bad[i], free_a),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(bad[i], advise_a),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(bad[i], get_addr_a),
				 ACL_ERROR_INVALID_PARAM);
		assert_msg_names("aclrtAllocatorSetGetAddrFromBlockFuncToDesc");
	}
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	assert_int_equal(aclrtAllocatorSetObjToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	assert_msg_names("aclrtAllocatorSetObjToDesc");
	assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, NULL),
			 ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtAllocatorDestroyDesc(d));
}

static void test_register_rejects_null_stream_and_descriptor(void **state)
{
	(void)state;
	aclrtStream s;
	aclrtAllocatorDesc d = full_desc();

	ACL_OK(aclrtCreateStream(&s));
	assert_int_equal(aclrtAllocatorRegister(NULL, d), ACL_ERROR_INVALID_PARAM);
	assert_msg_names("aclrtAllocatorRegister");
	assert_int_equal(aclrtAllocatorRegister(s, NULL), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtAllocatorDestroyDesc(d));
	/* A destroyed descriptor cannot be registered. */
	assert_int_equal(aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM);
	aclrtAllocatorDesc got = NULL;

	assert_int_equal(aclrtAllocatorGetByStream(s, &got, NULL, NULL, NULL, NULL, NULL),
			 ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtDestroyStream(s));
}

/* Register needs object, alloc, free and get-address; alloc-advise is optional. */
static void test_register_needs_the_four_required_fields(void **state)
{
	(void)state;
	aclrtStream s;

	ACL_OK(aclrtCreateStream(&s));
	for (int missing = 0; missing < 4; missing++) {
		aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

		ACL_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, advise_a));
		if (missing != 0)
			ACL_OK(aclrtAllocatorSetObjToDesc(d, &g_obj_a));
		if (missing != 1)
			ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_a));
		if (missing != 2)
			ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, free_a));
		if (missing != 3)
			ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, get_addr_a));
		if (aclrtAllocatorRegister(s, d) != ACL_ERROR_INVALID_PARAM)
			fail_msg("registered a descriptor without required field %d", missing);
		assert_msg_names("aclrtAllocatorRegister");
		aclrtAllocatorDesc got = NULL;

		/* Nothing was registered. */
		assert_int_equal(aclrtAllocatorGetByStream(s, &got, NULL, NULL, NULL, NULL, NULL),
				 ACL_ERROR_INVALID_PARAM);
		ACL_OK(aclrtAllocatorDestroyDesc(d));
	}
	aclrtAllocatorDesc d = full_desc();

	ACL_OK(aclrtAllocatorRegister(s, d));
	ACL_OK(aclrtAllocatorUnregister(s));
	ACL_OK(aclrtAllocatorDestroyDesc(d));
	ACL_OK(aclrtDestroyStream(s));
}

static void test_get_by_stream_reads_back_the_registration(void **state)
{
	(void)state;
	aclrtStream s;
	aclrtAllocatorDesc d = full_desc();
	aclrtAllocatorDesc got_desc = NULL;
	aclrtAllocator got_obj = NULL;
	aclrtAllocatorAllocFunc got_alloc = NULL;
	aclrtAllocatorFreeFunc got_free = NULL;
	aclrtAllocatorAllocAdviseFunc got_advise = advise_a;
	aclrtAllocatorGetAddrFromBlockFunc got_addr = NULL;

	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtAllocatorRegister(s, d));
	ACL_OK(aclrtAllocatorGetByStream(s, &got_desc, &got_obj, &got_alloc, &got_free,
					 &got_advise, &got_addr));
	assert_ptr_equal(got_desc, d);
	assert_ptr_equal(got_obj, &g_obj_a);
	assert_true(got_alloc == alloc_a);
	assert_true(got_free == free_a);
	assert_null(got_advise);	/* not set: written as NULL */
	assert_true(got_addr == get_addr_a);
	/* NULL outputs are skipped. */
	got_desc = NULL;
	ACL_OK(aclrtAllocatorGetByStream(s, &got_desc, NULL, NULL, NULL, NULL, NULL));
	assert_ptr_equal(got_desc, d);
	/* The bad-input rows, in upstream's order: desc first, then stream. */
	assert_int_equal(aclrtAllocatorGetByStream(NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_names("allocatorDesc is NULL");
	assert_int_equal(aclrtAllocatorGetByStream(NULL, &got_desc, NULL, NULL, NULL, NULL, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_names("stream is NULL");
	ACL_OK(aclrtAllocatorUnregister(s));
	ACL_OK(aclrtAllocatorDestroyDesc(d));
	ACL_OK(aclrtDestroyStream(s));
}

/* The registration is a copy: later edits or destroying the descriptor do not change it. */
static void test_registration_is_a_copy(void **state)
{
	(void)state;
	aclrtStream s;
	aclrtAllocatorDesc d = full_desc();
	aclrtAllocatorDesc got_desc = NULL;
	aclrtAllocator got_obj = NULL;
	aclrtAllocatorAllocFunc got_alloc = NULL;

	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtAllocatorRegister(s, d));
	ACL_OK(aclrtAllocatorSetObjToDesc(d, &g_obj_b));
	ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_b));
	ACL_OK(aclrtAllocatorGetByStream(s, &got_desc, &got_obj, &got_alloc, NULL, NULL, NULL));
	assert_ptr_equal(got_obj, &g_obj_a);
	assert_true(got_alloc == alloc_a);
	ACL_OK(aclrtAllocatorDestroyDesc(d));
	got_obj = NULL;
	ACL_OK(aclrtAllocatorGetByStream(s, &got_desc, &got_obj, NULL, NULL, NULL, NULL));
	assert_ptr_equal(got_desc, d);	/* the pointer as registered */
	assert_ptr_equal(got_obj, &g_obj_a);
	ACL_OK(aclrtAllocatorUnregister(s));
	ACL_OK(aclrtDestroyStream(s));
}

/* Registering again for a stream replaces the earlier entry; streams are independent. */
static void test_last_registration_wins_per_stream(void **state)
{
	(void)state;
	aclrtStream s1, s2;
	aclrtAllocatorDesc a = full_desc();
	aclrtAllocatorDesc b = full_desc();
	aclrtAllocatorDesc got = NULL;
	aclrtAllocator obj = NULL;
	aclrtAllocatorAllocAdviseFunc adv = NULL;

	ACL_OK(aclrtAllocatorSetObjToDesc(b, &g_obj_b));
	ACL_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(b, advise_a));
	ACL_OK(aclrtCreateStream(&s1));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtAllocatorRegister(s1, a));
	ACL_OK(aclrtAllocatorRegister(s2, a));
	ACL_OK(aclrtAllocatorRegister(s1, b));
	ACL_OK(aclrtAllocatorGetByStream(s1, &got, &obj, NULL, NULL, &adv, NULL));
	assert_ptr_equal(got, b);
	assert_ptr_equal(obj, &g_obj_b);
	assert_true(adv == advise_a);
	ACL_OK(aclrtAllocatorGetByStream(s2, &got, &obj, NULL, NULL, NULL, NULL));
	assert_ptr_equal(got, a);
	assert_ptr_equal(obj, &g_obj_a);
	/* Unregistering one stream leaves the other. */
	ACL_OK(aclrtAllocatorUnregister(s1));
	assert_int_equal(aclrtAllocatorGetByStream(s1, &got, NULL, NULL, NULL, NULL, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_names("no registered allocator");
	ACL_OK(aclrtAllocatorGetByStream(s2, &got, NULL, NULL, NULL, NULL, NULL));
	assert_ptr_equal(got, a);
	ACL_OK(aclrtAllocatorUnregister(s2));
	ACL_OK(aclrtAllocatorDestroyDesc(a));
	ACL_OK(aclrtAllocatorDestroyDesc(b));
	ACL_OK(aclrtDestroyStream(s1));
	ACL_OK(aclrtDestroyStream(s2));
}

static void test_unregister_rows(void **state)
{
	(void)state;
	aclrtStream s;
	aclrtAllocatorDesc d = full_desc();

	ACL_OK(aclrtCreateStream(&s));
	assert_int_equal(aclrtAllocatorUnregister(NULL), ACL_ERROR_INVALID_PARAM);
	assert_msg_names("aclrtAllocatorUnregister");
	/* Never registered, and twice: success. */
	ACL_OK(aclrtAllocatorUnregister(s));
	ACL_OK(aclrtAllocatorRegister(s, d));
	ACL_OK(aclrtAllocatorUnregister(s));
	ACL_OK(aclrtAllocatorUnregister(s));
	ACL_OK(aclrtAllocatorDestroyDesc(d));
	ACL_OK(aclrtDestroyStream(s));
}

/* As upstream, the stream handle is a key, not validated (no device needed). */
static void test_stream_handle_is_not_validated(void **state)
{
	(void)state;
	aclrtStream fake = (aclrtStream)(uintptr_t)0xdead0000;
	aclrtAllocatorDesc d = full_desc();
	aclrtAllocatorDesc got = NULL;

	ACL_OK(aclrtAllocatorRegister(fake, d));
	ACL_OK(aclrtAllocatorGetByStream(fake, &got, NULL, NULL, NULL, NULL, NULL));
	assert_ptr_equal(got, d);
	ACL_OK(aclrtAllocatorUnregister(fake));
	ACL_OK(aclrtAllocatorDestroyDesc(d));
}

/*
 * Threads register, read back and unregister on their own keys while one
 * thread keeps rewriting the shared descriptor: every read-back is one of
 * the two complete states, never a mix.
 */
#define N_THREADS 4
#define N_ROUNDS 2000

static aclrtAllocatorDesc g_shared;
static atomic_int g_stop;

static void *rewriter(void *arg)
{
	(void)arg;
	for (unsigned i = 0; !atomic_load(&g_stop); i++) {
		/* Not atomic as a pair: registrations may see either object. */
		if (aclrtAllocatorSetObjToDesc(g_shared, (i & 1) ? &g_obj_a : &g_obj_b) != ACL_SUCCESS)
			return (void *)1;
	}
	return NULL;
}

static void *registrar(void *arg)
{
	aclrtStream key = (aclrtStream)((uintptr_t)0x10000 + (uintptr_t)arg * 16);

	for (int i = 0; i < N_ROUNDS; i++) {
		aclrtAllocatorDesc got = NULL;
		aclrtAllocator obj = NULL;
		aclrtAllocatorFreeFunc fr = NULL;

		if (aclrtAllocatorRegister(key, g_shared) != ACL_SUCCESS)
			return (void *)1;
		if (aclrtAllocatorGetByStream(key, &got, &obj, NULL, &fr, NULL, NULL) != ACL_SUCCESS)
			return (void *)2;
		if (got != g_shared || (obj != &g_obj_a && obj != &g_obj_b) || fr != free_a)
			return (void *)3;
		if (aclrtAllocatorUnregister(key) != ACL_SUCCESS)
			return (void *)4;
	}
	return NULL;
}

static void test_concurrent_registrations(void **state)
{
	(void)state;
	pthread_t rw, t[N_THREADS];
	void *rc;

	g_shared = full_desc();
	atomic_store(&g_stop, 0);
	assert_int_equal(pthread_create(&rw, NULL, rewriter, NULL), 0);
	for (uintptr_t i = 0; i < N_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, registrar, (void *)i), 0);
	for (int i = 0; i < N_THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &rc), 0);
		if (rc != NULL)
			fail_msg("registrar %d failed at step %d", i, (int)(uintptr_t)rc);
	}
	atomic_store(&g_stop, 1);
	assert_int_equal(pthread_join(rw, &rc), 0);
	assert_null(rc);
	ACL_OK(aclrtAllocatorDestroyDesc(g_shared));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_gives_distinct_descriptors),
		cmocka_unit_test(test_destroy_rejects_null_dead_and_foreign),
		cmocka_unit_test(test_setters_reject_null_and_dead_descriptors),
		cmocka_unit_test(test_register_rejects_null_stream_and_descriptor),
		cmocka_unit_test(test_register_needs_the_four_required_fields),
		cmocka_unit_test(test_get_by_stream_reads_back_the_registration),
		cmocka_unit_test(test_registration_is_a_copy),
		cmocka_unit_test(test_last_registration_wins_per_stream),
		cmocka_unit_test(test_unregister_rows),
		cmocka_unit_test(test_stream_handle_is_not_validated),
		cmocka_unit_test(test_concurrent_registrations),
	};

	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
