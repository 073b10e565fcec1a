# SPDX-License-Identifier: MIT
# Smoke check of npu-bench: run it with --json --quick and make sure the
# output is one JSON object carrying every key the benchmark promises, with
# a positive number for each measurement. Timing values are never judged.
#
#   cmake -DBENCH=<path to npu-bench> -P check_json.cmake

if(NOT BENCH)
  message(FATAL_ERROR "usage: cmake -DBENCH=<npu-bench> -P check_json.cmake")
endif()

execute_process(COMMAND ${BENCH} --json --quick
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "npu-bench exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()

string(JSON type ERROR_VARIABLE json_err TYPE "${out}")
if(json_err OR NOT type STREQUAL "OBJECT")
  message(FATAL_ERROR "npu-bench --json did not print a JSON object (${json_err}):\n${out}")
endif()

string(JSON backend ERROR_VARIABLE json_err GET "${out}" backend)
string(JSON backend_type ERROR_VARIABLE json_err TYPE "${out}" backend)
if(json_err OR NOT backend_type STREQUAL "STRING" OR backend STREQUAL "")
  message(FATAL_ERROR "key \"backend\" missing or not a non-empty string:\n${out}")
endif()

set(numbers
  copy_h2d_64m_ratio copy_d2h_64m_ratio copy_d2d_64m_ratio
  copy_h2d_64m_pvm_ratio copy_d2h_64m_pvm_ratio
  memcpy_64m_gbps copy_h2d_64m_gbps copy_d2h_64m_gbps copy_d2d_64m_gbps
  pvm_readv_64m_gbps pvm_writev_64m_gbps
  malloc_free_2m_us memcpy_4k_us ioctl_floor_us
  ipc_import_us vmm_map_unmap_2m_us
  async_small_copies_per_s syscalls_per_async_op
  pinned_h2d_64m_ratio multistream_h2d_64m_ratio multistream_vs_one_64m_ratio
  memcpy_split_64m_ratio async_memcpy_64m_gbps
  scrub_alloc_2m_us release_2m_us
  malloc_free_4k_1m_live_ratio memcpy_4k_1m_live_ratio memcpy_4k_p99_us memcpy_4k_p99_ratio populate_4k_us
  memcpy_4k_random_1m_live_ratio first_touch_2m_us
  memcpy_4k_random_us memcpy_4k_random_floor_ratio memcpy_4k_random_floor_us
  memcpy_4k_random_vs_floor_ratio
  check_off_small_copies_per_s check_mem_init_leak_cost_ratio check_all_cost_ratio
  scale_live_allocations hbm_backing_after_free_mb
  spsc_ring_floor_per_s async_small_vs_spsc_ratio
  iters_64m iters_malloc_free_2m iters_memcpy_4k iters_ioctl_floor)
set(may_be_zero syscalls_per_async_op)
foreach(key IN LISTS numbers)
  string(JSON key_type ERROR_VARIABLE json_err TYPE "${out}" ${key})
  if(json_err OR NOT key_type STREQUAL "NUMBER")
    message(FATAL_ERROR "key \"${key}\" missing or not a number:\n${out}")
  endif()
  string(JSON value GET "${out}" ${key})
  # A count that a good run drives to zero may be zero; the rest must be > 0.
  list(FIND may_be_zero ${key} zero_ok)
  if(zero_ok GREATER -1)
    if(value LESS 0)
      message(FATAL_ERROR "key \"${key}\" is ${value}, expected >= 0:\n${out}")
    endif()
  elseif(NOT value GREATER 0)
    message(FATAL_ERROR "key \"${key}\" is ${value}, expected > 0:\n${out}")
  endif()
endforeach()
# npud against in-process (bench_fuse.c): there when npu-bench could reach
# or start an npud (FUSE needs root), all of them or none, each > 0.
set(fuse_numbers
  memcpy_4k_inproc_us memcpy_4k_fuse_us memcpy_4k_fuse_ring_enter_us
  memcpy_4k_fuse_vs_inproc_ratio memcpy_4k_pinned_fuse_vs_inproc_ratio sync_empty_stream_inproc_us sync_empty_stream_fuse_us
  sync_empty_stream_fuse_vs_inproc_ratio async_small_fuse_vs_spsc_ratio)
string(JSON key_type ERROR_VARIABLE json_err TYPE "${out}" memcpy_4k_fuse_vs_inproc_ratio)
if(json_err)
  message(STATUS "npu-bench --json: no npud to compare with (${err})")
else()
  foreach(key IN LISTS fuse_numbers)
    string(JSON key_type ERROR_VARIABLE json_err TYPE "${out}" ${key})
    if(json_err OR NOT key_type STREQUAL "NUMBER")
      message(FATAL_ERROR "key \"${key}\" missing or not a number:\n${out}")
    endif()
    string(JSON value GET "${out}" ${key})
    if(NOT value GREATER 0)
      message(FATAL_ERROR "key \"${key}\" is ${value}, expected > 0:\n${out}")
    endif()
  endforeach()
endif()
message(STATUS "npu-bench --json: all keys present (backend ${backend})")
