# SPDX-License-Identifier: MIT
# Build a sample the way a CANN application is built: install the project
# to a prefix, configure the sample's own CMakeLists.txt against it with
# -DASCEND_HOME, build it, and run it with the library from the prefix.
#
#   cmake -DNPU_BUILD_DIR=<main build> -DSAMPLE_SOURCE_DIR=<samples/x>
#         -DWORK_DIR=<scratch dir> -P out_of_tree.cmake

foreach(var NPU_BUILD_DIR SAMPLE_SOURCE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "out_of_tree.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}")
  endif()
  message("${out}")
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

run(${CMAKE_COMMAND} --install ${NPU_BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${SAMPLE_SOURCE_DIR} -B ${build} -DASCEND_HOME=${prefix})
run(${CMAKE_COMMAND} --build ${build})
run(${CMAKE_COMMAND} -E env NPU_DEVICE=inproc LD_LIBRARY_PATH=${prefix}/lib64 ${build}/main)
