# Runs mpi_cloth_lift with 1 rank (all environments) and with 2 ranks (half each) on the CPU and
# checks that both report the same totals: environments, particles and active contacts
# (environments are isolated, so partitioning must not change them).
file(MAKE_DIRECTORY ${OUT})
set(flags --allow-run-as-root --oversubscribe)
foreach(n 1 2)
  execute_process(COMMAND ${MPIEXEC} ${flags} -n ${n} ${PROG} --envs 4 --steps 3 --warmup 3 --backend cpu
                          --json ${OUT}/ranks${n}.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${n} rank(s):\n${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mpirun -n ${n} failed (${rc}): ${err}")
  endif()
  file(READ ${OUT}/ranks${n}.json json${n})
endforeach()
foreach(field envs particles contacts_active)
  string(JSON a GET "${json1}" runs 0 ${field})
  string(JSON b GET "${json2}" runs 0 ${field})
  if(NOT a EQUAL b)
    message(FATAL_ERROR "${field}: 1 rank reports ${a}, 2 ranks report ${b}")
  endif()
  message(STATUS "${field}: ${a} with 1 rank and with 2 ranks")
endforeach()
