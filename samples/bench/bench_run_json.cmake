# Shared by the bench checks (check_*.cmake): bench_run_json(<expected runs> <dfm_bench args...>)
# runs ${BENCH} with the arguments and --json ${OUT}, fails on a non-zero exit or a run count other
# than expected, and leaves the file's text in `json` in the caller's scope.
function(bench_run_json expected_runs)
  execute_process(COMMAND ${BENCH} ${ARGN} --json ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout
                  ERROR_VARIABLE stderr)
  message("${stdout}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dfm_bench failed (${rc}): ${stderr}")
  endif()
  file(READ ${OUT} text)
  string(JSON nruns LENGTH "${text}" runs)
  if(NOT nruns EQUAL expected_runs)
    message(FATAL_ERROR "expected ${expected_runs} run(s), got ${nruns}")
  endif()
  set(json "${text}" PARENT_SCOPE)
endfunction()
