#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs the driver's kernel module and its CUSE device inside a qemu guest (TCG) booting
# the installed Debian kernel, with the runtime test programs (and optionally any other
# programs) running against /dev/npu0 on each. The host cannot load modules and has no
# /dev/cuse, so this is the only place both backends run.
#
# Steps: install missing packages, pick the kernel, build npu.ko, a static npud and the
# test programs, extract vmlinux (cached), pack a busybox initramfs, boot, and decide
# from the markers in the serial log (qemu exits 0 even when the guest panics).
#
# Exit status: 0 pass, 1 harness or build error, 2 the guest reported a failure or the
# kernel log shows an oops/warning, 3 no result marker (hang, timeout or crash).
# shellcheck disable=SC2317  # the step functions are called through step()
set -Eeuo pipefail

usage() {
	cat <<EOF
usage: $0 [--build-dir DIR] [--tests GLOBS] [--run-dir DIR] [--lib-path DIRS]
          [--timeout SECONDS]
          [--prog-timeout SECONDS] [--devices N] [--hbm-mb MB] [--memory MB]
          [--backends "kmod cuse"] [--env VAR=VALUE]... [--kmod-env VAR=VALUE]...
          [--kmod-variant SPEC]...
          [--full] [--kver VERSION]
          [--ko FILE] [--npud FILE] [--keep]

  --build-dir DIR      CMake build dir holding the test programs (default: build/)
  --tests GLOBS        test executables to run: blank-separated globs, relative to
                       the build dir unless absolute (default: "$DEFAULT_TESTS");
                       "" runs none
  --run-dir DIR        also run every executable in DIR on each backend
  --lib-path DIRS      where the --run-dir programs find their libraries (e.g.
                       an install prefix's lib64), as LD_LIBRARY_PATH on the host
                       and in the guest
  --timeout SECONDS    outer limit for the whole guest run (default: 240)
  --prog-timeout SECS  limit per program inside the guest (default: 120)
  --devices N          devices for npu.ko (devices=N) and npud --devices (default: 2)
  --hbm-mb MB          HBM size per device (default: the driver's default)
  --memory MB          guest memory (default: 3072)
  --backends LIST      stages to run, in order (default: "kmod cuse")
  --env VAR=VALUE      extra environment for every guest program (repeatable)
  --kmod-env VAR=VALUE extra environment for the main kmod pass only (repeatable),
                       e.g. NPU_URING=1 to require the runtime's io_uring doorbell
  --kmod-variant SPEC  run the programs once more on kmod with extra environment;
                       SPEC is LABEL:VAR=VALUE[,VAR=VALUE...] (e.g. to switch off the
                       runtime's io_uring path); results show as backend=kmod-LABEL
  --full               do not set NPU_TEST_QUICK=1 for the guest programs
  --kver VERSION       Debian kernel to boot (default: newest with headers)
  --ko FILE            use this npu.ko instead of building kmod/
  --npud FILE          use this npud instead of building a static one
  --keep               keep the work dir (initramfs, serial log)
EOF
}

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The runtime suite, and the system tests: sharing between processes, clients
# killed mid-copy, malformed commands (they use /dev/npu1 too, so --devices must
# stay >= 2 with them).
DEFAULT_TESTS='tests/runtime/test_* tests/system/test_*'
BUILD_DIR=$SRC/build
TESTS_GLOB=$DEFAULT_TESTS
RUN_DIR=
RUN_DIR_LIBS=
TIMEOUT=240
PROG_TIMEOUT=120
DEVICES=2
HBM_MB=
MEMORY=3072
BACKENDS="kmod cuse"
EXTRA_ENV=()
KMOD_ENV=()
KMOD_VARIANTS=()
QUICK=1
KV=
KO=
NPUD=
KEEP=0

while [ $# -gt 0 ]; do
	case "$1" in
	--keep | --full | -h | --help) ;;
	*) [ $# -ge 2 ] || { usage >&2; exit 1; } ;;
	esac
	case "$1" in
	--build-dir) BUILD_DIR=$2; shift 2 ;;
	--tests) TESTS_GLOB=$2; shift 2 ;;
	--run-dir) RUN_DIR=$2; shift 2 ;;
	--lib-path) RUN_DIR_LIBS=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--prog-timeout) PROG_TIMEOUT=$2; shift 2 ;;
	--devices) DEVICES=$2; shift 2 ;;
	--hbm-mb) HBM_MB=$2; shift 2 ;;
	--memory) MEMORY=$2; shift 2 ;;
	--backends) BACKENDS=$2; shift 2 ;;
	--env) EXTRA_ENV+=("$2"); shift 2 ;;
	--kmod-env) KMOD_ENV+=("$2"); shift 2 ;;
	--kmod-variant) KMOD_VARIANTS+=("$2"); shift 2 ;;
	--full) QUICK=0; shift ;;
	--kver) KV=$2; shift 2 ;;
	--ko) KO=$2; shift 2 ;;
	--npud) NPUD=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 1 ;;
	esac
done

for n in "$TIMEOUT" "$PROG_TIMEOUT" "$DEVICES" "$MEMORY" ${HBM_MB:+"$HBM_MB"}; do
	[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: not a positive number: $n" >&2; exit 1; }
done
for b in $BACKENDS; do
	[[ "$b" == kmod || "$b" == cuse ]] || { echo "run.sh: unknown backend $b" >&2; exit 1; }
done
for kv in "${EXTRA_ENV[@]}"; do
	[[ "$kv" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { echo "run.sh: bad --env $kv" >&2; exit 1; }
done
# Words of one shell variable in the guest: no blanks in these values.
for kv in "${KMOD_ENV[@]}"; do
	[[ "$kv" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*$ ]] ||
		{ echo "run.sh: bad --kmod-env $kv" >&2; exit 1; }
done
for v in "${KMOD_VARIANTS[@]}"; do
	[[ "$v" =~ ^[A-Za-z0-9_-]+:[A-Za-z_][A-Za-z0-9_]*=[^[:space:],]*(,[A-Za-z_][A-Za-z0-9_]*=[^[:space:],]*)*$ ]] ||
		{ echo "run.sh: bad --kmod-variant $v" >&2; exit 1; }
done
[ -z "$RUN_DIR" ] || [ -d "$RUN_DIR" ] || { echo "run.sh: no such dir: $RUN_DIR" >&2; exit 1; }
[ -z "$KO" ] || [ -f "$KO" ] || { echo "run.sh: no such file: $KO" >&2; exit 1; }
[ -z "$NPUD" ] || [ -x "$NPUD" ] || { echo "run.sh: not executable: $NPUD" >&2; exit 1; }
# Absolute paths: files are copied into the initramfs at their absolute host paths.
RUN_DIR=${RUN_DIR:+$(realpath "$RUN_DIR")}
if [ -n "$RUN_DIR_LIBS" ]; then
	libs=
	IFS=: read -r -a dirs <<<"$RUN_DIR_LIBS"
	for d in "${dirs[@]}"; do
		[ -d "$d" ] || { echo "run.sh: --lib-path: no such dir: $d" >&2; exit 1; }
		libs=${libs:+$libs:}$(realpath "$d")
	done
	RUN_DIR_LIBS=$libs
fi
KO=${KO:+$(realpath "$KO")}
NPUD=${NPUD:+$(realpath "$NPUD")}

mkdir -p "$BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
VM_DIR=$BUILD_DIR/vm            # cached across runs: vmlinux, the static build, logs
mkdir -p "$VM_DIR/logs"
WORK=$(mktemp -d "$VM_DIR/work.XXXXXX")
ROOT=$WORK/root
LOG=$WORK/serial.log
JOBS=$(nproc)

cleanup() {
	if [ "$KEEP" = 1 ]; then
		echo "run.sh: work dir kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'echo "run.sh: failed: line $LINENO: $BASH_COMMAND" >&2' ERR

now() { date +%s%N; }

# step "what it does" command...: prints what it does, runs it, prints how long it took.
step() {
	local what=$1 t0
	shift
	echo "==> $what"
	t0=$(now)
	"$@"
	printf '    %s: %d ms\n' "$what" $((($(now) - t0) / 1000000))
}

# logged NAME command...: output goes to $VM_DIR/logs/NAME.log; its tail is shown on failure.
logged() {
	local name=$1 rc=0
	shift
	"$@" >"$VM_DIR/logs/$name.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "run.sh: $name failed (rc=$rc); last lines of $VM_DIR/logs/$name.log:" >&2
		tail -n 40 "$VM_DIR/logs/$name.log" >&2
	fi
	return "$rc"
}

# ---------------------------------------------------------------------------------------
PACKAGES=(qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static kmod cpio
	libfuse3-dev fuse3 libcmocka-dev liburing-dev cmake make gcc g++ pkg-config python3 binutils)

install_packages() {
	local p missing=()
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "    all installed"
		return
	fi
	echo "    missing: ${missing[*]}"
	[ "$(id -u)" = 0 ] || { echo "run.sh: installing packages needs root" >&2; return 1; }
	logged apt-update apt-get update
	DEBIAN_FRONTEND=noninteractive logged apt-install apt-get install -y --no-install-recommends "${missing[@]}"
}

# The newest Debian kernel that has both an image and headers. The running kernel is the
# CI host's, not one we can boot or build against, so uname -r is never consulted.
find_kernel() {
	local f v
	if [ -z "$KV" ]; then
		KV=$(for f in /boot/vmlinuz-*; do
			v=${f#/boot/vmlinuz-}
			[ -f "/lib/modules/$v/build/Makefile" ] && echo "$v"
		done | sort -V | tail -n 1)
	fi
	[ -n "$KV" ] || { echo "run.sh: no /boot/vmlinuz-* with /lib/modules/*/build" >&2; return 1; }
	[ -f "/boot/vmlinuz-$KV" ] || { echo "run.sh: no /boot/vmlinuz-$KV" >&2; return 1; }
	[ -d "/lib/modules/$KV/build" ] || { echo "run.sh: no headers for $KV" >&2; return 1; }
	echo "    kernel $KV"
}

# stage_sources SRC DST: make DST's *.c, *.h, Kbuild and Makefile the same as SRC's.
# Changed files get a fresh mtime, so kbuild rebuilds exactly what changed. The
# *.mod.c that modpost writes is kbuild's, on both sides: never copied or removed.
stage_sources() {
	local src=$1 dst=$2 f
	mkdir -p "$dst"
	for f in "$dst"/*.[ch] "$dst"/Kbuild "$dst"/Makefile; do
		[[ "$f" == *.mod.c ]] && continue
		[ -e "$f" ] && [ ! -e "$src/${f##*/}" ] && rm -f "$f" "${f%.c}.o"
	done
	for f in "$src"/*.[ch] "$src"/Kbuild "$src"/Makefile; do
		[ -f "$f" ] || continue
		[[ "$f" == *.mod.c ]] && continue
		cmp -s "$f" "$dst/${f##*/}" || cp "$f" "$dst/${f##*/}"
	done
}

# The module is built from a copy of kmod/ and uapi/ under the build dir: a build in
# kmod/ itself would leave outputs in the source tree and race with other builds there.
build_module() {
	local kb=$VM_DIR/kmod-build
	if [ -z "$KO" ]; then
		stage_sources "$SRC/kmod" "$kb/kmod"
		stage_sources "$SRC/uapi/npu" "$kb/uapi/npu"
		logged kmod make -C "$kb/kmod" KVER="$KV" -j"$JOBS"
		KO=$kb/kmod/npu.ko
	fi
	[ -f "$KO" ] || { echo "run.sh: $KO was not built" >&2; return 1; }
	local vermagic
	vermagic=$(modinfo -F vermagic "$KO")
	[[ "$vermagic" == "$KV "* ]] ||
		{ echo "run.sh: $KO is for '$vermagic', not $KV" >&2; return 1; }
	echo "    $KO ($vermagic)"
}

# Path of the npud executable in a CMake build dir: next to its CMakeFiles/npud.dir.
find_npud() {
	local d
	d=$(find "$1" -type d -path '*/CMakeFiles/npud.dir' -print -quit)
	[ -n "$d" ] && [ -x "${d%/CMakeFiles/npud.dir}/npud" ] && echo "${d%/CMakeFiles/npud.dir}/npud"
	return 0
}

configure() {
	local dir=$1
	shift
	[ -f "$dir/CMakeCache.txt" ] && { [ -f "$dir/Makefile" ] || [ -f "$dir/build.ninja" ]; } &&
		return 0
	cmake -S "$SRC" -B "$dir" -G "Unix Makefiles" "$@"
}

# A static npud runs in the guest without any of the host's libraries. If it cannot be
# linked statically, the dynamic one from the main build dir goes in with its libraries.
build_npud() {
	local static=$VM_DIR/static
	if [ -n "$NPUD" ]; then
		echo "    using $NPUD"
		return
	fi
	if logged npud-static-configure configure "$static" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_EXE_LINKER_FLAGS=-static \
		-DCMAKE_PROJECT_INCLUDE="$SRC/scripts/vm/static.cmake" &&
		logged npud-static cmake --build "$static" --target npud -j"$JOBS"; then
		NPUD=$(find_npud "$static")
	fi
	if [ -z "$NPUD" ] || readelf -lW "$NPUD" | grep -q 'program interpreter'; then
		echo "    static npud failed; falling back to the dynamic one from $BUILD_DIR"
		logged configure configure "$BUILD_DIR"
		logged npud cmake --build "$BUILD_DIR" --target npud -j"$JOBS"
		NPUD=$(find_npud "$BUILD_DIR")
	fi
	[ -n "$NPUD" ] || { echo "run.sh: no npud was built" >&2; return 1; }
	echo "    $NPUD"
}

# Programs keep their host paths in the guest (so RUNPATHs, PT_INTERP and paths compiled
# into them resolve unchanged). The guest mounts filesystems over these directories only,
# which would hide anything unpacked below them.
guest_visible() {
	case "$1" in
	/proc/* | /sys/* | /dev/*)
		echo "run.sh: $1: the guest mounts over ${1%"${1#/*/}"}; use a build dir elsewhere" >&2
		return 1
		;;
	esac
}

# tests/vm/uring_test.c: the driver's io_uring command without the runtime; part of the suite.
build_uring_test() {
	local out=$VM_DIR/uring_test flags
	flags=$(pkg-config --cflags --libs cmocka liburing) ||
		{ echo "run.sh: uring_test needs cmocka and liburing (pkg-config)" >&2; return 1; }
	# shellcheck disable=SC2086  # pkg-config output is a list of words
	logged uring_test gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -I"$SRC/uapi" \
		"$SRC/tests/vm/uring_test.c" -o "$out" $flags
	PROGRAMS+=("suite uring_test $out")
}

# tests/vm/kill_pinned_test.c: SIGKILL during copies into pinned host memory, against the
# build dir's libascendcl.so; part of the suite.
build_kill_pinned_test() {
	local out=$VM_DIR/kill_pinned_test lib flags
	lib=$(find "$BUILD_DIR/runtime" -name libascendcl.so -print -quit 2>/dev/null)
	[ -n "$lib" ] || { echo "run.sh: no libascendcl.so under $BUILD_DIR/runtime" >&2; return 1; }
	flags=$(pkg-config --cflags --libs cmocka) ||
		{ echo "run.sh: kill_pinned_test needs cmocka (pkg-config)" >&2; return 1; }
	# shellcheck disable=SC2086  # pkg-config output is a list of words
	logged kill_pinned_test gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -I"$SRC/uapi" \
		-I"$SRC/runtime/include" "$SRC/tests/vm/kill_pinned_test.c" -o "$out" \
		"$lib" -Wl,-rpath,"$(dirname "$lib")" $flags
	PROGRAMS+=("suite kill_pinned_test $out")
}

# The guest programs: the --tests globs (built here first) and the --run-dir executables.
PROGRAMS=()         # "set name path"
collect_programs() {
	local globs=() glob d f p n built=" "
	read -r -a globs <<<"$TESTS_GLOB"
	for glob in "${globs[@]}"; do
		[[ "$glob" == /* ]] || glob=$BUILD_DIR/$glob
		d=$(dirname "$glob")
		if [[ "$d" == "$BUILD_DIR"* && "$built" != *" $d "* ]]; then
			built="$built$d "
			logged configure configure "$BUILD_DIR"
			# Build the directory's targets and what they link (libascendcl), not the
			# whole tree: a broken unrelated target must not stop the VM run.
			if [ -f "$d/Makefile" ]; then
				logged "tests-$(basename "$d")" make -C "$d" -j"$JOBS"
			elif [ -f "$BUILD_DIR/build.ninja" ]; then
				logged "tests-$(basename "$d")" \
					cmake --build "$BUILD_DIR" --target "${d#"$BUILD_DIR"/}/all"
			fi
		fi
		n=${#PROGRAMS[@]}
		for f in $glob; do
			[ -f "$f" ] && [ -x "$f" ] && PROGRAMS+=("suite $(basename "$f") $(realpath "$f")")
		done
		[ ${#PROGRAMS[@]} -gt "$n" ] || { echo "run.sh: no executable matches $glob" >&2; return 1; }
	done
	if [ ${#globs[@]} -gt 0 ]; then
		build_uring_test
		build_kill_pinned_test
	fi
	if [ -n "$RUN_DIR" ]; then
		for f in "$RUN_DIR"/*; do
			[ -f "$f" ] && [ -x "$f" ] && PROGRAMS+=("run-dir $(basename "$f") $(realpath "$f")")
		done
	fi
	for p in "${PROGRAMS[@]}"; do
		guest_visible "${p##* }" || return 1
	done
	[ ${#PROGRAMS[@]} -gt 0 ] || echo "    warning: no programs to run"
	printf '    %s\n' "${PROGRAMS[@]}"
}

extract_vmlinux() {
	VMLINUX=$VM_DIR/vmlinux-$KV
	if [ -s "$VMLINUX" ] && [ "$VMLINUX" -nt "/boot/vmlinuz-$KV" ]; then
		echo "    cached $VMLINUX"
		return
	fi
	# Debian's bzImage is XZ-compressed and the kernel has CONFIG_PVH, so the ELF inside
	# boots directly through qemu's PVH entry, about 3 s faster than the bzImage.
	python3 - "/boot/vmlinuz-$KV" "$VMLINUX.tmp" <<'EOF'
import lzma, sys
data = open(sys.argv[1], 'rb').read()
start = data.find(b'\xfd7zXZ\x00')
if start < 0:
    sys.exit('no XZ stream in ' + sys.argv[1])
out = lzma.LZMADecompressor().decompress(data[start:])
if out[:4] != b'\x7fELF':
    sys.exit('the XZ stream is not an ELF vmlinux')
open(sys.argv[2], 'wb').write(out)
EOF
	mv "$VMLINUX.tmp" "$VMLINUX"
	echo "    $VMLINUX"
}

# copy_binary FILE [LIBPATH]: FILE and every library ldd lists (and the loader) go
# into the initramfs at the same absolute paths, so RUNPATHs and PT_INTERP resolve
# unchanged. LIBPATH goes before the caller's LD_LIBRARY_PATH for ldd. Sets
# COPY_LDPATH to the directories the libraries were found in, in ldd's order: the
# guest has no ld.so.cache, so the program runs with that as its LD_LIBRARY_PATH.
# COPY_RUNTIME is 1 if FILE links the runtime (libascendcl), else 0.
COPY_LDPATH=
COPY_RUNTIME=0
copy_binary() {
	local f=$1 extra=${2:-} lib out dir
	COPY_LDPATH=
	COPY_RUNTIME=0
	copy_file "$f"
	out=$(LD_LIBRARY_PATH=$extra${extra:+${LD_LIBRARY_PATH:+:}}${LD_LIBRARY_PATH:-} \
		ldd "$f" 2>&1) || true
	if grep -q 'not a dynamic executable\|statically linked' <<<"$out"; then
		return
	fi
	if grep -q 'not found' <<<"$out"; then
		echo "run.sh: $f: missing libraries (ldd with LD_LIBRARY_PATH=$extra):" >&2
		grep 'not found' <<<"$out" >&2
		return 1
	fi
	while read -r lib; do
		copy_file "$lib"
		[[ "$lib" == */libascendcl.so* ]] && COPY_RUNTIME=1
		dir=$(dirname "$lib")
		[[ ":$COPY_LDPATH:" == *":$dir:"* ]] || COPY_LDPATH=${COPY_LDPATH:+$COPY_LDPATH:}$dir
	done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out")
}

copy_file() {
	local dst=$ROOT$1
	[ -e "$dst" ] && return
	mkdir -p "$(dirname "$dst")"
	cp -L "$1" "$dst"
	# Debug info is most of a RelWithDebInfo binary; the guest unpacks every byte.
	objcopy --strip-debug "$dst" 2>/dev/null || true
}

# copy_module NAME_OR_FILE: stage a kernel module under lib/modules/$KV, uncompressed.
copy_module() {
	local src=$1 rel dst
	[[ "$src" == /* ]] || src=$(modinfo -k "$KV" -F filename "$src")
	rel=${src#/lib/modules/"$KV"/}
	dst=$ROOT/lib/modules/$KV/${rel%.ko*}.ko
	mkdir -p "$(dirname "$dst")"
	case "$src" in
	*.ko) cp "$src" "$dst" ;;
	*.ko.xz) xz -dc "$src" >"$dst" ;;
	*.ko.zst) zstd -qdc "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*) echo "run.sh: unknown module format: $src" >&2; return 1 ;;
	esac
}

build_initramfs() {
	local a p set name path kv libs deps='' npud_ldpath='' budget_args=''
	mkdir -p "$ROOT"/{bin,sbin,proc,sys,dev,tmp,etc,vmtest}
	cp /bin/busybox "$ROOT/bin/busybox"
	if readelf -lW "$ROOT/bin/busybox" | grep -q 'program interpreter'; then
		echo "run.sh: /bin/busybox is not static (install busybox-static)" >&2
		return 1
	fi
	# Applet links now: "busybox --install" in the guest would need /proc first.
	for a in $("$ROOT/bin/busybox" --list); do
		[ "$a" = busybox ] || ln -s busybox "$ROOT/bin/$a"
	done
	cp "$SRC/scripts/vm/init.sh" "$ROOT/init"
	chmod 755 "$ROOT/init"

	# fuse and cuse from Debian's kernel package, plus whatever npu.ko depends on;
	# depmod writes the modules.dep that busybox modprobe reads.
	if [[ " $BACKENDS " == *" kmod "* ]]; then
		cp "$KO" "$ROOT/npu.ko"
		deps=$(modinfo -F depends "$KO" | tr ',' ' ')
		for p in $deps; do copy_module "$p"; done
	fi
	for p in fuse cuse; do copy_module "$p"; done
	cp /lib/modules/"$KV"/modules.{order,builtin,builtin.modinfo} "$ROOT/lib/modules/$KV/"
	depmod -b "$ROOT" "$KV"

	if [[ " $BACKENDS " == *" cuse "* ]]; then
		cp "$NPUD" "$ROOT/npud"
		copy_binary "$NPUD"      # its libraries, if the static link fell back
		npud_ldpath=$COPY_LDPATH
		rm -f "$ROOT$NPUD"
	fi
	# One line per program: "<set> <name> <path> <LD_LIBRARY_PATH or -> <links the runtime>".
	: >"$ROOT/vmtest/programs"
	for p in "${PROGRAMS[@]}"; do
		read -r set name path <<<"$p"
		# test_budget on CUSE runs against a second npud with the options of
		# its ctest fixture, which the guest starts beside the main one.
		if [ "$name" = test_budget ] && [[ " $BACKENDS " == *" cuse "* ]]; then
			budget_args=$(grep -v '^#' "$SRC/tests/system/npud_budget.args" | tr -s ' \n' ' ')
		fi
		libs=
		[ "$set" = run-dir ] && libs=$RUN_DIR_LIBS
		copy_binary "$path" "$libs"
		echo "$set $name $path ${COPY_LDPATH:--} $COPY_RUNTIME" >>"$ROOT/vmtest/programs"
	done

	{
		[ "$QUICK" = 1 ] && echo "NPU_TEST_QUICK=1"
		for kv in "${EXTRA_ENV[@]}"; do echo "$kv"; done
	} >"$ROOT/vmtest/env"
	cat >"$ROOT/vmtest/config" <<EOF
VM_DEVICES=$DEVICES
VM_HBM_MB=$HBM_MB
VM_BACKENDS="$BACKENDS"
VM_PROG_TIMEOUT=$PROG_TIMEOUT
VM_KMOD_DEPS="$deps"
VM_KMOD_ENV="${KMOD_ENV[*]}"
VM_KMOD_VARIANTS="${KMOD_VARIANTS[*]}"
VM_NPUD_LDPATH="$npud_ldpath"
VM_BUDGET_NPUD_ARGS="$budget_args"
EOF
	(cd "$ROOT" && find . | cpio -o -H newc --quiet -R 0:0 | gzip -1) >"$WORK/initramfs.cpio.gz"
	echo "    $(du -h "$WORK/initramfs.cpio.gz" | cut -f1) compressed, $(du -sh "$ROOT" | cut -f1) unpacked"
}

QEMU_RC=0
boot() {
	timeout --kill-after=5 "$TIMEOUT" qemu-system-x86_64 \
		-accel tcg -m "$MEMORY" -smp 1 \
		-nodefaults -no-user-config -nographic -no-reboot \
		-serial file:"$LOG" -monitor none \
		-kernel "$VMLINUX" -initrd "$WORK/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic quiet" </dev/null || QEMU_RC=$?
	echo "    qemu rc=$QEMU_RC"
	[ "$QEMU_RC" -ne 124 ] && [ "$QEMU_RC" -ne 137 ] ||
		echo "    qemu was killed after the ${TIMEOUT}s timeout"
	touch "$LOG"
}

# Kernel-log lines (they carry a "[ seconds]" stamp, on the console and in the dmesg
# dump) that report a bug. Taint notices at insmod of an unsigned module are expected.
kernel_reports() {
	tr -d '\r' <"$LOG" |
		grep -a -E '^\[ *[0-9]+\.[0-9]+\] ' |
		grep -a -E 'BUG:|kernel BUG at|WARNING:|Oops|general protection|KASAN|UBSAN|Call Trace|[Kk]ernel panic|soft lockup|detected stall|hung_task|blocked for more than|refcount_t:|list_(add|del) corruption' |
		grep -a -v -E 'loading out-of-tree module taints kernel|module verification failed' || true
}

VERDICT=3
verdict() {
	local reports clean
	clean=$(tr -d '\r' <"$LOG")
	if grep -a -q 'NPU_VM_RESULT=PASS' <<<"$clean"; then
		VERDICT=0
	elif grep -a -q 'NPU_VM_RESULT=FAIL' <<<"$clean"; then
		VERDICT=2
	fi
	reports=$(kernel_reports)
	echo "    programs:"
	grep -a -o -E 'VMTEST name=.*' <<<"$clean" | sed 's/^VMTEST /      /' || echo "      (none finished)"
	grep -a -E 'VMTEST (FAIL|counters=)' <<<"$clean" | sed 's/^/    /' || true
	if [ -n "$reports" ]; then
		echo "    kernel reports in the guest log:"
		# shellcheck disable=SC2001  # indent every line
		sed 's/^/      /' <<<"$reports"
		[ "$VERDICT" = 0 ] && VERDICT=2
	fi
	case $VERDICT in
	0) echo "    PASS" ;;
	2) echo "    FAIL" ;;
	3) echo "    NO RESULT: the guest never printed NPU_VM_RESULT (hang, timeout or panic)" ;;
	esac
}

T_START=$(now)
step "check packages" install_packages
step "find the Debian kernel" find_kernel
if [[ " $BACKENDS " == *" kmod "* ]]; then
	step "build npu.ko against $KV" build_module
fi
if [[ " $BACKENDS " == *" cuse "* ]]; then
	step "build a static npud" build_npud
fi
step "build and collect the test programs" collect_programs
step "extract vmlinux from /boot/vmlinuz-$KV" extract_vmlinux
step "pack the initramfs" build_initramfs
step "boot the guest (qemu TCG, ${MEMORY} MiB, timeout ${TIMEOUT}s)" boot
cp "$LOG" "$VM_DIR/serial.log"
echo "==> guest serial log ($VM_DIR/serial.log)"
# Without SeaBIOS's terminal escapes, the log reads cleanly in CI output.
tr -d '\r' <"$LOG" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g'
echo

echo "==> end of guest serial log"
step "read the result markers" verdict
printf '==> total: %d ms, exit %d\n' $((($(now) - T_START) / 1000000)) "$VERDICT"
exit "$VERDICT"
