#!/bin/bash
# Run the exporter and the importer side by side on the device NPU_DEVICE
# selects (it must be shared by processes: /dev/npu0 or an npud file).
set -euo pipefail
if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR   (holding exporter and importer)" >&2
	exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "ipc_share: rendezvous in $dir, device ${NPU_DEVICE:-default}"
"$1/exporter" "$dir" &
exporter=$!
"$1/importer" "$dir"
wait "$exporter"
echo "ipc_share: OK"
