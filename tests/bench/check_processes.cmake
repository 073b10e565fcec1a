# SPDX-License-Identifier: MIT
# Smoke check of npu-bench --processes=1,2 --json: one JSON object with,
# for each count, aggregate copies per second and the p99 latencies, all
# positive, and the worst process's p99 no lower than the median one's.
#
#   cmake -DBENCH=<path to npu-bench> -P check_processes.cmake

if(NOT BENCH)
  message(FATAL_ERROR "usage: cmake -DBENCH=<npu-bench> -P check_processes.cmake")
endif()

execute_process(COMMAND ${BENCH} --processes=1,2 --json
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "npu-bench exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
foreach(n 1 2)
  foreach(key procs_${n}_copies_per_s procs_${n}_p99_us procs_${n}_p99_max_us)
    string(JSON value ERROR_VARIABLE json_err GET "${out}" ${key})
    if(json_err OR NOT value GREATER 0)
      message(FATAL_ERROR "key \"${key}\" missing or not positive (${json_err}):\n${out}")
    endif()
  endforeach()
  string(JSON med GET "${out}" procs_${n}_p99_us)
  string(JSON max GET "${out}" procs_${n}_p99_max_us)
  if(max LESS med)
    message(FATAL_ERROR "the worst p99 of ${n} processes is below their median p99:\n${out}")
  endif()
endforeach()
message(STATUS "npu-bench --processes: ${out}")
