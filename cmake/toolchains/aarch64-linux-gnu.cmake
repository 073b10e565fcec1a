# SPDX-License-Identifier: MIT
# Cross build for 64-bit Arm Linux with Debian's cross compilers
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu), the target's libraries
# from Debian multiarch (libcmocka-dev:arm64, liburing-dev:arm64; see
# ensure_aarch64_cross in scripts/lib/common.sh), and ctest running every
# test program under qemu-user (package qemu-user):
#
#   cmake -S . -B build-aarch64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DNPU_NPUD=OFF
#   cmake --build build-aarch64 -j
#   ctest --test-dir build-aarch64 -L unit
#
# -DNPU_NPUD=OFF leaves out npud and its libfuse3; with libfuse3-dev:arm64
# installed, npud cross-builds too.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(NPU_CROSS_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${NPU_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${NPU_CROSS_TRIPLET}-g++)

# The programs run with the cross toolchain's loader, libc and libstdc++
# (/usr/aarch64-linux-gnu/lib): -L makes qemu-aarch64 look for the loader
# and every path the loader opens under that prefix first, then on the
# host, where it finds the multiarch libraries (/usr/lib/aarch64-linux-gnu).
# The multiarch libraries pull in libc6:arm64, whose libc.so.6 the loader
# finds (in /lib/aarch64-linux-gnu) before its own; a libc of another build
# than the loader's corrupts the loader's state (pthread_create then loops
# forever), hence LD_LIBRARY_PATH for the programs: the cross libc first.
# NPU_TEST_QEMU_USER tells the tests that measure the process itself that
# what they would see is qemu's: its RSS, and its speed against a deadline.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/${NPU_CROSS_TRIPLET}
  -E LD_LIBRARY_PATH=/usr/${NPU_CROSS_TRIPLET}/lib -E NPU_TEST_QEMU_USER=1)

# pkg-config reads the target's .pc files only (the host's would name
# x86_64 libraries). The environment is what FindPkgConfig passes on.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${NPU_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

set(CMAKE_FIND_ROOT_PATH /usr/${NPU_CROSS_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
