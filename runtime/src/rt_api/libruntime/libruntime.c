/* SPDX-License-Identifier: MIT */
/*
 * libruntime.so: CANN's runtime library name. The rt* functions it stands
 * for are libascendcl's (runtime/rt.h); this library's only content is its
 * dependency on libascendcl, so that dlopen("libruntime.so") loads it and
 * dlsym on the handle finds them. It exports nothing of its own.
 */
static const char npu_libruntime_note[] __attribute__((used)) =
    "libruntime.so: the rt* functions are libascendcl's";
