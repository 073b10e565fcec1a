#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the exporter and the importer side by side on the device NPU_DEVICE
# selects (it must be shared by processes: /dev/npu0 or an npud file).
set -euo pipefail
# Either BUILD_DIR (holding exporter and importer) or the two programs.
if [ $# -eq 1 ]; then
	exporter_bin=$1/exporter
	importer_bin=$1/importer
elif [ $# -eq 2 ]; then
	exporter_bin=$1
	importer_bin=$2
else
	echo "usage: $0 BUILD_DIR | EXPORTER IMPORTER" >&2
	exit 2
fi
dir=$(mktemp -d)
exporter=
# A failing importer must not leave the exporter waiting for it.
trap '[ -n "$exporter" ] && kill "$exporter" 2>/dev/null; rm -rf "$dir"' EXIT
echo "ipc_share: rendezvous in $dir, device ${NPU_DEVICE:-default}"
"$exporter_bin" "$dir" &
exporter=$!
"$importer_bin" "$dir"
wait "$exporter"
exporter=
echo "ipc_share: OK"
