#!/usr/bin/env bash
# Command-line behaviour of npud that needs no mount.
#   npud-cli.sh usage NPUD   bad options: exit 2 and a usage line
#   npud-cli.sh cuse NPUD    without /dev/cuse: clean failure with a clear
#                            message (exit 77 = skipped where /dev/cuse exists)
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 usage|cuse NPUD" >&2; exit 2; }
mode=$1 npud=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT

expect_usage() { # ARGS...
	local rc=0
	echo "npud $*"
	timeout 10 "$npud" "$@" >"$out" 2>&1 || rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q '^usage: npud' "$out"; then
		echo "FAIL: want exit 2 and a usage line, got exit $rc:"
		cat "$out"
		exit 1
	fi
}

case "$mode" in
usage)
	expect_usage
	expect_usage --bogus
	expect_usage --fuse
	expect_usage --fuse /nonexistent/x --cuse
	expect_usage --fuse /nonexistent/x --devices 0
	expect_usage --fuse /nonexistent/x --devices 65
	expect_usage --fuse /nonexistent/x --devices 2x
	expect_usage --fuse /nonexistent/x --hbm-size 1.5G
	expect_usage --fuse /nonexistent/x --hbm-size 1000K
	expect_usage --fuse /nonexistent/x --hbm-size 16Q
	expect_usage --fuse /nonexistent/x --mode 0666
	expect_usage --cuse --mode 999
	expect_usage --fuse /nonexistent/x extra
	expect_usage --fuse /nonexistent/x --limit-rings 0
	expect_usage --fuse /nonexistent/x --limit-rings -1
	expect_usage --fuse /nonexistent/x --limit-allocations 4294967296
	expect_usage --fuse /nonexistent/x --limit-ipc-keys 7x
	expect_usage --fuse /nonexistent/x --limit-hbm 1000K
	expect_usage --fuse /nonexistent/x --limit-pin 0
	echo "all usage errors rejected"
	;;
cuse)
	if [ -e /dev/cuse ]; then
		echo "/dev/cuse exists: skipping"
		exit 77
	fi
	rc=0
	timeout 20 "$npud" --cuse --devices 2 --hbm-size 64M --mode 0666 >"$out" 2>&1 || rc=$?
	cat "$out"
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
		echo "FAIL: want a non-zero exit without /dev/cuse, got $rc"
		exit 1
	fi
	if ! grep -q 'cannot open /dev/cuse (try modprobe cuse)' "$out"; then
		echo "FAIL: the message does not name /dev/cuse and modprobe cuse"
		exit 1
	fi
	echo "npud --cuse failed cleanly (exit $rc)"
	;;
*)
	echo "unknown mode $mode" >&2
	exit 2
	;;
esac
