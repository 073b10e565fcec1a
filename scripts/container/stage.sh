#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The container stage of scripts/test.sh: what README.md ("Containers")
# tells a container team to do, with podman and runc from Debian.
#
#   scripts/container/stage.sh BUILD_DIR
#
# Everything lives under BUILD_DIR/container: podman's configuration
# (containers.conf: runc, cgroupfs, nofile/nproc within this shell's hard
# limits; storage.conf: images and containers), the cached base tarball
# (mmdebstrap of bookworm with the packages' dependencies), the images'
# build context (the .deb files cpack makes here) and the shared directory
# that stands for the host's /run/npu. The host's own configuration is not
# touched, except for a CDI spec in /var/run/cdi (podman's runtime CDI
# directory), removed at the end.
#
# Steps: base image (mmdebstrap + podman import); images from the .deb
# files with --network none; the FUSE daemon container; clients as root
# and as uid 1000 (npu-smi, the memory_basics sample); IPC between two
# client containers (the ipc_share sample); a client killed in the middle
# of copies, reclaimed; kill -9 of the daemon and `podman start`: clients
# started before and after open the device again; health: healthy while
# npud serves, unhealthy within the check's timeout once it is stopped; a
# second daemon refused; a client given the device by CDI (--device).
#
# Where podman cannot run containers (not installed, no cgroups, no
# /dev/fuse, no root) the stage prints one line "container stage skipped:
# WHY" and exits 0.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

[[ $# -eq 1 ]] || die "usage: $0 BUILD_DIR"
BUILD=$(realpath "$1")
WORK=$BUILD/container
SHARE=$WORK/share               # the host's /run/npu in this stage
CDI_DIR=/var/run/cdi
CDI_SPEC=$CDI_DIR/npu.local-npu.json
P=npu-ci                        # name prefix of this stage's containers and images
BASE_TAR=$WORK/bookworm.tar
# The packages' run-time dependencies (dpkg -i in the Dockerfile, no network).
BASE_PACKAGES=adduser,libfuse3-3,fuse3,libseccomp2,liburing2,libstdc++6,libgcc-s1,findutils,procps
START=$(date +%s)

skip() {
	printf 'container stage skipped: %s\n' "$*"
	exit 0
}

elapsed() { echo "$(($(date +%s) - START))s"; }

# --- can podman run here? -------------------------------------------------
command -v podman >/dev/null || skip "podman is not installed (apt-get install podman runc mmdebstrap)"
command -v runc >/dev/null || skip "runc is not installed"
[[ $(id -u) -eq 0 ]] || skip "not root (the daemon container mounts FUSE and needs --pid host)"
[[ -c /dev/fuse ]] || skip "no /dev/fuse"
if [[ ! -d /sys/fs/cgroup || -z $(ls /sys/fs/cgroup 2>/dev/null) ]]; then
	skip "no cgroup file system"
fi
for f in npu-smi npud; do
	[[ -n $(find "$BUILD" -path "$BUILD/container" -prune -o -name "$f" -type f -print -quit) ]] ||
		die "$f not found under $BUILD: build first"
done

mkdir -p "$WORK"
# containers.conf: runc (crun fails on hybrid cgroups), cgroupfs (no
# systemd needed), no network, and ulimits within the hard limits, since
# without CAP_SYS_RESOURCE podman's defaults (above them) fail.
# nproc: at most podman's own default (32768), which runc could set here
# where the shell's higher hard limit was refused (EPERM).
nofile=$(ulimit -Hn)
nproc=$(ulimit -Hu)
[[ $nofile == unlimited || $nofile -gt 1048576 ]] && nofile=1048576
[[ $nproc == unlimited || $nproc -gt 32768 ]] && nproc=32768
cat >"$WORK/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
netns = "none"
log_driver = "k8s-file"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$WORK/tmp"
volume_path = "$WORK/volumes"
EOF
cat >"$WORK/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$WORK/storage"
runroot = "$WORK/run"
EOF
export CONTAINERS_CONF=$WORK/containers.conf CONTAINERS_STORAGE_CONF=$WORK/storage.conf
mkdir -p "$WORK/tmp" "$WORK/volumes"
if ! podman info >"$WORK/podman-info.log" 2>&1; then
	skip "podman info fails here: $(tail -n 1 "$WORK/podman-info.log")"
fi

# --- cleanup ----------------------------------------------------------------
containers=()
cleanup() {
	local c
	for c in "${containers[@]}"; do
		podman rm -f -t 0 "$c" >/dev/null 2>&1 || true
	done
	rm -f "$CDI_SPEC"
	if awk -v d="$SHARE" 'index($5, d) == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		umount -R -l "$SHARE" 2>/dev/null || true
	fi
}
trap cleanup EXIT

fail() {
	local c
	printf 'error: %s\n' "$*" >&2
	for c in "${containers[@]}"; do
		if podman container exists "$c" 2>/dev/null; then
			echo "--- podman logs $c" >&2
			podman logs "$c" 2>&1 | tail -n 30 >&2 || true
		fi
	done
	exit 1
}

# run_c NAME ARGS...: podman run -d, remembered for cleanup.
run_c() {
	local name=$1
	shift
	containers+=("$name")
	podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
	podman run -d --name "$name" "$@" >/dev/null || fail "podman run $name failed"
}

# wait_for WHAT SECONDS COMMAND...
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "$what (after ${secs}s)"
}

# --- base image ---------------------------------------------------------------
step "base image: mmdebstrap bookworm ($BASE_PACKAGES), cached in $BASE_TAR"
if [[ ! -s $BASE_TAR || ! -s $BASE_TAR.packages || $(cat "$BASE_TAR.packages") != "$BASE_PACKAGES" ]]; then
	command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed"
	rm -f "$BASE_TAR" "$BASE_TAR.part"
	mmdebstrap --quiet --format=tar --variant=minbase --include="$BASE_PACKAGES" bookworm "$BASE_TAR.part" \
		>"$WORK/mmdebstrap.log" 2>&1 || {
		tail -n 20 "$WORK/mmdebstrap.log" >&2
		fail "mmdebstrap failed"
	}
	mv "$BASE_TAR.part" "$BASE_TAR"
	echo "$BASE_PACKAGES" >"$BASE_TAR.packages"
fi
podman import "$BASE_TAR" "localhost/$P-base:bookworm" >/dev/null || fail "podman import failed"
info "base image localhost/$P-base:bookworm ($(elapsed))"

# --- images from the .deb files, no network -------------------------------------
ctx=$WORK/context
rm -rf "$ctx"
mkdir -p "$ctx"
step "cpack -G DEB in $BUILD"
(cd "$BUILD" && cpack -G DEB -B "$WORK/debs") >"$WORK/cpack.log" 2>&1 || {
	tail -n 20 "$WORK/cpack.log" >&2
	fail "cpack failed"
}
cp "$WORK"/debs/npu-runtime_*.deb "$WORK"/debs/npud_*.deb "$NPU_ROOT/packaging/docker/healthcheck.sh" "$ctx/"
for target in fuse client; do
	step "podman build --format docker --network none --target $target"
	podman build --quiet --format docker --network none --pull=never \
		--build-arg BASE="localhost/$P-base:bookworm" \
		-f "$NPU_ROOT/packaging/docker/Dockerfile" --target "$target" \
		-t "localhost/$P-$target" "$ctx" >"$WORK/build-$target.log" 2>&1 || {
		tail -n 30 "$WORK/build-$target.log" >&2
		fail "podman build --target $target failed"
	}
done
hc=$(podman image inspect --format '{{.Config.Healthcheck.Test}}' "localhost/$P-fuse")
[[ $hc == *npud-healthcheck* ]] || fail "the fuse image has no HEALTHCHECK ($hc)"
info "images built ($(elapsed))"

# --- the shared directory: the host's /run/npu ---------------------------------
mkdir -p "$SHARE"
if ! awk -v d="$SHARE" '$5 == d { f = 1 } END { exit !f }' /proc/self/mountinfo; then
	mount --bind "$SHARE" "$SHARE"
fi
mount --make-rshared "$SHARE"
DEV=$SHARE/dev
SMI=$(find "$BUILD" -path "$BUILD/container" -prune -o -name npu-smi -type f -perm -u+x -print -quit)
SAMPLES=$BUILD/samples
host_smi() { NPU_DEVICE=$DEV/npu0 timeout 20 "$SMI" "$@"; }

NPUD=$P-npud
npud_args=(--device /dev/fuse --pid host --cap-drop ALL --cap-add SYS_PTRACE
	--cap-add DAC_OVERRIDE --cap-add SYS_ADMIN --security-opt no-new-privileges
	-v "$SHARE:/run/npu:rshared")
step "daemon container (FUSE) on $SHARE/dev"
run_c "$NPUD" "${npud_args[@]}" --health-interval disable "localhost/$P-fuse" --devices 2 --hbm-size 1G
wait_for "npud in $NPUD did not serve" 30 sh -c "podman logs '$NPUD' 2>&1 | grep -q 'npud: serving'"
wait_for "the host does not see $DEV/npu0" 10 test -e "$DEV/npu0"
host_smi -L || fail "npu-smi on the host through the container's npud"
podman logs "$NPUD" 2>&1 | grep -q "does not propagate" && fail "npud says its mount does not propagate"

# Clients: the shared directory with slave propagation, so that the mount
# of a restarted npud reaches them; the runtime finds /run/npu/dev/npu0
# without NPU_DEVICE.
client=(--network none -v "$SHARE:/run/npu:rslave")
samples=(-v "$SAMPLES:/samples:ro")
cli() { podman run --rm "${client[@]}" "$@"; }

step "clients: npu-smi and memory_basics as root and as uid 1000"
cli "localhost/$P-client" npu-smi -L || fail "npu-smi as root in a client container"
cli --user 1000:1000 "localhost/$P-client" npu-smi -L || fail "npu-smi as uid 1000"
cli "${samples[@]}" "localhost/$P-client" /samples/sample_memory_basics ||
	fail "memory_basics as root"
cli --user 1000:1000 "${samples[@]}" "localhost/$P-client" /samples/sample_memory_basics ||
	fail "memory_basics as uid 1000"
info "clients done ($(elapsed))"

step "IPC between two client containers (ipc_share sample)"
rdv=$WORK/rendezvous
rm -rf "$rdv"
mkdir -p "$rdv"
chmod 0777 "$rdv"
run_c "$P-exporter" "${client[@]}" "${samples[@]}" -v "$rdv:/rdv" \
	"localhost/$P-client" /samples/sample_ipc_exporter /rdv
cli "${samples[@]}" -v "$rdv:/rdv" "localhost/$P-client" /samples/sample_ipc_importer /rdv ||
	fail "the importer container failed"
rc=$(podman wait "$P-exporter")
[[ $rc -eq 0 ]] || fail "the exporter container exited $rc"
info "IPC done ($(elapsed))"

# contexts DEVICE: open contexts on the device, as npu-smi shows them.
contexts() {
	host_smi --format=csv | awk -F, -v d="$1" '$1 == d { print $5 }'
}
step "a client killed in the middle of copies is reclaimed"
base0=$(contexts 0)
run_c "$P-copier" "${client[@]}" "${samples[@]}" "localhost/$P-client" \
	sh -c 'while /samples/sample_memory_basics >/dev/null; do :; done'
wait_for "the copier never opened the device" 30 sh -c "[ \"\$(NPU_DEVICE=$DEV/npu0 $SMI --format=csv | awk -F, '\$1 == 0 { print \$5 }')\" -gt $base0 ]"
sleep 0.3
podman kill "$P-copier" >/dev/null
t0=$(date +%s%N)
wait_for "the killed client's contexts were not reclaimed" 10 \
	sh -c "[ \"\$(NPU_DEVICE=$DEV/npu0 $SMI --format=csv | awk -F, '\$1 == 0 { print \$5 }')\" -eq $base0 ]"
info "reclaimed in $((($(date +%s%N) - t0) / 1000000)) ms"

step "health: healthy while npud serves"
podman healthcheck run "$NPUD" || fail "unhealthy while npud serves"
npud_pid=$(podman inspect --format '{{.State.Pid}}' "$NPUD")
step "health: unhealthy within its timeout once npud is stopped (SIGSTOP)"
kill -STOP "$npud_pid"
t0=$(date +%s)
rc=0
timeout 60 podman healthcheck run "$NPUD" >/dev/null 2>&1 || rc=$?
t=$(($(date +%s) - t0))
kill -CONT "$npud_pid"
[[ $rc -ne 0 && $rc -ne 124 ]] || fail "health check of a stopped npud: exit $rc after ${t}s"
[[ $t -le 25 ]] || fail "health check of a stopped npud took ${t}s"
info "unhealthy after ${t}s"
wait_for "healthy again after SIGCONT" 30 podman healthcheck run "$NPUD"

step "a second daemon is refused"
rc=0
timeout 60 podman run --rm --name "$P-npud2" "${npud_args[@]}" "localhost/$P-fuse" --devices 1 \
	>"$WORK/npud2.log" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || { cat "$WORK/npud2.log" >&2; fail "a second daemon exited $rc, want 1"; }
grep -q "another npud serves" "$WORK/npud2.log" || fail "the second daemon did not say why"
host_smi -L >/dev/null || fail "the first daemon stopped serving"

step "kill -9 of the daemon, podman start: clients before and after open the device again"
run_c "$P-before" "${client[@]}" "localhost/$P-client" sleep 600
podman exec "$P-before" npu-smi -L >/dev/null || fail "the waiting client cannot open the device"
podman kill -s KILL "$NPUD" >/dev/null
podman wait "$NPUD" >/dev/null 2>&1 || true
podman start "$NPUD" >/dev/null || fail "podman start after kill -9 failed"
wait_for "npud did not come back" 30 sh -c "podman logs '$NPUD' 2>&1 | grep -q 'removed the stale mount'"
wait_for "the restarted npud does not answer on the host" 30 host_smi -L
wait_for "the client started before cannot open the device again" 30 \
	podman exec "$P-before" npu-smi -L
cli "localhost/$P-client" npu-smi -L || fail "a client started after the restart"
cli "${samples[@]}" "localhost/$P-client" /samples/sample_memory_basics ||
	fail "memory_basics after the restart"
info "restart done ($(elapsed))"

step "CDI: npu-smi cdi generate, then podman run --device npu.local/npu=0"
mkdir -p "$CDI_DIR"
NPU_DEVICE=$DEV/npu0 "$SMI" cdi generate --output "$CDI_DIR" || fail "npu-smi cdi generate"
podman run --rm --network none --device npu.local/npu=0 "localhost/$P-client" npu-smi -L ||
	fail "a client given npu.local/npu=0 by CDI"
podman run --rm --network none --device npu.local/npu=all "localhost/$P-client" \
	sh -c 'npu-smi -L | grep -c "^NPU" | grep -qx 2' || fail "a client given npu.local/npu=all"

step "stopping the daemon (SIGTERM): the mount goes away"
podman stop -t 10 "$NPUD" >/dev/null
rc=$(podman inspect --format '{{.State.ExitCode}}' "$NPUD")
[[ $rc -eq 0 ]] || fail "npud exited $rc after podman stop"
! awk -v d="$DEV" '$5 == d { f = 1 } END { exit !f }' /proc/self/mountinfo ||
	fail "$DEV is still mounted after podman stop"
info "container stage passed in $(elapsed)"
