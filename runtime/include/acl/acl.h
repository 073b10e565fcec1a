/* SPDX-License-Identifier: MIT */
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
#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

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

/** aclrtGetVersion - ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION (deprecated). */
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                             int32_t *patchVersion);

/**
 * aclsysGetVersionStr - the Version= line of a package's version.info
 * ($ASCEND_HOME_PATH/share/info/<pkgName>/version.info; driver and firmware
 * from /etc/ascend_install.info) into versionStr, which holds
 * ACL_PKG_VERSION_MAX_SIZE bytes. No aclInit needed.
 */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr);

/**
 * aclsysGetVersionNum - the same version as a number that grows with the
 * release: major * 10000000 + minor * 100000 + patch * 1000, less 300/200/100
 * for alpha/beta/rc plus the pre-release number.
 */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
