#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the exporter and the importer side by side (../common/run_pair.sh) on the device
# NPU_DEVICE selects (it must be shared by processes: /dev/npu0 or an npud file).
#
#   run.sh BUILD_DIR | EXPORTER IMPORTER
set -euo pipefail
here=$(dirname "$0")
if [ $# -eq 1 ]; then
	exec "$here/../common/run_pair.sh" ipc_share "$1/exporter" "$1/importer"
elif [ $# -eq 2 ]; then
	exec "$here/../common/run_pair.sh" ipc_share "$1" "$2"
fi
echo "usage: $0 BUILD_DIR | EXPORTER IMPORTER" >&2
exit 2
