# SPDX-License-Identifier: MIT
# ascendc.cmake of this install, where CANN keeps the AscendC kernel build
# rules (<root>/<arch>-linux/tikcpp/ascendc_kernel_cmake, the directory
# CANN's sample scripts export as ASCENDC_CMAKE_DIR). CANN sample projects
# include it whether or not they build a kernel:
#   include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)
# Host programs configure and build unchanged with it. This runtime drives
# an emulated memory device: it copies and sets memory but has no AI Core to
# run kernels, and the install has no kernel compiler. So the functions that
# build device kernels stop the configure and say so, rather than leaving a
# project to fail later on an unknown command or a missing kernel.
include_guard(GLOBAL)

if(SOC_VERSION)
  message(STATUS "ascendc.cmake: SOC_VERSION ${SOC_VERSION}; host programs only "
                 "(emulated memory device, no device kernels)")
else()
  message(STATUS "ascendc.cmake: host programs only (emulated memory device, no device kernels)")
endif()

# _npu_ascendc_unsupported FUNCTION ARGS...: the error of every kernel rule.
function(_npu_ascendc_unsupported fn)
  string(REPLACE ";" " " args "${ARGN}")
  message(FATAL_ERROR
    "${fn}(${args}): device kernels are not supported by this runtime. It runs "
    "CANN programs on an emulated memory device, which executes memory operations "
    "(copies, sets) but no AscendC kernels, and this install has no kernel compiler. "
    "Host programs that include ascendc.cmake build; to build this project's "
    "kernels, use a CANN toolkit with the AscendC compiler.")
endfunction()

# ascendc_library(<target> STATIC|SHARED <kernel sources>...): kernels
# compiled for <<<>>> launches.
function(ascendc_library)
  _npu_ascendc_unsupported(ascendc_library ${ARGN})
endfunction()

# ascendc_fatbin_library(<target> <kernel sources>...): a device binary
# loaded at run time (aclrtBinaryLoadFromFile).
function(ascendc_fatbin_library)
  _npu_ascendc_unsupported(ascendc_fatbin_library ${ARGN})
endfunction()
