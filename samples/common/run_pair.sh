#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs the two processes of a multi-process sample side by side on the
# device NPU_DEVICE selects (it must be shared by processes: /dev/npu0 or an
# npud file): FIRST in the background, SECOND in the foreground, with a
# fresh rendezvous directory for both.
#
#   run_pair.sh NAME FIRST SECOND
set -euo pipefail
if [ $# -ne 3 ]; then
	echo "usage: $0 NAME FIRST SECOND" >&2
	exit 2
fi
name=$1 first_bin=$2 second_bin=$3
dir=$(mktemp -d)
first=
# A failing second process must not leave the first waiting for it.
trap '[ -n "$first" ] && kill "$first" 2>/dev/null; rm -rf "$dir"' EXIT
echo "$name: rendezvous in $dir, device ${NPU_DEVICE:-default}"
"$first_bin" "$dir" &
first=$!
"$second_bin" "$dir"
wait "$first"
first=
echo "$name: OK"
