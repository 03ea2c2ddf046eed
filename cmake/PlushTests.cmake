# plush_discover_tests(TARGET LABEL): registers a gtest executable's tests
# with `LABEL` (one of default, default+sanitize, default+concurrency,
# default+sanitize+concurrency), and makes the aggregate targets that the
# sanitizer builds build depend on it: the ASan and TSan builds compile
# only what their `ctest -L` runs select (plush_sanitize_tests,
# plush_concurrency_tests; see the Makefile).
add_custom_target(plush_sanitize_tests)
add_custom_target(plush_concurrency_tests)

function(plush_discover_tests target label)
  gtest_discover_tests(${target} ${ARGN} PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
  if(label MATCHES "sanitize")
    add_dependencies(plush_sanitize_tests ${target})
  endif()
  if(label MATCHES "concurrency")
    add_dependencies(plush_concurrency_tests ${target})
  endif()
endfunction()
