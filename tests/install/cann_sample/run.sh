#!/bin/bash
# SPDX-License-Identifier: MIT
# Build and run the sample as CANN's runtime samples' scripts do (the "H"
# style of conventions 3.6): the CANN root from ASCEND_HOME_PATH, its
# bin/setenv.bash sourced, a fresh build/ configured with
# -DASCEND_CANN_PACKAGE_PATH, each program run with its output in a log.
# Success is judged as a harness must: the program's own exit status
# (PIPESTATUS, not tee's) and no [ERROR] line in its log. Like upstream's,
# it builds in its own directory (build/, output_msg_*.txt): run a copy.
#   source <root>/set_env.sh
#   export SOC_VERSION=<aclrtGetSocName()> ASCENDC_CMAKE_DIR=<dir of ascendc.cmake>
#   bash run.sh
set -euo pipefail

if [ -z "${ASCEND_HOME_PATH:-}" ]; then
	echo "[ERROR]: ASCEND_HOME_PATH is not set. Please source CANN set_env.sh first." >&2
	exit 1
fi
cann_root=$ASCEND_HOME_PATH
# shellcheck source=/dev/null
source "$cann_root/bin/setenv.bash"
echo "[INFO]: CANN root ${cann_root}, SOC_VERSION ${SOC_VERSION}"

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
rm -rf build
cmake -B build -DASCEND_CANN_PACKAGE_PATH="$cann_root"
cmake --build build -j

for program in main main_acl_rt main_acl_rt_impl; do
	log=output_msg_$program.txt
	set +e
	"./build/$program" | tee "$log"
	status=${PIPESTATUS[0]}
	set -e
	if [ "$status" -ne 0 ]; then
		echo "[FAILURE] $program exited with status $status"
		exit 1
	fi
	if grep -q '\[ERROR\]' "$log"; then
		echo "[FAILURE] $program logged errors ($log)"
		exit 1
	fi
	echo "[SUCCESS] $program ran without errors"
done
