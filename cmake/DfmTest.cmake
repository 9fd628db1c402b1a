# dfm_add_test(<name> SOURCES <files...> LABELS <labels...> [LIBS <targets...>] [ARGS <args...>] [INTERNAL])
#
# Builds one test executable and registers it with CTest. A test returns 77 to report "skipped"
# (e.g. a GPU test on a machine without a GPU). INTERNAL links the static library that exposes the
# private plugin/kernel symbols; otherwise the test links the public shared library only.
function(dfm_add_test name)
  cmake_parse_arguments(T "INTERNAL" "" "SOURCES;LABELS;LIBS;ARGS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  target_link_libraries(${name} PRIVATE dfm_scenes) # first: it calls the dfm linked below
  if(T_INTERNAL)
    target_link_libraries(${name} PRIVATE dfm_internal ${T_LIBS})
  else()
    target_link_libraries(${name} PRIVATE dfm::dfm ${T_LIBS})
  endif()
  target_link_libraries(${name} PRIVATE m)
  dfm_set_warnings(${name})
  add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()
