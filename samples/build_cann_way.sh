#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs a sample the way a CANN user does: install the project to
# a prefix, source the prefix's set_env.sh, configure the sample's own
# CMakeLists.txt (which finds the toolkit through ASCEND_HOME_PATH), build it
# and run it with the library the environment points at.
#
#   build_cann_way.sh BUILD_DIR SAMPLE_SOURCE_DIR WORK_DIR
set -euo pipefail

[[ $# -eq 3 ]] || { echo "usage: $0 BUILD_DIR SAMPLE_SOURCE_DIR WORK_DIR" >&2; exit 2; }
build_dir=$1 sample=$2 work=$3

rm -rf "$work"
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
# shellcheck source=/dev/null  # the installed script
source "$work/prefix/set_env.sh"
cmake -S "$sample" -B "$work/build" >/dev/null
cmake --build "$work/build" >/dev/null
NPU_DEVICE=inproc "$work/build/main"
