/* SPDX-License-Identifier: MIT */
/*
 * MindStudio's tools extension (mstx/ms_tools_ext.h): marks and ranges a
 * program adds to a profiling session, in the default domain or in domains
 * it names. Here they are events of the session's file (acl/acl_prof.h,
 * the README's profiling section), as aclprofMarkEx's are: category
 * "mstx", with the domain's name in the event's arguments. Outside a
 * session they do nothing (a range id is still returned, and its end
 * records nothing). Upstream's header forwards to an injected tool; here
 * the functions live in libascendcl (linked as libmsprofiler.so).
 *
 * The names, types and prototypes are upstream's.
 */
#ifndef MS_TOOLS_EXT_H_
#define MS_TOOLS_EXT_H_

#include <stdint.h>

#include "acl/acl_base.h"

#ifndef MSTX_API
#define MSTX_API ACL_FUNC_VISIBILITY
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MSTX_INVALID_RANGE_ID 0

typedef uint64_t mstxRangeId;

struct mstxDomainRegistration_st;
typedef struct mstxDomainRegistration_st mstxDomainRegistration_t;
typedef mstxDomainRegistration_t *mstxDomainHandle_t;

/* An instant event with message (at most 255 characters used) on stream's
 * lane, or on the calling thread's for a NULL stream. */
MSTX_API void mstxMarkA(const char *message, aclrtStream stream);
/* Opens a range; the id (never 0, but 0 for a NULL message) ends it. */
MSTX_API mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream);
MSTX_API void mstxRangeEnd(mstxRangeId id);

/* A named domain (NULL for a NULL or empty name). Creating a name twice
 * gives the same handle. */
MSTX_API mstxDomainHandle_t mstxDomainCreateA(const char *name);
/* After this the domain's calls do nothing. */
MSTX_API void mstxDomainDestroy(mstxDomainHandle_t domain);
MSTX_API void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
MSTX_API mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message,
                                           aclrtStream stream);
MSTX_API void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);

#ifdef __cplusplus
}
#endif

#endif /* MS_TOOLS_EXT_H_ */
