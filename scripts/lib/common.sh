# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shell helpers shared by scripts/test.sh and scripts/demo.sh. Source it
# from a bash script that runs with `set -euo pipefail`.
#
# Conventions: every step announces itself with step/stage; failures go
# through die, which exits non-zero; nothing here assumes a prepared
# machine or a particular checkout location.

# The repository root: the parent of the scripts/ directory.
NPU_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Packages every userspace build needs (Debian names); used by the scripts.
# libseccomp-dev: npud's system call filter (and libseccomp.a for the VM's
# static npud); systemd: systemd-analyze, which rates npud's unit in a test.
# shellcheck disable=SC2034
NPU_BUILD_PACKAGES=(cmake make gcc g++ pkg-config libfuse3-dev fuse3 libcmocka-dev liburing-dev
	libseccomp-dev systemd clang-format)
# Extra packages for the driver fuzzer (scripts/fuzz.sh): clang and its libFuzzer runtime.
# shellcheck disable=SC2034
NPU_FUZZ_PACKAGES=(clang libclang-rt-14-dev)
# Extra packages for the kernel module (headers, sparse) and the VM harness.
# shellcheck disable=SC2034
NPU_KMOD_VM_PACKAGES=(linux-headers-amd64 linux-image-amd64 sparse kmod cpio busybox-static
	qemu-system-x86)

# The container stage (scripts/container/stage.sh): podman with runc (crun
# fails on hybrid cgroups), and mmdebstrap for the base image.
# shellcheck disable=SC2034
NPU_CONTAINER_PACKAGES=(podman runc mmdebstrap uidmap)

# The aarch64 cross build (cmake/toolchains/aarch64-linux-gnu.cmake): the
# cross compilers, qemu-user to run the tests, and the target's cmocka and
# liburing from Debian multiarch (ensure_aarch64_cross adds arm64).
# shellcheck disable=SC2034
NPU_AARCH64_PACKAGES=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-user libcmocka-dev:arm64 liburing-dev:arm64)

info() { printf '%s\n' "$*"; }
step() { printf '==> %s\n' "$*"; }
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# stage NAME CMD...: run one stage with a header and its duration. Under
# set -e the first failing command inside ends the script.
stage() {
	local name=$1 start
	shift
	start=$(date +%s)
	printf '\n======== %s ========\n' "$name"
	"$@"
	printf -- '-------- %s: done in %ss --------\n' "$name" "$(($(date +%s) - start))"
}

# Run a command as root: directly when we are root, else through sudo.
as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root (or sudo) to run: $*"
	fi
}

# Print the packages of the argument list that are not installed.
missing_packages() {
	local pkg
	for pkg in "$@"; do
		if [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) != ii* ]]; then
			printf '%s\n' "$pkg"
		fi
	done
}

# Install whichever of the given packages are missing: one apt-get update,
# then one apt-get install of exactly those.
ensure_packages() {
	local missing
	command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script needs Debian or Ubuntu"
	mapfile -t missing < <(missing_packages "$@")
	if [[ ${#missing[@]} -eq 0 ]]; then
		info "all ${#} packages already installed"
		return 0
	fi
	step "installing missing packages: ${missing[*]}"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
	mapfile -t missing < <(missing_packages "$@")
	[[ ${#missing[@]} -eq 0 ]] || die "still missing after apt-get install: ${missing[*]}"
}

# build_sample PREFIX BUILD_DIR: build samples/memory_basics out of tree,
# CANN style, against the install prefix PREFIX (include/, lib64/).
build_sample() {
	local prefix=$1 dir=$2
	[[ -f $prefix/include/acl/acl.h ]] || die "$prefix/include/acl/acl.h missing: was the install step run?"
	[[ -e $prefix/lib64/libascendcl.so ]] || die "$prefix/lib64/libascendcl.so missing: was the install step run?"
	step "source $prefix/set_env.sh; configuring samples/memory_basics in $dir"
	(
		# shellcheck source=/dev/null  # the installed script
		source "$prefix/set_env.sh"
		cmake -S "$NPU_ROOT/samples/memory_basics" -B "$dir" -G "Unix Makefiles" >/dev/null
		step "building samples/memory_basics"
		cmake --build "$dir" -j "$(nproc)"
	)
}

# run_sample PREFIX BUILD_DIR NPU_DEVICE: run the out-of-tree sample on a
# backend, in the environment of the prefix's set_env.sh (the library comes
# from the prefix, as with an installed toolkit).
run_sample() {
	local prefix=$1 dir=$2 device=$3
	step "running memory_basics with NPU_DEVICE=$device"
	(
		# shellcheck source=/dev/null  # the installed script
		source "$prefix/set_env.sh"
		NPU_DEVICE=$device "$dir/main"
	)
}

# npud_start NPUD MOUNT_DIR: start `npud --fuse MOUNT_DIR` in the background
# and wait (up to 10 s) for MOUNT_DIR/npu0. Sets NPUD_PID.
NPUD_PID=
NPUD_MNT=
npud_start() {
	local npud=$1 mnt=$2 i
	[[ -x $npud ]] || die "npud not found at $npud"
	mkdir -p "$mnt"
	step "starting $npud --fuse $mnt"
	"$npud" --fuse "$mnt" &
	NPUD_PID=$!
	NPUD_MNT=$mnt
	for ((i = 0; i < 100; i++)); do
		[[ -e $mnt/npu0 ]] && { info "npud (pid $NPUD_PID) serves $mnt/npu0"; return 0; }
		kill -0 "$NPUD_PID" 2>/dev/null || die "npud exited before $mnt/npu0 appeared"
		sleep 0.1
	done
	die "$mnt/npu0 did not appear within 10 s"
}

# True when DIR is a mount point (a FUSE mount that is still there).
is_mounted() {
	local dir
	dir=$(realpath -m "$1")
	awk -v d="$dir" '$5 == d { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# npud_stop: SIGTERM the npud we started, wait for it, and check that it
# exited cleanly and removed its mount.
npud_stop() {
	local pid=$NPUD_PID rc=0 i
	[[ -n $pid ]] || return 0
	NPUD_PID=
	step "stopping npud (pid $pid) with SIGTERM"
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		die "npud did not exit within 10 s of SIGTERM"
	fi
	wait "$pid" || rc=$?
	[[ $rc -eq 0 ]] || die "npud exited with status $rc after SIGTERM"
	if is_mounted "$NPUD_MNT"; then
		die "npud exited but $NPUD_MNT is still mounted"
	fi
	info "npud exited cleanly and unmounted $NPUD_MNT"
}

# Cleanup for a trap: stop npud if it still runs, unmount, remove the dir.
npud_cleanup() {
	if [[ -n $NPUD_PID ]]; then
		kill -TERM "$NPUD_PID" 2>/dev/null || true
		wait "$NPUD_PID" 2>/dev/null || true
		NPUD_PID=
	fi
	if [[ -n $NPUD_MNT ]]; then
		if is_mounted "$NPUD_MNT"; then
			fusermount3 -u -z "$NPUD_MNT" 2>/dev/null || umount -l "$NPUD_MNT" 2>/dev/null || true
		fi
		rmdir "$NPUD_MNT" 2>/dev/null || true
	fi
}

# find_binary BUILD_DIR NAME: print the path of the executable NAME that the
# build produced (wherever its CMakeLists.txt placed it), or fail.
find_binary() {
	local dir=$1 name=$2 path
	path=$(find "$dir" -path "$dir/install" -prune -o -path '*/CMakeFiles' -prune -o \
		-type f -name "$name" -perm -u+x -print 2>/dev/null | head -n 1)
	[[ -n $path ]] || die "$name not found under $dir: did the build succeed?"
	printf '%s\n' "$path"
}

# ensure_aarch64_cross [--no-install]: make the aarch64 cross build
# possible. arm64 becomes a foreign dpkg architecture (once: dpkg keeps it),
# so that apt can install the target's libraries next to the host's; the
# apt-get update of ensure_packages then fetches arm64's package lists too.
# With --no-install, only check and fail with what is missing.
ensure_aarch64_cross() {
	local missing
	if [[ ${1:-} == --no-install ]]; then
		mapfile -t missing < <(missing_packages "${NPU_AARCH64_PACKAGES[@]}")
		[[ ${#missing[@]} -eq 0 ]] ||
			die "the aarch64 cross build needs: ${missing[*]} (or use --no-cross)"
		return 0
	fi
	ensure_arm64_architecture
	ensure_packages "${NPU_AARCH64_PACKAGES[@]}"
}

# Add arm64 as a foreign dpkg architecture unless it is one already.
ensure_arm64_architecture() {
	command -v dpkg >/dev/null 2>&1 || die "dpkg not found: this script needs Debian or Ubuntu"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		step "adding arm64 as a foreign dpkg architecture"
		as_root dpkg --add-architecture arm64
	fi
}
