#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages (packaging/CMakeLists.txt), checked without root and
# without touching the system's dpkg database: cpack builds them from a
# build directory; their control fields, maintainer scripts and file lists
# are checked with dpkg-deb; each is unpacked with dpkg -x into a scratch
# root; the module is built from the unpacked DKMS tree with dkms.conf's own
# make command against the given kernel's headers; and a find_package and a
# pkg-config consumer are built against the unpacked runtime and run with
# the unpacked tools on the in-process device. As root with /dev/fuse, the
# Docker image's HEALTHCHECK (packaging/docker/healthcheck.sh) runs against
# the unpacked npud --fuse with the unpacked npu-smi: healthy while npud
# serves, unhealthy once it stopped. Also checked: a plain `cmake --install`
# installs nothing outside its prefix.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"

usage() {
	echo "usage: $0 BUILD_DIR SCRATCH_DIR [KERNEL_VERSION]"
	echo "  KERNEL_VERSION: build the unpacked DKMS tree against /lib/modules/KERNEL_VERSION/build"
}
step() { printf '==> %s\n' "$*"; }
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

if [[ $# -lt 2 || $# -gt 3 ]]; then
	usage >&2
	exit 2
fi
build=$(readlink -f "$1")
dir=$(readlink -m "$2")
kver=${3-}
src=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
repo=$(readlink -f "$src/../..")
root=$dir/root
unset LD_LIBRARY_PATH CMAKE_PREFIX_PATH PKG_CONFIG_PATH NPU_DEVICE

rm -rf "$dir"
mkdir -p "$dir/debs" "$root"

step "cpack in $build"
(cd "$build" && cpack -G DEB -B "$dir/debs") >"$dir/cpack.log" 2>&1 ||
	{
		cat "$dir/cpack.log" >&2
		fail "cpack failed"
	}

# deb NAME: the one package NAME_*.deb that cpack wrote.
deb() {
	local f=("$dir/debs/$1"_*.deb)
	[[ ${#f[@]} -eq 1 && -f ${f[0]} ]] || fail "expected one $1_*.deb in $dir/debs, found: ${f[*]}"
	printf '%s\n' "${f[0]}"
}
runtime_deb=$(deb npu-runtime)
npud_deb=$(deb npud)
dkms_deb=$(deb npu-dkms)
n=$(find "$dir/debs" -maxdepth 1 -name '*.deb' | wc -l)
[[ $n -eq 3 ]] || fail "cpack wrote $n packages, expected 3: $(ls "$dir/debs")"

# field DEB NAME: a control field.
field() { dpkg-deb -f "$1" "$2"; }
# expect_field DEB NAME REGEX
expect_field() {
	local v
	v=$(field "$1" "$2")
	[[ $v =~ $3 ]] || fail "$(basename "$1"): $2 is '$v', expected to match '$3'"
}

step "control fields"
version=$(field "$runtime_deb" Version)
[[ $version =~ ^[0-9][0-9.]*-[0-9]+$ ]] || fail "npu-runtime: version '$version'"
for d in "$npud_deb" "$dkms_deb"; do
	expect_field "$d" Version "^${version//./\\.}\$"
done
arch=$(dpkg --print-architecture)
expect_field "$runtime_deb" Package '^npu-runtime$'
expect_field "$runtime_deb" Architecture "^$arch\$"
expect_field "$runtime_deb" Depends '(^|, )libc6 \(>= '
expect_field "$runtime_deb" Depends '(^|, )libstdc\+\+6 \(>= '
expect_field "$runtime_deb" Depends '(^|, )liburing2 \(>= '
expect_field "$runtime_deb" Recommends "^npud \(= ${version//./\\.}\) \| npu-dkms \(= ${version//./\\.}\)\$"
expect_field "$npud_deb" Package '^npud$'
expect_field "$npud_deb" Architecture "^$arch\$"
expect_field "$npud_deb" Depends '(^|, )libfuse3-3 \(>= '
expect_field "$npud_deb" Depends '(^|, )adduser(,|$)'
expect_field "$npud_deb" Suggests "^npu-runtime \(= ${version//./\\.}\)\$"
expect_field "$dkms_deb" Package '^npu-dkms$'
expect_field "$dkms_deb" Architecture '^all$'
expect_field "$dkms_deb" Depends '^dkms$'
# npud and the DKMS sources do not need the runtime's library.
if field "$npud_deb" Depends | grep -q ascendcl; then fail "npud depends on libascendcl"; fi

step "maintainer scripts"
mkdir -p "$dir/control"
for d in "$runtime_deb" "$npud_deb" "$dkms_deb"; do
	dpkg-deb -e "$d" "$dir/control/$(field "$d" Package)"
done
c=$dir/control
grep -qx 'activate-noawait ldconfig' "$c/npu-runtime/triggers" || fail "npu-runtime: no ldconfig trigger"
grep -qx '/etc/ld.so.conf.d/npu-runtime.conf' "$c/npu-runtime/conffiles" ||
	fail "npu-runtime: its ld.so.conf.d file is not a conffile"
for s in npud/postinst npu-dkms/postinst npu-dkms/prerm; do
	[[ -x $c/$s ]] || fail "$s is missing or not executable"
	sh -n "$c/$s" || fail "$s: syntax error"
done
grep -q 'addgroup --quiet --system npu' "$c/npud/postinst" || fail "npud/postinst does not create group npu"

# The files and links of a package, without directories or the leading
# ".": `dpkg-deb -c` prints "perms owner size date time path[ -> target]".
list() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { p = $6; sub(/^\./, "", p); print p }'; }
list "$runtime_deb" >"$dir/runtime.list"
list "$npud_deb" >"$dir/npud.list"
list "$dkms_deb" >"$dir/dkms.list"
# has LIST PATH...: every PATH is in the package.
has() {
	local l=$1 p
	shift
	for p in "$@"; do
		grep -qxF "$p" "$dir/$l.list" || fail "$l package lacks $p"
	done
}
hasnt() {
	local l=$1 re=$2
	if grep -E "$re" "$dir/$l.list"; then fail "$l package has files matching $re (above)"; fi
}

step "file lists"
prefix=$(sed -n 's:/set_env\.sh$::p' "$dir/runtime.list")
[[ $prefix == /* && $(wc -l <<<"$prefix") -eq 1 ]] || fail "npu-runtime: no single set_env.sh ('$prefix')"
so=$(sed -n 's:^.*/lib64/\(libascendcl\.so\.[0-9][0-9.]*\)$:\1:p' "$dir/runtime.list" | sort | tail -n1)
[[ -n $so ]] || fail "npu-runtime: no versioned libascendcl.so.N.N.N"
has runtime "$prefix/lib64/libascendcl.so.0" "$prefix/lib64/libascendcl.so" "$prefix/lib64/$so" \
	"$prefix/lib64/libacl_rt.so" "$prefix/lib64/libacl_rt_impl.so" "$prefix/include/acl/acl.h" "$prefix/include/acl/acl_rt.h" \
	"$prefix/lib64/libmsprofiler.so" "$prefix/lib64/libprofapi.so" "$prefix/include/acl/acl_prof.h" \
	"$prefix/include/mstx/ms_tools_ext.h" "$prefix/include/profiling/aprof_pub.h" \
	"$prefix/lib64/libascend_dump.so" "$prefix/include/acl/acl_dump.h" \
	"$prefix/lib64/libc_sec.so" "$prefix/include/securec.h" "$prefix/include/securectype.h" \
	"$prefix/lib64/libopapi.so" "$prefix/lib64/libnnopbase.so" "$prefix/include/aclnnop/aclnn_add.h" \
	"$prefix/include/aclnnop/aclnn_mul.h" "$prefix/include/aclnn/acl_meta.h" \
	"$prefix/lib64/libacl_tdt_channel.so" "$prefix/lib64/libacl_tdt_queue.so" \
	"$prefix/include/acl/acl_tdt.h" "$prefix/include/acl/acl_tdt_queue.h" \
	"$prefix/include/acl/error_codes/rt_error_codes.h" "$prefix/include/ge/ge_error_codes.h" \
	"$prefix/include/npu/hal.h" "$prefix/include/npu/npu_uapi.h" \
	"$prefix/lib/cmake/ascendcl/ascendclConfig.cmake" \
	"$prefix/lib/cmake/ascendcl/ascendclConfigVersion.cmake" \
	"$prefix/lib/cmake/ascendcl/ascendclTargets.cmake" \
	"$prefix/lib64/pkgconfig/ascendcl.pc" "$prefix/bin/setenv.bash" \
	"$prefix/share/info/runtime/version.info" "$prefix/bin/npu-smi" "$prefix/bin/npu-bench" \
	/etc/ld.so.conf.d/npu-runtime.conf /usr/share/doc/npu-runtime/copyright
hasnt runtime 'npud|systemd|udev|^/usr/src'
has npud "$prefix/bin/npud" /lib/systemd/system/npud.service /lib/systemd/system/npud-cuse.service \
	/lib/udev/rules.d/70-npu.rules \
	/usr/share/doc/npud/copyright
hasnt npud "ascendcl|/include|^/usr/src|npu-smi|^$prefix/lib"
# The DKMS tree: dkms.conf, every source of kmod/ and the uapi header, and
# no build output.
dkms_dir=$(sed -n 's:/dkms\.conf$::p' "$dir/dkms.list")
[[ $dkms_dir =~ ^/usr/src/npu-([0-9][0-9.]*)$ ]] || fail "npu-dkms: dkms.conf at '$dkms_dir/dkms.conf'"
dkms_version=${BASH_REMATCH[1]}
has dkms "$dkms_dir/kmod/Kbuild" "$dkms_dir/kmod/Makefile" "$dkms_dir/uapi/npu/npu_uapi.h" \
	/usr/share/doc/npu-dkms/copyright
while IFS= read -r f; do
	has dkms "$dkms_dir/kmod/$(basename "$f")"
done < <(find "$repo/kmod" -maxdepth 1 \( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c')
hasnt dkms '\.(o|ko|mod|mod\.c|cmd|symvers)$|modules\.order$|^/opt|^/lib'
# No file is in two packages.
dup=$(sort "$dir/runtime.list" "$dir/npud.list" "$dir/dkms.list" | uniq -d)
[[ -z $dup ]] || fail "files in more than one package: $dup"

step "dpkg -x into $root"
for d in "$runtime_deb" "$npud_deb" "$dkms_deb"; do
	dpkg -x "$d" "$root"
done
R=$root$prefix
readelf -d "$R/lib64/libascendcl.so.0" | grep -q 'SONAME.*\[libascendcl\.so\.0\]' ||
	fail "libascendcl.so.0 has no SONAME libascendcl.so.0"
[[ $(readlink "$R/lib64/libascendcl.so.0") == "$so" ]] || fail "libascendcl.so.0 does not link to $so"
[[ $(cat "$root/etc/ld.so.conf.d/npu-runtime.conf") == "$prefix/lib64" ]] ||
	fail "ld.so.conf.d/npu-runtime.conf does not name $prefix/lib64"
for line in "ExecStartPre=+$prefix/bin/npud --fuse /run/npu/dev --mount-only" \
	"ExecStart=$prefix/bin/npud --fuse /run/npu/dev --devices 1" \
	"ExecStopPost=+$prefix/bin/npud --fuse /run/npu/dev --unmount"; do
	grep -qxF "$line" "$root/lib/systemd/system/npud.service" ||
		fail "npud.service has no line $line"
done
grep -Eq '@[A-Z_]+@' "$root/lib/systemd/system/npud.service" && fail "npud.service has an unsubstituted @VAR@"
grep -qx "ExecStart=$prefix/bin/npud --cuse --devices 1" "$root/lib/systemd/system/npud-cuse.service" ||
	fail "npud-cuse.service does not start $prefix/bin/npud"
grep -Eq '@[A-Z_]+@' "$root/lib/systemd/system/npud-cuse.service" && fail "npud-cuse.service has an unsubstituted @VAR@"
cmp -s "$repo/packaging/udev/70-npu.rules" "$root/lib/udev/rules.d/70-npu.rules" ||
	fail "70-npu.rules differs from packaging/udev/70-npu.rules"

step "DKMS tree $dkms_dir (version $dkms_version)"
T=$root$dkms_dir
grep -qx "PACKAGE_VERSION=\"$dkms_version\"" "$T/dkms.conf" ||
	fail "dkms.conf's PACKAGE_VERSION is not $dkms_version, the tree's version"
grep -qx "MODULE_VERSION(\"$dkms_version\");" "$T/kmod/npu_drv.c" ||
	fail "the module's MODULE_VERSION is not $dkms_version"
if [[ -z $kver ]]; then
	echo "no kernel version given: the module is not built from the DKMS tree"
elif [[ ! -d /lib/modules/$kver/build ]]; then
	fail "no headers for kernel $kver (/lib/modules/$kver/build)"
else
	# dkms.conf's MAKE[0] from the top of the tree, as DKMS runs it.
	step "dkms.conf's MAKE[0] for kernel $kver in the unpacked tree"
	(
		cd "$T"
		# shellcheck disable=SC2034  # read by dkms.conf
		kernelver=$kver kernel_source_dir=/lib/modules/$kver/build
		# shellcheck disable=SC1091
		source ./dkms.conf
		# shellcheck disable=SC2154  # set by dkms.conf
		MAKEFLAGS=-j$(nproc)
		export MAKEFLAGS
		eval "${MAKE[0]}" >"$dir/kmod.log" 2>&1 ||
			{
				cat "$dir/kmod.log" >&2
				exit 1
			}
		ko=$T/${BUILT_MODULE_LOCATION[0]}${BUILT_MODULE_NAME[0]}.ko
		[[ -f $ko ]] || fail "no $ko after the build"
		[[ $(modinfo -F vermagic "$ko") == "$kver "* ]] || fail "$ko: vermagic is not $kver"
		[[ $(modinfo -F version "$ko") == "$dkms_version" ]] || fail "$ko: version is not $dkms_version"
		echo "built $ko"
	) || fail "the module did not build from the DKMS tree"
fi

step "find_package(ascendcl CONFIG) against $R"
cmake -S "$src/consumer" -B "$dir/consumer" -DCMAKE_PREFIX_PATH="$R" >/dev/null
cmake --build "$dir/consumer" >/dev/null
NPU_DEVICE=inproc LD_LIBRARY_PATH=$R/lib64 "$dir/consumer/consumer"
step "pkg-config ascendcl against $R"
# shellcheck disable=SC2046  # pkg-config output is a list of words
cc -o "$dir/pkg-config-consumer" "$src/consumer/main.c" \
	$(PKG_CONFIG_PATH=$R/lib64/pkgconfig pkg-config --cflags --libs ascendcl)
readelf -d "$dir/pkg-config-consumer" | grep -q 'NEEDED.*\[libascendcl\.so\.0\]' ||
	fail "the pkg-config consumer does not need libascendcl.so.0"
NPU_DEVICE=inproc LD_LIBRARY_PATH=$R/lib64 "$dir/pkg-config-consumer"

step "the unpacked tools"
NPU_DEVICE=inproc "$R/bin/npu-smi" -L
NPU_DEVICE=inproc "$R/bin/npu-bench" --help >/dev/null
"$R/bin/npud" --help >/dev/null

if [[ $(id -u) -eq 0 && -c /dev/fuse ]]; then
	step "the Docker HEALTHCHECK against the unpacked npud --fuse"
	trap npud_cleanup EXIT
	hc=$repo/packaging/docker/healthcheck.sh
	npud_start "$R/bin/npud" "$dir/fuse-mnt"
	NPU_SMI=$R/bin/npu-smi timeout 30 sh "$hc" fuse "$dir/fuse-mnt" ||
		fail "healthcheck.sh fuse: unhealthy while npud serves $dir/fuse-mnt"
	npud_stop
	if NPU_SMI=$R/bin/npu-smi timeout 30 sh "$hc" fuse "$dir/fuse-mnt" 2>/dev/null; then
		fail "healthcheck.sh fuse: healthy after npud stopped"
	fi
	trap - EXIT
else
	echo "not root or no /dev/fuse: the HEALTHCHECK is not run against npud --fuse"
fi

step "plain cmake --install stays in its prefix"
DESTDIR=$dir/destdir cmake --install "$build" --prefix /p >/dev/null
outside=$(cd "$dir/destdir" && find . -mindepth 1 -maxdepth 1 ! -name p)
[[ -z $outside ]] || fail "cmake --install wrote outside its prefix: $outside"
for unit in npud npud-cuse; do
	[[ -f $dir/destdir/p/lib/systemd/system/$unit.service ]] ||
		fail "cmake --install lost $unit.service"
done
# Everything a plain install has is packaged (an install() rule without a
# packaged component would be missing from the packages), but the units
# inside the prefix, whose packaged twins are /lib/systemd/system's.
unpackaged=$(cd "$dir/destdir/p" && find . ! -type d | sed 's:^\.::' |
	grep -v -x -e /lib/systemd/system/npud.service -e /lib/systemd/system/npud-cuse.service |
	while IFS= read -r f; do
		grep -qxF "$prefix$f" "$dir/runtime.list" "$dir/npud.list" || printf '%s\n' "$f"
	done)
[[ -z $unpackaged ]] || fail "installed by cmake --install but in no package: $unpackaged"

rm -rf "$dir"
echo "Debian packages: all checks passed"
