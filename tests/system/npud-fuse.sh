#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Start or stop an npud --fuse instance for the tests (a ctest fixture).
#   npud-fuse.sh start DIR PIDFILE NPUD [NPUD-ARGS...]
#   npud-fuse.sh stop  DIR PIDFILE
# start returns once DIR/npu0 exists; npud's log goes to PIDFILE.log and its
# exit status to PIDFILE.status. stop sends SIGTERM, waits, and fails unless
# npud exited 0 and DIR is no longer mounted.
set -euo pipefail

usage() {
	echo "usage: $0 start DIR PIDFILE NPUD [ARGS...] | stop DIR PIDFILE" >&2
	exit 2
}

is_mounted() {
	# /proc/mounts escapes spaces as \040; test directories have none.
	awk -v d="$(realpath -m "$1")" '$2 == d { found = 1 } END { exit !found }' /proc/mounts
}

wait_for() { # SECONDS COMMAND...
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

alive() { kill -0 "$1" 2>/dev/null; }

[ $# -ge 3 ] || usage
cmd=$1 dir=$2 pidfile=$3
shift 3

case "$cmd" in
start)
	[ $# -ge 1 ] || usage
	npud=$1
	shift
	if [ -f "$pidfile" ] && alive "$(cat "$pidfile")"; then
		echo "stopping a leftover npud (pid $(cat "$pidfile"))"
		kill -TERM "$(cat "$pidfile")" || true
		wait_for 10 bash -c "! kill -0 $(cat "$pidfile") 2>/dev/null" || true
	fi
	if is_mounted "$dir"; then
		echo "unmounting a stale mount at $dir"
		fusermount3 -u "$dir" || umount -l "$dir"
	fi
	mkdir -p "$dir"
	rm -f "$pidfile" "$pidfile.status" "$pidfile.log"
	echo "starting $npud --fuse $dir $*"
	# A detached shell runs npud and records its exit status; its output
	# goes to a file so that ctest does not wait on our pipes.
	setsid bash -c '"$@" & echo $! > "$0"; wait $!; echo $? > "$0.status"' \
		"$pidfile" "$npud" --fuse "$dir" "$@" \
		</dev/null >"$pidfile.log" 2>&1 &
	if ! wait_for 10 test -e "$dir/npu0"; then
		echo "npud did not come up; its log:"
		cat "$pidfile.log"
		exit 1
	fi
	echo "npud is up (pid $(cat "$pidfile"))"
	;;
stop)
	[ -f "$pidfile" ] || { echo "no pid file $pidfile"; exit 1; }
	pid=$(cat "$pidfile")
	status=1
	if alive "$pid"; then
		echo "sending SIGTERM to npud (pid $pid)"
		kill -TERM "$pid"
		if wait_for 20 test -e "$pidfile.status"; then
			status=$(cat "$pidfile.status")
		else
			echo "npud did not exit; killing it"
			kill -KILL "$pid" || true
		fi
	else
		echo "npud (pid $pid) was not running"
	fi
	echo "npud log:"
	cat "$pidfile.log" || true
	if is_mounted "$dir"; then
		echo "FAIL: $dir is still mounted; unmounting"
		fusermount3 -u "$dir" || umount -l "$dir" || true
		exit 1
	fi
	if [ "$status" != 0 ]; then
		echo "FAIL: npud exit status $status"
		exit 1
	fi
	echo "npud stopped cleanly"
	;;
*)
	usage
	;;
esac
