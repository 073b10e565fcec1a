#!/bin/bash
# SPDX-License-Identifier: MIT
# npu-smi on the FUSE device shows real values: a peer process's allocation,
# its import and its exported key with the importer.
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 NPU_SMI NPU_SMI_PEER" >&2
	exit 2
fi
smi=$1 peer=$2
fifo=$(mktemp -u)
mkfifo "$fifo"
trap 'rm -f "$fifo"' EXIT
"$peer" < "$fifo" > "$fifo.out" &
pid=$!
exec 3> "$fifo"
for _ in $(seq 100); do grep -q ready "$fifo.out" 2>/dev/null && break; sleep 0.05; done
read -r _ tgid tag < "$fifo.out"
echo "peer tgid $tgid key $tag..."
out=$("$smi")
echo "$out"
json=$(mktemp)
trap 'rm -f "$fifo" "$json"' EXIT
"$smi" --json > "$json"
cmake -DJSON="$json" -DTGID="$tgid" -DTAG="$tag" -P "$(dirname "$0")/check_smi_json.cmake"
only1=$("$smi" info -i 1)
list=$("$smi" -L)
csv=$("$smi" --format=csv)
echo done >&3
exec 3>&-
wait "$pid"
rm -f "$fifo.out"
fail() { echo "FAIL: $*" >&2; exit 1; }
grep -q "^Device 1$" <<<"$out" || fail "no device 1"
grep -Eq "HBM total [0-9.]+ MiB, free [0-9.]+ MiB" <<<"$out" || fail "no HBM line"
grep -Eq "free 2M pages: [0-9.]+ MiB of [0-9.]+ MiB" <<<"$out" || fail "no 2M class line"
# The peer maps its 4 MiB allocation (plus the runtime's pad) and the 4 MiB import.
line=$(grep -E "^ +$tgid +[0-9]+ +[0-9.]+ +1 +1 +0 " <<<"$out") || fail "no process line for $tgid"
mapped=$(awk '{print int($3)}' <<<"$line")
[ "$mapped" -ge 8 ] || fail "tgid $tgid maps only $mapped MiB"
grep -Eq "ipc key $tag\.\.\. exporter tgid $tgid device 1 size 4\.0 MiB whitelist off" <<<"$out" ||
	fail "no key line"
grep -Eq "imported by tgid $tgid \(4\.0 MiB\)" <<<"$out" || fail "no importer line"
# One device with -i; -L and CSV list every device; bad usage is exit 2.
grep -q "^Device 1$" <<<"$only1" && ! grep -q "^Device 0$" <<<"$only1" || fail "-i 1"
[ "$(grep -c '^NPU [0-9]*: [0-9]* MiB HBM, driver ABI' <<<"$list")" -ge 2 ] || fail "-L: $list"
head -n 1 <<<"$csv" | grep -q '^id,hbm_total,hbm_free,' || fail "no CSV header"
grep -Eq '^1,[0-9]+,[0-9]+,' <<<"$csv" || fail "no CSV row for device 1"
"$smi" --version | grep -Eq '^npu-smi [0-9]+\.[0-9]+' || fail "--version"
rc=0
"$smi" --bogus 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "--bogus exited $rc, want 2"
echo PASS
