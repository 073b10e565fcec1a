#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the producer and the consumer side by side (../common/run_pair.sh) on the device
# NPU_DEVICE selects (it must be shared by processes: /dev/npu0 or an npud file).
#
#   run.sh BUILD_DIR | PRODUCER CONSUMER
set -euo pipefail
here=$(dirname "$0")
if [ $# -eq 1 ]; then
	exec "$here/../common/run_pair.sh" notify_pair "$1/producer" "$1/consumer"
elif [ $# -eq 2 ]; then
	exec "$here/../common/run_pair.sh" notify_pair "$1" "$2"
fi
echo "usage: $0 BUILD_DIR | PRODUCER CONSUMER" >&2
exit 2
