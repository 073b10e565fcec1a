/*
 * The umbrella header of the ACL API (CANN compatibility): programs write
 * #include "acl/acl.h" with -I <prefix>/include.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Current interface version of the ACL library. */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

/**
 * aclInit - initialise the library; configPath is NULL or a JSON file.
 * A call while initialised counts a reference and returns
 * ACL_ERROR_REPEAT_INITIALIZE.
 */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);

/** aclFinalize - release everything in one call (reference count forced to 0). */
ACL_FUNC_VISIBILITY aclError aclFinalize();

/** aclFinalizeReference - drop one aclInit reference; finalise at the last. */
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);

/**
 * aclGetRecentErrMsg - this thread's messages of failed calls, newest first,
 * joined by '\n'; reading clears them. NULL when there is nothing to report.
 * The pointer is valid until the next call on the same thread.
 */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg();

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
