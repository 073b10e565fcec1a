# SPDX-License-Identifier: MIT
# Injected by scripts/vm/run.sh (CMAKE_PROJECT_INCLUDE) into the build of the guest's
# static npud: every find_library, including the ones behind pkg_check_modules'
# imported targets, then picks lib*.a, so "-static" links libfuse3.a instead of
# failing on libfuse3.so.
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
