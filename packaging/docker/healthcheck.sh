#!/bin/sh
# SPDX-License-Identifier: MIT
# The npud image's HEALTHCHECK (packaging/docker/Dockerfile): exit 0 when
# every device npud serves answers npu-smi, else 1.
#   healthcheck.sh fuse [DIR]   the FUSE files DIR/npuN (default /run/npu):
#                               npu-smi -L through each, a full round trip
#                               through npud
#   healthcheck.sh cuse         the CUSE devices: npu-smi -L through each
#                               /dev/npuN this container can see (the
#                               host's /dev mounted, a device-cgroup rule);
#                               otherwise, since the nodes are the host's,
#                               only that the kernel lists them in
#                               /sys/class/cuse
# NPU_DEVICE is always set: unset, the runtime would fall back to an
# in-process device and the check would pass without npud. NPU_SMI names
# npu-smi (default /opt/npu/bin/npu-smi, where the npu-runtime package puts it).
smi=${NPU_SMI:-/opt/npu/bin/npu-smi}
n=0
case ${1-} in
fuse)
	dir=${2:-/run/npu}
	for f in "$dir"/npu[0-9]*; do
		[ -e "$f" ] || continue
		NPU_DEVICE=$f "$smi" -L >/dev/null || {
			echo "npud-healthcheck: $f does not answer" >&2
			exit 1
		}
		n=$((n + 1))
	done
	;;
cuse)
	for s in /sys/class/cuse/npu[0-9]*; do
		[ -e "$s" ] || continue
		f=/dev/${s##*/}
		# Only a node the device cgroup lets this container open.
		if [ -c "$f" ] && (: <>"$f") 2>/dev/null; then
			NPU_DEVICE=$f "$smi" -L >/dev/null || {
				echo "npud-healthcheck: $f does not answer" >&2
				exit 1
			}
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
