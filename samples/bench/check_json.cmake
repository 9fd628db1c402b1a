# Runs dfm_bench at a tiny size on the CPU and checks that its JSON is complete: every run has
# every documented field, the numbers are finite and positive, and the grasp held in every
# environment (the warmup reaches 0.37 s into the lift), with every reaction within the force bound.
include(${CMAKE_CURRENT_LIST_DIR}/bench_run_json.cmake)
bench_run_json(2 --backend cpu --envs 2 --steps 2 --windows 3 --warmup 40 --quiet)
set(nruns 2) # cloth-lift and soft-lift
math(EXPR last "${nruns} - 1")
foreach(i RANGE 0 ${last})
  foreach(field envs particles elements colors substeps iterations env_steps_per_s wall_ms_per_env_step
                wall_ms_per_step contacts_capacity)
    string(JSON v GET "${json}" runs ${i} ${field})
    if(NOT v GREATER 0)
      message(FATAL_ERROR "run ${i}: ${field} = '${v}' is not a positive number")
    endif()
  endforeach()
  string(JSON held GET "${json}" runs ${i} grasp_held_envs)
  string(JSON envs GET "${json}" runs ${i} envs)
  if(NOT held EQUAL envs)
    message(FATAL_ERROR "run ${i}: the grasp held in ${held} of ${envs} environments")
  endif()
  foreach(field workload backend contacts_active contacts_dropped device_memory_bytes phase_ms_per_env_step
                reaction_peak_pad_vertical_w)
    string(JSON t TYPE "${json}" runs ${i} ${field})
  endforeach()
  # The force bound (docs/bench.md, force_bound_worst in main.c): every bounded reaction within it,
  # and no shape pulled toward the body (a 0.01-weight tolerance for float noise at contact onset).
  string(JSON worst GET "${json}" runs ${i} force_bound_worst)
  string(JSON push GET "${json}" runs ${i} reaction_min_push_w)
  if(NOT worst LESS_EQUAL 1.0)
    message(FATAL_ERROR "run ${i}: a reaction reached ${worst} of its force bound")
  endif()
  if(push LESS -0.01)
    message(FATAL_ERROR "run ${i}: a shape was pulled toward the body (${push} weights)")
  endif()
  string(JSON npeaks LENGTH "${json}" runs ${i} reaction_peak_w)
  if(NOT npeaks EQUAL 4)
    message(FATAL_ERROR "run ${i}: reaction_peak_w has ${npeaks} entries, not 4 (table, pads, palm)")
  endif()
endforeach()
message(STATUS "bench JSON complete: ${nruns} runs")
