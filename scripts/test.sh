#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test run, as CI does it on a fresh clone: packages, the build
# with -Werror and its tests, the CANN-style sample built out of tree
# against an install prefix, a CANN sample built as upstream's are (set_env.sh,
# ascendc.cmake, run.sh), the ASan+UBSan build and its tests, the
# ThreadSanitizer build and the runtime tests under it, the kernel
# module (plain and W=1 C=1, warning-free), the aarch64 cross build and its
# unit tests under qemu-user, unless --no-cross, and
# the container stage (podman), the VM tests: the module and the CUSE
# device in a qemu guest
# (scripts/vm/run.sh), unless --no-vm.
set -euo pipefail

usage() {
	cat <<EOF
usage: scripts/test.sh [--quick] [--no-install] [--no-cross] [--no-vm] [-h|--help]
  --quick       skip the sanitizer builds (ASan+UBSan, TSan) and their tests, and the fuzzer
  --no-install  do not install missing apt packages (fail instead)
  --no-cross    skip the aarch64 cross build and its tests under qemu-aarch64
  --no-vm       skip the qemu VM tests (kmod and CUSE; scripts/vm/run.sh)
  --vm          accepted for compatibility: the VM tests run by default
Build directories: build/ (tests, install prefix build/install, VM files
build/vm), build-asan/, build-tsan/ and build-aarch64/. Stops at the first failing stage.
EOF
}

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

quick=0
install=1
vm=1
cross=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--quick) quick=1 ;;
	--no-install) install=0 ;;
	--vm) vm=1 ;;
	--no-vm) vm=0 ;;
	--no-cross) cross=0 ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
	shift
done

cd "$NPU_ROOT"
BUILD=$NPU_ROOT/build
BUILD_ASAN=$NPU_ROOT/build-asan
BUILD_TSAN=$NPU_ROOT/build-tsan
BUILD_AARCH64=$NPU_ROOT/build-aarch64
PREFIX=$BUILD/install
SAMPLE_BUILD=$BUILD/sample-memory_basics
JOBS=$(nproc)

# One apt-get update and one install for every stage; the cross build's
# arm64 libraries need arm64 added to dpkg before that update.
stage_packages() {
	local pkgs=("${NPU_BUILD_PACKAGES[@]}" "${NPU_KMOD_VM_PACKAGES[@]}" "${NPU_CONTAINER_PACKAGES[@]}")
	if [[ $cross -eq 1 ]]; then
		ensure_arm64_architecture
		pkgs+=("${NPU_AARCH64_PACKAGES[@]}")
	fi
	ensure_packages "${pkgs[@]}"
}

# configure_build DIR [CMAKE ARGS...]
configure_build() {
	local dir=$1
	shift
	step "configuring $dir $*"
	cmake -S "$NPU_ROOT" -B "$dir" -G "Unix Makefiles" "$@"
	step "building $dir with $JOBS jobs"
	cmake --build "$dir" -j "$JOBS"
}

# Tests run $JOBS at a time. The FUSE backend's npud fixtures start before
# the tests that share them and stop after; the tests that need a daemon
# or a device to themselves say so (RESOURCE_LOCK, RUN_SERIAL).
run_ctest() {
	step "ctest -j $JOBS in $1"
	ctest --test-dir "$1" -j "$JOBS" --output-on-failure --timeout 900
}

stage_build() {
	configure_build "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPU_WERROR=ON
}

# -DBUILD_TESTING=OFF must configure on a machine without cmocka: pkg-config
# is shown only the .pc files of the libraries the build itself needs.
stage_no_tests_configure() {
	local pc=$BUILD/pc-without-cmocka dir=$BUILD/no-tests
	rm -rf "$pc" "$dir"
	mkdir -p "$pc"
	cp "$(pkg-config --variable=pcfiledir fuse3)/fuse3.pc" \
		"$(pkg-config --variable=pcfiledir liburing)/liburing.pc" \
		"$(pkg-config --variable=pcfiledir libseccomp)/libseccomp.pc" "$pc/"
	PKG_CONFIG_LIBDIR=$pc cmake -S "$NPU_ROOT" -B "$dir" -DBUILD_TESTING=OFF >/dev/null
	rm -rf "$pc" "$dir"
}

stage_sample() {
	step "installing $BUILD to $PREFIX"
	cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
	build_sample "$PREFIX" "$SAMPLE_BUILD"
	run_sample "$PREFIX" "$SAMPLE_BUILD" inproc
}

# What a user of the installed prefix does: a CMake project with
# find_package(ascendcl CONFIG), a plain compiler call with pkg-config, the
# installed tools run from the prefix (RUNPATH), and this tree configured as
# a subproject (add_subdirectory) of another.
stage_install_consumers() {
	local dir=$BUILD/install-consumers src=$NPU_ROOT/tests/install
	rm -rf "$dir"
	step "find_package(ascendcl CONFIG) against $PREFIX"
	cmake -S "$src/consumer" -B "$dir/cmake" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null
	cmake --build "$dir/cmake" >/dev/null
	NPU_DEVICE=inproc "$dir/cmake/consumer"
	step "pkg-config ascendcl against $PREFIX"
	# shellcheck disable=SC2046  # pkg-config output is a list of words
	cc -o "$dir/pkg-config-consumer" "$src/consumer/main.c" \
		$(PKG_CONFIG_PATH=$PREFIX/lib64/pkgconfig pkg-config --cflags --libs ascendcl)
	NPU_DEVICE=inproc LD_LIBRARY_PATH=$PREFIX/lib64 "$dir/pkg-config-consumer"
	step "installed tools run from $PREFIX/bin"
	NPU_DEVICE=inproc "$PREFIX/bin/npu-smi" -L
	"$PREFIX/bin/npud" --help >/dev/null
	NPU_DEVICE=inproc "$PREFIX/bin/npu-bench" --help >/dev/null
	step "configure as a subproject (add_subdirectory)"
	cmake -S "$src/subproject" -B "$dir/subproject" -DNPU_SOURCE_DIR="$NPU_ROOT" >/dev/null
	step "source $PREFIX/set_env.sh, as CANN users do"
	PREFIX=$PREFIX DIR=$dir SRC=$src bash "$src/set_env_test.sh"
	rm -rf "$dir"
}

# A CANN user's path: a fresh install as a CANN root, its set_env.sh
# sourced, SOC_VERSION and ASCENDC_CMAKE_DIR found as CANN's sample scripts
# find them, an upstream-shaped host sample (including ascendc.cmake) built
# and run by its run.sh on the in-process device, and a project that builds
# kernels refused at configure (tests/install/cann_sample_test.sh).
stage_cann_sample() {
	bash "$NPU_ROOT/tests/install/cann_sample_test.sh" "$BUILD" "$BUILD/cann-sample"
}

# The Debian packages (packaging/CMakeLists.txt): cpack in $BUILD, their
# metadata and file lists, each unpacked with dpkg -x into a scratch root
# (no root, no dpkg database), the module built from the unpacked DKMS tree
# for the kernel of the Debian headers (linux-headers-amd64's dependency,
# never `uname -r`), the consumers and tools run from the unpacked runtime,
# and the Docker image's HEALTHCHECK against the unpacked npud --fuse
# (tests/install/deb_test.sh). cpack needs dpkg-shlibdeps and file.
stage_deb() {
	local kver
	if [[ $install -eq 1 ]]; then
		ensure_packages dpkg-dev file
	fi
	if ! command -v dpkg-shlibdeps >/dev/null || ! command -v file >/dev/null; then
		die "cpack needs dpkg-shlibdeps (package dpkg-dev) and file"
	fi
	kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p' || true)
	[[ -n $kver ]] || die "linux-headers-amd64 is not installed or names no linux-headers-VERSION"
	bash "$NPU_ROOT/tests/install/deb_test.sh" "$BUILD" "$BUILD/deb-test" "$kver"
}

# The container stage (scripts/container/stage.sh): images from the .deb
# files with podman, the FUSE daemon container and its clients, restarts,
# health, CDI. Skipped with one line where podman cannot run.
stage_container() {
	bash "$NPU_ROOT/scripts/container/stage.sh" "$BUILD"
}

stage_asan() {
	configure_build "$BUILD_ASAN" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DNPU_SANITIZE=address,undefined
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		run_ctest "$BUILD_ASAN"
}

# The runtime tests (label runtime: streams, events, engines, host memory,
# on the in-process and FUSE devices) under ThreadSanitizer. npud, started
# by the FUSE fixture, inherits ctest's environment, hence TSAN_OPTIONS
# here; tsan.supp explains its one suppression.
stage_tsan() {
	configure_build "$BUILD_TSAN" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPU_SANITIZE=thread
	step "ctest -L runtime -j $JOBS in $BUILD_TSAN"
	TSAN_OPTIONS="halt_on_error=1 suppressions=$NPU_ROOT/tests/runtime/tsan.supp" \
		ctest --test-dir "$BUILD_TSAN" -L runtime -j "$JOBS" --output-on-failure --timeout 900
}

# The aarch64 cross build (cmake/toolchains/aarch64-linux-gnu.cmake, Debian's
# cross compilers and arm64 multiarch libraries), -Werror, without npud
# (NPU_NPUD=OFF: no arm64 libfuse3 to install, and no FUSE device to test on
# under qemu). Everything else builds, libascendcl and its tests included;
# ctest runs the unit tests (label unit: the driver's and the mock kernel's)
# under qemu-aarch64 (user mode), in parallel, as none shares a device with
# another process. Left out for time, as qemu-user runs them far
# slower than native and the native stages run them anyway:
# test_fault_injection (17 s native, 141 s here), the fuzz corpus replay
# (0.01 s, 112 s) and the runtime tests (test_memcpy 150 s, test_errors
# 80 s, test_device 160 s: half an hour or more for the suite).
stage_aarch64() {
	if [[ $install -eq 1 ]]; then
		ensure_aarch64_cross
	else
		ensure_aarch64_cross --no-install
	fi
	# -O2 as the native build, but without -g: debug info is about 40% of
	# the compile time of the library's sources.
	configure_build "$BUILD_AARCH64" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPU_WERROR=ON \
		"-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" \
		"-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" \
		-DCMAKE_TOOLCHAIN_FILE="$NPU_ROOT/cmake/toolchains/aarch64-linux-gnu.cmake" \
		-DNPU_NPUD=OFF
	step "ctest -L unit in $BUILD_AARCH64 under qemu-aarch64"
	ctest --test-dir "$BUILD_AARCH64" -L unit -E '^(unit\.test_fault_injection|fuzz\.corpus)$' \
		-j "$JOBS" --output-on-failure --timeout 600
}

# The driver's libFuzzer harness (tests/fuzz) for one minute, in its own
# clang build, build-fuzz/ (scripts/fuzz.sh; longer campaigns: --time).
stage_fuzz() {
	local opts=(--time 60)
	[[ $install -eq 1 ]] || opts+=(--no-install)
	scripts/fuzz.sh "${opts[@]}"
}

# run_kmod_make LOG MAKE ARGS...: build the module, failing on any
# diagnostic. Kbuild's progress lines go to stdout; the compiler, sparse and
# modpost write to stderr. The only tolerated line is the BTF notice, which
# Debian's headers cause because they ship no vmlinux.
run_kmod_make() {
	local log=$1 bad what
	shift
	what="make -C kmod${*:+ $*}"
	step "$what"
	if ! make -C kmod "$@" 2>"$log"; then
		cat "$log" >&2
		die "$what failed"
	fi
	cat "$log" >&2
	bad=$(grep -v -e 'Skipping BTF generation' "$log" || true)
	if [[ -n $bad ]]; then
		die "$what produced diagnostics (above)"
	fi
}

kmod_clean() {
	if make -n -C kmod clean >/dev/null 2>&1; then
		make -C kmod clean >/dev/null
	fi
}

stage_kmod() {
	local log=$BUILD/kmod-make.log
	mkdir -p "$BUILD"
	kmod_clean
	run_kmod_make "$log"
	# Clean again so that W=1 and sparse (C=1) see every source file.
	kmod_clean
	run_kmod_make "$log" W=1 C=1
	ls -l kmod/*.ko
}

# The runtime suite and the sharing/kill system tests on the module and on
# CUSE in one boot; on the module once with the io_uring doorbell required
# (NPU_URING=1) and once with the ioctl doorbell (NPU_URING=0), the driver's
# doorbell counters showing which path was taken; and --run-dir with the
# out-of-tree sample, dynamically linked against the installed
# libascendcl.so, as an outside program. The outer timeout keeps the stage
# under 5 minutes.
stage_vm() {
	local run_dir=$BUILD/vm-run-dir
	rm -rf "$run_dir"
	mkdir -p "$run_dir"
	ln -s "$SAMPLE_BUILD/main" "$run_dir/memory_basics"
	scripts/vm/run.sh --build-dir "$BUILD" --run-dir "$run_dir" --lib-path "$PREFIX/lib64" \
		--timeout 240 --kmod-env NPU_URING=1 --kmod-variant ioctl:NPU_URING=0
}

total_start=$(date +%s)

if [[ $install -eq 1 ]]; then
	stage "apt packages" stage_packages
fi
stage "build ($BUILD, -Werror)" stage_build
stage "configure with -DBUILD_TESTING=OFF and no cmocka" stage_no_tests_configure
stage "ctest ($BUILD)" run_ctest "$BUILD"
stage "CANN-style sample, out of tree against $PREFIX" stage_sample
stage "consumers of the installed prefix (find_package, pkg-config, tools, subproject)" \
	stage_install_consumers
stage "CANN sample built the CANN way (set_env.sh, ascendc.cmake, run.sh)" stage_cann_sample
stage "Debian packages (cpack; dpkg-deb checks, dpkg -x, DKMS tree, consumers)" stage_deb
stage "containers (podman: images from the .deb files, daemon, clients, restarts, CDI)" \
	stage_container
if [[ $quick -eq 0 ]]; then
	stage "ASan+UBSan build and ctest ($BUILD_ASAN)" stage_asan
	stage "ThreadSanitizer build and runtime tests ($BUILD_TSAN)" stage_tsan
	stage "libFuzzer driver harness, 1 minute (build-fuzz/, clang)" stage_fuzz
else
	info "--quick: skipping the ASan+UBSan, TSan and fuzzer stages"
fi
stage "kernel module (make -C kmod; W=1 C=1)" stage_kmod
if [[ $cross -eq 1 ]]; then
	stage "aarch64 cross build and unit tests under qemu-aarch64 ($BUILD_AARCH64)" \
		stage_aarch64
else
	info "--no-cross: skipping the aarch64 cross build"
fi
if [[ $vm -eq 1 ]]; then
	stage "VM tests: kmod and CUSE in qemu (scripts/vm/run.sh)" stage_vm
else
	info "--no-vm: skipping the VM tests"
fi

printf '\nall stages passed in %ss\n' "$(($(date +%s) - total_start))"
