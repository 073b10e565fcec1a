#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Command-line behaviour of npud that needs no mount.
#   npud-cli.sh usage NPUD   bad options: exit 2 and a usage line
#   npud-cli.sh cuse NPUD    without /dev/cuse: clean failure with a clear
#                            message (exit 77 = skipped where /dev/cuse exists)
#   npud-cli.sh restart NPUD npud --fuse on a directory of its own: after
#                            kill -9 a new npud removes the stale mount and
#                            serves again; a second npud on the same
#                            directory refuses to start; SIGHUP does not
#                            stop npud; SIGTERM does, leaving no mount
#                            (needs root and /dev/fuse)
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 usage|cuse|restart NPUD" >&2; exit 2; }
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
	expect_usage --fuse /nonexistent/x --name npub
	expect_usage --cuse --name ''
	expect_usage --cuse --name npu1
	expect_usage --cuse --name 1npu
	expect_usage --cuse --name npu/x
	expect_usage --cuse --name abcdefghijklmnopq
	expect_usage --fuse /nonexistent/x extra
	expect_usage --fuse /nonexistent/x --limit-rings 0
	expect_usage --fuse /nonexistent/x --limit-rings -1
	expect_usage --fuse /nonexistent/x --limit-allocations 4294967296
	expect_usage --fuse /nonexistent/x --limit-ipc-keys 7x
	expect_usage --fuse /nonexistent/x --limit-hbm 1000K
	expect_usage --fuse /nonexistent/x --limit-pin 0
	expect_usage --fuse /nonexistent/x --log-level loud
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
restart)
	dir=$(mktemp -d)
	log1=$(mktemp) log2=$(mktemp)
	pid=
	cleanup() {
		[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true
		umount -l "$dir" 2>/dev/null || true
		rmdir "$dir" 2>/dev/null || true
		rm -f "$out" "$log1" "$log2"
	}
	trap cleanup EXIT
	fail() {
		echo "FAIL: $*"
		for f in "$log1" "$log2" "$out"; do
			echo "--- $f"
			cat "$f"
		done
		exit 1
	}
	serving() { [ -e "$dir/npu0" ]; }
	wait_for() { # what COMMAND...
		local what=$1 i
		shift
		for i in $(seq 100); do
			"$@" && return 0
			sleep 0.1
		done
		fail "$what"
	}
	# Ready when npud says so: the kernel answers for a dead npud's files
	# from its attribute cache for a while, so the files alone prove nothing.
	start() { # LOG
		"$npud" --fuse "$dir" --hbm-size 64M >"$1" 2>&1 &
		pid=$!
		wait_for "npud did not come up at $dir" grep -q "npud: serving" "$1"
		serving || fail "npud says it serves, but $dir/npu0 is not there"
	}

	start "$log1"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
	# A directory listing needs the daemon (file attributes may be cached).
	if ls "$dir" >/dev/null 2>&1; then
		fail "the mount still answers after kill -9"
	fi
	echo "killed npud left its mount behind, as expected"
	start "$log2"
	grep -q 'removed the stale mount' "$log2" || fail "no word of the stale mount"
	echo "a new npud removed the stale mount and serves $dir"

	rc=0
	timeout 20 "$npud" --fuse "$dir" --hbm-size 64M >"$out" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || fail "a second npud on $dir exited $rc, want 1"
	grep -q 'another npud serves' "$out" || fail "the second npud did not say why"
	serving || fail "the first npud stopped serving"
	echo "a second npud refused: $(cat "$out")"

	kill -HUP "$pid"
	sleep 0.5
	kill -0 "$pid" 2>/dev/null || fail "SIGHUP stopped npud"
	serving || fail "npud stopped serving after SIGHUP"
	grep -q 'SIGHUP' "$log2" || fail "SIGHUP was not logged"
	echo "SIGHUP: still serving"

	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	pid=
	[ "$rc" -eq 0 ] || fail "npud exited $rc after SIGTERM"
	! awk -v d="$dir" '$5 == d { found = 1 } END { exit !found }' /proc/self/mountinfo ||
		fail "the mount is still there after SIGTERM"
	echo "SIGTERM: exit 0, no mount left"
	;;
*)
	echo "unknown mode $mode" >&2
	exit 2
	;;
esac
