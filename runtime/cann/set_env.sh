# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The CANN environment script of this install: source it (bash), as CANN's
# own, from the root or through bin/setenv.bash:
#   source <prefix>/set_env.sh
# It exports what CANN's scripts and samples read (ASCEND_HOME_PATH,
# ASCEND_TOOLKIT_HOME, ASCEND_OPP_PATH, ASCEND_AICPU_PATH, TOOLCHAIN_HOME)
# and puts <root>/bin, <root>/lib64 and the CMake package directories first
# in PATH, LD_LIBRARY_PATH and CMAKE_PREFIX_PATH. Sourcing it again changes
# nothing; it sets no shell options.

# _npu_prepend VAR DIR: DIR first in the colon list VAR, once.
_npu_prepend() {
	local list=":${!1-}:"
	list=${list//:$2:/:}
	list=${list#:}
	list=${list%:}
	printf -v "$1" '%s' "$2${list:+:$list}"
	export "${1?}"
}

_npu_root=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
export ASCEND_HOME_PATH=$_npu_root
export ASCEND_TOOLKIT_HOME=$_npu_root
export ASCEND_OPP_PATH=$_npu_root/opp
export ASCEND_AICPU_PATH=$_npu_root
export TOOLCHAIN_HOME=$_npu_root/toolkit
_npu_prepend PATH "$_npu_root/bin"
_npu_prepend LD_LIBRARY_PATH "$_npu_root/lib64"
# CANN's place for CMake packages, then this install's prefix, where
# find_package(ascendcl CONFIG) finds lib/cmake/ascendcl.
_npu_prepend CMAKE_PREFIX_PATH "$_npu_root"
_npu_prepend CMAKE_PREFIX_PATH "$_npu_root/lib64/cmake"
unset -f _npu_prepend
unset _npu_root
