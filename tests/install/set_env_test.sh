#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The installed set_env.sh and bin/setenv.bash, sourced the way CANN users
# and scripts do: under set -u, twice, through the link; the licence texts;
# then a CMake consumer found with no more than what the script exported.
#   PREFIX=<install prefix> DIR=<scratch dir> SRC=tests/install bash set_env_test.sh
set -u
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
root=$(readlink -f "$PREFIX")
PATH=/usr/local/bin:/usr/bin:/bin
unset LD_LIBRARY_PATH CMAKE_PREFIX_PATH ASCEND_HOME_PATH
# What CANN's sample scripts set, or the user: set_env.sh leaves them alone.
export SOC_VERSION=user-soc ASCENDC_CMAKE_DIR=/user/ascendc_kernel_cmake
# shellcheck source=/dev/null
source "$PREFIX/set_env.sh" || fail "sourcing set_env.sh"
# shellcheck source=/dev/null
source "$PREFIX/bin/setenv.bash" || fail "sourcing bin/setenv.bash"
[[ $- != *e* ]] || fail "set_env.sh left set -e behind"
for v in ASCEND_HOME_PATH ASCEND_TOOLKIT_HOME ASCEND_AICPU_PATH; do
	[[ ${!v} == "$root" ]] || fail "$v=${!v}, want $root"
done
[[ $ASCEND_OPP_PATH == "$root/opp" && $TOOLCHAIN_HOME == "$root/toolkit" ]] ||
	fail "ASCEND_OPP_PATH=$ASCEND_OPP_PATH TOOLCHAIN_HOME=$TOOLCHAIN_HOME"
[[ $PATH == "$root/bin:/usr/local/bin:/usr/bin:/bin" ]] || fail "PATH=$PATH (sourced twice)"
[[ $LD_LIBRARY_PATH == "$root/lib64" ]] || fail "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
[[ $CMAKE_PREFIX_PATH == "$root/lib64/cmake:$root" ]] || fail "CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
# As CANN's script, it leaves SOC_VERSION and ASCENDC_CMAKE_DIR to CANN's
# sample scripts or the user (cann_sample_test.sh finds them as those do).
[[ $SOC_VERSION == user-soc && $ASCENDC_CMAKE_DIR == /user/ascendc_kernel_cmake ]] ||
	fail "set_env.sh changed SOC_VERSION=$SOC_VERSION ASCENDC_CMAKE_DIR=$ASCENDC_CMAKE_DIR"
grep -qx "Version=[0-9.]*" "$root/share/info/runtime/version.info" || fail "no version.info"
for f in LICENSE MIT GPL-2.0; do
	[[ -s $root/share/doc/ascendcl/$f ]] || fail "no licence text share/doc/ascendcl/$f"
done
NPU_DEVICE=inproc npu-smi -L >/dev/null || fail "npu-smi from PATH"
cmake -S "$SRC/consumer" -B "$DIR/set-env-consumer" >/dev/null || fail "find_package via set_env.sh"
cmake --build "$DIR/set-env-consumer" >/dev/null || fail "building the consumer"
NPU_DEVICE=inproc "$DIR/set-env-consumer/consumer" || fail "running the consumer"
echo "set_env.sh: variables, paths, idempotence and a CMake consumer: ok"
