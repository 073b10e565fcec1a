#!/bin/sh
# SPDX-License-Identifier: MIT
# The npud image's HEALTHCHECK (packaging/docker/Dockerfile): exit 0 when
# every device npud serves answers npu-smi, else 1.
#   healthcheck.sh fuse [DIR]   the FUSE files DIR/npuN (default
#                               /run/npu/dev): npu-smi -L through each, a
#                               full round trip through npud, by a probe
#                               process that npud must see (a daemon that
#                               cannot see its clients' pids, e.g. one
#                               started without --pid host, fails it)
#   healthcheck.sh cuse         the CUSE devices: npu-smi -L through each
#                               /dev/npuN this container can see (the
#                               host's /dev mounted, a device-cgroup rule);
#                               otherwise, since the nodes are the host's,
#                               only that the kernel lists them in
#                               /sys/class/cuse
# Every step runs under `timeout` (NPUD_HEALTH_TIMEOUT seconds each,
# default 5): an npud that is stopped (SIGSTOP) or hung leaves a file
# operation waiting forever, which must make the check fail, not hang.
# NPU_DEVICE is always set: unset, the runtime would fall back to an
# in-process device and the check would pass without npud. NPU_SMI names
# npu-smi (default /opt/npu/bin/npu-smi, where the npu-runtime package puts it).
smi=${NPU_SMI:-/opt/npu/bin/npu-smi}
t=${NPUD_HEALTH_TIMEOUT:-5}
n=0
err=$(mktemp 2>/dev/null || echo /tmp/npud-healthcheck.$$)
trap 'rm -f "$err"' EXIT

# probe FILE: npu-smi -L through FILE, bounded; fails with npu-smi's reason.
probe() {
	if ! NPU_DEVICE=$1 timeout -k 1 "$t" "$smi" -L >/dev/null 2>"$err"; then
		echo "npud-healthcheck: $1 does not answer (${t}s at most): $(tail -n 1 "$err")" >&2
		exit 1
	fi
}

case ${1-} in
fuse)
	dir=${2:-/run/npu/dev}
	# Listing the directory asks npud too: bounded like the rest.
	files=$(timeout -k 1 "$t" find "$dir" -mindepth 1 -maxdepth 1 -name 'npu[0-9]*' 2>"$err") || {
		echo "npud-healthcheck: $dir does not answer (${t}s at most): $(tail -n 1 "$err")" >&2
		exit 1
	}
	for f in $files; do
		probe "$f"
		n=$((n + 1))
	done
	;;
cuse)
	for s in /sys/class/cuse/npu[0-9]*; do
		[ -e "$s" ] || continue
		f=/dev/${s##*/}
		# Only a node the device cgroup lets this container open.
		# shellcheck disable=SC2016  # $1 is the inner shell's
		if [ -c "$f" ] && timeout -k 1 "$t" sh -c ': <>"$1"' _ "$f" 2>/dev/null; then
			probe "$f"
		fi
		n=$((n + 1))
	done
	;;
*)
	echo "usage: healthcheck.sh fuse [DIR] | cuse" >&2
	exit 1 # docker reserves 2
	;;
esac
if [ "$n" -eq 0 ]; then
	echo "npud-healthcheck: npud serves no device" >&2
	exit 1
fi
exit 0
