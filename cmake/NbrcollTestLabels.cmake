# nbrcoll_discover_tests(TARGET [PREFIX p] [SLOW gtest-filter] LABELS l... [PROPERTIES k v ...])
# gtest_discover_tests with labels: every test of TARGET gets LABELS, and
# "quick" too unless it matches SLOW (a gtest filter, "A.b:C.*"). The labels
# are set by a file ctest reads after the discovered list: gtest_discover_tests
# of CMake 3.25 splits a list-valued property into separate words.
function(nbrcoll_discover_tests target)
  cmake_parse_arguments(D "" "PREFIX;SLOW" "LABELS;PROPERTIES" ${ARGN})
  set(common DISCOVERY_TIMEOUT 60)
  if(D_PREFIX)
    list(APPEND common TEST_PREFIX ${D_PREFIX})
  endif()
  if(D_PROPERTIES)
    list(APPEND common PROPERTIES ${D_PROPERTIES})
  endif()
  # One name per call (a target may be discovered once per prefix).
  string(MAKE_C_IDENTIFIER "${target}_${D_PREFIX}" key)
  set(file ${CMAKE_CURRENT_BINARY_DIR}/${key}_labels.cmake)
  set(fast "${D_LABELS};quick")
  if(D_SLOW)
    gtest_discover_tests(${target} ${common} TEST_FILTER "-${D_SLOW}" TEST_LIST ${key}_fast)
    gtest_discover_tests(${target} ${common} TEST_FILTER "${D_SLOW}" TEST_LIST ${key}_slow)
    file(WRITE ${file} "set_tests_properties(\${${key}_fast} PROPERTIES LABELS \"${fast}\")\n"
                       "set_tests_properties(\${${key}_slow} PROPERTIES LABELS \"${D_LABELS}\")\n")
  else()
    gtest_discover_tests(${target} ${common} TEST_LIST ${key}_fast)
    file(WRITE ${file} "set_tests_properties(\${${key}_fast} PROPERTIES LABELS \"${fast}\")\n")
  endif()
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()
