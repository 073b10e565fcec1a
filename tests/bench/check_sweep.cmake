# SPDX-License-Identifier: MIT
# Smoke check of npu-bench --sweep on a tiny range: it must write DIR/sweep.csv
# with the header and one row per size and series (4 KiB and 16 KiB, five
# series each), every bandwidth positive. Timings are never judged.
#
#   cmake -DBENCH=<path to npu-bench> -DDIR=<scratch directory> -P check_sweep.cmake

if(NOT BENCH OR NOT DIR)
  message(FATAL_ERROR "usage: cmake -DBENCH=<npu-bench> -DDIR=<dir> -P check_sweep.cmake")
endif()

file(REMOVE_RECURSE ${DIR})
execute_process(COMMAND ${BENCH} --sweep=${DIR} --sweep-max 16K
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "npu-bench --sweep exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT EXISTS ${DIR}/sweep.csv)
  message(FATAL_ERROR "npu-bench --sweep wrote no ${DIR}/sweep.csv\nstdout:\n${out}")
endif()

file(STRINGS ${DIR}/sweep.csv lines)
list(LENGTH lines n)
list(GET lines 0 header)
set(want "size_bytes,direction,host_memory,rounds,median_gbps,p10_gbps,p90_gbps,memcpy_median_gbps,ratio_to_memcpy")
if(NOT header STREQUAL want)
  message(FATAL_ERROR "sweep.csv header is\n  ${header}\nnot\n  ${want}")
endif()
if(NOT n EQUAL 11)
  message(FATAL_ERROR "sweep.csv has ${n} lines, not the header and 10 rows:\n${lines}")
endif()
list(REMOVE_AT lines 0)
set(seen "")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^(4096|16384),(H2D|D2H|D2D),(pageable|pinned|-),[0-9]+,([0-9.]+),([0-9.]+),([0-9.]+),([0-9.]+),[0-9.]+$")
    message(FATAL_ERROR "malformed sweep.csv row: ${line}")
  endif()
  foreach(v ${CMAKE_MATCH_4} ${CMAKE_MATCH_5} ${CMAKE_MATCH_6} ${CMAKE_MATCH_7})
    if(NOT v GREATER 0)
      message(FATAL_ERROR "a bandwidth is not positive in: ${line}")
    endif()
  endforeach()
  list(APPEND seen "${CMAKE_MATCH_1}-${CMAKE_MATCH_2}-${CMAKE_MATCH_3}")
endforeach()
list(REMOVE_DUPLICATES seen)
list(LENGTH seen distinct)
if(NOT distinct EQUAL 10)
  message(FATAL_ERROR "sweep.csv repeats a (size, direction, host memory) row: ${seen}")
endif()
message(STATUS "npu-bench --sweep: ${DIR}/sweep.csv has the header and 10 rows")
