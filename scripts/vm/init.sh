#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# /init of the VM test guest (copied in by scripts/vm/run.sh; runs under busybox ash).
#
# Loads npu.ko and runs every listed program against /dev/npu0, checks the driver's
# counters and removes the module; then does the same with `npud --cuse`, with a second
# npud beside it for test_budget (VM_BUDGET_NPUD_ARGS: its small limits) and another for
# test_user_clients (--limit-user-clients 2; it runs on CUSE only). Every result
# is a "VMTEST ..." line on the serial console; the last line the host looks for is
# NPU_VM_RESULT=PASS or NPU_VM_RESULT=FAIL. The host decides from those lines only,
# because qemu exits 0 whether the guest powered off or panicked.
#
# Inputs, written by run.sh:
#   /vmtest/config    shell variables (VM_DEVICES, VM_BACKENDS, VM_PROG_TIMEOUT, ...)
#   /vmtest/programs  one program per line: "<set> <name> <absolute path> <ldpath> <rt>",
#                     ldpath being its LD_LIBRARY_PATH (the guest has no ld.so.cache)
#                     or "-" for a static program; rt is 1 if it links libascendcl
#   /vmtest/env       one VAR=VALUE per line, exported to every program
#
# shellcheck disable=SC2086,SC2046,SC2163  # argument lists are split into words on purpose

# Debian's kernel has no DEVTMPFS_MOUNT and the cpio has no /dev/console: mount devtmpfs
# first, then take the console for stdin/stdout/stderr.
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1

export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# /dev/shm is on devtmpfs and needs its own tmpfs. /tmp and /run stay on the
# (writable) rootfs: the programs are unpacked at their host paths, which may
# well be under /tmp (a fresh clone there), and a mount would hide them.
mkdir -p /dev/shm /run /tmp
mount -t tmpfs tmpfs /dev/shm

# shellcheck source=/dev/null
. /vmtest/config
while IFS= read -r kv; do
	[ -n "$kv" ] && export "$kv"
done </vmtest/env

failures=0

fail() {
	echo "VMTEST FAIL $*"
	failures=$((failures + 1))
}

# Milliseconds since boot; /proc/uptime has exactly two decimals ("08" is no octal).
now_ms() {
	read -r up _ </proc/uptime
	frac=${up#*.}
	echo $((${up%.*} * 1000 + ${frac#0} * 10))
}

# True while process $1 exists and is not a zombie.
alive() {
	[ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# wait_nodes TENTHS [NAME COUNT [MODE]]: wait until /dev/NAME0 .. /dev/NAME$((COUNT - 1))
# all exist (default: npu and VM_DEVICES), with octal permissions MODE if given.
wait_nodes() {
	tries=0
	while :; do
		i=0
		missing=
		while [ "$i" -lt "${3:-$VM_DEVICES}" ]; do
			node=/dev/${2:-npu}$i
			if [ ! -c "$node" ] || { [ -n "$4" ] && [ "$(stat -c %a "$node")" != "$4" ]; }; then
				missing="$missing $node"
			fi
			i=$((i + 1))
		done
		[ -z "$missing" ] && return 0
		[ "$tries" -ge "$1" ] && { echo "missing:$missing"; return 1; }
		sleep 0.1
		tries=$((tries + 1))
	done
}

# "IOCTLS URING_CMDS": RING_ENTER calls the module has seen on all its devices, by
# path (npu/npuN/doorbells in debugfs); "- -" without those files.
doorbells() {
	set -- /sys/kernel/debug/npu/npu*/doorbells
	[ -r "$1" ] || { echo "- -"; return; }
	cat "$@" | awk '$1 == "ioctl" { i += $2 } $1 == "uring_cmd" { u += $2 }
		END { print i + 0, u + 0 }'
}

# run_programs LABEL [VAR=VALUE...]: every listed program, with NPU_DEVICE=/dev/npu0 and
# the given extra environment. On the module, the doorbell counters show which path
# each program's RING_ENTERs took; with NPU_URING=1 (io_uring required) a program
# linking the runtime must not use the ioctl and the pass must use io_uring; with
# NPU_URING=0 the reverse. Programs that drive the device themselves (raw ioctls,
# uring_test's own io_uring) are exempt: the variable is the runtime's. With only_prog
# set, only the program of that name runs; with skip_prog set, all but that one.
# npud_only_progs test npud itself, against an npud of their own (stage_cuse): no
# shared pass runs them.
only_prog=
skip_prog=
npud_only_progs=test_user_clients
run_programs() {
	label=$1
	shift
	uring=
	for kv in "$@"; do
		case "$kv" in NPU_URING=*) uring=${kv#NPU_URING=} ;; esac
	done
	pass_ioctl=0
	pass_uring=0
	while read -r set name path ldpath rt; do
		[ -n "$only_prog" ] && [ "$name" != "$only_prog" ] && continue
		[ "$name" = "$skip_prog" ] && continue
		if [ -z "$only_prog" ]; then
			case " $npud_only_progs " in *" $name "*) continue ;; esac
		fi
		echo "VMTEST begin name=$name set=$set backend=$label"
		[ "$ldpath" = - ] && ldpath=
		set -- $(doorbells) "$@"
		db_ioctl=$1 db_uring=$2
		shift 2
		t0=$(now_ms)
		env NPU_DEVICE=/dev/npu0 NPU_VM_BACKEND="$label" ${ldpath:+LD_LIBRARY_PATH=$ldpath} \
			"$@" timeout -s KILL "$VM_PROG_TIMEOUT" "$path" </dev/null
		rc=$?
		t1=$(now_ms)
		db=
		if [ "$db_ioctl" != - ]; then
			set -- $(doorbells) "$@"
			db_ioctl=$(($1 - db_ioctl)) db_uring=$(($2 - db_uring))
			shift 2
			db=" ring_enter=ioctl:$db_ioctl,uring_cmd:$db_uring"
			if [ "$rt" = 1 ]; then
				pass_ioctl=$((pass_ioctl + db_ioctl))
				pass_uring=$((pass_uring + db_uring))
			fi
		fi
		echo "VMTEST name=$name set=$set backend=$label rc=$rc ms=$((t1 - t0))$db"
		if [ "$rc" -eq 137 ]; then
			fail "$name on $label: killed (timeout ${VM_PROG_TIMEOUT}s or SIGKILL)"
		elif [ "$rc" -ne 0 ]; then
			fail "$name on $label: rc=$rc"
		fi
		if [ -n "$db" ] && [ "$rt" = 1 ]; then
			[ "$uring" = 1 ] && [ "$db_ioctl" -ne 0 ] &&
				fail "$name on $label: $db_ioctl RING_ENTER ioctls with NPU_URING=1"
			[ "$uring" = 0 ] && [ "$db_uring" -ne 0 ] &&
				fail "$name on $label: $db_uring io_uring doorbells with NPU_URING=0"
		fi
	done </vmtest/programs
	case "$label" in
	kmod*)
		echo "VMTEST doorbells backend=$label NPU_URING=${uring:-unset}" \
			"runtime_programs: ioctl=$pass_ioctl uring_cmd=$pass_uring"
		if [ "$(doorbells)" = "- -" ]; then
			[ -n "$uring" ] && fail "no npu/npu*/doorbells in debugfs: the doorbell path is unknown"
		elif [ "$uring" = 1 ] && [ "$pass_uring" -eq 0 ]; then
			fail "the NPU_URING=1 pass on $label rang no doorbell through io_uring"
		elif [ "$uring" = 0 ] && [ "$pass_ioctl" -eq 0 ]; then
			fail "the NPU_URING=0 pass on $label rang no doorbell through the ioctl"
		fi
		;;
	esac
}

# Every file under /sys/kernel/debug/npu is printed. Files named "counters*" hold live
# object/page counts ("name value" lines, or one number); each number must be back to 0.
# Release work may finish just after the last close, so allow two seconds.
check_counters() {
	dir=/sys/kernel/debug/npu
	if [ ! -d "$dir" ]; then
		echo "VMTEST counters=missing (no $dir; driver exposes no counters)"
		return
	fi
	files=$(find "$dir" -type f | sort)
	for f in $files; do
		echo "--- $f"
		cat "$f"
	done
	checked=$(find "$dir" -type f -name 'counters*' | sort)
	if [ -z "$checked" ]; then
		echo "VMTEST counters=missing (no counters* file under $dir)"
		return
	fi
	tries=0
	while :; do
		nonzero=$(for f in $checked; do
			awk -v f="$f" '{ for (i = 1; i <= NF; i++)
				if ($i ~ /^[0-9]+$/ && $i != 0) print f ": " $0 }' "$f"
		done)
		[ -z "$nonzero" ] && break
		[ "$tries" -ge 20 ] && break
		sleep 0.1
		tries=$((tries + 1))
	done
	if [ -n "$nonzero" ]; then
		echo "$nonzero"
		fail "driver counters not zero after the suite (see above)"
		echo "VMTEST counters=nonzero"
	else
		echo "VMTEST counters=zero files=$(echo $checked | wc -w)"
	fi
}

# Pages the kernel has vmalloc'ed, in kB: the module's emulated HBM is vmalloc'ed
# lazily, chunk by chunk, and must all be freed when it unloads.
vmalloc_kb() {
	awk '$1 == "VmallocUsed:" { print $2 }' /proc/meminfo
}

stage_kmod() {
	echo "VMTEST stage=kmod begin"
	stage_t0=$(now_ms)
	vmalloc_before=$(vmalloc_kb)
	for m in $VM_KMOD_DEPS; do
		modprobe "$m" || fail "modprobe $m (dependency of npu.ko)"
	done
	params="devices=$VM_DEVICES"
	[ -n "$VM_HBM_MB" ] && params="$params hbm_mb=$VM_HBM_MB"
	echo "VMTEST insmod /npu.ko $params"
	if ! insmod /npu.ko $params; then
		fail "insmod npu.ko"
		return
	fi
	if wait_nodes 50; then
		ls -l /dev/npu*
		run_programs kmod $VM_KMOD_ENV
		# Extra passes, e.g. with the runtime's io_uring doorbell switched off:
		# "label:VAR=VALUE,VAR=VALUE" each.
		for v in $VM_KMOD_VARIANTS; do
			run_programs "kmod-${v%%:*}" $(echo "${v#*:}" | tr ',' ' ')
		done
	else
		fail "device nodes missing after insmod"
	fi
	echo "VMTEST misc devices:" /sys/class/misc/npu*
	check_counters
	grep '^npu ' /proc/modules
	vmalloc_loaded=$(vmalloc_kb)
	if rmmod npu; then
		echo "VMTEST rmmod=ok"
		# The module's own code and data are vmalloc'ed too; 1 MiB of slack
		# covers the kernel's lazy bookkeeping, a leaked 2 MiB chunk does not.
		vmalloc_after=$(vmalloc_kb)
		echo "VMTEST vmalloc_kb before_insmod=$vmalloc_before before_rmmod=$vmalloc_loaded" \
			"after_rmmod=$vmalloc_after"
		[ "$vmalloc_after" -gt $((vmalloc_before + 1024)) ] &&
			fail "VmallocUsed grew by $((vmalloc_after - vmalloc_before)) kB across insmod..rmmod"
	else
		fail "rmmod npu"
	fi
	[ -e /dev/npu0 ] && fail "/dev/npu0 still exists after rmmod"
	echo "VMTEST stage=kmod end ms=$(($(now_ms) - stage_t0))"
}

# side_npud NAME PROG ARGS...: run program PROG alone against a second npud --cuse
# beside the main one, with ARGS, its own node name (/dev/NAME0) open to everyone (the
# tests switch to nobody), and NPUD_SIDE_PIDFILE naming it; then stop it, which must
# exit 0. It runs only while PROG does: other tests (test_tenancy, test_npud_privs)
# watch "the only npud". Extra VAR=VALUE for PROG: side_env.
side_npud() {
	side_name=$1
	side_prog=$2
	shift 2
	grep -q "^[^ ]* $side_prog " /vmtest/programs || return 0
	args="--cuse --name $side_name --mode 0666 $*"
	echo "VMTEST start /npud $args"
	env ${VM_NPUD_LDPATH:+LD_LIBRARY_PATH=$VM_NPUD_LDPATH} /npud $args </dev/null &
	side_pid=$!
	echo "$side_pid" >"/run/npud-$side_name.pid"
	if ! wait_nodes 50 "$side_name" 1 666; then
		fail "$side_name npud: /dev/${side_name}0 missing 5 s after starting it"
	else
		only_prog=$side_prog
		run_programs cuse $side_env
		only_prog=
	fi
	stop_npud "$side_pid" "$side_name-npud"
}

# stop_npud PID WHAT: SIGTERM; it must exit with status 0 within 5 s.
stop_npud() {
	kill -TERM "$1"
	tries=0
	while alive "$1" && [ "$tries" -lt 50 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
	if alive "$1"; then
		fail "$2 (pid $1) still running 5 s after SIGTERM"
		kill -KILL "$1"
	fi
	wait "$1"
	rc=$?
	echo "VMTEST $2 rc=$rc"
	[ "$rc" -eq 0 ] || fail "$2 exited with rc=$rc after SIGTERM"
}

stage_cuse() {
	echo "VMTEST stage=cuse begin"
	stage_t0=$(now_ms)
	if ! modprobe cuse; then
		fail "modprobe cuse"
		return
	fi
	args="--cuse --devices $VM_DEVICES"
	[ -n "$VM_HBM_MB" ] && args="$args --hbm-size ${VM_HBM_MB}M"
	echo "VMTEST start /npud $args"
	t0=$(now_ms)
	env ${VM_NPUD_LDPATH:+LD_LIBRARY_PATH=$VM_NPUD_LDPATH} /npud $args </dev/null &
	npud_pid=$!
	if wait_nodes 50; then
		echo "VMTEST cuse nodes after $(($(now_ms) - t0)) ms"
		ls -l /dev/npu*
		[ -n "$VM_BUDGET_NPUD_ARGS" ] && skip_prog=test_budget
		run_programs cuse
		skip_prog=
		# test_budget: the small limits of tests/system/npud_budget.args.
		if [ -n "$VM_BUDGET_NPUD_ARGS" ]; then
			side_env="NPU_BUDGET_DEVICE=/dev/npubudget0 NPUD_BUDGET_PIDFILE=/run/npud-npubudget.pid"
			side_npud npubudget test_budget $VM_BUDGET_NPUD_ARGS
		fi
		# test_user_clients: npud's cap on one user's client processes.
		side_env="NPU_CLIENTS_DEVICE=/dev/npuclients0"
		side_npud npuclients test_user_clients --devices 1 --hbm-size 64M \
			--limit-user-clients 2
		side_env=
	else
		fail "CUSE device nodes missing 5 s after starting npud"
		ls -l /dev/npu* /sys/class/cuse 2>&1
		ps
	fi
	alive "$npud_pid" || fail "npud is not running at the end of the suite"
	stop_npud "$npud_pid" npud
	# npud runs in the foreground: once it exited, no npud process may be left.
	if pids=$(pidof npud); then
		fail "npud processes left after npud exited: $pids"
		kill -KILL $pids
	fi
	echo "VMTEST stage=cuse end ms=$(($(now_ms) - stage_t0))"
}

# Boot messages before this mark are the stock kernel's; only later ones go in the dump.
echo "<6>npu-vm: /init started" >/dev/kmsg
echo
echo "VMTEST init kernel=$(uname -r) devices=$VM_DEVICES backends=$VM_BACKENDS" \
	"programs=$(wc -l </vmtest/programs) mem=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)kB"
for b in $VM_BACKENDS; do
	case "$b" in
	kmod) stage_kmod ;;
	cuse) stage_cuse ;;
	*) fail "unknown backend $b" ;;
	esac
done

echo "VMTEST dmesg begin (lines after /init started)"
dmesg -s 4194304 | awk 'found; /npu-vm: \/init started/ { found = 1 }'
echo "VMTEST dmesg end"
if [ "$failures" -eq 0 ]; then
	echo "NPU_VM_RESULT=PASS"
else
	echo "NPU_VM_RESULT=FAIL failures=$failures"
fi
sync
poweroff -f
