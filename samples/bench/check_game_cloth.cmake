# Runs dfm_bench's game-cloth workload small on the CPU (a 10 x 10 cloth, 2 threads) and checks its
# JSON: one run with the fields of the issue-18 CPU figures (res, hz, cpu_threads, ms per step),
# and a scene that did what it describes: after 0.5 s the cloth has fallen from 5.2 cm (its start
# height) and lies on the table, its lowest vertex at the contact radius above the top (z = 0,
# within 1.5 mm: not sunk through it, not hovering) and its centroid below 2 cm (draped).
include(${CMAKE_CURRENT_LIST_DIR}/bench_run_json.cmake)
bench_run_json(1 --workload game-cloth --backend cpu --envs 1 --res 10 --threads 2 --steps 2
               --windows 1 --warmup 30 --quiet)
string(JSON workload GET "${json}" runs 0 workload)
string(JSON res GET "${json}" runs 0 res)
string(JSON hz GET "${json}" runs 0 hz)
string(JSON threads GET "${json}" runs 0 cpu_threads)
if(NOT workload STREQUAL "game-cloth" OR NOT res EQUAL 10 OR NOT hz EQUAL 60 OR NOT threads EQUAL 2)
  message(FATAL_ERROR "run: workload ${workload}, res ${res}, hz ${hz}, cpu_threads ${threads}")
endif()
foreach(field particles wall_ms_per_step env_steps_per_s contacts_active)
  string(JSON v GET "${json}" runs 0 ${field})
  if(NOT v GREATER 0)
    message(FATAL_ERROR "${field} = '${v}' is not a positive number")
  endif()
endforeach()
string(JSON zmin GET "${json}" runs 0 body_min_z_m)
string(JSON zc GET "${json}" runs 0 body_centroid_z_m)
# contact radius 0.002 m (dfm_cloth_def_default): the resting vertices sit there
if(zmin LESS 0.0005 OR zmin GREATER 0.0035)
  message(FATAL_ERROR "the cloth's lowest vertex is at z = ${zmin} m, not resting on the table top")
endif()
if(NOT zc LESS 0.02)
  message(FATAL_ERROR "the cloth's centroid is at z = ${zc} m: it did not drape")
endif()
message(STATUS "game-cloth JSON complete; cloth lowest vertex ${zmin} m, centroid ${zc} m")
