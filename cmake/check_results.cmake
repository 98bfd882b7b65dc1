# check_results.cmake - the size rule of bench/README.md ("Keeping
# results"), as a test (tests/CMakeLists.txt: test_results_size; by hand:
#   cmake -DEM_SOURCE_DIR=. -P cmake/check_results.cmake).
# In bench/results/ a file that is not Markdown (the README and the tables
# that quote the figures) nor a folder's raw.tar.xz holds at most 100
# lines; longer raw material (logs, emsolve's summary.json of a run, build
# and ctest output) goes into the folder's raw.tar.xz
# (scripts/pack-results.sh), so the repository's text is the code and the
# summaries, not the logs.
if(NOT EM_SOURCE_DIR)
  message(FATAL_ERROR "check_results.cmake: set EM_SOURCE_DIR")
endif()
get_filename_component(EM_SOURCE_DIR ${EM_SOURCE_DIR} ABSOLUTE)
set(max 100)
set(over 0)
file(GLOB_RECURSE files ${EM_SOURCE_DIR}/bench/results/*)
foreach(f ${files})
  if(f MATCHES "\\.md$" OR f MATCHES "/raw\\.tar\\.xz$")
    continue()
  endif()
  file(READ ${f} text)
  string(REGEX MATCHALL "\n" nl "${text}")
  list(LENGTH nl n)
  if(n GREATER max)
    file(RELATIVE_PATH rf ${EM_SOURCE_DIR} ${f})
    message(SEND_ERROR "${rf}: ${n} lines of raw results, more than ${max}: "
                       "scripts/pack-results.sh moves it into its folder's raw.tar.xz")
    math(EXPR over "${over} + 1")
  endif()
endforeach()
if(over)
  message(FATAL_ERROR "${over} raw result file(s) over ${max} lines (bench/README.md)")
endif()
message(STATUS "bench/results: every raw file within ${max} lines")
