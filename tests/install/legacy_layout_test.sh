#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The install's older toolkit layout and CANN's runtime library: installs
# BUILD_DIR to a prefix, checks runtime/include, runtime/lib64/stub,
# include/runtime and lib64/libruntime.so, then builds legacy_sample/ the
# way Ascend's older samples build (DDK_PATH, NPU_HOST_LIB = the stub
# directory) and runs it with set_env.sh's environment.
#   legacy_layout_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR WORK_DIR" >&2; exit 2; }
build=$1 work=$2
src=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

rm -rf "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in runtime/include/acl/acl.h runtime/include/acl/ops/acl_dvpp.h \
	runtime/include/runtime/rt.h include/runtime/mem.h include/acl/ops/acl_dvpp.h \
	runtime/lib64/stub/libascendcl.so runtime/lib64/stub/libruntime.so \
	runtime/lib64/stub/libacl_rt.so runtime/lib64/stub/libacl_rt_impl.so runtime/lib64/stub/libacl_dvpp.so runtime/lib64/libascendcl.so \
	runtime/lib64/stub/libmsprofiler.so runtime/lib64/stub/libprofapi.so runtime/include/acl/acl_prof.h \
	runtime/lib64/stub/libopapi.so runtime/lib64/stub/libnnopbase.so runtime/lib64/libopapi.so \
	runtime/include/aclnnop/aclnn_add.h runtime/include/aclnnop/aclnn_mul.h runtime/include/aclnn/acl_meta.h \
	lib64/libopapi.so lib64/libnnopbase.so include/aclnn/opdev/op_errno.h \
	runtime/lib64/stub/libacl_tdt_channel.so runtime/lib64/stub/libacl_tdt_queue.so \
	runtime/lib64/libacl_tdt_queue.so runtime/include/acl/acl_tdt.h runtime/include/acl/acl_tdt_queue.h \
	lib64/libruntime.so lib64/libacl_rt_impl.so lib64/libmsprofiler.so lib64/libprofapi.so \
	lib64/libacl_tdt_channel.so lib64/libacl_tdt_queue.so; do
	[[ -e $prefix/$f ]] || fail "$f is missing from the install (or a dangling link)"
done
readelf -d "$prefix/lib64/libruntime.so" | grep -q 'SONAME.*\[libruntime\.so\]' ||
	fail "lib64/libruntime.so has not the SONAME libruntime.so"
readelf -d "$prefix/lib64/libruntime.so" | grep -q 'NEEDED.*\[libascendcl\.so\.0\]' ||
	fail "lib64/libruntime.so does not need libascendcl.so.0"
readelf -d "$prefix/lib64/libruntime.so" | grep -q 'RUNPATH.*\[\$ORIGIN\]' ||
	fail "lib64/libruntime.so does not find libascendcl beside it (RUNPATH \$ORIGIN)"
echo "layout: runtime/include, runtime/lib64/stub, include/runtime, lib64/libruntime.so"

# shellcheck source=/dev/null  # the installed script
source "$prefix/set_env.sh"
export DDK_PATH=$prefix NPU_HOST_LIB=$prefix/runtime/lib64/stub
cmake -S "$src/legacy_sample" -B "$work/build" >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log" >&2; fail "configure"; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "build"; }
NPU_DEVICE=inproc "$work/build/main"
