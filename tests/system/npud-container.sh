#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What containers need of npud, on the host (root and /dev/fuse; else 77):
#   stale   a second npud refused while the first serves, then kill -9 of
#           the first: the next npud must take the mount for the dead one
#           it is (the kernel still answers stat() from its cache) and serve
#   pidns   npud in a pid namespace of its own cannot see a client of the
#           host's: the open fails with EREMOTE, the client's message names
#           the pid namespace and --pid host, npud logs the refusal, and the
#           HEALTHCHECK, whose probe npud cannot see either, fails
#   shared  a mount that does not propagate: npud warns, and refuses with
#           --require-shared; under a shared parent it serves quietly
#   health  the HEALTHCHECK: healthy while npud serves, unhealthy within
#           its timeout once npud is stopped (SIGSTOP), healthy again after
#           SIGCONT
# usage: npud-container.sh MODE NPUD NPU_SMI HEALTHCHECK [ACL_CLIENT]
# ACL_CLIENT: npud_restart_client, whose --open shows the runtime's message.
set -euo pipefail

[ $# -eq 4 ] || [ $# -eq 5 ] ||
	{ echo "usage: $0 stale|pidns|shared|health NPUD NPU_SMI HEALTHCHECK [ACL_CLIENT]" >&2; exit 2; }
mode=$1 npud=$2 smi=$3 hc=$4 acl=${5:-}
if [ "$(id -u)" -ne 0 ] || [ ! -w /dev/fuse ]; then
	echo "needs root and /dev/fuse: skipped"
	exit 77
fi
top=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -CONT "$p" 2>/dev/null || true
		kill -9 "$p" 2>/dev/null || true
	done
	# Innermost first.
	awk -v t="$top" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null || true; done
	rm -rf "$top" 2>/dev/null || true
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	for f in "$top"/*.log; do
		[ -e "$f" ] || continue
		echo "--- $f"
		cat "$f"
	done
	exit 1
}
wait_for() { # WHAT COMMAND...
	local what=$1 _
	shift
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	fail "$what"
}
# start LOG DIR [ARGS...]: npud --fuse DIR in the background, until it serves.
last=
start() {
	local log=$1 dir=$2
	shift 2
	"$npud" --fuse "$dir" --hbm-size 64M "$@" >"$log" 2>&1 &
	last=$!
	pids+=("$last")
	wait_for "npud did not come up at $dir" grep -q "npud: serving" "$log"
}

case "$mode" in
stale)
	dir=$top/share/dev
	mkdir -p "$dir"
	for round in 1 2 3; do
		start "$top/npud$round.log" "$dir"
		first=$last
		rc=0
		timeout 20 "$npud" --fuse "$dir" --hbm-size 64M >"$top/second$round.log" 2>&1 || rc=$?
		[ "$rc" -eq 1 ] || fail "round $round: a second npud exited $rc, want 1"
		grep -q 'another npud serves' "$top/second$round.log" ||
			fail "round $round: the second npud did not say why"
		NPU_DEVICE=$dir/npu0 timeout 20 "$smi" -L >/dev/null ||
			fail "round $round: the first npud stopped serving"
		kill -9 "$first"
		wait "$first" 2>/dev/null || true
		echo "round $round: first npud killed after a refused second one"
	done
	start "$top/npud-last.log" "$dir"
	grep -q 'removed the stale mount' "$top/npud-last.log" || fail "no word of the stale mount"
	NPU_DEVICE=$dir/npu0 timeout 20 "$smi" -L || fail "the new npud does not answer"
	echo "PASS: each new npud removed the dead one's mount and serves"
	;;
pidns)
	dir=$top/share/dev
	mkdir -p "$dir"
	# npud's own pid namespace (the host's /proc stays): the kernel
	# reports a host client to it as pid 0.
	unshare --pid --fork --kill-child "$npud" --fuse "$dir" --hbm-size 64M >"$top/npud.log" 2>&1 &
	pids+=("$!")
	wait_for "npud did not come up at $dir" grep -q "npud: serving" "$top/npud.log"
	rc=0
	NPU_DEVICE=$dir/npu0 timeout 20 "$smi" -L >"$top/smi.log" 2>&1 || rc=$?
	cat "$top/smi.log"
	[ "$rc" -ne 0 ] || fail "a client npud cannot see was served"
	grep -qi 'remote' "$top/smi.log" || fail "npu-smi did not get EREMOTE"
	grep -q 'pid namespace npud cannot see' "$top/npud.log" || fail "npud did not log the refusal"
	grep -q -- '--pid host' "$top/npud.log" || fail "npud's refusal does not name --pid host"
	# The runtime's own message (aclGetRecentErrMsg).
	if [ -n "$acl" ]; then
		rc=0
		NPU_DEVICE=$dir/npu0 timeout 20 "$acl" --open >"$top/acl.log" 2>&1 || rc=$?
		cat "$top/acl.log"
		[ "$rc" -eq 1 ] || fail "aclrtSetDevice through an npud that cannot see us: exit $rc"
		grep -q 'different pid namespace' "$top/acl.log" || fail "the message names no pid namespace"
		grep -q -- '--pid host' "$top/acl.log" || fail "the message names no --pid host"
	fi
	rc=0
	NPU_SMI=$smi NPUD_HEALTH_TIMEOUT=10 sh "$hc" fuse "$dir" 2>"$top/hc.log" || rc=$?
	cat "$top/hc.log"
	[ "$rc" -eq 1 ] || fail "the HEALTHCHECK said $rc for an npud that cannot see its probe"
	echo "PASS: refused with EREMOTE, logged, unhealthy"
	;;
shared)
	# Private: a directory on no shared mount (tmpfs of its own).
	mkdir -p "$top/private"
	mount -t tmpfs -o size=1M npu-test "$top/private"
	mount --make-private "$top/private"
	mkdir -p "$top/private/dev"
	rc=0
	timeout 20 "$npud" --fuse "$top/private/dev" --hbm-size 64M --require-shared \
		>"$top/require.log" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || fail "--require-shared on a private mount exited $rc, want 1"
	grep -q 'does not propagate' "$top/require.log" || fail "--require-shared did not say why"
	! awk -v d="$top/private/dev" '$5 == d { f = 1 } END { exit !f }' /proc/self/mountinfo ||
		fail "--require-shared left its mount behind"
	start "$top/warn.log" "$top/private/dev"
	grep -q 'warning: .*does not propagate' "$top/warn.log" || fail "no warning without --require-shared"
	kill -TERM "$last"
	wait "$last" || fail "npud exited $? after SIGTERM"
	# Shared: the parent bind-mounted onto itself and made rshared.
	mkdir -p "$top/share/dev"
	mount --bind "$top/share" "$top/share"
	mount --make-rshared "$top/share"
	start "$top/shared.log" "$top/share/dev" --require-shared
	! grep -q 'does not propagate' "$top/shared.log" || fail "a warning under a shared parent"
	NPU_DEVICE=$top/share/dev/npu0 timeout 20 "$smi" -L || fail "npud under a shared parent does not answer"
	echo "PASS: warned, refused with --require-shared, quiet when shared"
	;;
health)
	dir=$top/share/dev
	mkdir -p "$dir"
	start "$top/npud.log" "$dir"
	NPU_SMI=$smi sh "$hc" fuse "$dir" || fail "unhealthy while npud serves"
	kill -STOP "$last"
	t0=$(date +%s)
	rc=0
	NPU_SMI=$smi NPUD_HEALTH_TIMEOUT=3 timeout 60 sh "$hc" fuse "$dir" || rc=$?
	t=$(($(date +%s) - t0))
	[ "$rc" -eq 1 ] || fail "the HEALTHCHECK said $rc with npud stopped (want 1; 124: it hung)"
	[ "$t" -le 20 ] || fail "the HEALTHCHECK took ${t}s with npud stopped"
	echo "stopped npud: unhealthy in ${t}s"
	kill -CONT "$last"
	NPU_SMI=$smi sh "$hc" fuse "$dir" || fail "unhealthy after SIGCONT"
	kill -TERM "$last"
	wait "$last" || fail "npud exited $? after SIGTERM"
	echo "PASS: healthy, unhealthy when stopped, healthy again"
	;;
*)
	echo "unknown mode $mode" >&2
	exit 2
	;;
esac
